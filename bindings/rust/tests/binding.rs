//! The Rust binding on a machine without RDMA: the refused inputs as the
//! io::Error of their errno, the C functions' own results, the vectored
//! posts checked SGE by SGE on the recording provider (bindings/recorder.c),
//! the ports in both orders, the completion statuses.

use core::ffi::{c_char, c_int, c_void, CStr};
use std::ffi::CString;
use std::io;
use std::ptr::null_mut;

use rdmaverbs as rv;

fn errno<T>(r: io::Result<T>) -> Option<i32> {
    r.err().and_then(|e| e.raw_os_error())
}

#[test]
fn refused_inputs_are_einval() {
    let mut wc = rv::ibv_wc::default();
    unsafe {
        assert_eq!(
            errno(rv::rdma_post_send(
                null_mut(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                0
            )),
            Some(rv::EINVAL)
        );
        assert_eq!(
            errno(rv::rdma_get_send_comp_timeout(null_mut(), &mut wc, 0)),
            Some(rv::EINVAL)
        );
        assert_eq!(errno(rv::rdma_get_local_addr(null_mut())), Some(rv::EINVAL));
        assert_eq!(
            errno(rv::rdma_reg_msgs(null_mut(), null_mut(), 0)),
            Some(rv::EINVAL)
        );
    }
}

#[test]
fn seterrno_and_the_c_functions() {
    unsafe {
        assert_eq!(rv::rdma_seterrno(0).unwrap(), 0);
        assert_eq!(errno(rv::rdma_seterrno(rv::EIO)), Some(rv::EIO));
        assert_eq!(
            rv::sys::rdma_post_send(null_mut(), null_mut(), null_mut(), 0, null_mut(), 0),
            -1
        );
        assert_eq!(io::Error::last_os_error().raw_os_error(), Some(rv::EINVAL));
        assert!(rv::sys::rdma_get_peer_addr(null_mut()).is_null());
    }
    assert_eq!(core::mem::size_of::<rv::ibv_wc>(), 48);
}

/// The recording provider (bindings/recorder.c, named by RDMAVERBS_RECORDER):
/// a fake id whose QP records each work request.
struct Recorder {
    id: unsafe extern "C" fn() -> *mut c_void,
    posts: unsafe extern "C" fn() -> c_int,
    last: unsafe extern "C" fn() -> *const c_char,
}

unsafe extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
}

fn recorder() -> Recorder {
    let path = std::env::var("RDMAVERBS_RECORDER")
        .expect("RDMAVERBS_RECORDER names the recording provider");
    let path = CString::new(path).unwrap();
    // SAFETY: dlopen and dlsym of a library of ours, whose functions have
    // the types given (bindings/recorder.c).
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
        }
    }
}

impl Recorder {
    fn last(&self) -> String {
        // SAFETY: the recorder's own NUL-terminated buffer.
        unsafe { CStr::from_ptr((self.last)()) }
            .to_string_lossy()
            .into_owned()
    }
    fn posts(&self) -> c_int {
        // SAFETY: no argument.
        unsafe { (self.posts)() }
    }
}

fn sge(addr: u64, length: u32, lkey: u32) -> rv::ibv_sge {
    rv::ibv_sge { addr, length, lkey }
}

// What the provider records of each SGE.
const SA: &str = " sge=0x1000:0x10:0x11";
const SB: &str = " sge=0x8000000000002000:0x80000030:0x80000022";
const SC: &str = " sge=0x3000:0x40:0x33";

// One test: the recorder's record is the process's.
#[test]
fn vectored_posts_ports_and_statuses() {
    let rec = recorder();
    // SAFETY: no argument.
    let id = unsafe { (rec.id)() };
    let (a, b, c) = (
        sge(0x1000, 0x10, 0x11),
        sge(0x8000_0000_0000_2000, 0x8000_0030, 0x8000_0022),
        sge(0x3000, 0x40, 0x33),
    );
    let array = [a, b, c];
    let vec = vec![b, c];
    let ctx = |v: usize| v as *mut c_void;
    // SAFETY: id is the recorder's; the slices are live across each call.
    unsafe {
        assert_eq!(
            rv::rdma_post_sendv(id, ctx(0x300), &array, 3, rv::IBV_SEND_SIGNALED).unwrap(),
            0
        );
        assert_eq!(
            rec.last(),
            format!("send wr_id=0x300 flags=0x2{SA}{SB}{SC}")
        );
        assert_eq!(rv::rdma_post_recvv(id, ctx(0x301), &array, 2).unwrap(), 0);
        assert_eq!(rec.last(), format!("recv wr_id=0x301{SA}{SB}"));
        assert_eq!(
            rv::rdma_post_readv(
                id,
                ctx(0x302),
                &vec,
                2,
                0,
                0xfedc_0000_0000_1000,
                0x8000_0044
            )
            .unwrap(),
            0
        );
        assert_eq!(
            rec.last(),
            format!("read wr_id=0x302 flags=0x0 remote=0xfedc000000001000 rkey=0x80000044{SB}{SC}")
        );
        let flags = rv::IBV_SEND_SIGNALED | rv::IBV_SEND_FENCE;
        assert_eq!(
            rv::rdma_post_writev(
                id,
                ctx(0x303),
                &array[..],
                3,
                flags,
                0xfedc_0000_0000_2000,
                0x55
            )
            .unwrap(),
            0
        );
        assert_eq!(
            rec.last(),
            format!("write wr_id=0x303 flags=0x3 remote=0xfedc000000002000 rkey=0x55{SA}{SB}{SC}")
        );
        assert_eq!(rec.posts(), 4);
        let e = rv::rdma_post_sendv(id, ctx(0x304), &vec, 3, 0).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(
            e.to_string(),
            "rdma_post_sendv: nsge is 3 but sgl has 2 elements"
        );
        assert_eq!(rec.posts(), 4, "nothing posted");
        assert_eq!((rv::src_port(id), rv::dst_port(id)), (18577, 50000));
        // x86-64: the network-order value as a little-endian integer
        assert_eq!(
            (rv::rdma_get_src_port(id), rv::rdma_get_dst_port(id)),
            (0x9148, 0x50c3)
        );
        assert_eq!(
            rv::ibv_wc_status_str(rv::IBV_WC_LOC_PROT_ERR as u32),
            "local protection error"
        );
        assert_eq!(rv::ibv_wc_status_str(rv::IBV_WC_SUCCESS as u32), "success");
    }
    assert_eq!(rv::IBV_WC_TM_RNDV_INCOMPLETE, 23);
}
