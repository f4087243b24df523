//! librdmaverbs' functions bound at their symbol version, in
//! librdmaverbs.so.1; those the build lacks an error at their call.

use core::ffi::{c_char, c_int, c_void, CStr};
use std::ffi::CString;
use std::ptr::null_mut;

use rdmaverbs_sys as rv;

#[repr(C)]
struct DlInfo {
    fname: *const c_char,
    fbase: *mut c_void,
    sname: *const c_char,
    saddr: *mut c_void,
}

unsafe extern "C" {
    fn dlvsym(handle: *mut c_void, name: *const c_char, version: *const c_char) -> *mut c_void;
    fn dladdr(address: *const c_void, info: *mut DlInfo) -> c_int;
}

/// (name, node, since) of an exports list: the build's (`RDMAVERBS_EXPORTS`),
/// or every row of the table (`RDMAVERBS_ALL_EXPORTS`).
fn exports(variable: &str) -> Vec<(String, String, String)> {
    let path =
        std::env::var(variable).unwrap_or_else(|_| panic!("{variable} (bindings/run.sh sets it)"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out: Vec<(String, String, String)> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), f[1].to_string(), f[2].to_string())
        })
        .collect();
    out.sort();
    out
}

/// A row of the table that the library's build lacks is an `Err` of
/// `ErrorKind::Unsupported` at its call, naming it and the release that
/// brought it.
#[test]
fn a_function_the_build_lacks_is_an_error_at_its_call() {
    let built = exports("RDMAVERBS_EXPORTS");
    let lacking: Vec<_> = exports("RDMAVERBS_ALL_EXPORTS")
        .into_iter()
        .filter(|r| !built.iter().any(|b| b.0 == r.0))
        .collect();
    let errors: std::collections::BTreeMap<&str, Option<std::io::Error>> = [
        // SAFETY: a NULL QP and context, never passed on: the library lacks them.
        (
            "ibv_wr_flush",
            unsafe { rv::ibv_wr_flush(null_mut(), 0, 0, 0, 0, 0) }.err(),
        ),
        (
            "ibv_query_comp_cntr_caps",
            unsafe { rv::ibv_query_comp_cntr_caps(null_mut(), null_mut()) }.err(),
        ),
        (
            "ibv_wr_atomic_write",
            unsafe { rv::ibv_wr_atomic_write(null_mut(), 0, 0, null_mut()) }.err(),
        ),
    ]
    .into_iter()
    .collect();
    for (name, _, since) in &lacking {
        let e = errors[name.as_str()]
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: no error"));
        assert_eq!(e.kind(), std::io::ErrorKind::Unsupported, "{name}");
        let text = e.to_string();
        assert!(text.contains(&format!("{name} is not in")), "{text}");
        assert!(
            text.contains(&format!("it came with rdma-core {since},")),
            "{text}"
        );
    }
    // Those the build has are called (a NULL object: each refuses it).
    for (name, e) in &errors {
        if built.iter().any(|b| b.0 == *name) {
            assert!(
                e.as_ref()
                    .is_none_or(|e| e.kind() != std::io::ErrorKind::Unsupported),
                "{name}"
            );
        }
    }
}

#[test]
fn ours_are_bound_at_their_version_in_librdmaverbs() {
    let ours = rv::versioned();
    let mut bound: Vec<(String, String)> = ours
        .iter()
        .map(|(name, version, _)| (name.to_string(), version.to_string()))
        .collect();
    bound.sort();
    let every: Vec<(String, String)> = exports("RDMAVERBS_ALL_EXPORTS")
        .into_iter()
        .map(|(n, node, _)| (n, node))
        .collect();
    assert_eq!(bound, every, "each row of abi/exports.tsv, at its node");
    assert!(ours.iter().any(|(_, v, _)| *v == "RDMAVERBS_1.3"));
    let built = exports("RDMAVERBS_EXPORTS");
    // RTLD_DEFAULT: the process's scope, which the dynamic loader bound
    // the crate's versioned references in.
    let default = null_mut();
    for (name, version, address) in ours {
        if !built.iter().any(|b| b.0 == name) {
            assert!(address.is_null(), "{name}, which the build lacks");
            continue;
        }
        let (cname, cversion) = (CString::new(name).unwrap(), CString::new(version).unwrap());
        let mut info = DlInfo {
            fname: core::ptr::null(),
            fbase: null_mut(),
            sname: core::ptr::null(),
            saddr: null_mut(),
        };
        // SAFETY: dlvsym and dladdr with valid strings and a writable DlInfo.
        unsafe {
            assert_eq!(
                dlvsym(default, cname.as_ptr(), cversion.as_ptr()).cast_const(),
                address,
                "{name}@{version}"
            );
            assert_ne!(dladdr(address, &mut info), 0, "{name}");
            assert_eq!(CStr::from_ptr(info.sname).to_str().unwrap(), name);
            let file = CStr::from_ptr(info.fname).to_str().unwrap();
            assert!(file.contains("librdmaverbs.so"), "{name} is in {file}");
        }
    }
}
