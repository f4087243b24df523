//! Under the feature `c-tests` only (`make mutants`): what a tracer would
//! see, without one. With `RDMAVERBS_TEST_PROBES=FD` at load, the library
//! counts the semaphore up as a tracer attaching does, and writes each
//! firing's name and six arguments, a line each, to descriptor FD:
//! `c-tests/observer/probes.c` checks them. Not in the library a user gets,
//! and not mutated by `make mutants` (test code: the probes' mutants are
//! those of the library's own code, which this records).

use core::ffi::CStr;
use core::fmt::Write;
use core::sync::atomic::{AtomicI32, Ordering::Relaxed};

use rdmaverbs_abi::functions::Func;

use super::Args;

static FD: AtomicI32 = AtomicI32::new(-1);

/// At load, before the environment is read (`process::load`).
pub(crate) fn attach() {
    // SAFETY: a constructor, before any thread can change the
    // environment; the string is read at once.
    let value = unsafe { libc::getenv(c"RDMAVERBS_TEST_PROBES".as_ptr()) };
    if value.is_null() {
        return;
    }
    // SAFETY: a C string of the environment.
    let value = unsafe { CStr::from_ptr(value) };
    let Some(fd) = value.to_str().ok().and_then(|v| v.parse::<i32>().ok()) else {
        return;
    };
    FD.store(fd, Relaxed);
    crate::gate::attach_as_a_tracer_does();
}

/// Room for a line, on the stack.
struct Room {
    b: [u8; 256],
    n: usize,
}

impl Write for Room {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.n + s.len();
        self.b
            .get_mut(self.n..end)
            .ok_or(core::fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.n = end;
        Ok(())
    }
}

pub(crate) fn record(f: Func, a: &Args) {
    let fd = FD.load(Relaxed);
    if fd < 0 {
        return;
    }
    let _keep = rdmaverbs_abi::sys::KeepErrno::new();
    let mut r = Room { b: [0; 256], n: 0 };
    let [a0, a1, a2, a3, a4, a5] = *a;
    if writeln!(r, "{} {a0} {a1} {a2} {a3} {a4} {a5}", f.name()).is_ok() {
        // SAFETY: the bytes written into the room.
        unsafe { libc::write(fd, r.b.as_ptr().cast(), r.n) };
    }
}
