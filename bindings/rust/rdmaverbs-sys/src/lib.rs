//! rdmaverbs-sys: the raw layer of the rdmaverbs crate. librdmacm's inline
//! `<rdma/rdma_verbs.h>` functions (and `rdma_get_local_addr`,
//! `rdma_get_peer_addr`, the bounded waits), the `static inline`
//! functions of `<infiniband/verbs.h>` (`RDMAVERBS_1.3`) and the librdmacm
//! and libibverbs calls that go with them, from Rust, linked with
//! `librdmaverbs.so.1` (found by pkg-config at build time, by the dynamic
//! loader at run time; `links = "rdmaverbs"`).
//!
//! Every function has its C name and C types, as an `unsafe fn` whose
//! failure (-1, or NULL) is an `Err(std::io::Error)` of the errno the call
//! left, read right after it; [`sys`] has the C functions themselves. The
//! structs (`ibv_sge`, `ibv_wc`, `rdma_addrinfo`, ...) and constants are in
//! `api.rs`, generated from the library's table of functions and checked
//! against the system headers (`cargo run --example layout`).
//!
//! No rdma-core build: the crate declares what it calls, as the C header
//! does, and links the installed libraries. The safe crate over it,
//! `rdmaverbs` (objects that close themselves, posted buffers held until
//! their completion), re-exports it as `rdmaverbs::raw`.

#![allow(clippy::missing_safety_doc, clippy::too_many_arguments)]

#[rustfmt::skip]
mod api;
pub use api::*;

use core::ffi::{c_char, c_void, CStr};
use std::io;
use std::sync::OnceLock;

extern "C" {
    fn dlvsym(handle: *mut c_void, name: *const c_char, version: *const c_char) -> *mut c_void;
}
// glibc before 2.34 (Debian 11) keeps dlvsym in libdl.
#[link(name = "dl")]
extern "C" {}

/// The address of `name@version`, a function of librdmaverbs that rdma-core
/// release `since` brought, in the process (the library is linked), looked
/// up once (`cache`); an `Err` (`ErrorKind::Unsupported`) saying so where
/// the library's build lacks it (its headers were older).
pub(crate) fn optional(
    cache: &OnceLock<usize>,
    name: &CStr,
    version: &CStr,
    since: u32,
) -> io::Result<*mut c_void> {
    const RTLD_DEFAULT: *mut c_void = core::ptr::null_mut();
    // SAFETY: NUL-terminated strings; RTLD_DEFAULT searches the process.
    let p = *cache
        .get_or_init(|| unsafe { dlvsym(RTLD_DEFAULT, name.as_ptr(), version.as_ptr()) } as usize);
    if p != 0 {
        return Ok(p as *mut c_void);
    }
    let name = name.to_string_lossy();
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "{name} is not in librdmaverbs.so.1: it came with rdma-core {since}, and this build of \
             rdmaverbs was made against an older rdma-core's headers (rebuild it against rdma-core \
             {since} or later)"
        ),
    ))
}

/// The error of a C function that failed, inside the `io::Error` every
/// function of this crate returns (its `kind()` is the errno value's):
/// the function's C name and the errno value it left or returned. Shown as
/// `"rdma_connect: ECONNREFUSED (Connection refused, errno 111)"`;
/// [`errno_of`] reads the value back from any `io::Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallError {
    function: &'static str,
    errno: i32,
}

impl CallError {
    /// The C function that failed: `"rdma_connect"`, `"ibv_post_send"`, ...
    pub fn function(&self) -> &'static str {
        self.function
    }

    /// The errno value (`libc::ECONNREFUSED`, ...).
    pub fn errno(&self) -> i32 {
        self.errno
    }

    /// The errno value's name (`"ECONNREFUSED"`), if it is one that the
    /// calls here give.
    pub fn errno_name(&self) -> Option<&'static str> {
        errno_name(self.errno)
    }
}

impl core::fmt::Display for CallError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // "Connection refused (os error 111)": the description alone.
        let text = io::Error::from_raw_os_error(self.errno).to_string();
        let text = text.split(" (os error").next().unwrap_or(&text);
        match errno_name(self.errno) {
            Some(name) => write!(
                f,
                "{}: {name} ({text}, errno {})",
                self.function, self.errno
            ),
            None => write!(f, "{}: {text} (errno {})", self.function, self.errno),
        }
    }
}

impl std::error::Error for CallError {}

/// The `io::Error` of `function` failing with `errno`: of the errno
/// value's `ErrorKind`, carrying a [`CallError`].
pub fn call_error(function: &'static str, errno: i32) -> io::Error {
    io::Error::new(
        io::Error::from_raw_os_error(errno).kind(),
        CallError { function, errno },
    )
}

/// [`call_error`] of the calling thread's `errno`, read right after the
/// call.
pub fn last_call_error(function: &'static str) -> io::Error {
    call_error(
        function,
        io::Error::last_os_error().raw_os_error().unwrap_or(0),
    )
}

/// The errno value of an error of this crate or of the standard library:
/// a [`CallError`]'s, else the operating system's (`raw_os_error`).
pub fn errno_of(e: &io::Error) -> Option<i32> {
    match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<CallError>())
    {
        Some(c) => Some(c.errno),
        None => e.raw_os_error(),
    }
}

/// The name of an errno value that the calls here give (Linux's values).
pub fn errno_name(errno: i32) -> Option<&'static str> {
    Some(match errno {
        1 => "EPERM",
        2 => "ENOENT",
        3 => "ESRCH",
        4 => "EINTR",
        5 => "EIO",
        6 => "ENXIO",
        7 => "E2BIG",
        9 => "EBADF",
        10 => "ECHILD",
        11 => "EAGAIN",
        12 => "ENOMEM",
        13 => "EACCES",
        14 => "EFAULT",
        16 => "EBUSY",
        17 => "EEXIST",
        19 => "ENODEV",
        20 => "ENOTDIR",
        22 => "EINVAL",
        23 => "ENFILE",
        24 => "EMFILE",
        28 => "ENOSPC",
        32 => "EPIPE",
        34 => "ERANGE",
        35 => "EDEADLK",
        38 => "ENOSYS",
        61 => "ENODATA",
        62 => "ETIME",
        71 => "EPROTO",
        74 => "EBADMSG",
        75 => "EOVERFLOW",
        88 => "ENOTSOCK",
        90 => "EMSGSIZE",
        93 => "EPROTONOSUPPORT",
        95 => "EOPNOTSUPP",
        97 => "EAFNOSUPPORT",
        98 => "EADDRINUSE",
        99 => "EADDRNOTAVAIL",
        100 => "ENETDOWN",
        101 => "ENETUNREACH",
        102 => "ENETRESET",
        103 => "ECONNABORTED",
        104 => "ECONNRESET",
        105 => "ENOBUFS",
        106 => "EISCONN",
        107 => "ENOTCONN",
        108 => "ESHUTDOWN",
        110 => "ETIMEDOUT",
        111 => "ECONNREFUSED",
        112 => "EHOSTDOWN",
        113 => "EHOSTUNREACH",
        114 => "EALREADY",
        115 => "EINPROGRESS",
        125 => "ECANCELED",
        _ => return None,
    })
}
