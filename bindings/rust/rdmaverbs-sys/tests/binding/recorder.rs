//! The recording provider (bindings/recorder/, named by
//! RDMAVERBS_RECORDER), one test at a time, and the SGEs the tests pass.

use core::ffi::{c_char, c_int, c_void, CStr};
use std::ffi::CString;
use std::sync::Mutex;

use rdmaverbs_sys as rv;

/// The recording provider (bindings/recorder/, named by RDMAVERBS_RECORDER):
/// a fake id whose QP records each work request.
pub struct Recorder {
    pub id: unsafe extern "C" fn() -> *mut c_void,
    pub posts: unsafe extern "C" fn() -> c_int,
    pub last: unsafe extern "C" fn() -> *const c_char,
    pub qp: unsafe extern "C" fn() -> *mut c_void,
    pub srq: unsafe extern "C" fn() -> *mut c_void,
    pub cq: unsafe extern "C" fn() -> *mut c_void,
    pub qp_ex: unsafe extern "C" fn() -> *mut c_void,
    pub pd: unsafe extern "C" fn() -> *mut c_void,
    pub fail: unsafe extern "C" fn(c_int),
}

/// The recorder's record is the process's: one test at a time uses it.
pub static RECORDER: Mutex<()> = Mutex::new(());

unsafe extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
}

pub fn recorder() -> Recorder {
    let path = std::env::var("RDMAVERBS_RECORDER")
        .expect("RDMAVERBS_RECORDER names the recording provider");
    let path = CString::new(path).unwrap();
    // SAFETY: dlopen and dlsym of a library of ours, whose functions have
    // the types given (bindings/recorder/).
    unsafe {
        let lib = dlopen(path.as_ptr(), 2 /* RTLD_NOW */);
        assert!(!lib.is_null(), "RDMAVERBS_RECORDER does not load");
        let sym = |name: &CStr| {
            let p = dlsym(lib, name.as_ptr());
            assert!(!p.is_null(), "{name:?} is not in the recorder");
            p
        };
        Recorder {
            id: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(sym(
                c"recorder_id",
            )),
            posts: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> c_int>(sym(
                c"recorder_posts",
            )),
            last: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *const c_char>(
                sym(c"recorder_last"),
            ),
            qp: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(sym(
                c"recorder_qp",
            )),
            srq: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(sym(
                c"recorder_srq",
            )),
            cq: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(sym(
                c"recorder_cq",
            )),
            qp_ex: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(sym(
                c"recorder_qp_ex",
            )),
            pd: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(sym(
                c"recorder_pd",
            )),
            fail: core::mem::transmute::<*mut c_void, unsafe extern "C" fn(c_int)>(sym(
                c"recorder_fail",
            )),
        }
    }
}

impl Recorder {
    pub fn last(&self) -> String {
        // SAFETY: the recorder's own NUL-terminated buffer.
        unsafe { CStr::from_ptr((self.last)()) }
            .to_string_lossy()
            .into_owned()
    }
    pub fn posts(&self) -> c_int {
        // SAFETY: no argument.
        unsafe { (self.posts)() }
    }
}

pub fn sge(addr: u64, length: u32, lkey: u32) -> rv::ibv_sge {
    rv::ibv_sge { addr, length, lkey }
}

/// The three SGEs the tests pass (`SA`, `SB`, `SC`: what the provider
/// records of each).
pub fn sges() -> [rv::ibv_sge; 3] {
    [
        sge(0x1000, 0x10, 0x11),
        sge(0x8000_0000_0000_2000, 0x8000_0030, 0x8000_0022),
        sge(0x3000, 0x40, 0x33),
    ]
}

// What the provider records of each SGE.
pub const SA: &str = " sge=0x1000:0x10:0x11";
pub const SB: &str = " sge=0x8000000000002000:0x80000030:0x80000022";
pub const SC: &str = " sge=0x3000:0x40:0x33";
