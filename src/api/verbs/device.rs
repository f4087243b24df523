//! Queries and domains of a device context: `___ibv_query_port` (what the
//! macro `ibv_query_port` expands to), `ibv_query_gid_ex`,
//! `ibv_query_gid_table`, `ibv_query_device_ex`, `ibv_query_rt_values_ex`,
//! thread domains, parent domains and XRC domains.
//!
//! The queries pass the size of the struct of the header the build compiles
//! against (rdmaverbs(7), "Sizes passed"): `struct ibv_port_attr`, `struct
//! ibv_gid_entry`, `struct ibv_device_attr_ex`, `struct ibv_comp_cntr_caps`.

use core::ffi::c_int;
use core::ptr::write_bytes;

use rdmaverbs_abi::ctx_op;
use rdmaverbs_abi::verbs::{
    _compat_ibv_port_attr, DEVICE_ATTR_EX_SIZE, GID_ENTRY_SIZE, PORT_ATTR_SIZE, ibv_context,
    ibv_device_attr_ex, ibv_gid_entry, ibv_parent_domain_init_attr, ibv_pd, ibv_port_attr,
    ibv_query_device_ex_input, ibv_td, ibv_td_init_attr, ibv_values_ex, ibv_xrcd,
    ibv_xrcd_init_attr, verbs_get_ctx,
};
use rdmaverbs_abi::verbs::{
    _ibv_query_gid_ex, _ibv_query_gid_table, ibv_query_device, ibv_query_port,
};
use rdmaverbs_observe::Call;

use super::{ctx, unsupported};
use crate::api::export::observed;

/// `___ibv_query_port()`, the inline function behind the macro
/// `ibv_query_port`: the port's attributes into `*port_attr`, all of the
/// system header's struct; 0 or an errno value. A context without the
/// extended `query_port` gets libibverbs' exported `ibv_query_port`, which
/// fills the older, shorter struct: the rest is zeroed first, as the
/// original does.
///
/// # Safety
/// `context` NULL (`EINVAL`) or live; `port_attr` NULL (`EINVAL`) or room
/// for a `struct ibv_port_attr` of the system header.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ___ibv_query_port(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut ibv_port_attr,
) -> c_int {
    // SAFETY: the caller's context and struct.
    observed!(status IbvQueryPort, context, ctx(context), unsafe {
        if port_attr.is_null() {
            libc::EINVAL
        } else {
            match ctx_op!(context, query_port) {
                Some(query) => query(context, port_num, port_attr, PORT_ATTR_SIZE),
                None => {
                    write_bytes(port_attr.cast::<u8>(), 0, PORT_ATTR_SIZE);
                    ibv_query_port(context, port_num, port_attr.cast::<_compat_ibv_port_attr>())
                }
            }
        }
    })
}

/// `ibv_query_gid_ex()`: one GID table entry into `*entry`; 0 or an errno
/// value.
///
/// # Safety
/// `context` NULL (`EINVAL`) or live; `entry` NULL (`EINVAL`) or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_gid_ex(
    context: *mut ibv_context,
    port_num: u32,
    gid_index: u32,
    entry: *mut ibv_gid_entry,
    flags: u32,
) -> c_int {
    // SAFETY: the caller's context and entry, for libibverbs' function.
    observed!(status IbvQueryGidEx, context, ctx(context), unsafe {
        if entry.is_null() {
            libc::EINVAL
        } else {
            _ibv_query_gid_ex(context, port_num, gid_index, entry, flags, GID_ENTRY_SIZE)
        }
    })
}

/// `ibv_query_gid_table()`: up to `max_entries` GID entries; how many, or a
/// negative errno value.
///
/// # Safety
/// `context` NULL (`-EINVAL`) or live; `entries` NULL (`-EINVAL`) or room
/// for `max_entries`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_gid_table(
    context: *mut ibv_context,
    entries: *mut ibv_gid_entry,
    max_entries: usize,
    flags: u32,
) -> libc::ssize_t {
    // SAFETY: the caller's context and array, for libibverbs' function.
    observed!(IbvQueryGidTable, context, ctx(context), unsafe {
        if entries.is_null() {
            -(libc::EINVAL as isize)
        } else {
            _ibv_query_gid_table(context, entries, max_entries, flags, GID_ENTRY_SIZE)
        }
    })
}

/// `ibv_query_comp_cntr_caps()`: the completion counters' capabilities into
/// `*caps`, all of the build's header's struct (libibverbs clears it
/// first); 0 or an errno value (rdma-core 65).
///
/// # Safety
/// `context` NULL (`EINVAL`) or live; `caps` NULL (`EINVAL`) or room for a
/// `struct ibv_comp_cntr_caps` of the build's header.
#[cfg(ibv_query_comp_cntr_caps)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_comp_cntr_caps(
    context: *mut ibv_context,
    caps: *mut rdmaverbs_abi::verbs::ibv_comp_cntr_caps,
) -> c_int {
    use rdmaverbs_abi::verbs::{_ibv_query_comp_cntr_caps, ibv_comp_cntr_caps};
    // SAFETY: the caller's context and struct, for libibverbs' function.
    observed!(status IbvQueryCompCntrCaps, context, ctx(context), unsafe {
        if caps.is_null() {
            libc::EINVAL
        } else {
            _ibv_query_comp_cntr_caps(context, caps, size_of::<ibv_comp_cntr_caps>())
        }
    })
}

/// `ibv_query_device_ex()`: the device's extended attributes into `*attr`;
/// 0 or an errno value. A `comp_mask` in `input` is refused (`EINVAL`); a
/// context without the extended query, or whose query answers `EOPNOTSUPP`
/// or `ENOSYS`, gets the legacy `ibv_query_device` into the zeroed struct,
/// as the original does.
///
/// # Safety
/// `context` NULL (`EINVAL`) or live; `input` NULL or readable; `attr` NULL
/// (`EINVAL`) or room for a `struct ibv_device_attr_ex` of the system header.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_device_ex(
    context: *mut ibv_context,
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
) -> c_int {
    // SAFETY: the caller's context and structs.
    observed!(status IbvQueryDeviceEx, context, ctx(context), unsafe {
        query_device_ex(context, input, attr)
    })
}

/// The body of [`ibv_query_device_ex`].
///
/// # Safety
/// As its caller, `context` not NULL.
#[inline(always)]
unsafe fn query_device_ex(
    context: *mut ibv_context,
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
) -> c_int {
    // SAFETY: the caller's non-NULL `input`.
    if attr.is_null() || !input.is_null() && unsafe { (*input).comp_mask } != 0 {
        return libc::EINVAL;
    }
    // SAFETY: a live context.
    if let Some(query) = unsafe { ctx_op!(context, query_device_ex) } {
        // SAFETY: the provider's op, as verbs.h calls it.
        let ret = unsafe { query(context, input, attr, DEVICE_ATTR_EX_SIZE) };
        if ret != libc::EOPNOTSUPP && ret != libc::ENOSYS {
            return ret;
        }
    }
    // SAFETY: the caller's struct, of that size; libibverbs' function.
    unsafe {
        write_bytes(attr.cast::<u8>(), 0, DEVICE_ATTR_EX_SIZE);
        ibv_query_device(context, &raw mut (*attr).orig_attr)
    }
}

/// `ibv_query_rt_values_ex()`: the device's clock values into `*values`; 0
/// or an errno value (`EOPNOTSUPP` without the op).
///
/// # Safety
/// `context` NULL (`EINVAL`) or live; `values` NULL (`EINVAL`) or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_rt_values_ex(
    context: *mut ibv_context,
    values: *mut ibv_values_ex,
) -> c_int {
    // SAFETY: the caller's context and struct.
    observed!(status IbvQueryRtValuesEx, context, ctx(context), unsafe {
        if values.is_null() {
            libc::EINVAL
        } else {
            match ctx_op!(context, query_rt_values) {
                Some(query) => query(context, values),
                None => libc::EOPNOTSUPP,
            }
        }
    })
}

/// `ibv_alloc_td()`: a thread domain; NULL with `errno`.
///
/// # Safety
/// `context` NULL (NULL, `EINVAL`) or live; `init_attr` as the provider
/// requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_alloc_td(
    context: *mut ibv_context,
    init_attr: *mut ibv_td_init_attr,
) -> *mut ibv_td {
    // SAFETY: the caller's context, its op and attributes.
    observed!(IbvAllocTd, context, ctx(context), unsafe {
        match ctx_op!(context, alloc_td) {
            Some(alloc) => alloc(context, init_attr),
            None => unsupported(),
        }
    })
}

/// `ibv_dealloc_td()`: frees a thread domain; 0 or an errno value.
///
/// # Safety
/// `td` NULL (`EINVAL`) or a live thread domain.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dealloc_td(td: *mut ibv_td) -> c_int {
    let call = Call::Object {
        key: b" td=",
        obj: td.cast(),
    };
    // SAFETY: the caller's domain and its context's op.
    observed!(status IbvDeallocTd, td, call, unsafe {
        match ctx_op!((*td).context, dealloc_td) {
            Some(dealloc) => dealloc(td),
            None => libc::EOPNOTSUPP,
        }
    })
}

/// `ibv_alloc_parent_domain()`: a parent domain (a PD); NULL with `errno`.
///
/// # Safety
/// As [`ibv_alloc_td`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_alloc_parent_domain(
    context: *mut ibv_context,
    attr: *mut ibv_parent_domain_init_attr,
) -> *mut ibv_pd {
    // SAFETY: as in `ibv_alloc_td`.
    observed!(IbvAllocParentDomain, context, ctx(context), unsafe {
        match ctx_op!(context, alloc_parent_domain) {
            Some(alloc) => alloc(context, attr),
            None => unsupported(),
        }
    })
}

/// `ibv_open_xrcd()`: an XRC domain; NULL with `errno`.
///
/// # Safety
/// As [`ibv_alloc_td`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_open_xrcd(
    context: *mut ibv_context,
    xrcd_init_attr: *mut ibv_xrcd_init_attr,
) -> *mut ibv_xrcd {
    // SAFETY: as in `ibv_alloc_td`.
    observed!(IbvOpenXrcd, context, ctx(context), unsafe {
        match ctx_op!(context, open_xrcd) {
            Some(open) => open(context, xrcd_init_attr),
            None => unsupported(),
        }
    })
}

/// `ibv_close_xrcd()`: closes an XRC domain; 0 or an errno value. (The
/// original calls the op without looking: a context that is not extended,
/// or has no `close_xrcd`, gets `EOPNOTSUPP` here where it would crash.)
///
/// # Safety
/// `xrcd` NULL (`EINVAL`) or a live XRC domain.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_close_xrcd(xrcd: *mut ibv_xrcd) -> c_int {
    let call = Call::Object {
        key: b" xrcd=",
        obj: xrcd.cast(),
    };
    // SAFETY: the caller's domain and its context.
    observed!(status IbvCloseXrcd, xrcd, call, unsafe {
        match verbs_get_ctx((*xrcd).context).and_then(|v| (*v).close_xrcd) {
            Some(close) => close(xrcd),
            None => libc::EOPNOTSUPP,
        }
    })
}
