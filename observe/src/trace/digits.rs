//! Numbers as text, for the lines (`line.rs`): their digit counts, and
//! their digits written two at a time from a table, backwards from where
//! they end, straight into the line's room.

pub(crate) const HEX: &[u8; 16] = b"0123456789abcdef";

/// `"00"` to `"99"`, two bytes each.
static DEC2: [u8; 200] = {
    let mut t = [0; 200];
    let mut i = 0;
    while i < 100 {
        t[2 * i] = b'0' + (i / 10) as u8;
        t[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
};

/// `"000"` to `"999"`, three bytes each.
static DEC3: [u8; 3000] = {
    let mut t = [0; 3000];
    let mut i = 0;
    while i < 1000 {
        t[3 * i] = b'0' + (i / 100) as u8;
        t[3 * i + 1] = b'0' + (i / 10 % 10) as u8;
        t[3 * i + 2] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
};

/// `"00"` to `"ff"`, two bytes each.
static HEX2: [u8; 512] = {
    let mut t = [0; 512];
    let mut i = 0;
    while i < 256 {
        t[2 * i] = HEX[i >> 4];
        t[2 * i + 1] = HEX[i & 15];
        i += 1;
    }
    t
};

/// 10 to the power of the index.
const POW10: [u64; 20] = {
    let mut t = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// The number of decimal digits of `n` (a compare each: the fields of a
/// trace line are mostly short numbers).
pub(crate) fn dec_len(n: u64) -> usize {
    let mut nd = 1;
    while POW10.get(nd).is_some_and(|&p| n >= p) {
        nd += 1;
    }
    nd
}

/// The number of hexadecimal digits of `n`.
pub(crate) fn hex_len(n: u64) -> usize {
    (64 - (n | 1).leading_zeros() as usize).div_ceil(4)
}

/// Writes the decimal digits of `n` (`dec_len(n)` of them) to end at `end`,
/// two at a time. The divisions are by a constant: multiplications.
///
/// # Safety
/// `dec_len(n)` bytes before `end` are writable.
pub(crate) unsafe fn put_dec(mut end: *mut u8, mut n: u64) {
    // SAFETY (each write): the digits fill exactly `dec_len(n)` bytes
    // before `end`; the table offsets are below 200.
    unsafe {
        while n >= 100 {
            let r = (n % 100) as usize;
            n /= 100;
            end = end.sub(2);
            core::ptr::copy_nonoverlapping(DEC2.as_ptr().add(2 * r), end, 2);
        }
        if n >= 10 {
            core::ptr::copy_nonoverlapping(DEC2.as_ptr().add(2 * n as usize), end.sub(2), 2);
        } else {
            *end.sub(1) = b'0' + n as u8;
        }
    }
}

/// Writes `n` (a `tv_nsec`, below 10^9; a larger one is written as
/// 999999999) as exactly nine decimal digits, with leading zeros, at `at`:
/// three groups of three from a table.
///
/// # Safety
/// 9 bytes at `at` are writable.
pub(crate) unsafe fn put_9(at: *mut u8, n: u64) {
    let n = n.min(999_999_999) as usize;
    let groups = [n / 1_000_000, n / 1000 % 1000, n % 1000];
    for (k, g) in groups.into_iter().enumerate() {
        // SAFETY: each group is below 1000, so its 3 bytes are in the
        // table; they go to [at + 3k, at + 3k + 3), inside the 9 bytes.
        unsafe { core::ptr::copy_nonoverlapping(DEC3.as_ptr().add(3 * g), at.add(3 * k), 3) };
    }
}

/// Writes the hexadecimal digits of `n` (`hex_len(n)` of them) to end at
/// `end`, two at a time.
///
/// # Safety
/// `hex_len(n)` bytes before `end` are writable.
pub(crate) unsafe fn put_hex(mut end: *mut u8, mut n: u64) {
    // SAFETY (each write): the digits fill exactly `hex_len(n)` bytes
    // before `end`; the table offsets are below 512.
    unsafe {
        while n >= 0x100 {
            end = end.sub(2);
            core::ptr::copy_nonoverlapping(HEX2.as_ptr().add(2 * (n & 0xff) as usize), end, 2);
            n >>= 8;
        }
        if n >= 0x10 {
            core::ptr::copy_nonoverlapping(HEX2.as_ptr().add(2 * n as usize), end.sub(2), 2);
        } else {
            *end.sub(1) = HEX[n as usize];
        }
    }
}
