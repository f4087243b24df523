"""The object API (rdmaverbs.objects) on a machine without RDMA: buffers
kept alive while posted, through the recording provider's loopback
(bindings/recorder/: the device touches the memory only when a poll
completes the work request), Endpoint.create's too. (The objects on
Soft-RoCE: make e2e-host's rows python objects and python async.)"""
import ctypes
import errno
import gc
import unittest
import warnings
import weakref
from unittest import mock

import rdmaverbs as rv
from stand_in import RECORDER, MESSAGE, QP_NUM, churn


class Loopback(unittest.TestCase):
    """The recorder's loopback: a QP and a CQ that complete what is posted,
    in order, reading and writing the buffers only when polled."""

    def setUp(self):
        self.id = RECORDER.recorder_id()
        RECORDER.recorder_loopback()
        self.qp_h, self.cq_h = RECORDER.recorder_qp(), RECORDER.recorder_cq()
        rv.ibv_qp.from_address(self.qp_h).qp_num = QP_NUM
        self.keys = []
        warnings.simplefilter("ignore", ResourceWarning)
        self.addCleanup(warnings.resetwarnings)

    def fake_mr(self, buf, lkey):
        """An MR object over a fake ibv_mr (the recorder registers nothing)."""
        mem = rv.objects._memory(buf)[0]
        m = rv.ibv_mr(addr=ctypes.addressof(mem), length=ctypes.sizeof(mem), lkey=lkey, rkey=lkey + 1)
        self.keys.append(m)
        return rv.MR.wrap(ctypes.addressof(m), mem)

    def wire(self):
        out = ctypes.create_string_buffer(4096)
        n = RECORDER.recorder_wire(out, 4096)
        return out.raw[:n]

    def test_posted_buffers_live_until_their_completions_are_reaped(self):
        cq = rv.CQ.wrap(self.cq_h)
        qp = rv.QP.wrap(self.qp_h, send_cq=cq, recv_cq=cq)

        def post():
            # Every reference the program has to the buffers and MRs is
            # dropped when this returns: only the posted requests hold them.
            recv_mr = self.fake_mr(bytearray(64), 0x11)
            send_mr = self.fake_mr(bytearray(MESSAGE), 0x22)
            qp.post_recv([rv.RecvWR(0x100, [recv_mr.sge()])])
            qp.post_send([rv.SendWR(0x200, [send_mr.sge(0, 16), send_mr.sge(16, 48)],
                                    flags=rv.IBV_SEND_SIGNALED)])
            return weakref.ref(recv_mr), weakref.ref(send_mr)

        recv_ref, send_ref = post()
        filler = churn()
        self.assertEqual(qp.pending, (1, 1))
        # The device reads the send's buffer now, writes it into the receive's.
        wc = cq.poll(1)
        self.assertEqual([(w.wr_id, w.status, w.opcode, w.byte_len, w.qp_num) for w in wc],
                         [(0x200, rv.IBV_WC_SUCCESS, rv.IBV_WC_SEND, 64, QP_NUM)])
        self.assertEqual(self.wire(), MESSAGE)
        del wc
        gc.collect()
        self.assertIsNone(send_ref())            # reaped: let go
        self.assertEqual(qp.pending, (0, 1))
        self.assertEqual(bytes(recv_ref().buf), MESSAGE)
        wc = cq.poll(4)
        self.assertEqual([(w.wr_id, w.opcode, w.byte_len) for w in wc], [(0x100, rv.IBV_WC_RECV, 64)])
        del wc
        gc.collect()
        self.assertIsNone(recv_ref())
        self.assertEqual(qp.pending, (0, 0))
        self.assertEqual(len(filler), 20000)

    def test_the_rdma_verbs_path_holds_them_too(self):
        """Endpoint.post_recv/post_send (rdma_post_recv, rdma_post_send) and
        get_send_comp/get_recv_comp (rdma_get_*_comp_timeout) on the fake id,
        its CQs the recorder's."""
        cm_id = rv.rdma_cm_id.from_address(self.id)
        cm_id.send_cq = cm_id.recv_cq = self.cq_h
        ep = rv.Endpoint.wrap(self.id)

        def post():
            recv_mr = self.fake_mr(64, 0x33)
            send_mr = self.fake_mr(bytearray(MESSAGE), 0x44)
            ep.post_recv(recv_mr, wr_id=0x101)
            ep.post_send(send_mr, wr_id=0x201, flags=rv.IBV_SEND_SIGNALED)
            return weakref.ref(recv_mr), weakref.ref(send_mr)

        recv_ref, send_ref = post()
        self.assertIn("send wr_id=0x201 flags=0x2 sge=", RECORDER.recorder_last().decode())
        filler = churn()
        self.assertEqual(ep.qp.pending, (1, 1))
        wc = ep.get_send_comp(timeout=0)
        self.assertEqual((wc.wr_id, wc.opcode, wc.byte_len), (0x201, rv.IBV_WC_SEND, 64))
        self.assertEqual(self.wire(), MESSAGE)
        gc.collect()
        self.assertIsNone(send_ref())
        self.assertEqual(bytes(recv_ref().buf), MESSAGE)
        wc = ep.get_recv_comp(timeout=0)
        self.assertEqual((wc.wr_id, wc.opcode), (0x101, rv.IBV_WC_RECV))
        gc.collect()
        self.assertIsNone(recv_ref())
        with self.assertRaises(TimeoutError) as e:      # nothing left: a bounded wait
            ep.get_recv_comp(timeout=0)
        self.assertEqual(e.exception.errno, errno.ETIMEDOUT)
        self.assertEqual(len(filler), 20000)

    def create_ep(self, destroyed=lambda: None):
        """Endpoint.create (the README client's path) on the recorder's id:
        rdma_getaddrinfo, rdma_create_ep, rdma_reg_msgs, rdma_dereg_mr and
        rdma_destroy_ep replaced (the id is the recorder's, its QP and CQ
        the loopback's; rdma_destroy_ep calls destroyed(), the QP there
        until it returns, as librdmacm destroys it there)."""
        res = rv.rdma_addrinfo()
        cm_id = rv.rdma_cm_id.from_address(self.id)
        cm_id.send_cq = cm_id.recv_cq = self.cq_h
        self.log = []

        def getaddrinfo(node, service, hints, out):
            out._obj.value = ctypes.addressof(res)
            return 0

        def create_ep(out, ai, pd, attr):
            out._obj.value = self.id
            return 0

        def reg_msgs(id_, addr, length):
            m = rv.ibv_mr(addr=addr, length=length, lkey=0x77, rkey=0x78)
            self.keys.append(m)
            return ctypes.addressof(m)

        def dereg_mr(h):
            self.log.append("rdma_dereg_mr")
            return 0

        def destroy_ep(id_):
            self.log.append("rdma_destroy_ep")
            destroyed()
        patcher = mock.patch.multiple(rv.raw, rdma_getaddrinfo=getaddrinfo, rdma_freeaddrinfo=lambda r: None,
                                      rdma_create_ep=create_ep, rdma_reg_msgs=reg_msgs, rdma_dereg_mr=dereg_mr,
                                      rdma_destroy_ep=destroy_ep)
        patcher.start()
        self.addCleanup(patcher.stop)
        return rv.Endpoint.create("192.0.2.1", 7471)

    def test_endpoint_create_holds_posted_buffers_until_rdma_destroy_ep(self):
        """ep.close() on an Endpoint.create id closes what was made on it
        first (the QP object over the id's QP, the MRs), then
        rdma_destroy_ep destroys the QP: what was posted is held until
        then, the device reading it meanwhile."""
        seen = []

        def destroyed():
            # The QP is still there: the device sends now, reading the
            # send's buffer, writing it into the receive's.
            filler = churn()
            wc = (rv.ibv_wc * 4)()
            n = rv.raw.ibv_poll_cq(self.cq_h, 4, wc)
            seen.append(([(wc[i].wr_id, wc[i].opcode) for i in range(n)], self.wire(), send_ref() is not None,
                         recv_ref() is not None and bytes(recv_ref().buf), len(filler)))
        ep = self.create_ep(destroyed)

        def post():
            recv_mr = ep.reg_msgs(64)
            send_mr = ep.reg_msgs(bytearray(MESSAGE))
            ep.post_recv(recv_mr, wr_id=0x102)
            ep.post_send(send_mr, wr_id=0x202, flags=rv.IBV_SEND_SIGNALED)
            return weakref.ref(recv_mr), weakref.ref(send_mr)

        recv_ref, send_ref = post()
        self.assertEqual(ep.qp.pending, (1, 1))
        ep.close()
        self.assertEqual(self.log, ["rdma_dereg_mr", "rdma_dereg_mr", "rdma_destroy_ep"])
        self.assertEqual(seen, [([(0x202, rv.IBV_WC_SEND), (0x102, rv.IBV_WC_RECV)], MESSAGE, True, MESSAGE,
                                 20000)])
        gc.collect()
        self.assertIsNone(send_ref())           # let go once the QP is gone
        self.assertIsNone(recv_ref())

    def test_closing_the_object_over_an_ids_own_qp_lets_go_of_nothing(self):
        """ep.qp of an Endpoint.create id closed (the C QP is the id's, not
        destroyed): its posts stay held, a new ep.qp sees them, and their
        completions let them go."""
        ep = self.create_ep()
        self.addCleanup(ep.close)

        def post():
            send_mr = ep.reg_msgs(bytearray(MESSAGE))
            ep.post_send(send_mr, wr_id=0x203, flags=rv.IBV_SEND_SIGNALED)
            return weakref.ref(send_mr)

        send_ref = post()
        ep.qp.close()
        filler = churn()
        self.assertIsNotNone(send_ref())
        self.assertEqual(ep.qp.pending, (1, 0))
        wc = ep.get_send_comp(timeout=0)
        self.assertEqual((wc.wr_id, wc.opcode), (0x203, rv.IBV_WC_SEND))
        self.assertEqual(self.wire(), MESSAGE)
        gc.collect()
        self.assertIsNone(send_ref())
        self.assertEqual(ep.qp.pending, (0, 0))
        self.assertEqual(len(filler), 20000)

    def test_srq_receives_and_unsignaled_sends(self):
        srq = rv.SRQ.wrap(RECORDER.recorder_srq())
        cq = rv.CQ.wrap(self.cq_h)
        qp = rv.QP.wrap(self.qp_h, send_cq=cq, recv_cq=cq, srq=srq)
        mr = self.fake_mr(4 * 64, 0x55)
        srq.post_recv([rv.RecvWR(0x100 + i, [mr.sge(64 * i, 64)]) for i in range(2)])
        self.assertEqual(RECORDER.recorder_last().decode(),
                         f"srq_recv wr_id=0x100 sge={mr.addr:#x}:0x40:0x55 | "
                         f"srq_recv wr_id=0x101 sge={mr.addr + 64:#x}:0x40:0x55")
        with self.assertRaisesRegex(ValueError, "distinct wr_ids"):
            srq.post_recv([rv.RecvWR(0x101, [mr.sge(128, 64)])])
        self.assertEqual(srq.pending, 2)
        # Two sends, the first unsignaled: the second's completion lets go of both.
        mr.buf[128:256] = bytes(range(128))
        qp.post_send([rv.SendWR(7, [mr.sge(128, 64)]), rv.SendWR(8, [mr.sge(192, 64)])])
        self.assertEqual(qp.pending, (2, 0))
        got = [(w.wr_id, w.opcode) for w in cq.poll(2)]
        self.assertEqual(got, [(7, rv.IBV_WC_SEND), (0x100, rv.IBV_WC_RECV)])
        self.assertEqual(srq.pending, 1)
        self.assertEqual(bytes(mr.buf[:64]), bytes(range(64)))
        self.assertEqual(qp.pending, (1, 0))
        _release = rv.objects._release
        q = qp._sq
        q.appendleft((6, None))                        # an unsignaled one before 8
        _release(q, 8)
        self.assertEqual(len(q), 0)

    def test_refused_posts_raise_with_errno_and_hold_nothing(self):
        cq = rv.CQ.wrap(self.cq_h)
        qp = rv.QP.wrap(self.qp_h, send_cq=cq, recv_cq=cq)
        mr = self.fake_mr(64, 0x66)
        RECORDER.recorder_fail(errno.ENOMEM)
        with self.assertRaises(rv.PostError) as e:
            qp.post_send([rv.SendWR(1, [mr.sge()]), rv.SendWR(2, [mr.sge()])])
        self.assertEqual((e.exception.errno, e.exception.index), (errno.ENOMEM, 0))
        self.assertEqual(qp.pending, (0, 0))
        with self.assertRaisesRegex(ValueError, "outside the MR's 64"):
            mr.sge(32, 64)
        with self.assertRaises(TypeError):
            rv.MR.wrap(0, b"read-only bytes")
        mr.close()
        with self.assertRaisesRegex(ValueError, "closed"):
            qp.post_send([rv.SendWR(3, [(mr, 0, 8)])])



if __name__ == "__main__":
    unittest.main()
