//! The wrapped data-path ops of a device context: each calls the provider's
//! own op, saved per context in [`CONTEXTS`], then hands the observer what
//! happened.

use core::ffi::c_int;
use core::sync::atomic::{AtomicBool, Ordering};

use rdmaverbs_abi::verbs::ibv_context_ops;

use super::extended;
use super::registry::Registry;
use super::saved::saved;
use rdmaverbs_abi::sys::{pthread_atfork, set_errno};
use rdmaverbs_abi::verbs::{
    CreateCqEx, CreateQpEx, ibv_context, ibv_cq, ibv_qp, ibv_recv_wr, ibv_send_wr, ibv_srq, ibv_wc,
    verbs_context,
};
use rdmaverbs_observe::{Op, record_op, warn_line};

saved! {
    /// The provider's own data-path ops of a wrapped context.
    struct SavedOps of ibv_context_ops, always {
        post_send: PostSend => post_send,
        post_recv: PostRecv => post_recv,
        post_srq_recv: PostSrqRecv => post_srq_recv,
        poll_cq: PollCq => poll_cq,
        req_notify_cq: ReqNotifyCq => req_notify_cq,
    }
}

saved! {
    /// The extended API's creation ops of a wrapped context's
    /// `verbs_context`, where it has them.
    struct SavedCreators of verbs_context, where_set {
        create_qp_ex: Option<CreateQpEx> => create_qp_ex_wrapped,
        create_cq_ex: Option<CreateCqEx> => create_cq_ex_wrapped,
    }
}

/// What is saved of a wrapped context.
#[derive(Clone, Copy)]
struct Saved {
    ops: SavedOps,
    /// `None` when the context is not an extended one.
    creators: Option<SavedCreators>,
}

type PostSend =
    Option<unsafe extern "C" fn(*mut ibv_qp, *mut ibv_send_wr, *mut *mut ibv_send_wr) -> c_int>;
type PostRecv =
    Option<unsafe extern "C" fn(*mut ibv_qp, *mut ibv_recv_wr, *mut *mut ibv_recv_wr) -> c_int>;
type PostSrqRecv =
    Option<unsafe extern "C" fn(*mut ibv_srq, *mut ibv_recv_wr, *mut *mut ibv_recv_wr) -> c_int>;
type PollCq = Option<unsafe extern "C" fn(*mut ibv_cq, c_int, *mut ibv_wc) -> c_int>;
type ReqNotifyCq = Option<unsafe extern "C" fn(*mut ibv_cq, c_int) -> c_int>;

/// Every wrapped context, with its provider's ops.
static CONTEXTS: Registry<Saved> = Registry::new();

/// Saves the context's ops and installs the wrappers. (Out of memory: the
/// context is not wrapped, with a warning.)
///
/// # Safety
/// `ctx` is an open context that no other thread uses yet.
pub(super) unsafe fn wrap(ctx: *mut ibv_context) {
    fork_handlers();
    // SAFETY: `ctx` is valid (caller's guarantee); its verbs_context, when
    // it has one, is not yet shared.
    let (ops, v) = unsafe { (&mut (*ctx).ops, verbs_context(ctx)) };
    // SAFETY: as above.
    let v = v.map(|v| unsafe { &mut *v });
    let saved = Saved {
        ops: SavedOps::save(ops),
        creators: v.as_deref().map(SavedCreators::save),
    };
    if !CONTEXTS.insert(ctx.cast(), saved) {
        warn_line(b"rdmaverbs: warning: out of memory; a device context is not watched");
        return;
    }
    SavedOps::install(ops);
    if let Some(v) = v {
        SavedCreators::install(v);
    }
}

/// Puts back the ops of a wrapped context (a context that is not wrapped
/// costs a lock-free look-up, and takes no lock).
///
/// # Safety
/// `ctx` is an open context, about to be closed.
pub(super) unsafe fn unwrap(ctx: *mut ibv_context) {
    if CONTEXTS.get(ctx.cast()).is_none() {
        return;
    }
    if let Some(saved) = CONTEXTS.remove(ctx.cast()) {
        // SAFETY: `ctx` is valid (caller's guarantee).
        saved.ops.restore(unsafe { &mut (*ctx).ops });
        // SAFETY: as above.
        if let (Some(c), Some(v)) = (saved.creators, unsafe { verbs_context(ctx) }) {
            // SAFETY: the context's own verbs_context.
            c.restore(unsafe { &mut *v });
        }
    }
}

/// The provider's creation op `f` of a wrapped context.
fn creator<T>(ctx: *mut ibv_context, f: impl FnOnce(SavedCreators) -> Option<T>) -> Option<T> {
    CONTEXTS
        .get(ctx.cast())
        .and_then(|s| s.creators)
        .and_then(f)
}

/// The wrapped `create_qp_ex` of a context: the provider's, then, for a QP
/// created with send operations (`IBV_QP_INIT_ATTR_SEND_OPS_FLAGS`), its
/// extended post calls wrapped.
///
/// # Safety
/// As the provider's op (called by the inline `ibv_create_qp_ex`).
unsafe extern "C" fn create_qp_ex_wrapped(
    ctx: *mut ibv_context,
    attr: *mut rdmaverbs_abi::verbs::ibv_qp_init_attr_ex,
) -> *mut ibv_qp {
    let Some(create) = creator(ctx, |c| c.create_qp_ex) else {
        set_errno(libc::EOPNOTSUPP);
        return core::ptr::null_mut();
    };
    // SAFETY: the provider's op, with the caller's arguments.
    let qp = unsafe { create(ctx, attr) };
    // SAFETY: the caller's attributes; a QP the provider just made.
    let ops =
        unsafe { (*attr).comp_mask } & rdmaverbs_abi::verbs::IBV_QP_INIT_ATTR_SEND_OPS_FLAGS != 0;
    if !qp.is_null() && ops {
        // SAFETY: libibverbs' own accessor, on a live QP.
        let qpx = unsafe { rdmaverbs_abi::verbs::ibv_qp_to_qp_ex(qp) };
        if !qpx.is_null() {
            // SAFETY: a new QP, not yet used by another thread.
            unsafe { extended::wrap_qp(qpx) };
        }
    }
    qp
}

/// The wrapped `create_cq_ex` of a context: the provider's, then the new
/// CQ's polling calls wrapped.
///
/// # Safety
/// As the provider's op (called by the inline `ibv_create_cq_ex`).
unsafe extern "C" fn create_cq_ex_wrapped(
    ctx: *mut ibv_context,
    attr: *mut rdmaverbs_abi::verbs::ibv_cq_init_attr_ex,
) -> *mut rdmaverbs_abi::verbs::ibv_cq_ex {
    let Some(create) = creator(ctx, |c| c.create_cq_ex) else {
        set_errno(libc::EOPNOTSUPP);
        return core::ptr::null_mut();
    };
    // SAFETY: the provider's op, with the caller's arguments.
    let cq = unsafe { create(ctx, attr) };
    if !cq.is_null() {
        // SAFETY: a new CQ, not yet used by another thread.
        unsafe { extended::wrap_cq(cq) };
    }
    cq
}

/// The locks of the registries (contexts, QPs, CQs) are taken before a fork
/// and released on both sides, so that no child starts with one held.
/// Registered once, when the first context is wrapped; how they order with
/// the observer's own fork handlers: `observe/src/process.rs`, rule 3.
fn fork_handlers() {
    static DONE: AtomicBool = AtomicBool::new(false);
    extern "C" fn prepare() {
        CONTEXTS.before_fork();
        extended::before_fork();
    }
    extern "C" fn parent() {
        extended::after_fork(false);
        CONTEXTS.after_fork_in_parent();
    }
    extern "C" fn child() {
        extended::after_fork(true);
        CONTEXTS.after_fork_in_child();
    }
    if !DONE.swap(true, Ordering::Relaxed) {
        // SAFETY: functions that live as long as the library (nodelete).
        unsafe { pthread_atfork(Some(prepare), Some(parent), Some(child)) };
    }
}

/// What a wrapper returns when its context's ops are gone (a call racing
/// the close): the provider would not be there either.
const GONE: c_int = libc::ENODEV;

/// The wrapped `post_send` op: the provider's, then recorded.
///
/// # Safety
/// As the provider's op: called by libibverbs' inline `ibv_post_send` with a
/// live QP of a wrapped context and the caller's work requests.
unsafe extern "C" fn post_send(
    qp: *mut ibv_qp,
    wr: *mut ibv_send_wr,
    bad: *mut *mut ibv_send_wr,
) -> c_int {
    // SAFETY: the provider calls us with its own live QP.
    let Some(op) = CONTEXTS
        .get(unsafe { (*qp).context }.cast())
        .and_then(|o| o.ops.post_send)
    else {
        return GONE;
    };
    // SAFETY: the provider's op, with the caller's arguments.
    let ret = unsafe { op(qp, wr, bad) };
    // SAFETY: the caller's work requests, still valid after the call.
    unsafe { record_op(Op::PostSend { qp, wr }, ret) };
    ret
}

/// The wrapped `post_recv` op.
///
/// # Safety
/// As [`post_send`], for receive work requests.
unsafe extern "C" fn post_recv(
    qp: *mut ibv_qp,
    wr: *mut ibv_recv_wr,
    bad: *mut *mut ibv_recv_wr,
) -> c_int {
    // SAFETY: as in `post_send`.
    let Some(op) = CONTEXTS
        .get(unsafe { (*qp).context }.cast())
        .and_then(|o| o.ops.post_recv)
    else {
        return GONE;
    };
    // SAFETY: as in `post_send`.
    let ret = unsafe { op(qp, wr, bad) };
    // SAFETY: as in `post_send`.
    unsafe { record_op(Op::PostRecv { qp, wr }, ret) };
    ret
}

/// The wrapped `post_srq_recv` op.
///
/// # Safety
/// As [`post_send`], with a live SRQ.
unsafe extern "C" fn post_srq_recv(
    srq: *mut ibv_srq,
    wr: *mut ibv_recv_wr,
    bad: *mut *mut ibv_recv_wr,
) -> c_int {
    // SAFETY: as in `post_send`.
    let Some(op) = CONTEXTS
        .get(unsafe { (*srq).context }.cast())
        .and_then(|o| o.ops.post_srq_recv)
    else {
        return GONE;
    };
    // SAFETY: as in `post_send`.
    let ret = unsafe { op(srq, wr, bad) };
    // SAFETY: as in `post_send`.
    unsafe { record_op(Op::PostSrqRecv { srq, wr }, ret) };
    ret
}

/// The wrapped `poll_cq` op.
///
/// # Safety
/// As the provider's op: a live CQ of a wrapped context, room for `n`
/// completions at `wc`.
unsafe extern "C" fn poll_cq(cq: *mut ibv_cq, n: c_int, wc: *mut ibv_wc) -> c_int {
    // SAFETY: as in `post_send`.
    let Some(op) = CONTEXTS
        .get(unsafe { (*cq).context }.cast())
        .and_then(|o| o.ops.poll_cq)
    else {
        return -GONE;
    };
    // SAFETY: as in `post_send`.
    let ret = unsafe { op(cq, n, wc) };
    // SAFETY: the provider wrote `ret` completions to `wc`.
    unsafe { record_op(Op::PollCq { cq, wc, n }, ret) };
    ret
}

/// The wrapped `req_notify_cq` op.
///
/// # Safety
/// As the provider's op: a live CQ of a wrapped context.
unsafe extern "C" fn req_notify_cq(cq: *mut ibv_cq, solicited_only: c_int) -> c_int {
    // SAFETY: as in `post_send`.
    let Some(op) = CONTEXTS
        .get(unsafe { (*cq).context }.cast())
        .and_then(|o| o.ops.req_notify_cq)
    else {
        return GONE;
    };
    // SAFETY: as in `post_send`.
    let ret = unsafe { op(cq, solicited_only) };
    // SAFETY: nothing is read.
    unsafe { record_op(Op::ReqNotifyCq { cq }, ret) };
    ret
}
