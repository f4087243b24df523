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
//! All the notes share one semaphore, the top 16 bits of the gate
//! (`gate.rs`): a tracer that attaches to any probe sends every call to
//! the cold path, where the probes are. Unattached, a probe costs the fast
//! path nothing at all; the note's `nop` is in the cold path. The notes are
//! written by the `probe` crate's `sdt!` (the macro behind its `probe!`),
//! given our semaphore's address, `GATE + 6`.

use rdmaverbs_abi::functions::Func;

/// What a tracer would see, written for the C tests (`make mutants`).
#[cfg(all(feature = "c-tests", feature = "probes"))]
#[cfg_attr(mutants, mutants::skip)]
pub(crate) mod recorder;

/// The six arguments of a probe.
pub(crate) type Args = [isize; 6];

#[cfg(feature = "probes")]
mod notes {
    use rdmaverbs_abi::function_table;
    use rdmaverbs_abi::functions::Func;

    use super::Args;
    use crate::gate::GATE;

    /// `fire`: a probe site per function of the table (a wrapped op's
    /// calls fire its function's), the note's semaphore at `GATE + 6`, the
    /// semaphore's place in the word (`gate.rs`).
    macro_rules! define_fire {
        (
            exports { $( $ev:ident $en:ident $node:literal $kind:ident $since:tt; )* }
            interposed { $( $iname:ident $inode:literal; )* }
        ) => {
            /// Fires the probe of `f`.
            #[inline(never)]
            pub(super) fn fire(f: Func, a: Args) {
                let [a0, a1, a2, a3, a4, a5] = a;
                match f {
                    // "+6": the semaphore's first byte (gate.rs asserts it).
                    $( #[cfg($en)] Func::$ev => {
                        probe::sdt!([sym "{}+6" GATE], rdmaverbs, $en, a0, a1, a2, a3, a4, a5,);
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
pub(crate) fn fire(f: Func, args: impl FnOnce() -> Args) {
    #[cfg(feature = "probes")]
    if crate::gate::probe_attached() {
        let a = args();
        #[cfg(feature = "c-tests")]
        recorder::record(f, &a);
        notes::fire(f, a);
    }
    #[cfg(not(feature = "probes"))]
    let _ = (f, args);
}
