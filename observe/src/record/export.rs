//! A call of an export, as the observer is told it ([`Call`]), with what it
//! returned ([`Returned`](super::Returned)): its one event, the bytes it
//! moved or registered, its trace line (`rdmaverbs(7)`, "Trace lines"), its
//! probe's arguments (`probes/mod.rs`).

use core::ffi::{c_int, c_void};

use rdmaverbs_abi::functions::Func;
use rdmaverbs_abi::verbs::{SendOp, ibv_mr, ibv_sge, ibv_wc, ibv_wc_head, rdma_cm_id};

use super::extended::ExOp;
use super::op::{Op, OpCall};
use super::show::{recv_bytes, sge_bytes, show_wc, wc_args, wr_opcode_name};
use super::{Events, Out, Returned};
use crate::trace::line::Line;

/// The SGEs of a posting call.
#[derive(Clone, Copy)]
pub enum Sges {
    /// The one-buffer functions: one SGE of this length.
    One(usize),
    /// The vectored functions' `sgl` and `nsge`.
    List(*mut ibv_sge, c_int),
}

/// A call of an export, as far as a record shows it.
#[derive(Clone, Copy)]
pub enum Call {
    /// `rdma_seterrno(ret)`.
    SetErrno(c_int),
    /// A registration helper.
    Reg {
        /// The id.
        id: *mut rdma_cm_id,
        /// The buffer.
        addr: *mut c_void,
        /// Its length.
        length: usize,
    },
    /// A registration of verbs.h (`__ibv_reg_mr`, `__ibv_reg_mr_iova`): the
    /// PD and the buffer.
    Mr {
        /// The protection domain.
        pd: *mut c_void,
        /// The buffer.
        addr: *mut c_void,
        /// Its length.
        length: usize,
    },
    /// `rdma_dereg_mr(mr)`: `mr` is gone after the call; only its address is shown.
    Dereg(*mut ibv_mr),
    /// A posting function; `op` is `None` for a receive.
    Post {
        /// The id.
        id: *mut rdma_cm_id,
        /// The work request's id.
        context: *mut c_void,
        /// Its SGEs.
        sges: Sges,
        /// Its send flags.
        flags: c_int,
        /// The kind of send; `None` for a receive.
        op: Option<SendOp>,
    },
    /// `rdma_get_local_addr` / `rdma_get_peer_addr`.
    Addr(*mut rdma_cm_id),
    /// A call of a verb of `<infiniband/verbs.h>` on an object (a context,
    /// a PD, a CQ, ...), shown as `KEY` and its address; also a data-path
    /// call refused for a NULL object or list.
    Object {
        /// ` ctx=`, ` pd=`, ...
        key: &'static [u8],
        /// The object.
        obj: *const c_void,
    },
    /// A call of a pure function of `<infiniband/verbs.h>` (a key, a flow
    /// label, a cast), shown with its argument.
    Value(u64),
    /// A data-path verb that the preload library also wraps as the
    /// provider's op: recorded as the op is, event for event.
    Op(Op),
    /// A call of an extended QP or CQ: recorded as the preload library
    /// records the call it wraps.
    Ex(ExOp),
    /// `rdma_get_send_comp` / `rdma_get_recv_comp`, and (with a time-out)
    /// their bounded forms.
    Comp {
        /// The id.
        id: *mut rdma_cm_id,
        /// Where the completion is written.
        wc: *mut ibv_wc,
        /// The bounded forms' time-out.
        timeout_ms: Option<c_int>,
    },
}

impl Call {
    /// A posting call.
    pub fn post(
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

    /// A data-path verb, recorded as the op it is; refused for a NULL
    /// object or list, as an [`Call::Object`].
    pub fn op(op: Op) -> Call {
        match op.refused_as() {
            Some((key, obj)) => Call::Object { key, obj },
            None => Call::Op(op),
        }
    }

    /// A call of an extended QP or CQ; refused for a NULL one, as an
    /// [`Call::Object`].
    pub fn ex(ex: ExOp) -> Call {
        match ex.refused_as() {
            Some((key, obj)) => Call::Object { key, obj },
            None => Call::Ex(ex),
        }
    }

    /// A completion call.
    pub fn comp(id: *mut rdma_cm_id, wc: *mut ibv_wc, timeout_ms: Option<c_int>) -> Call {
        Call::Comp { id, wc, timeout_ms }
    }

    /// The call was refused for a NULL object or list (a data-path call is
    /// then recorded as an `Object` of NULL): a failure, whatever the
    /// value returned (a reader's 0, a `void` call's nothing).
    pub(super) fn refused(self) -> bool {
        matches!(self, Call::Object { obj, .. } if obj.is_null())
    }

    /// The bytes a successful call moved or registered: those posted, those
    /// received (a successful receive completion) or registered.
    ///
    /// # Safety
    /// The call succeeded: a `List` holds `nsge` readable SGEs, a `Comp`'s
    /// `wc` was written.
    unsafe fn bytes(self) -> u64 {
        match self {
            Call::Reg { length, .. } | Call::Mr { length, .. } => length as u64,
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
            Call::SetErrno(_)
            | Call::Dereg(_)
            | Call::Addr(_)
            | Call::Object { .. }
            | Call::Value(_)
            | Call::Op(_)
            | Call::Ex(_) => 0,
        }
    }

    /// The arguments of the call's probe (see `probes/mod.rs`).
    ///
    /// # Safety
    /// As [`Call::bytes`], for a call that succeeded; nothing is read
    /// through the pointers of one that failed.
    unsafe fn probe_args<R: Returned>(self, ret: R) -> [isize; 6] {
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
            Call::Mr { pd, addr, length } => [
                pd as isize,
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
                let opcode = op.map_or(-1, |op| op.opcode() as isize);
                [id as isize, context as isize, opcode, nsge, bytes, r]
            }
            Call::Comp { id, wc, .. } if ok && !wc.is_null() => {
                // SAFETY: a successful call wrote `*wc`.
                let w = unsafe { &*wc.cast::<ibv_wc_head>() };
                let [wr_id, status, opcode, byte_len] = wc_args(w);
                [id as isize, wr_id, status, opcode, byte_len, r]
            }
            Call::Comp { id, .. } => [id as isize, 0, 0, 0, 0, r],
            Call::Object { obj, .. } => [obj as isize, 0, 0, 0, 0, r],
            Call::Value(arg) => [arg as isize, 0, 0, 0, 0, r],
            Call::Op(_) | Call::Ex(_) => [0; 6],
        }
    }

    /// The arguments and the result, as ` key=value` fields.
    ///
    /// # Safety
    /// As [`Call::probe_args`].
    unsafe fn describe<R: Returned>(self, line: &mut Line, ret: R) {
        match self {
            Call::SetErrno(arg) => line.dec(b" arg=", arg.into()),
            Call::Reg { id, addr, length } => {
                // SAFETY: forwarded.
                unsafe { show_id(line, id) };
                line.hex(b" addr=", addr as usize as u64);
                line.dec(b" length=", length as i64);
            }
            Call::Mr { pd, addr, length } => {
                line.hex(b" pd=", pd as usize as u64);
                line.hex(b" addr=", addr as usize as u64);
                line.dec(b" length=", length as i64);
            }
            Call::Dereg(mr) => line.hex(b" mr=", mr as usize as u64),
            Call::Object { key, obj } => line.hex(key, obj as usize as u64),
            Call::Value(arg) => line.hex(b" arg=", arg),
            Call::Op(_) | Call::Ex(_) => {}
            // SAFETY: forwarded.
            Call::Addr(id) => unsafe { show_id(line, id) },
            Call::Post {
                id,
                context,
                sges,
                flags,
                op,
            } => {
                // SAFETY: forwarded.
                unsafe { show_id(line, id) };
                line.hex(b" wr_id=", context as usize as u64);
                let opcode = op.map_or("RECV", |op| wr_opcode_name(op.opcode()));
                line.word(b" opcode=", opcode.as_bytes());
                match sges {
                    Sges::One(_) => line.push(b" nsge=1"),
                    Sges::List(_, n) => line.dec(b" nsge=", n.into()),
                }
                if !ret.failed() {
                    // SAFETY: the post succeeded, so its SGEs were read.
                    line.dec(b" bytes=", unsafe { self.bytes() } as i64);
                }
                if op.is_some() {
                    line.hex(b" flags=", flags as u32 as u64);
                }
                match op {
                    Some(
                        SendOp::Read { remote_addr, rkey } | SendOp::Write { remote_addr, rkey },
                    ) => {
                        line.hex(b" remote_addr=", remote_addr);
                        line.hex(b" rkey=", rkey.into());
                    }
                    Some(SendOp::UdSend { ah, remote_qpn }) => {
                        line.hex(b" ah=", ah as usize as u64);
                        line.dec(b" remote_qpn=", remote_qpn.into());
                    }
                    _ => {}
                }
            }
            Call::Comp { id, wc, timeout_ms } => {
                // SAFETY: forwarded.
                unsafe { show_id(line, id) };
                if let Some(t) = timeout_ms {
                    line.dec(b" timeout_ms=", t.into());
                }
                ret.show(line);
                if !ret.failed() && !wc.is_null() {
                    // SAFETY: a successful call wrote `*wc`.
                    show_wc(line, unsafe { &*wc.cast::<ibv_wc_head>() });
                }
                return;
            }
        }
        ret.show(line);
    }
}

/// ` id=0x... qpn=N` (and ` srq=0x...` when the id has an SRQ).
///
/// # Safety
/// `id` is NULL or valid; so are its QP and SRQ.
unsafe fn show_id(line: &mut Line, id: *mut rdma_cm_id) {
    line.hex(b" id=", id as usize as u64);
    if id.is_null() {
        return;
    }
    // SAFETY: a non-NULL id is valid, and so are its non-NULL QP and SRQ.
    unsafe {
        let (qp, srq) = ((*id).qp, (*id).srq);
        if !qp.is_null() {
            line.dec(b" qpn=", (*qp).qp_num.into());
        }
        if !srq.is_null() {
            line.hex(b" srq=", srq as usize as u64);
        }
    }
}

/// An export's call with its result and `errno`: one event.
#[derive(Clone, Copy)]
pub(super) struct ExportCall<R> {
    pub(super) f: Func,
    pub(super) call: Call,
    pub(super) ret: R,
    pub(super) err: c_int,
}

impl<R: Returned> Events for ExportCall<R> {
    #[inline(always)]
    fn failed(self) -> bool {
        match self.call {
            Call::Op(op) => OpCall {
                op,
                ret: self.ret.value() as c_int,
            }
            .failed(),
            Call::Ex(ex) => ex.with_ret(self.ret.value()).failed(),
            _ => self.ret.failed() || self.call.refused(),
        }
    }

    #[inline(always)]
    fn func(self) -> Func {
        self.f
    }

    #[inline(always)]
    unsafe fn each(self, out: &mut impl Out) {
        let ExportCall { f, call, ret, err } = self;
        // SAFETY: forwarded (a call recorded as an op has valid objects:
        // a refused one is an `Object`).
        match call {
            Call::Op(op) => {
                let ret = ret.value() as c_int;
                return unsafe { OpCall { op, ret }.each(out) };
            }
            Call::Ex(ex) => return unsafe { ex.with_ret(ret.value()).each(out) },
            _ => {}
        }
        // SAFETY: the call succeeded, so its pointers were valid and read.
        let bytes = if ret.failed() {
            0
        } else {
            unsafe { call.bytes() }
        };
        let line = move |line: &mut Line| {
            // SAFETY: the pointers in `call` are the caller's, valid by the
            // export's contract (or NULL, which is not read).
            unsafe { call.describe(line, ret) };
            if ret.failed() && ret.sets_errno() {
                line.dec(b" errno=", err.into());
            }
        };
        // SAFETY: as for the line.
        out.event(f, bytes, Some(line), move || unsafe {
            call.probe_args(ret)
        });
    }
}
