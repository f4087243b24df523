//! Watching the calls: a trace line per call (`RDMAVERBS_TRACE`) and
//! per-function counters printed at exit (`RDMAVERBS_STATS`).
//!
//! This is the cold path of every export: [`config::gate`] sends a call here
//! only when something is watched (or an argument is NULL). [`watched`] runs
//! the export's own body, unchanged, then records what it did. Nothing here
//! allocates or locks: a trace line is built on the stack and written with one
//! `write(2)`, so that lines of different threads never interleave; the
//! counters are relaxed atomics.

use core::ffi::{c_int, c_void};
use core::num::NonZeroU64;
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::config;
use crate::ffi::{
    ibv_cq, ibv_mr, ibv_qp, ibv_recv_wr, ibv_send_wr, ibv_sge, ibv_srq, ibv_wc, ibv_wc_head,
    rdma_cm_id,
};
use crate::post::SendOp;

/// The 16 functions, in the header's order, then the five provider ops
/// that [`crate::interpose`] wraps.
#[derive(Clone, Copy)]
pub(crate) enum Func {
    SetErrno,
    RegMsgs,
    RegRead,
    RegWrite,
    DeregMr,
    PostRecvv,
    PostSendv,
    PostReadv,
    PostWritev,
    PostRecv,
    PostSend,
    PostRead,
    PostWrite,
    PostUdSend,
    GetSendComp,
    GetRecvComp,
    OpPostSend,
    OpPostRecv,
    OpPostSrqRecv,
    OpPollCq,
    OpReqNotifyCq,
}

const NAMES: [&str; 21] = [
    "rdma_seterrno",
    "rdma_reg_msgs",
    "rdma_reg_read",
    "rdma_reg_write",
    "rdma_dereg_mr",
    "rdma_post_recvv",
    "rdma_post_sendv",
    "rdma_post_readv",
    "rdma_post_writev",
    "rdma_post_recv",
    "rdma_post_send",
    "rdma_post_read",
    "rdma_post_write",
    "rdma_post_ud_send",
    "rdma_get_send_comp",
    "rdma_get_recv_comp",
    "ibv_post_send",
    "ibv_post_recv",
    "ibv_post_srq_recv",
    "ibv_poll_cq",
    "ibv_req_notify_cq",
];

impl Func {
    fn name(self) -> &'static str {
        NAMES[self as usize]
    }
}

/// The SGEs of a posting call.
#[derive(Clone, Copy)]
pub(crate) enum Sges {
    /// The one-buffer functions: one SGE of this length.
    One(usize),
    /// The vectored functions' `sgl` and `nsge`.
    List(*mut ibv_sge, c_int),
}

/// A call's arguments, as far as a trace line shows them.
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
    /// `rdma_get_send_comp` / `rdma_get_recv_comp`.
    Comp {
        id: *mut rdma_cm_id,
        wc: *mut ibv_wc,
    },
}

impl Call {
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
}

/// The body of every export: runs `$body` at once, unless `$p` (the pointer
/// argument that must not be NULL: the id, or `rdma_dereg_mr`'s MR) is NULL
/// or calls are watched, which [`config::gate`] tells with one compare. Then
/// [`watched`] runs it out of line: -1 or NULL with `errno = EINVAL` for a
/// NULL `$p`, else the body; and traces and counts it. `$what` describes the
/// call. The body may assume `$p` is not NULL. (A macro, not a function
/// taking closures, so that the fast path is the plain body: the closures'
/// environment would be built on the stack before the branch.)
macro_rules! watch {
    ($p:expr, $f:expr, $what:expr, $body:expr) => {{
        let p = $p;
        if $crate::config::gate(p) {
            let body = move || {
                if p.is_null() {
                    return $crate::watch::Outcome::invalid();
                }
                $body
            };
            return $crate::watch::watched($f, move || $what, body);
        }
        // The gate let only a non-NULL `p` through.
        $body
    }};
}
pub(crate) use watch;

/// What an export returns: a status, or a registered MR.
pub(crate) trait Outcome: Copy {
    /// The input error: -1 or NULL, with `errno = EINVAL`.
    fn invalid() -> Self;
    /// The call failed (and set `errno`).
    fn failed(self) -> bool;
    /// `ret=...` and what follows from it.
    fn show(self, line: &mut Line);
}

impl Outcome for c_int {
    fn invalid() -> Self {
        crate::errno::invalid()
    }
    fn failed(self) -> bool {
        self < 0
    }
    fn show(self, line: &mut Line) {
        line.dec(b" ret=", self.into());
    }
}

impl Outcome for *mut ibv_mr {
    fn invalid() -> Self {
        crate::errno::invalid_ptr()
    }
    fn failed(self) -> bool {
        self.is_null()
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

/// Runs an export's body `call` and, when watching, traces and counts it.
/// `errno` is left as the body left it.
///
/// Reached through [`config::gate`], also for a NULL argument when nothing
/// is watched: then it only runs the body, which returns the input error.
#[cold]
#[inline(never)]
pub(crate) fn watched<R: Outcome>(
    f: Func,
    what: impl FnOnce() -> Call,
    call: impl FnOnce() -> R,
) -> R {
    if !config::watching() {
        return call();
    }
    let what = what();
    // The provider's ops, if wrapped, see this call too: it is ours to record.
    let outer = IN_API.replace(true);
    let ret = call();
    IN_API.set(outer);
    let err = errno();
    if config::stats() {
        count(f, what, ret);
    }
    if let Some(fd) = config::trace_fd() {
        // SAFETY: the pointers in `what` are the caller's, valid by the
        // export's contract (or NULL, which is not read).
        unsafe { trace(fd, f, what, ret, err) };
    }
    set_errno(err);
    ret
}

fn errno() -> c_int {
    // SAFETY: __errno_location() returns this thread's errno, always valid.
    unsafe { *libc::__errno_location() }
}

fn set_errno(err: c_int) {
    // SAFETY: as in `errno`.
    unsafe { *libc::__errno_location() = err };
}

thread_local! {
    /// Set while one of the 16 functions runs, so that the provider ops it
    /// calls are not recorded a second time.
    static IN_API: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

// ---- the provider's ops (interpose.rs) ------------------------------------

/// A call of a wrapped provider op.
#[derive(Clone, Copy)]
pub(crate) enum Op {
    PostSend {
        qp: *mut ibv_qp,
        wr: *mut ibv_send_wr,
    },
    PostRecv {
        qp: *mut ibv_qp,
        wr: *mut ibv_recv_wr,
    },
    PostSrqRecv {
        srq: *mut ibv_srq,
        wr: *mut ibv_recv_wr,
    },
    PollCq {
        cq: *mut ibv_cq,
        wc: *mut ibv_wc,
    },
    ReqNotifyCq {
        cq: *mut ibv_cq,
    },
}

/// The longest chain of work requests shown (and counted) per post.
const MAX_CHAIN: usize = 4096;

/// Records a call of a wrapped op that returned `ret`: a trace line per work
/// request posted or completion polled (none for an empty poll), and the
/// counters. Calls made by the 16 functions are theirs to record.
///
/// # Safety
/// The work request chain is the caller's, valid; `wc` holds `ret`
/// completions when `ret > 0`.
pub(crate) unsafe fn op(op: Op, ret: c_int) {
    if IN_API.get() {
        return;
    }
    let err = errno();
    let fd = config::trace_fd();
    let (f, failed, bytes) = match op {
        Op::PostSend { qp, wr } => {
            // SAFETY: the caller's QP and chain.
            let bytes = unsafe {
                chain(wr, ret, |w, b| {
                    if let Some(fd) = fd {
                        send_line(fd, qp, w, ret, b);
                    }
                })
            };
            (Func::OpPostSend, ret != 0, bytes)
        }
        Op::PostRecv { qp, wr } => {
            // SAFETY: the caller's QP and chain.
            let bytes = unsafe {
                chain(wr, ret, |w, b| {
                    if let Some(fd) = fd {
                        recv_line(fd, Func::OpPostRecv, qp.cast(), w, ret, b);
                    }
                })
            };
            (Func::OpPostRecv, ret != 0, bytes)
        }
        Op::PostSrqRecv { srq, wr } => {
            // SAFETY: the caller's SRQ and chain.
            let bytes = unsafe {
                chain(wr, ret, |w, b| {
                    if let Some(fd) = fd {
                        recv_line(fd, Func::OpPostSrqRecv, srq.cast(), w, ret, b);
                    }
                })
            };
            (Func::OpPostSrqRecv, ret != 0, bytes)
        }
        Op::PollCq { cq, wc } => {
            let mut bytes = 0;
            let stride = core::mem::size_of::<ibv_wc>();
            for i in 0..ret.max(0) as usize {
                // SAFETY: the provider wrote `ret` completions.
                let w = unsafe { &*wc.cast::<u8>().add(i * stride).cast::<ibv_wc_head>() };
                bytes += recv_bytes(w);
                if let Some(fd) = fd {
                    let mut line = Line::start(Func::OpPollCq);
                    line.hex(b" cq=", cq as usize as u64);
                    line.dec(b" ret=", ret.into());
                    line.dec(b" qpn=", w.qp_num.into());
                    show_wc(&mut line, w);
                    line.write_to(fd);
                }
            }
            if ret < 0 {
                if let Some(fd) = fd {
                    let mut line = Line::start(Func::OpPollCq);
                    line.hex(b" cq=", cq as usize as u64);
                    line.dec(b" ret=", ret.into());
                    line.write_to(fd);
                }
            }
            (Func::OpPollCq, ret < 0, bytes)
        }
        Op::ReqNotifyCq { cq } => {
            if let Some(fd) = fd {
                let mut line = Line::start(Func::OpReqNotifyCq);
                line.hex(b" cq=", cq as usize as u64);
                line.dec(b" ret=", ret.into());
                line.write_to(fd);
            }
            (Func::OpReqNotifyCq, ret != 0, 0)
        }
    };
    if config::stats() {
        tally(f, failed, bytes);
    }
    set_errno(err);
}

/// The bytes of an SGE list.
///
/// # Safety
/// `sgl` holds `n` readable SGEs (or `n <= 0`).
unsafe fn sge_bytes(sgl: *const ibv_sge, n: c_int) -> u64 {
    (0..n.max(0) as usize)
        // SAFETY: as the caller says.
        .map(|i| u64::from(unsafe { (*sgl.add(i)).length }))
        .fold(0, u64::wrapping_add)
}

/// A work request of a chain, as [`chain`] walks it.
trait WorkRequest {
    fn sges(&self) -> (*mut ibv_sge, c_int);
    fn next(&self) -> *mut Self;
}

impl WorkRequest for ibv_send_wr {
    fn sges(&self) -> (*mut ibv_sge, c_int) {
        (self.sg_list, self.num_sge)
    }
    fn next(&self) -> *mut Self {
        self.next
    }
}

impl WorkRequest for ibv_recv_wr {
    fn sges(&self) -> (*mut ibv_sge, c_int) {
        (self.sg_list, self.num_sge)
    }
    fn next(&self) -> *mut Self {
        self.next
    }
}

/// Walks a chain of work requests (at most [`MAX_CHAIN`]), calling `each`
/// with each one and its bytes (0 unless the post succeeded); returns the
/// bytes of them all.
///
/// # Safety
/// `wr` is the caller's chain.
unsafe fn chain<W: WorkRequest>(mut wr: *mut W, ret: c_int, mut each: impl FnMut(&W, u64)) -> u64 {
    let mut total = 0;
    for _ in 0..MAX_CHAIN {
        if wr.is_null() {
            break;
        }
        // SAFETY: the caller's chain.
        let w = unsafe { &*wr };
        let (sgl, n) = w.sges();
        // SAFETY: accepted by the provider, so readable.
        let bytes = if ret == 0 {
            unsafe { sge_bytes(sgl, n) }
        } else {
            0
        };
        total += bytes;
        each(w, bytes);
        wr = w.next();
    }
    total
}

/// The trace line of one send work request.
///
/// # Safety
/// `qp` is live; `w` is the caller's work request.
unsafe fn send_line(fd: c_int, qp: *mut ibv_qp, w: &ibv_send_wr, ret: c_int, bytes: u64) {
    use ibverbs_sys::ibv_wr_opcode as o;
    let mut line = Line::start(Func::OpPostSend);
    line.hex(b" qp=", qp as usize as u64);
    // SAFETY: a live QP.
    let (qpn, ud) = unsafe {
        (
            (*qp).qp_num,
            (*qp).qp_type == ibverbs_sys::ibv_qp_type::IBV_QPT_UD,
        )
    };
    line.dec(b" qpn=", qpn.into());
    line.hex(b" wr_id=", w.wr_id);
    let opcode = match w.opcode {
        o::IBV_WR_RDMA_WRITE => "RDMA_WRITE",
        o::IBV_WR_RDMA_WRITE_WITH_IMM => "RDMA_WRITE_WITH_IMM",
        o::IBV_WR_SEND => "SEND",
        o::IBV_WR_SEND_WITH_IMM => "SEND_WITH_IMM",
        o::IBV_WR_RDMA_READ => "RDMA_READ",
        o::IBV_WR_ATOMIC_CMP_AND_SWP => "ATOMIC_CMP_AND_SWP",
        o::IBV_WR_ATOMIC_FETCH_AND_ADD => "ATOMIC_FETCH_AND_ADD",
        o::IBV_WR_LOCAL_INV => "LOCAL_INV",
        o::IBV_WR_BIND_MW => "BIND_MW",
        o::IBV_WR_SEND_WITH_INV => "SEND_WITH_INV",
        _ => "OTHER",
    };
    line.push(b" opcode=");
    line.push(opcode.as_bytes());
    line.dec(b" nsge=", w.num_sge.into());
    if ret == 0 {
        line.dec(b" bytes=", bytes as i64);
    }
    line.hex(b" flags=", w.send_flags.into());
    let rdma = matches!(
        w.opcode,
        o::IBV_WR_RDMA_WRITE | o::IBV_WR_RDMA_WRITE_WITH_IMM | o::IBV_WR_RDMA_READ
    );
    // SAFETY: the union member that the opcode and QP type select.
    unsafe {
        if rdma {
            line.hex(b" remote_addr=", w.wr.rdma.remote_addr);
            line.hex(b" rkey=", w.wr.rdma.rkey.into());
        } else if ud {
            line.hex(b" ah=", w.wr.ud.ah as usize as u64);
            line.dec(b" remote_qpn=", w.wr.ud.remote_qpn.into());
        }
    }
    line.dec(b" ret=", ret.into());
    line.write_to(fd);
}

/// The trace line of one receive work request, to a QP
/// (`Func::OpPostRecv`) or an SRQ.
///
/// # Safety
/// `obj` is the live QP or SRQ.
unsafe fn recv_line(fd: c_int, f: Func, obj: *mut c_void, w: &ibv_recv_wr, ret: c_int, bytes: u64) {
    let mut line = Line::start(f);
    if matches!(f, Func::OpPostRecv) {
        line.hex(b" qp=", obj as usize as u64);
        // SAFETY: a live QP.
        line.dec(b" qpn=", unsafe { (*obj.cast::<ibv_qp>()).qp_num }.into());
    } else {
        line.hex(b" srq=", obj as usize as u64);
    }
    line.hex(b" wr_id=", w.wr_id);
    line.dec(b" nsge=", w.num_sge.into());
    if ret == 0 {
        line.dec(b" bytes=", bytes as i64);
    }
    line.dec(b" ret=", ret.into());
    line.write_to(fd);
}

/// One line on stderr, as is.
pub(crate) fn warn_line(text: &[u8]) {
    let mut line = Line::new();
    line.push(text);
    line.write_to(libc::STDERR_FILENO);
}

// ---- counters -------------------------------------------------------------

struct Counters {
    calls: AtomicU64,
    bytes: AtomicU64,
    errors: AtomicU64,
    blocked: AtomicU64,
}

static COUNTERS: [Counters; 21] = [const {
    Counters {
        calls: AtomicU64::new(0),
        bytes: AtomicU64::new(0),
        errors: AtomicU64::new(0),
        blocked: AtomicU64::new(0),
    }
}; 21];

/// Counts one call: bytes are those posted (by a successful post), received
/// (by a successful receive completion) or registered.
fn count<R: Outcome>(f: Func, what: Call, ret: R) {
    let failed = ret.failed();
    // SAFETY: the call succeeded, so its pointers were valid and read.
    let bytes = if failed { 0 } else { unsafe { bytes(what) } };
    tally(f, failed, bytes);
}

/// Adds one call of `f` to its counters.
fn tally(f: Func, failed: bool, bytes: u64) {
    let c = &COUNTERS[f as usize];
    c.calls.fetch_add(1, Relaxed);
    if failed {
        c.errors.fetch_add(1, Relaxed);
    }
    if bytes != 0 {
        c.bytes.fetch_add(bytes, Relaxed);
    }
}

/// The bytes a completion received: its length if it is a successful
/// receive, else 0.
fn recv_bytes(wc: &ibv_wc_head) -> u64 {
    let recv = wc.opcode & ibverbs_sys::ibv_wc_opcode::IBV_WC_RECV != 0;
    if recv && wc.status == ibverbs_sys::ibv_wc_status::IBV_WC_SUCCESS {
        u64::from(wc.byte_len)
    } else {
        0
    }
}

/// The bytes a successful call moved or registered.
///
/// # Safety
/// The call succeeded: a `List` holds `nsge` readable SGEs, a `Comp`'s `wc`
/// was written (when it returned a completion).
unsafe fn bytes(what: Call) -> u64 {
    match what {
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
        Call::SetErrno(_) | Call::Dereg(_) => 0,
    }
}

/// Counts a `rdma_get_*_comp` call that had to wait for a completion event
/// (once per call; the caller knows whether it already did).
pub(crate) fn blocked(f: Func) {
    if config::stats() {
        COUNTERS[f as usize].blocked.fetch_add(1, Relaxed);
    }
}

/// Prints the counters on stderr when the program exits (or the library is
/// unloaded).
pub(crate) fn print_stats_at_exit() {
    extern "C" fn print() {
        print_stats(libc::STDERR_FILENO);
    }
    // SAFETY: registering a function that lives as long as the library: the
    // atexit linked into a shared library runs it at dlclose too.
    unsafe { libc::atexit(print) };
}

/// The counters as a table, one `write(2)` per line.
fn print_stats(fd: c_int) {
    let mut line = Line::new();
    // SAFETY: getpid cannot fail.
    line.dec(
        b"rdmaverbs: calls of process ",
        unsafe { libc::getpid() }.into(),
    );
    line.push(b" (RDMAVERBS_STATS=1):");
    line.write_to(fd);
    let mut line = Line::new();
    line.push(b"rdmaverbs: function            ");
    line.push(b"        calls          bytes     errors    blocked");
    line.write_to(fd);
    let mut any = false;
    for (name, c) in NAMES.iter().zip(&COUNTERS) {
        let calls = c.calls.load(Relaxed);
        if calls == 0 {
            continue;
        }
        any = true;
        let mut line = Line::new();
        line.push(b"rdmaverbs: ");
        line.left(name.as_bytes(), 20);
        line.right(calls, 13);
        line.right(c.bytes.load(Relaxed), 15);
        line.right(c.errors.load(Relaxed), 11);
        if name.starts_with("rdma_get_") {
            line.right(c.blocked.load(Relaxed), 11);
        } else {
            line.push(b"          -");
        }
        line.write_to(fd);
    }
    if !any {
        let mut line = Line::new();
        line.push(b"rdmaverbs: (no calls)");
        line.write_to(fd);
    }
}

// ---- trace lines ----------------------------------------------------------

/// Writes the trace line of one call.
///
/// # Safety
/// The pointers in `what` are NULL or valid, as the export's contract says.
unsafe fn trace<R: Outcome>(fd: c_int, f: Func, what: Call, ret: R, err: c_int) {
    let mut line = Line::start(f);
    // SAFETY: forwarded.
    unsafe { describe(&mut line, what, ret) };
    if ret.failed() {
        line.dec(b" errno=", err.into());
    }
    line.write_to(fd);
}

/// The arguments and the result, as ` key=value` fields.
///
/// # Safety
/// As [`trace`].
unsafe fn describe<R: Outcome>(line: &mut Line, what: Call, ret: R) {
    match what {
        Call::SetErrno(arg) => {
            line.dec(b" arg=", arg.into());
            ret.show(line);
        }
        Call::Reg { id, addr, length } => {
            // SAFETY: forwarded.
            unsafe { show_id(line, id) };
            line.hex(b" addr=", addr as usize as u64);
            line.dec(b" length=", length as i64);
            ret.show(line);
        }
        Call::Dereg(mr) => {
            line.hex(b" mr=", mr as usize as u64);
            ret.show(line);
        }
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
            let opcode = match op {
                None => "RECV",
                Some(SendOp::Send | SendOp::UdSend { .. }) => "SEND",
                Some(SendOp::Read { .. }) => "RDMA_READ",
                Some(SendOp::Write { .. }) => "RDMA_WRITE",
            };
            line.push(b" opcode=");
            line.push(opcode.as_bytes());
            match sges {
                Sges::One(_) => line.push(b" nsge=1"),
                Sges::List(_, n) => line.dec(b" nsge=", n.into()),
            }
            if !ret.failed() {
                // SAFETY: the post succeeded, so its SGEs were read.
                line.dec(b" bytes=", unsafe { bytes(what) } as i64);
            }
            if op.is_some() {
                line.hex(b" flags=", flags as u32 as u64);
            }
            match op {
                Some(SendOp::Read { remote_addr, rkey } | SendOp::Write { remote_addr, rkey }) => {
                    line.hex(b" remote_addr=", remote_addr);
                    line.hex(b" rkey=", rkey.into());
                }
                Some(SendOp::UdSend { ah, remote_qpn }) => {
                    line.hex(b" ah=", ah as usize as u64);
                    line.dec(b" remote_qpn=", remote_qpn.into());
                }
                _ => {}
            }
            ret.show(line);
        }
        Call::Comp { id, wc } => {
            // SAFETY: forwarded.
            unsafe { show_id(line, id) };
            ret.show(line);
            if !ret.failed() && !wc.is_null() {
                // SAFETY: a successful call wrote `*wc`.
                show_wc(line, unsafe { &*wc.cast::<ibv_wc_head>() });
            }
        }
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

/// `enum ibv_wc_status` without the `IBV_WC_` prefix, by value: a trace
/// field is one word.
pub(crate) const STATUS: [&str; 24] = [
    "SUCCESS",
    "LOC_LEN_ERR",
    "LOC_QP_OP_ERR",
    "LOC_EEC_OP_ERR",
    "LOC_PROT_ERR",
    "WR_FLUSH_ERR",
    "MW_BIND_ERR",
    "BAD_RESP_ERR",
    "LOC_ACCESS_ERR",
    "REM_INV_REQ_ERR",
    "REM_ACCESS_ERR",
    "REM_OP_ERR",
    "RETRY_EXC_ERR",
    "RNR_RETRY_EXC_ERR",
    "LOC_RDD_VIOL_ERR",
    "REM_INV_RD_REQ_ERR",
    "REM_ABORT_ERR",
    "INV_EECN_ERR",
    "INV_EEC_STATE_ERR",
    "FATAL_ERR",
    "RESP_TIMEOUT_ERR",
    "GENERAL_ERR",
    "TM_ERR",
    "TM_RNDV_INCOMPLETE",
];

/// A work completion: ` wr_id=... status=... opcode=... byte_len=...`.
fn show_wc(line: &mut Line, wc: &ibv_wc_head) {
    line.hex(b" wr_id=", wc.wr_id);
    match STATUS.get(wc.status as usize) {
        Some(name) => {
            line.push(b" status=");
            line.push(name.as_bytes());
        }
        None => line.dec(b" status=", wc.status.into()),
    }
    use ibverbs_sys::ibv_wc_opcode as o;
    let opcode = match wc.opcode {
        o::IBV_WC_SEND => "SEND",
        o::IBV_WC_RDMA_WRITE => "RDMA_WRITE",
        o::IBV_WC_RDMA_READ => "RDMA_READ",
        o::IBV_WC_COMP_SWAP => "COMP_SWAP",
        o::IBV_WC_FETCH_ADD => "FETCH_ADD",
        o::IBV_WC_BIND_MW => "BIND_MW",
        o::IBV_WC_LOCAL_INV => "LOCAL_INV",
        o::IBV_WC_RECV => "RECV",
        o::IBV_WC_RECV_RDMA_WITH_IMM => "RECV_RDMA_WITH_IMM",
        _ => "OTHER",
    };
    line.push(b" opcode=");
    line.push(opcode.as_bytes());
    line.dec(b" byte_len=", wc.byte_len.into());
}

/// One line of output, built on the stack; too long a line is cut.
///
/// Formatting is by hand, not `core::fmt`: nothing here has a panic path,
/// so tracing can never abort the host program (and the library carries no
/// panic machinery; `make test-symbols` checks that).
pub(crate) struct Line {
    buf: [u8; 512],
    len: usize,
}

impl Line {
    pub(crate) fn new() -> Self {
        Line {
            buf: [0; 512],
            len: 0,
        }
    }

    /// A trace line's start: `rdmaverbs[TID]: NAME`.
    fn start(f: Func) -> Self {
        let mut line = Line::new();
        // SAFETY: gettid cannot fail.
        line.dec(b"rdmaverbs[", unsafe { libc::gettid() }.into());
        line.push(b"]: ");
        line.push(f.name().as_bytes());
        line
    }

    /// Appends `bytes`, as much as fits (one byte stays free for the newline).
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        let room = self.buf.len().saturating_sub(self.len + 1);
        let free = self.buf.get_mut(self.len..).unwrap_or_default();
        let mut n = 0;
        for (d, s) in free.iter_mut().zip(bytes.iter().take(room)) {
            *d = *s;
            n += 1;
        }
        self.len += n;
    }

    /// `key` and `n` in decimal.
    pub(crate) fn dec(&mut self, key: &[u8], n: i64) {
        self.push(key);
        if n < 0 {
            self.push(b"-");
        }
        let mut d = [0; 20];
        self.push(digits(n.unsigned_abs(), DEC, &mut d));
    }

    /// `key` and `n` in hexadecimal, with `0x`.
    pub(crate) fn hex(&mut self, key: &[u8], n: u64) {
        self.push(key);
        self.push(b"0x");
        let mut d = [0; 20];
        self.push(digits(n, HEX, &mut d));
    }

    /// `text`, then spaces up to `width`.
    fn left(&mut self, text: &[u8], width: usize) {
        self.push(text);
        self.spaces(width.saturating_sub(text.len()));
    }

    /// Spaces, then `n` in decimal, `width` wide.
    fn right(&mut self, n: u64, width: usize) {
        let mut d = [0; 20];
        let text = digits(n, DEC, &mut d);
        self.spaces(width.saturating_sub(text.len()));
        self.push(text);
    }

    fn spaces(&mut self, n: usize) {
        for _ in 0..n {
            self.push(b" ");
        }
    }

    /// Writes the line and a newline with one `write(2)`; errors are ignored
    /// (tracing never changes what the program sees).
    pub(crate) fn write_to(mut self, fd: c_int) {
        if let Some(end) = self.buf.get_mut(self.len) {
            *end = b'\n';
            self.len += 1;
        }
        loop {
            // SAFETY: `buf[..len]` is initialised and `len <= buf.len()`.
            let w = unsafe { libc::write(fd, self.buf.as_ptr().cast(), self.len) };
            if w >= 0 || errno() != libc::EINTR {
                break;
            }
        }
    }
}

const DEC: NonZeroU64 = NonZeroU64::new(10).unwrap();
const HEX: NonZeroU64 = NonZeroU64::new(16).unwrap();

/// The digits of `n` in `base` (10 or 16), in the tail of `d`.
fn digits(mut n: u64, base: NonZeroU64, d: &mut [u8; 20]) -> &[u8] {
    let mut start = d.len();
    for slot in d.iter_mut().rev() {
        let digit = (n % base) as u8;
        *slot = if digit < 10 {
            b'0' + digit
        } else {
            b'a' + digit - 10
        };
        start -= 1;
        n /= base;
        if n == 0 {
            break;
        }
    }
    d.get(start..).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_is_cut_not_overrun() {
        let mut l = Line::new();
        for _ in 0..100 {
            l.push(b"0123456789");
        }
        assert_eq!(l.len, 511);
    }

    #[test]
    fn names_in_order() {
        assert_eq!(Func::SetErrno.name(), "rdma_seterrno");
        assert_eq!(Func::PostUdSend.name(), "rdma_post_ud_send");
        assert_eq!(Func::GetRecvComp.name(), "rdma_get_recv_comp");
    }
}
