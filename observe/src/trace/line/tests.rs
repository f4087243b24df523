//! The lines' unit tests: numbers as `core::fmt` writes them, a trace
//! line's start, and every piece of a line at every length near the end of
//! its room (the line is what it would have been, cut to `MAX - 1` bytes,
//! and a newline; a time's nanoseconds, which are nine digits or nothing,
//! whole or not at all).

use super::*;

#[test]
fn line_is_cut_not_overrun() {
    let mut r = room();
    let mut l = Line::on(&mut r);
    for _ in 0..100 {
        l.push(b"0123456789");
    }
    assert_eq!(l.len, MAX - 1);
    l.hex(b"", u64::MAX);
    l.dec(b"", 12345);
    assert_eq!(l.finish().len(), MAX);
    // Finished twice, or pushed to after finishing: still inside.
    assert_eq!(l.finish().len(), MAX);
    l.push(b"more");
    assert_eq!(l.len, MAX - 1);
    assert_eq!(l.finish().len(), MAX);
    let mut r = room();
    let mut l = Line::on(&mut r);
    l.push(&[b'a'; MAX - 4]);
    l.dec(b"", 123456);
    l.hex(b"", 0xabc);
    assert_eq!(l.finish(), [&[b'a'; MAX - 4][..], b"123\n"].concat());
}

#[test]
fn numbers() {
    let mut r = room();
    let mut l = Line::on(&mut r);
    l.dec(b"a=", -42);
    l.hex(b" b=", 0xbeef);
    l.dec(b" c=", i64::MIN);
    l.right(7, 3);
    l.hex(b" d=", 0);
    l.hex(b" e=", 0xf);
    l.hex(b" f=", u64::MAX);
    l.hex(b" g=", 0x1fff000530);
    l.dec(b" h=", 0);
    l.dec(b" i=", 9);
    l.dec(b" j=", 10);
    l.dec(b" k=", 100);
    l.right(u64::MAX, 3);
    assert_eq!(
        l.finish(),
        &b"a=-42 b=0xbeef c=-9223372036854775808  7 d=0x0 e=0xf f=0xffffffffffffffff \
           g=0x1fff000530 h=0 i=9 j=10 k=10018446744073709551615\n"[..]
    );
}

#[test]
fn every_number_as_core_fmt_writes_it() {
    let mut n: u64 = 1;
    for _ in 0..200 {
        for v in [n.wrapping_sub(1), n, n.wrapping_add(1), n.wrapping_mul(7)] {
            let mut r = room();
            let mut l = Line::on(&mut r);
            l.dec(b"", v as i64);
            l.hex(b" ", v);
            let want = format!("{} {:#x}", v as i64, v);
            assert_eq!(l.text(), want.as_bytes());
        }
        n = n.wrapping_mul(3).wrapping_add(1);
    }
}

#[test]
fn trace_line_start() {
    let me = crate::thread::Thread::for_tests();
    let mut r = room();
    let mut l = Line::on(&mut r);
    let t = libc::timespec {
        tv_sec: 12345,
        tv_nsec: 6_007,
    };
    l.begin(&me, Func::GetRecvCompTimeout, &t);
    l.push(b" x");
    let tid = unsafe { libc::gettid() };
    let want = format!("rdmaverbs[{tid}]: rdma_get_recv_comp_timeout t=12345.000006007 x");
    assert_eq!(l.text(), want.as_bytes());
    // The same second again, then another: the kept text, then a new one.
    for (sec, nsec, text) in [
        (12345, 999_999_999, "12345.999999999"),
        (12346, 0, "12346.000000000"),
        (7, 120_000_000, "7.120000000"),
    ] {
        let mut r = room();
        let mut l = Line::on(&mut r);
        let t = libc::timespec {
            tv_sec: sec,
            tv_nsec: nsec,
        };
        l.begin(&me, Func::PostSend, &t);
        let want = format!("rdmaverbs[{tid}]: rdma_post_send t={text}");
        assert_eq!(l.text(), want.as_bytes());
    }
    // At the end of the room: cut, never overrun.
    let mut r = room();
    let mut l = Line::on(&mut r);
    l.push(&[b'a'; MAX - 6]);
    l.nanoseconds(123);
    assert_eq!(l.finish().len(), MAX - 5);
}

/// What `piece` appends, and whether it is whole or nothing.
fn piece(k: usize, l: &mut Line) -> (Vec<u8>, bool) {
    match k {
        0 => {
            l.push(b"0123456789abcdefghij");
            (b"0123456789abcdefghij".to_vec(), false)
        }
        1 => {
            l.dec(b" k=", -1_234_567);
            (b" k=-1234567".to_vec(), false)
        }
        2 => {
            l.dec(b" n=", 98_765_432_101);
            (b" n=98765432101".to_vec(), false)
        }
        3 => {
            l.hex(b" h=", 0xabc_def0_1234);
            (b" h=0xabcdef01234".to_vec(), false)
        }
        4 => {
            let mut chunk = [b'z'; 32];
            chunk[..5].copy_from_slice(b"fixed");
            l.fixed(&chunk, 20);
            (chunk[..20].to_vec(), false)
        }
        5 => {
            let chunk = [b'w'; 32];
            l.fixed(&chunk, 32);
            (chunk.to_vec(), false)
        }
        6 => {
            l.word(b" opcode=", b"RDMA_WRITE_WITH_IMM");
            (b" opcode=RDMA_WRITE_WITH_IMM".to_vec(), false)
        }
        // a word whose key or text is one byte or none (where `k + n` and
        // `k * n` part)
        7 => {
            l.word(b"=", b"y");
            (b"=y".to_vec(), false)
        }
        8 => {
            l.word(b"", b"end");
            (b"end".to_vec(), false)
        }
        _ => {
            l.nanoseconds(1_234);
            (b"000001234".to_vec(), true)
        }
    }
}

#[test]
fn each_piece_on_an_empty_line() {
    for k in 0..10 {
        let mut r = room();
        let mut l = Line::on(&mut r);
        let (text, _) = piece(k, &mut l);
        assert_eq!(l.text(), &text[..], "piece {k}");
    }
}

#[test]
fn each_piece_cut_at_each_length() {
    for len in MAX - 64..MAX {
        for k in 0..10 {
            let mut r = room();
            let mut l = Line::on(&mut r);
            let before = vec![b'.'; len];
            l.push(&before);
            let (text, whole) = piece(k, &mut l);
            let mut want = before.clone();
            want.truncate(MAX - 1);
            if !whole || want.len() + text.len() < MAX {
                want.extend_from_slice(&text);
            }
            want.truncate(MAX - 1);
            want.push(b'\n');
            assert_eq!(l.finish(), &want[..], "piece {k} after {len} bytes");
        }
    }
}
