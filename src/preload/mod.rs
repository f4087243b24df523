//! The preload library's own job: watching programs that were never rebuilt.
//!
//! `librdmaverbs-preload.so` (the same archive as `librdmaverbs.so.1`,
//! linked with `src/preload.map`) exports what `librdmaverbs.so.1` exports,
//! and interposes the libibverbs functions of the table's `interposed` list
//! (`ibv_open_device`, `ibv_close_device`, `ibv_destroy_qp`,
//! `ibv_destroy_cq`) at libibverbs' version `IBVERBS_1.1`. A program built
//! against the stock `<rdma/rdma_verbs.h>` has the 16 functions inlined, but
//! its inline code, like every inline `ibv_post_send` or `ibv_poll_cq`,
//! calls through the function pointers of the device context. When
//! something watches (`RDMAVERBS_TRACE` or `RDMAVERBS_STATS`), each context
//! opened gets its data-path ops (the `SavedOps` list of [`ops`]) replaced
//! with wrappers that call the provider's own op and hand the observer what
//! happened, and its `create_qp_ex` and `create_cq_ex`, where it has them,
//! with wrappers that do the same to the calls of each extended QP and CQ
//! made on it ([`extended`]). The originals are kept ([`registry`]) and put
//! back before the real close or destroy. With nothing watched, the four
//! functions only forward, and take no lock.
//!
//! The library is linked with `-z nodelete`: once it has wrapped a context,
//! its code must stay mapped for as long as the process lives.

mod extended;
mod ops;
mod registry;
mod saved;

use core::ffi::{CStr, c_int, c_void};
use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering};

use rdmaverbs_abi::verbs::ibv_device;

use rdmaverbs_abi::function_table;
use rdmaverbs_abi::sys::set_errno;
use rdmaverbs_abi::verbs::{ibv_context, ibv_cq, ibv_qp};
use rdmaverbs_observe as observe;

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
        return unavailable().cast();
    };
    // SAFETY: libibverbs' own function, with the caller's argument.
    let ctx = unsafe { core::mem::transmute::<*mut c_void, OpenFn>(real)(device) };
    if !ctx.is_null() && observe::watching() {
        // SAFETY: a context libibverbs just opened, not yet shared.
        unsafe { ops::wrap(ctx) };
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
        unavailable();
        return -1;
    };
    if !ctx.is_null() {
        // SAFETY: the caller's open context, about to be closed.
        unsafe { ops::unwrap(ctx) };
    }
    // SAFETY: libibverbs' own function, with the caller's argument.
    unsafe { core::mem::transmute::<*mut c_void, CloseFn>(real)(ctx) }
}

type DestroyQpFn = unsafe extern "C" fn(*mut ibv_qp) -> c_int;
type DestroyCqFn = unsafe extern "C" fn(*mut ibv_cq) -> c_int;

/// Puts a wrapped QP's own extended post calls back, then destroys it
/// through libibverbs. Same contract and result as libibverbs'.
///
/// # Safety
/// As libibverbs' `ibv_destroy_qp`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_qp(qp: *mut ibv_qp) -> c_int {
    static REAL: AtomicPtr<c_void> = AtomicPtr::new(ptr::null_mut());
    let Some(real) = real(&REAL, c"ibv_destroy_qp") else {
        unavailable();
        return -1;
    };
    if !qp.is_null() {
        // SAFETY: the caller's live QP, about to be destroyed.
        unsafe { extended::unwrap_qp(qp.cast()) };
    }
    // SAFETY: libibverbs' own function, with the caller's argument.
    unsafe { core::mem::transmute::<*mut c_void, DestroyQpFn>(real)(qp) }
}

/// As [`ibv_destroy_qp`], for a CQ and its polling calls.
///
/// # Safety
/// As libibverbs' `ibv_destroy_cq`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_cq(cq: *mut ibv_cq) -> c_int {
    static REAL: AtomicPtr<c_void> = AtomicPtr::new(ptr::null_mut());
    let Some(real) = real(&REAL, c"ibv_destroy_cq") else {
        unavailable();
        return -1;
    };
    if !cq.is_null() {
        // SAFETY: the caller's live CQ, about to be destroyed.
        unsafe { extended::unwrap_cq(cq.cast()) };
    }
    // SAFETY: libibverbs' own function, with the caller's argument.
    unsafe { core::mem::transmute::<*mut c_void, DestroyCqFn>(real)(cq) }
}

/// libibverbs' definition of `name` at `IBVERBS_1.1`: the next one after
/// this library in the lookup order. Looked up once. (The callers
/// `transmute` it to its function's type: docs/design.md, "Decisions".)
fn real(cache: &AtomicPtr<c_void>, name: &CStr) -> Option<*mut c_void> {
    let mut f = cache.load(Ordering::Acquire);
    if f.is_null() {
        // SAFETY: C strings; RTLD_NEXT is valid from a shared object.
        f = unsafe { libc::dlvsym(libc::RTLD_NEXT, name.as_ptr(), c"IBVERBS_1.1".as_ptr()) };
        cache.store(f, Ordering::Release);
    }
    (!f.is_null()).then_some(f)
}

/// No libibverbs behind this library: NULL (or -1) with `errno = ENOSYS`.
#[cold]
fn unavailable() -> *mut c_void {
    set_errno(libc::ENOSYS);
    ptr::null_mut()
}

/// Every interposed function of the table is defined here (a compile error
/// otherwise); `make test-symbols` checks what the library exports.
macro_rules! check_interposed {
    (exports { $($e:tt)* } interposed { $( $name:ident $node:literal; )* }) => {
        #[allow(dead_code)]
        fn interposed_exist() -> [*const (); rdmaverbs_abi::functions::Func::INTERPOSED.len()] {
            [ $( $name as *const (), )* ]
        }
    };
}
function_table!(check_interposed);
