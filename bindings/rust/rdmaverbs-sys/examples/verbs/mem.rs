//! Memory the provider reads and writes, as the verbs client holds it.

use std::ffi::c_void;

/// Memory the provider reads and writes: reached only through its pointer
/// (never a Rust reference held across a call that lets the card at it),
/// 8-byte aligned (the atomics' words), freed at drop.
pub struct Mem(*mut u64, usize);

impl Mem {
    pub fn new(bytes: usize) -> Mem {
        let words = bytes.div_ceil(8);
        Mem(
            Box::into_raw(vec![0u64; words].into_boxed_slice()).cast(),
            words,
        )
    }
    pub fn ptr(&self) -> *mut c_void {
        self.0.cast()
    }
    pub fn addr(&self, offset: usize) -> u64 {
        self.0 as u64 + offset as u64
    }
    pub fn len(&self) -> usize {
        self.1 * 8
    }
    /// A copy of bytes [from, from + n).
    pub fn read(&self, from: usize, n: usize) -> Vec<u8> {
        assert!(from + n <= self.len());
        // SAFETY: within the allocation; nothing writes it during the copy
        // (no request on it is outstanding when the program reads it).
        unsafe { std::slice::from_raw_parts(self.0.cast::<u8>().add(from), n) }.to_vec()
    }
    pub fn write(&self, at: usize, bytes: &[u8]) {
        assert!(at + bytes.len() <= self.len());
        // SAFETY: within the allocation; the card reads it only once posted.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.0.cast::<u8>().add(at), bytes.len())
        }
    }
    pub fn word(&self, k: usize) -> u64 {
        assert!(k < self.1);
        // SAFETY: an aligned word of the allocation; volatile: the card wrote it.
        unsafe { self.0.add(k).read_volatile() }
    }
}

impl Drop for Mem {
    fn drop(&mut self) {
        // SAFETY: the Box of new(), deregistered before (teardown).
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.0, self.1)) });
    }
}
