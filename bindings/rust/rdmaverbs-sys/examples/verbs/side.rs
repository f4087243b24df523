//! The client's objects (made on the id's context, the QP on them), its
//! posts and completion events, and their teardown.

use std::ffi::{c_int, c_void};
use std::ptr::null_mut;

use rdmaverbs_sys as rv;

use crate::events::{completions, readable};
use crate::mem::Mem;
use crate::{check, ok, CQ_CONTEXT, SLOT, SLOTS};

/// The client's objects: made on the id's context, the QP on them.
pub struct Side {
    pub id: *mut c_void,
    pub pd: *mut c_void,
    pub channel: *mut c_void,
    pub scq: *mut c_void,
    pub rcq: *mut c_void,
    pub srq: *mut c_void,
    pub qp: *mut c_void,
    pub qp_num: u32,
    pub recv: Mem,
    pub send: Mem,
    pub atom: Mem,
    pub mrs: [*mut c_void; 3],
}

impl Side {
    pub unsafe fn new(id: *mut c_void) -> Side {
        unsafe {
            let ctx = (*id.cast::<rv::rdma_cm_id>()).verbs;
            let pd = ok("ibv_alloc_pd", rv::ibv_alloc_pd(ctx));
            let channel = ok("ibv_create_comp_channel", rv::ibv_create_comp_channel(ctx));
            let scq = ok(
                "ibv_create_cq",
                rv::ibv_create_cq(ctx, 16, null_mut(), null_mut(), 0),
            );
            let rcq = ok(
                "ibv_create_cq",
                rv::ibv_create_cq(ctx, 16, CQ_CONTEXT as *mut c_void, channel, 0),
            );
            let mut srq_attr = rv::ibv_srq_init_attr {
                attr: rv::ibv_srq_attr {
                    max_wr: SLOTS as u32,
                    max_sge: 1,
                    srq_limit: 0,
                },
                ..Default::default()
            };
            let srq = ok("ibv_create_srq", rv::ibv_create_srq(pd, &mut srq_attr));
            let mut attr = rv::ibv_qp_init_attr {
                send_cq: scq,
                recv_cq: rcq,
                srq,
                cap: rv::ibv_qp_cap {
                    max_send_wr: 8,
                    max_send_sge: 2,
                    ..Default::default()
                },
                qp_type: rv::IBV_QPT_RC as u32,
                ..Default::default()
            };
            ok("rdma_create_qp", rv::rdma_create_qp(id, pd, &mut attr));
            let qp = (*id.cast::<rv::rdma_cm_id>()).qp;
            let q = *qp.cast::<rv::ibv_qp>();
            check(
                (q.send_cq, q.recv_cq, q.srq) == (scq, rcq, srq),
                "the id's QP is not on the CQs and the SRQ given",
            );
            // The buffers live as long as this object: the MRs and the
            // posted work requests point into them.
            let (recv, send, atom) = (Mem::new(SLOTS * SLOT), Mem::new(5 * SLOT), Mem::new(3 * 8));
            let reg = |m: &Mem, access: i32| {
                ok(
                    "ibv_reg_mr_iova2",
                    rv::ibv_reg_mr_iova2(pd, m.ptr(), m.len(), m.addr(0), access as u32),
                )
            };
            let mrs = [
                reg(&recv, rv::IBV_ACCESS_LOCAL_WRITE),
                reg(&send, 0),
                reg(
                    &atom,
                    rv::IBV_ACCESS_LOCAL_WRITE
                        | rv::IBV_ACCESS_REMOTE_ATOMIC
                        | rv::IBV_ACCESS_REMOTE_READ,
                ),
            ];
            let s = Side {
                id,
                pd,
                channel,
                scq,
                rcq,
                srq,
                qp,
                qp_num: q.qp_num,
                recv,
                send,
                atom,
                mrs,
            };
            // The SRQ's receives, one list: slot i, wr_id 0x100 + i. The
            // list and its SGEs need only live across the call.
            let lkey = s.lkey(0);
            let sges: Vec<rv::ibv_sge> = (0..SLOTS)
                .map(|i| rv::ibv_sge {
                    addr: s.recv.addr(SLOT * i),
                    length: SLOT as u32,
                    lkey,
                })
                .collect();
            let mut recvs: Vec<rv::ibv_recv_wr> = (0..SLOTS)
                .map(|i| rv::ibv_recv_wr {
                    wr_id: 0x100 + i as u64,
                    sg_list: (&sges[i] as *const rv::ibv_sge).cast_mut().cast(),
                    num_sge: 1,
                    next: null_mut(),
                })
                .collect();
            for i in 0..SLOTS - 1 {
                recvs[i].next = (&mut recvs[i + 1] as *mut rv::ibv_recv_wr).cast();
            }
            let mut bad = null_mut();
            ok(
                "ibv_post_srq_recv",
                rv::ibv_post_srq_recv(srq, recvs.as_mut_ptr(), &mut bad),
            );
            s
        }
    }

    /// The lkey of MR i (recv, send, atom).
    pub fn lkey(&self, i: usize) -> u32 {
        // SAFETY: an MR of ours, registered until teardown.
        unsafe { (*self.mrs[i].cast::<rv::ibv_mr>()).lkey }
    }

    /// Posts a list of send work requests (joined here by next) in one
    /// ibv_post_send; then their completions.
    pub unsafe fn post(&self, wrs: &mut [rv::ibv_send_wr]) -> Vec<rv::ibv_wc> {
        for i in 0..wrs.len() - 1 {
            wrs[i].next = (&mut wrs[i + 1] as *mut rv::ibv_send_wr).cast();
        }
        let mut bad = null_mut();
        ok("ibv_post_send", unsafe {
            rv::ibv_post_send(self.qp, wrs.as_mut_ptr(), &mut bad)
        });
        unsafe { completions(self.scq, wrs.len()) }
    }

    /// The receive CQ's next event on its completion channel: checked,
    /// acknowledged, the CQ armed again (solicited_only), then polled: the
    /// completions, up to 8 in one ibv_poll_cq.
    pub unsafe fn next_event(&self, solicited_only: bool) -> Vec<rv::ibv_wc> {
        unsafe {
            readable(
                (*self.channel.cast::<rv::ibv_comp_channel>()).fd,
                "no completion event within the wait",
            );
            let (mut cq, mut context) = (null_mut(), null_mut());
            ok(
                "ibv_get_cq_event",
                rv::ibv_get_cq_event(self.channel, &mut cq, &mut context),
            );
            check(
                (cq, context as usize) == (self.rcq, CQ_CONTEXT),
                "the event is not the receive CQ's, with its context",
            );
            rv::ibv_ack_cq_events(cq, 1);
            ok(
                "ibv_req_notify_cq",
                rv::ibv_req_notify_cq(cq, solicited_only as c_int),
            );
            let mut wc = [rv::ibv_wc::default(); 8];
            let n = ok("ibv_poll_cq", rv::ibv_poll_cq(cq, 8, &mut wc)) as usize;
            wc[..n].to_vec()
        }
    }

    /// In the order the objects depend on each other (every CQ event
    /// acknowledged first: ibv_destroy_cq waits for it).
    pub unsafe fn teardown(self) {
        unsafe {
            rv::rdma_destroy_qp(self.id);
            ok("ibv_destroy_srq", rv::ibv_destroy_srq(self.srq));
            ok("ibv_destroy_cq", rv::ibv_destroy_cq(self.scq));
            ok("ibv_destroy_cq", rv::ibv_destroy_cq(self.rcq));
            ok(
                "ibv_destroy_comp_channel",
                rv::ibv_destroy_comp_channel(self.channel),
            );
            for mr in self.mrs {
                ok("ibv_dereg_mr", rv::ibv_dereg_mr(mr));
            }
            ok("ibv_dealloc_pd", rv::ibv_dealloc_pd(self.pd));
            ok("rdma_destroy_id", rv::rdma_destroy_id(self.id));
        }
        // the buffers are freed here, after their MRs
    }
}
