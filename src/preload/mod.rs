//! Watching programs that were never rebuilt: `ibv_open_device` and
//! `ibv_close_device`, interposed at libibverbs' symbol version
//! `IBVERBS_1.1`.
//!
//! A program built against the stock `<rdma/rdma_verbs.h>` has the 16
//! functions inlined, but its inline code, like every inline `ibv_post_send`
//! or `ibv_poll_cq`, calls through the function pointers of the device
//! context. When `RDMAVERBS_TRACE` or `RDMAVERBS_STATS` is set, the contexts
//! opened while this library is loaded (preloaded, or linked before
//! libibverbs) get five of those pointers replaced with wrappers that call
//! the provider's own op and record the call like the 16 functions do. The
//! originals are kept per context and put back before the real close. With
//! neither variable set, the two functions only forward.

use core::cell::UnsafeCell;
use core::ffi::{c_int, c_void};
use core::mem::MaybeUninit;
use core::ptr;
use core::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use ibverbs_sys::{ibv_context_ops, ibv_device};

use crate::observe::{self, Op, record_op};
use crate::verbs::{ibv_context, ibv_cq, ibv_qp, ibv_recv_wr, ibv_send_wr, ibv_srq, ibv_wc};

type OpenFn = unsafe extern "C" fn(*mut ibv_device) -> *mut ibv_context;
type CloseFn = unsafe extern "C" fn(*mut ibv_context) -> c_int;

/// Opens a device through libibverbs; when watching, wraps the new
/// context's data-path ops. Same contract and result as libibverbs'.
///
/// # Safety
/// As libibverbs' `ibv_open_device`: `device` comes from
/// `ibv_get_device_list`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_open_device(device: *mut ibv_device) -> *mut ibv_context {
    static REAL: AtomicPtr<c_void> = AtomicPtr::new(ptr::null_mut());
    let Some(real) = real(&REAL, c"ibv_open_device") else {
        return core::ptr::null_mut();
    };
    // SAFETY: libibverbs' own function, with the caller's argument.
    let ctx = unsafe { core::mem::transmute::<*mut c_void, OpenFn>(real)(device) };
    if !ctx.is_null() && observe::watching() {
        // SAFETY: a context libibverbs just opened.
        unsafe { wrap(ctx) };
    }
    ctx
}

/// Puts the context's own ops back, then closes it through libibverbs.
///
/// # Safety
/// As libibverbs' `ibv_close_device`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_close_device(ctx: *mut ibv_context) -> c_int {
    static REAL: AtomicPtr<c_void> = AtomicPtr::new(ptr::null_mut());
    let Some(real) = real(&REAL, c"ibv_close_device") else {
        return -1;
    };
    if !ctx.is_null() {
        // SAFETY: the caller's open context.
        unsafe { unwrap(ctx) };
    }
    // SAFETY: libibverbs' own function, with the caller's argument.
    unsafe { core::mem::transmute::<*mut c_void, CloseFn>(real)(ctx) }
}

/// libibverbs' definition of `name` at `IBVERBS_1.1`: the next one after
/// this library in the lookup order. Looked up once.
fn real(cache: &AtomicPtr<c_void>, name: &core::ffi::CStr) -> Option<*mut c_void> {
    let mut f = cache.load(Ordering::Acquire);
    if f.is_null() {
        // SAFETY: C strings; RTLD_NEXT is valid from a shared object.
        f = unsafe { libc::dlvsym(libc::RTLD_NEXT, name.as_ptr(), c"IBVERBS_1.1".as_ptr()) };
        cache.store(f, Ordering::Release);
    }
    (!f.is_null()).then_some(f)
}

// ---- the contexts whose ops are wrapped -----------------------------------

/// One wrapped context and its provider's ops, as they were.
struct Slot {
    ctx: AtomicPtr<ibv_context>,
    ops: UnsafeCell<MaybeUninit<ibv_context_ops>>,
}

// SAFETY: `ops` is written only under LOCK while `ctx` is NULL, and read
// only after `ctx` was seen (Acquire) non-NULL; see `wrap` and `saved`.
unsafe impl Sync for Slot {}

/// Enough for every device of a machine; a context beyond it is not wrapped.
const SLOTS: usize = 64;

static TABLE: [Slot; SLOTS] = [const {
    Slot {
        ctx: AtomicPtr::new(ptr::null_mut()),
        ops: UnsafeCell::new(MaybeUninit::uninit()),
    }
}; SLOTS];

/// Serialises opens and closes (never taken on the data path).
static LOCK: AtomicBool = AtomicBool::new(false);

fn lock() {
    while LOCK
        .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        core::hint::spin_loop();
    }
}

fn unlock() {
    LOCK.store(false, Ordering::Release);
}

/// Saves the context's ops and installs the wrappers.
///
/// # Safety
/// `ctx` is an open context that no other thread uses yet.
unsafe fn wrap(ctx: *mut ibv_context) {
    lock();
    if let Some(slot) = TABLE
        .iter()
        .find(|s| s.ctx.load(Ordering::Relaxed).is_null())
    {
        // SAFETY: a free slot, under LOCK; `ctx` is valid.
        unsafe {
            (*slot.ops.get()).write((*ctx).ops);
            slot.ctx.store(ctx, Ordering::Release);
            let ops = &mut (*ctx).ops;
            ops.post_send = Some(post_send);
            ops.post_recv = Some(post_recv);
            ops.post_srq_recv = Some(post_srq_recv);
            ops.poll_cq = Some(poll_cq);
            ops.req_notify_cq = Some(req_notify_cq);
        }
    } else {
        observe::warn_line(b"rdmaverbs: warning: more than 64 open devices; not watching the rest");
    }
    unlock();
}

/// Puts back the ops of a wrapped context.
///
/// # Safety
/// `ctx` is an open context, about to be closed.
unsafe fn unwrap(ctx: *mut ibv_context) {
    lock();
    if let Some(slot) = TABLE.iter().find(|s| s.ctx.load(Ordering::Relaxed) == ctx) {
        // SAFETY: the slot of `ctx`, under LOCK; its ops were saved.
        unsafe {
            let saved = (*slot.ops.get()).assume_init_ref();
            let ops = &mut (*ctx).ops;
            ops.post_send = saved.post_send;
            ops.post_recv = saved.post_recv;
            ops.post_srq_recv = saved.post_srq_recv;
            ops.poll_cq = saved.poll_cq;
            ops.req_notify_cq = saved.req_notify_cq;
        }
        slot.ctx.store(ptr::null_mut(), Ordering::Release);
    }
    unlock();
}

/// The provider's own ops of a wrapped context.
fn saved(ctx: *mut ibv_context) -> Option<&'static ibv_context_ops> {
    let slot = TABLE
        .iter()
        .find(|s| s.ctx.load(Ordering::Acquire) == ctx)?;
    // SAFETY: published with Release after the ops were written.
    Some(unsafe { (*slot.ops.get()).assume_init_ref() })
}

// ---- the wrappers -----------------------------------------------------------

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
    let Some(op) = saved(unsafe { (*qp).context }).and_then(|o| o.post_send) else {
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
    let Some(op) = saved(unsafe { (*qp).context }).and_then(|o| o.post_recv) else {
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
    let Some(op) = saved(unsafe { (*srq).context }).and_then(|o| o.post_srq_recv) else {
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
    let Some(op) = saved(unsafe { (*cq).context }).and_then(|o| o.poll_cq) else {
        return -GONE;
    };
    // SAFETY: as in `post_send`.
    let ret = unsafe { op(cq, n, wc) };
    // SAFETY: the provider wrote `ret` completions to `wc`.
    unsafe { record_op(Op::PollCq { cq, wc }, ret) };
    ret
}

/// The wrapped `req_notify_cq` op.
///
/// # Safety
/// As the provider's op: a live CQ of a wrapped context.
unsafe extern "C" fn req_notify_cq(cq: *mut ibv_cq, solicited_only: c_int) -> c_int {
    // SAFETY: as in `post_send`.
    let Some(op) = saved(unsafe { (*cq).context }).and_then(|o| o.req_notify_cq) else {
        return GONE;
    };
    // SAFETY: as in `post_send`.
    let ret = unsafe { op(cq, solicited_only) };
    // SAFETY: nothing is read.
    unsafe { record_op(Op::ReqNotifyCq { cq }, ret) };
    ret
}
