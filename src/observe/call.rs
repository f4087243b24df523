//! What a call of an export was, as the observer is told it: [`Call`], and
//! what it returned ([`Returned`]).

use core::ffi::{c_int, c_void};

use super::line::Line;
use super::probes::Args;
use crate::verbs::{SendOp, ibv_mr, ibv_sge, ibv_wc, ibv_wc_head, rdma_cm_id};

/// The SGEs of a posting call.
#[derive(Clone, Copy)]
pub(crate) enum Sges {
    /// The one-buffer functions: one SGE of this length.
    One(usize),
    /// The vectored functions' `sgl` and `nsge`.
    List(*mut ibv_sge, c_int),
}

/// A call of an export, as far as a trace line shows it.
#[derive(Clone, Copy)]
pub(crate) enum Call {
    /// `rdma_seterrno(ret)`.
    SetErrno(c_int),
    /// A registration helper.
    Reg {
        id: *mut rdma_cm_id,
        addr: *mut c_void,
        length: usize,
    },
    /// `rdma_dereg_mr(mr)`: `mr` is gone after the call; only its address is shown.
    Dereg(*mut ibv_mr),
    /// A posting function; `op` is `None` for a receive.
    Post {
        id: *mut rdma_cm_id,
        context: *mut c_void,
        sges: Sges,
        flags: c_int,
        op: Option<SendOp>,
    },
    /// `rdma_get_local_addr` / `rdma_get_peer_addr`.
    Addr(*mut rdma_cm_id),
    /// `rdma_get_send_comp` / `rdma_get_recv_comp`, and (with a time-out)
    /// their bounded forms.
    Comp {
        id: *mut rdma_cm_id,
        wc: *mut ibv_wc,
        timeout_ms: Option<c_int>,
    },
}

impl Call {
    /// A posting call.
    pub(crate) fn post(
        id: *mut rdma_cm_id,
        context: *mut c_void,
        sges: Sges,
        flags: c_int,
        op: Option<SendOp>,
    ) -> Call {
        Call::Post {
            id,
            context,
            sges,
            flags,
            op,
        }
    }

    /// A completion call.
    pub(crate) fn comp(id: *mut rdma_cm_id, wc: *mut ibv_wc, timeout_ms: Option<c_int>) -> Call {
        Call::Comp { id, wc, timeout_ms }
    }

    /// The bytes a successful call moved or registered: those posted, those
    /// received (a successful receive completion) or registered.
    ///
    /// # Safety
    /// The call succeeded: a `List` holds `nsge` readable SGEs, a `Comp`'s
    /// `wc` was written.
    pub(super) unsafe fn bytes(self) -> u64 {
        match self {
            Call::Reg { length, .. } => length as u64,
            Call::Post {
                sges: Sges::One(len),
                ..
            } => len as u64,
            Call::Post {
                sges: Sges::List(sgl, n),
                ..
            // SAFETY: the provider accepted these `n` SGEs.
            } => unsafe { sge_bytes(sgl, n) },
            // SAFETY: a successful call wrote `*wc`.
            Call::Comp { wc, .. } => recv_bytes(unsafe { &*wc.cast::<ibv_wc_head>() }),
            Call::SetErrno(_) | Call::Dereg(_) | Call::Addr(_) => 0,
        }
    }
}

impl Call {
    /// The arguments of the call's probe (see `probes.rs`).
    ///
    /// # Safety
    /// As [`Call::bytes`], for a call that succeeded; nothing is read
    /// through the pointers of one that failed.
    pub(super) unsafe fn probe_args<R: Returned>(self, ret: R) -> Args {
        let r = ret.value();
        let ok = !ret.failed();
        match self {
            Call::SetErrno(arg) => [arg as isize, 0, 0, 0, 0, r],
            Call::Reg { id, addr, length } => [
                id as isize,
                addr as isize,
                length as isize,
                if ok { r } else { 0 },
                0,
                if ok { 0 } else { -1 },
            ],
            Call::Dereg(mr) => [mr as isize, 0, 0, 0, 0, r],
            Call::Addr(id) => [id as isize, r, 0, 0, 0, if ok { 0 } else { -1 }],
            Call::Post {
                id,
                context,
                sges,
                op,
                ..
            } => {
                let nsge = match sges {
                    Sges::One(_) => 1,
                    Sges::List(_, n) => n as isize,
                };
                // SAFETY: the post succeeded (caller's guarantee).
                let bytes = if ok {
                    (unsafe { self.bytes() }) as isize
                } else {
                    0
                };
                [id as isize, context as isize, wr_opcode(op), nsge, bytes, r]
            }
            Call::Comp { id, wc, .. } if ok && !wc.is_null() => {
                // SAFETY: a successful call wrote `*wc`.
                let w = unsafe { &*wc.cast::<ibv_wc_head>() };
                let [wr_id, status, opcode, byte_len] = wc_args(w);
                [id as isize, wr_id, status, opcode, byte_len, r]
            }
            Call::Comp { id, .. } => [id as isize, 0, 0, 0, 0, r],
        }
    }
}

/// The `ibv_wr_opcode` of a post (-1 for a receive).
fn wr_opcode(op: Option<SendOp>) -> isize {
    use ibverbs_sys::ibv_wr_opcode as o;
    match op {
        None => -1,
        Some(SendOp::Send | SendOp::UdSend { .. }) => o::IBV_WR_SEND as isize,
        Some(SendOp::Read { .. }) => o::IBV_WR_RDMA_READ as isize,
        Some(SendOp::Write { .. }) => o::IBV_WR_RDMA_WRITE as isize,
    }
}

/// A completion's `wr_id`, `status`, opcode and `byte_len` as probe
/// arguments; the opcode and length are -1 and 0 for a completion in error,
/// where verbs.h leaves them undefined.
pub(super) fn wc_args(w: &ibv_wc_head) -> [isize; 4] {
    let ok = w.status == ibverbs_sys::ibv_wc_status::IBV_WC_SUCCESS;
    [
        w.wr_id as isize,
        w.status as isize,
        if ok { w.opcode as isize } else { -1 },
        if ok { w.byte_len as isize } else { 0 },
    ]
}

/// What an export returns: a status, or a registered MR.
pub(crate) trait Returned: Copy {
    /// The call failed (and set `errno`).
    fn failed(self) -> bool;
    /// The value, for a probe's argument.
    fn value(self) -> isize;
    /// ` ret=...` and what follows from it, on a trace line.
    fn show(self, line: &mut Line);
}

impl Returned for c_int {
    fn failed(self) -> bool {
        self < 0
    }
    fn value(self) -> isize {
        self as isize
    }
    fn show(self, line: &mut Line) {
        line.dec(b" ret=", self.into());
    }
}

impl Returned for *mut libc::sockaddr {
    fn failed(self) -> bool {
        self.is_null()
    }
    fn value(self) -> isize {
        self as isize
    }
    fn show(self, line: &mut Line) {
        if self.is_null() {
            line.push(b" ret=NULL");
        } else {
            line.hex(b" ret=", self as usize as u64);
        }
    }
}

impl Returned for *mut ibv_mr {
    fn failed(self) -> bool {
        self.is_null()
    }
    fn value(self) -> isize {
        self as isize
    }
    fn show(self, line: &mut Line) {
        if self.is_null() {
            line.push(b" ret=NULL");
        } else {
            // SAFETY: the registration just returned this MR.
            let (lkey, rkey) = unsafe { ((*self).lkey, (*self).rkey) };
            line.hex(b" ret=", self as usize as u64);
            line.hex(b" lkey=", lkey.into());
            line.hex(b" rkey=", rkey.into());
        }
    }
}

/// The bytes of an SGE list.
///
/// # Safety
/// `sgl` holds `n` readable SGEs (or `n <= 0`).
pub(super) unsafe fn sge_bytes(sgl: *const ibv_sge, n: c_int) -> u64 {
    // One SGE is the common case: no loop set-up for it.
    if n == 1 {
        // SAFETY: as the caller says.
        return u64::from(unsafe { (*sgl).length });
    }
    (0..n.max(0) as usize)
        // SAFETY: as the caller says.
        .map(|i| u64::from(unsafe { (*sgl.add(i)).length }))
        .fold(0, u64::wrapping_add)
}

/// The bytes a completion received: its length if it is a successful
/// receive, else 0.
pub(super) fn recv_bytes(wc: &ibv_wc_head) -> u64 {
    let recv = wc.opcode & ibverbs_sys::ibv_wc_opcode::IBV_WC_RECV != 0;
    if recv && wc.status == ibverbs_sys::ibv_wc_status::IBV_WC_SUCCESS {
        u64::from(wc.byte_len)
    } else {
        0
    }
}
