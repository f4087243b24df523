//! The Rust binding on a machine without RDMA: the refused inputs as the
//! io::Error of their errno and the C functions' own results (here);
//! librdmaverbs' functions bound at their symbol version, in
//! librdmaverbs.so.1 (versions); on the recording provider (recorder,
//! bindings/recorder/) the RDMAVERBS_1.3 data path (data_path) and the
//! vectored posts checked SGE by SGE, the ports in both orders, the
//! completion statuses (vectored).

mod data_path;
mod recorder;
mod vectored;
mod versions;

use std::io;
use std::ptr::null_mut;

use rdmaverbs_sys as rv;

fn errno<T>(r: io::Result<T>) -> Option<i32> {
    r.err().as_ref().and_then(rv::errno_of)
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
