//! USDT probes (SystemTap SDT notes, provider `rdmaverbs`): one per export
//! and per wrapped op of the table, named as the function, for bpftrace,
//! perf, SystemTap and gdb.
//!
//! Every probe has the same six arguments, all 64-bit:
//!
//! - posts (`rdma_post_*`, `ibv_post_send`, `ibv_post_recv`,
//!   `ibv_post_srq_recv`; one firing per work request): the id (the QP or
//!   SRQ for an op), `wr_id`, the `ibv_wr_opcode` (-1 for a receive), the
//!   number of SGEs, the bytes (0 unless the post succeeded), the result;
//! - completions (`rdma_get_*_comp*`, `ibv_poll_cq`; one firing per
//!   completion, and one for a failed poll; none for an empty poll): the id
//!   (the CQ for the op), `wr_id`, `status`, the `ibv_wc_opcode` (-1 for a
//!   completion in error, whose opcode is undefined), `byte_len`, the
//!   result;
//! - `rdma_reg_*`: the id, the address, the length, the MR (0 if it
//!   failed), 0, the result (0, or -1);
//! - `rdma_dereg_mr`: the MR, then 0s, the result; `rdma_seterrno`: its
//!   argument, then 0s, the result; `ibv_req_notify_cq`: the CQ, then 0s,
//!   the result.
//!
//! All the notes share one semaphore, the top 16 bits of the gate (see
//! `config::GATE`): a tracer that attaches to any probe sends every call to
//! the cold path, where the probes are. Unattached, a probe costs the fast
//! path nothing at all; the note's `nop` is in the cold path. The notes are
//! written by the `probe` crate's `sdt!` (the macro behind its `probe!`),
//! given our semaphore's address, `GATE + 6`.

use crate::functions::Func;

/// The six arguments of a probe.
pub(super) type Args = [isize; 6];

/// True while a tracer is attached to one of the library's probes (the
/// semaphore, bytes 6 and 7 of the gate, is not zero).
#[cfg(feature = "probes")]
#[inline]
pub(super) fn attached() -> bool {
    // SAFETY: a plain read of the gate, as `config::gate` does.
    (unsafe { *super::config::GATE.as_ptr() }) >> 48 != 0
}

/// Without the probes compiled in: never. (Not mutated by `make mutants`,
/// which tests the build with the probes.)
#[cfg(not(feature = "probes"))]
#[cfg_attr(mutants, mutants::skip)]
#[inline]
pub(super) fn attached() -> bool {
    false
}

#[cfg(feature = "probes")]
mod notes {
    use crate::functions::{Func, function_table};
    use crate::observe::config::GATE;
    use crate::observe::probes::Args;

    /// `fire`: a probe site per function of the table (exports and wrapped
    /// ops), the note's semaphore at `GATE + 6`. (The linked library keeps
    /// the ops' notes too, where they never fire: a note is kept by the
    /// link even where its code is never reached.)
    macro_rules! define_fire {
        (
            exports { $( $ev:ident $en:ident $node:literal $blocks:literal; )* }
            ops { $( $ov:ident $on:ident; )* }
            interposed { $( $iname:ident $inode:literal; )* }
        ) => {
            /// Fires the probe of `f`.
            #[inline(never)]
            pub(super) fn fire(f: Func, a: Args) {
                let [a0, a1, a2, a3, a4, a5] = a;
                match f {
                    $( Func::$ev => {
                        probe::sdt!([sym "{}+6" GATE], rdmaverbs, $en, a0, a1, a2, a3, a4, a5,);
                    } )*
                    $( Func::$ov => {
                        probe::sdt!([sym "{}+6" GATE], rdmaverbs, $on, a0, a1, a2, a3, a4, a5,);
                    } )*
                }
            }
        };
    }
    function_table!(define_fire);
}

/// Fires the probe of `f` (an export or a wrapped op), with the arguments
/// `args` makes, if a tracer is attached.
#[inline]
pub(super) fn fire(f: Func, args: impl FnOnce() -> Args) {
    #[cfg(feature = "probes")]
    if attached() {
        let a = args();
        #[cfg(feature = "c-tests")]
        recorded::record(f, &a);
        notes::fire(f, a);
    }
    #[cfg(not(feature = "probes"))]
    let _ = (f, args);
}

/// Under the feature `c-tests` only (`make mutants`): what a tracer would
/// see, without one. With `RDMAVERBS_TEST_PROBES=FD` at load, the library
/// counts the semaphore up as a tracer attaching does, and writes each
/// firing's name and six arguments, a line each, to descriptor FD:
/// `c-tests/fake/probes.c` checks them. Not in the library a user gets,
/// and not mutated by `make mutants` (test code: the probes' mutants are
/// those of the library's own code, which this records).
#[cfg(all(feature = "c-tests", feature = "probes"))]
#[cfg_attr(mutants, mutants::skip)]
pub(super) mod recorded {
    use core::ffi::CStr;
    use core::fmt::Write;
    use core::sync::atomic::{AtomicI32, Ordering::Relaxed};

    use crate::functions::Func;
    use crate::observe::config::GATE;
    use crate::observe::probes::Args;

    static FD: AtomicI32 = AtomicI32::new(-1);

    /// At load.
    #[ctor::ctor(unsafe)]
    fn attach() {
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
        GATE.fetch_add(1 << 48, Relaxed);
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

    pub(super) fn record(f: Func, a: &Args) {
        let fd = FD.load(Relaxed);
        if fd < 0 {
            return;
        }
        let _keep = crate::sys::KeepErrno::new();
        let mut r = Room { b: [0; 256], n: 0 };
        let [a0, a1, a2, a3, a4, a5] = *a;
        if writeln!(r, "{} {a0} {a1} {a2} {a3} {a4} {a5}", f.name()).is_ok() {
            // SAFETY: the bytes written into the room.
            unsafe { libc::write(fd, r.b.as_ptr().cast(), r.n) };
        }
    }
}
