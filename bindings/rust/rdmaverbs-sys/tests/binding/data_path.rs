//! The RDMAVERBS_1.3 data path on the recording provider: ibv_post_send
//! of a list with the wr union, ibv_post_srq_recv, ibv_poll_cq into a
//! slice, ibv_req_notify_cq, each failure convention.

use core::ffi::c_void;
use std::io;
use std::ptr::null_mut;

use rdmaverbs_sys as rv;

use crate::recorder::{recorder, sge, RECORDER, SA, SB, SC};

/// The recording provider's three completions, every field; the fourth
/// element untouched.
fn check_completions(wc: &[rv::ibv_wc]) {
    let status = [
        rv::IBV_WC_SUCCESS,
        rv::IBV_WC_SUCCESS,
        rv::IBV_WC_REM_ACCESS_ERR,
    ];
    let opcode = [rv::IBV_WC_RECV, rv::IBV_WC_COMP_SWAP, rv::IBV_WC_FETCH_ADD];
    for (i, w) in wc[..3].iter().enumerate() {
        let j = i as u32;
        assert_eq!(
            (
                w.wr_id,
                w.status,
                w.opcode,
                w.vendor_err,
                w.byte_len,
                w.imm_data,
                w.qp_num,
                w.src_qp
            ),
            (
                0x5000 + i as u64,
                status[i] as u32,
                opcode[i] as u32,
                0x100 + j,
                0x40 + j,
                0xa0b0_c0d0 + j,
                0x1100 + j,
                0x2200 + j
            ),
            "completion {i}"
        );
        assert_eq!(
            (w.wc_flags, w.pkey_index, w.slid, w.sl, w.dlid_path_bits),
            (
                if i == 0 {
                    rv::IBV_WC_WITH_IMM as u32
                } else {
                    0
                },
                0x30 + i as u16,
                0x4400 + i as u16,
                1 + i as u8,
                0x50 + i as u8
            ),
            "completion {i}"
        );
    }
    assert_eq!((wc[3].wr_id, wc[3].status, wc[3].byte_len), (0xdead, 0, 0));
}

#[test]
fn verbs_data_path() {
    let _one = RECORDER.lock().unwrap_or_else(|e| e.into_inner());
    let rec = recorder();
    // SAFETY: the recorder's objects; every struct and slice below lives
    // across the calls that read or write it.
    unsafe {
        (rec.id)();
        let (qp, srq, cq) = ((rec.qp)(), (rec.srq)(), (rec.cq)());
        let sgl = [
            sge(0x1000, 0x10, 0x11),
            sge(0x8000_0000_0000_2000, 0x8000_0030, 0x8000_0022),
            sge(0x3000, 0x40, 0x33),
            sge(0x4000, 8, 0x44),
        ];
        let at = |i: usize| (&sgl[i] as *const rv::ibv_sge).cast_mut().cast::<c_void>();
        // Three work requests joined by next: a send with immediate data over
        // two SGEs, a compare-and-swap and a fetch-and-add (the wr union's
        // atomic member).
        let mut fadd = rv::ibv_send_wr {
            wr_id: 0x602,
            sg_list: at(3),
            num_sge: 1,
            ..Default::default()
        };
        fadd.opcode = rv::IBV_WR_ATOMIC_FETCH_AND_ADD as u32;
        fadd.wr.atomic = rv::ibv_send_wr_wr_atomic {
            remote_addr: 0xfedc_0000_0000_3008,
            rkey: 0x77,
            compare_add: 0x8000_0000_0000_0001,
            ..Default::default()
        };
        let mut cas = rv::ibv_send_wr {
            wr_id: 0x601,
            sg_list: at(2),
            num_sge: 1,
            ..Default::default()
        };
        cas.next = (&mut fadd as *mut rv::ibv_send_wr).cast();
        cas.opcode = rv::IBV_WR_ATOMIC_CMP_AND_SWP as u32;
        cas.send_flags = rv::IBV_SEND_FENCE as u32;
        cas.wr.atomic = rv::ibv_send_wr_wr_atomic {
            remote_addr: 0xfedc_0000_0000_3000,
            compare_add: 0x1111_2222_3333_4444,
            swap: 0x5555_6666_7777_8888,
            rkey: 0x8000_0066,
        };
        let mut send = rv::ibv_send_wr {
            wr_id: 0x600,
            sg_list: at(0),
            num_sge: 2,
            imm_data: 0x0a0b_0c0d,
            ..Default::default()
        };
        send.next = (&mut cas as *mut rv::ibv_send_wr).cast();
        send.opcode = rv::IBV_WR_SEND_WITH_IMM as u32;
        send.send_flags = rv::IBV_SEND_SIGNALED as u32;
        let mut bad: *mut c_void = null_mut();
        assert_eq!(rv::ibv_post_send(qp, &mut send, &mut bad).unwrap(), 0);
        assert_eq!(
            rec.last(),
            format!(
                "send_imm wr_id=0x600 flags=0x2 imm=0xa0b0c0d{SA}{SB} | cas wr_id=0x601 flags=0x1 \
                 remote=0xfedc000000003000 rkey=0x80000066 compare=0x1111222233334444 swap=0x5555666677778888{SC} \
                 | fadd wr_id=0x602 flags=0x0 remote=0xfedc000000003008 rkey=0x77 add=0x8000000000000001 \
                 sge=0x4000:0x8:0x44"
            )
        );
        assert!(bad.is_null());
        assert_eq!(rec.posts(), 1);
        // the rdma member shares the union's first bytes; its rkey is not atomic's
        assert_eq!(
            (cas.wr.rdma.remote_addr, cas.wr.rdma.rkey),
            (0xfedc_0000_0000_3000, 0x3333_4444)
        );
        // Failures: the provider's errno value, *bad_wr its first request; NULL refused.
        (rec.fail)(rv::ENOMEM);
        let e = rv::ibv_post_send(qp, &mut fadd, &mut bad).unwrap_err();
        assert_eq!(rv::errno_of(&e), Some(rv::ENOMEM));
        assert_eq!(e.kind(), io::ErrorKind::OutOfMemory);
        assert_eq!(
            e.to_string(),
            "ibv_post_send: ENOMEM (Cannot allocate memory, errno 12)"
        );
        let call = e.get_ref().and_then(|i| i.downcast_ref::<rv::CallError>());
        assert_eq!(
            call.map(|c| (c.function(), c.errno(), c.errno_name())),
            Some(("ibv_post_send", rv::ENOMEM, Some("ENOMEM")))
        );
        assert_eq!(bad, (&mut fadd as *mut rv::ibv_send_wr).cast());
        assert_eq!(
            rv::errno_of(&rv::ibv_post_send(null_mut(), &mut fadd, &mut bad).unwrap_err()),
            Some(rv::EINVAL)
        );
        assert_eq!(rv::sys::ibv_post_send(qp, null_mut(), &mut bad), rv::EINVAL);
        assert_eq!(rec.posts(), 1);
        // Receives on the SRQ, a list of two; one on the QP.
        let mut second = rv::ibv_recv_wr {
            wr_id: 0x621,
            next: null_mut(),
            sg_list: at(1),
            num_sge: 2,
        };
        let mut first = rv::ibv_recv_wr {
            wr_id: 0x620,
            next: (&mut second as *mut rv::ibv_recv_wr).cast(),
            sg_list: at(0),
            num_sge: 1,
        };
        assert_eq!(rv::ibv_post_srq_recv(srq, &mut first, &mut bad).unwrap(), 0);
        assert_eq!(
            rec.last(),
            format!("srq_recv wr_id=0x620{SA} | srq_recv wr_id=0x621{SB}{SC}")
        );
        assert_eq!(rv::ibv_post_recv(qp, &mut second, &mut bad).unwrap(), 0);
        assert_eq!(rec.last(), format!("recv wr_id=0x621{SB}{SC}"));
        // Completions: 3 of 4 filled, into a slice.
        let mut wc = [rv::ibv_wc::default(); 4];
        wc[3].wr_id = 0xdead;
        assert_eq!(rv::ibv_poll_cq(cq, 4, &mut wc).unwrap(), 3);
        check_completions(&wc);
        let e = rv::ibv_poll_cq(cq, 5, &mut wc).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(
            e.to_string(),
            "ibv_poll_cq: num_entries is 5 but wc has 4 elements"
        );
        (rec.fail)(rv::EIO);
        assert_eq!(
            rv::errno_of(&rv::ibv_poll_cq(cq, 4, &mut wc).unwrap_err()),
            Some(rv::EIO)
        );
        assert_eq!(rv::ibv_req_notify_cq(cq, 1).unwrap(), 0);
        assert_eq!(rec.last(), "notify solicited_only=1");
        assert_eq!(
            rv::errno_of(&rv::ibv_req_notify_cq(null_mut(), 0).unwrap_err()),
            Some(rv::EINVAL)
        );
        assert_eq!(rv::ibv_inc_rkey(0x1234_56ff), 0x1234_5600);
        assert_eq!(
            rv::rdma_event_str(rv::RDMA_CM_EVENT_ESTABLISHED as u32),
            "RDMA_CM_EVENT_ESTABLISHED"
        );
    }
}
