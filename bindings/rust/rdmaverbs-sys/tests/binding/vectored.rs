//! The vectored posts and the other SGE arrays (ibv_wr_set_sge_list,
//! ibv_advise_mr) checked SGE by SGE on the recording provider; the
//! ports in both orders, the completion statuses.

use core::ffi::c_void;
use std::io;

use rdmaverbs_sys as rv;

use crate::errno;
use crate::recorder::{recorder, sges, RECORDER, SA, SB, SC};

#[test]
fn sge_lists_of_the_extended_qp_and_advise_mr() {
    let _one = RECORDER.lock().unwrap_or_else(|e| e.into_inner());
    let rec = recorder();
    let [a, b, c] = sges();
    let array = [a, b, c];
    let vec = vec![c, a];
    // SAFETY: the recorder's objects; the slices are live across each call.
    unsafe {
        (rec.id)();
        let (qpx, pd) = ((rec.qp_ex)(), (rec.pd)());
        rv::ibv_wr_set_sge_list(qpx, 3, &array).unwrap();
        assert_eq!(rec.last(), format!("sge_list{SA}{SB}{SC}"));
        rv::ibv_wr_set_sge_list(qpx, 2, &vec).unwrap();
        assert_eq!(rec.last(), format!("sge_list{SC}{SA}"));
        let posts = rec.posts();
        let e = rv::ibv_wr_set_sge_list(qpx, 3, &vec).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(rec.posts(), posts, "a refused list reaches no provider");
        // IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH
        assert_eq!(rv::ibv_advise_mr(pd, 1, 1, &vec, 2).unwrap(), 0);
        assert_eq!(rec.last(), format!("advise advice=0x1 flags=0x1{SC}{SA}"));
        assert_eq!(rv::ibv_advise_mr(pd, 0, 0, &array[1..], 1).unwrap(), 0);
        assert_eq!(rec.last(), format!("advise advice=0x0 flags=0x0{SB}"));
        (rec.fail)(rv::EAGAIN);
        assert_eq!(
            errno(rv::ibv_advise_mr(pd, 0, 0, &array, 3)),
            Some(rv::EAGAIN)
        );
    }
}

#[test]
fn vectored_posts_ports_and_statuses() {
    let _one = RECORDER.lock().unwrap_or_else(|e| e.into_inner());
    let rec = recorder();
    // SAFETY: no argument.
    let id = unsafe { (rec.id)() };
    let [a, b, c] = sges();
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
