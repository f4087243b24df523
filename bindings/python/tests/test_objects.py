"""The object API (rdmaverbs.objects) on a machine without RDMA: buffers
kept alive while posted, through the recording provider's loopback
(bindings/recorder.c: the device touches the memory only when a poll
completes the work request); closing in dependency order whatever the
program does, with the C layer's creating and destroying calls replaced
by fakes that log them (Endpoint.create's too); an object whose destroy
fails when collected; errors with their errno; the asyncio waits on a
pipe standing for a channel's fd, two at once; IPv4 and IPv6 addresses. (The objects on Soft-RoCE: make
e2e-host's rows python objects and python async.)"""
import asyncio
import ctypes
import errno
import gc
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import warnings
import weakref
from unittest import mock

import rdmaverbs as rv

RECORDER = ctypes.CDLL(os.environ["RDMAVERBS_RECORDER"])
for _name in ("recorder_id", "recorder_qp", "recorder_srq", "recorder_cq"):
    getattr(RECORDER, _name).restype = ctypes.c_void_p
RECORDER.recorder_last.restype = ctypes.c_char_p
RECORDER.recorder_wire.restype = ctypes.c_size_t
RECORDER.recorder_wire.argtypes = [ctypes.c_void_p, ctypes.c_size_t]

MESSAGE = bytes((0x51 + 7 * j) % 256 for j in range(64))
QP_NUM = 0x1234


def churn():
    """Collects, then fills the heap's free blocks of a small buffer's size
    with 0xee: memory freed too early now holds other bytes."""
    gc.collect()
    return [bytearray(b"\xee" * 64) for _ in range(20000)]


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


class Fakes:
    """The C layer's creating and destroying calls replaced (mock.patch on
    rdmaverbs.raw): each made object a distinct address, each destroy
    logged with what it destroyed."""

    def __init__(self, test):
        self.log, self.names, self.keep, self.fail = [], {}, [], {}
        self.recorder_id = RECORDER.recorder_id()
        self.pipe = os.pipe()
        test.addCleanup(os.close, self.pipe[0])
        test.addCleanup(os.close, self.pipe[1])
        self.cqs = {}

    def make(self, name, struct=None, **fields):
        obj = (struct or ctypes.c_uint64 * 8)(**fields) if struct else (ctypes.c_uint64 * 8)()
        self.keep.append(obj)
        self.names[ctypes.addressof(obj)] = name
        return ctypes.addressof(obj)

    def destroy(self, fn):
        def call(h, *_):
            name = self.names[h if isinstance(h, int) else h.value]
            if self.fail.get(name):
                return self.fail.pop(name)
            self.log.append(f"{fn} {name}")
            return 0
        return call

    def patch(self, test):
        n = {"pd": 0, "cq": 0, "mr": 0, "srq": 0}

        def named(kind):
            n[kind] += 1
            return f"{kind}{n[kind]}"

        def create_cq(ctx, cqe, context, channel, vector):
            h = self.make(named("cq"))
            self.cqs[h] = context
            return h

        def create_qp(id_, pd, attr):
            self.names[RECORDER.recorder_qp()] = "qp"
            return 0

        def destroy_qp(id_):
            self.log.append("rdma_destroy_qp qp")
            rv.rdma_cm_id.from_address(id_).qp = None       # as librdmacm does

        fakes = {
            "ibv_alloc_pd": lambda ctx: self.make(named("pd")),
            "ibv_dealloc_pd": self.destroy("ibv_dealloc_pd"),
            "ibv_create_comp_channel": lambda ctx: self.make("channel", rv.ibv_comp_channel, fd=self.pipe[0]),
            "ibv_destroy_comp_channel": self.destroy("ibv_destroy_comp_channel"),
            "ibv_create_cq": create_cq,
            "ibv_destroy_cq": self.destroy("ibv_destroy_cq"),
            "ibv_create_srq": lambda pd, attr: self.make(named("srq")),
            "ibv_destroy_srq": self.destroy("ibv_destroy_srq"),
            "ibv_reg_mr_iova2": lambda pd, addr, n_, iova, access: self.make(named("mr"), rv.ibv_mr, length=n_),
            "ibv_dereg_mr": self.destroy("ibv_dereg_mr"),
            "rdma_create_qp": create_qp,
            "rdma_destroy_qp": destroy_qp,
        }
        patcher = mock.patch.multiple(rv.raw, **fakes)
        patcher.start()
        test.addCleanup(patcher.stop)


class Closing(unittest.TestCase):
    def setUp(self):
        self.fakes = Fakes(self)
        self.fakes.patch(self)

    def build(self, ep):
        """The verbs exchange's objects (bindings/verbs-protocol.md)."""
        pd = ep.alloc_pd()
        ch = ep.create_comp_channel()
        scq = ep.create_cq(16)
        rcq = ep.create_cq(16, ch, 0xC0FFEE)
        srq = pd.create_srq(8)
        qp = ep.create_qp(pd, scq, rcq, srq, max_send_wr=8, max_send_sge=2)
        mrs = [pd.reg_mr(n) for n in (512, 320, 24)]
        return [pd, ch, scq, rcq, srq, qp] + mrs

    # The order verbs needs: the QP before its CQs, SRQ and PD; each CQ
    # before its channel; the MRs and the SRQ before the PD.
    ORDER = ["rdma_destroy_qp qp", "ibv_destroy_cq cq2", "ibv_destroy_cq cq1", "ibv_destroy_comp_channel channel",
             "ibv_dereg_mr mr3", "ibv_dereg_mr mr2", "ibv_dereg_mr mr1", "ibv_destroy_srq srq1",
             "ibv_dealloc_pd pd1"]

    def test_an_exception_midway_leaks_nothing(self):
        made = []
        with self.assertRaisesRegex(RuntimeError, "mid-way"):
            with rv.Endpoint.wrap(self.fakes.recorder_id) as ep:
                made = self.build(ep)
                raise RuntimeError("mid-way")
        self.assertEqual(self.fakes.log, self.ORDER)
        self.assertTrue(all(o.closed for o in made) and ep.closed)

    def test_closing_a_parent_closes_its_children_first(self):
        ep = rv.Endpoint.wrap(self.fakes.recorder_id)
        pd, ch, scq, rcq, srq, qp, *mrs = self.build(ep)
        rcq.close()                     # its QP first
        self.assertEqual(self.fakes.log, ["rdma_destroy_qp qp", "ibv_destroy_cq cq2"])
        self.assertTrue(qp.closed and not scq.closed)
        pd.close()                      # its MRs and SRQ
        self.assertEqual(self.fakes.log[2:], ["ibv_dereg_mr mr3", "ibv_dereg_mr mr2", "ibv_dereg_mr mr1",
                                              "ibv_destroy_srq srq1", "ibv_dealloc_pd pd1"])
        ep.close()
        self.assertEqual(self.fakes.log[7:], ["ibv_destroy_cq cq1", "ibv_destroy_comp_channel channel"])
        ep.close()                      # once only
        self.assertEqual(len(self.fakes.log), 9)
        with self.assertRaisesRegex(ValueError, "closed"):
            ep.alloc_pd()

    def test_a_destroy_that_fails_raises_its_errno_and_stays_open(self):
        ep = rv.Endpoint.wrap(self.fakes.recorder_id)
        pd, ch, scq, rcq, srq, qp, *mrs = self.build(ep)
        self.fakes.fail["cq1"] = errno.EBUSY
        with self.assertRaises(OSError) as e:
            ep.close()
        self.assertEqual(e.exception.errno, errno.EBUSY)
        self.assertFalse(scq.closed or ep.closed)
        self.assertTrue(rcq.closed and pd.closed and ch.closed)
        self.assertNotIn("ibv_destroy_cq cq1", self.fakes.log)
        ep.close()                      # tried again: it goes
        self.assertEqual(self.fakes.log[-1], "ibv_destroy_cq cq1")
        self.assertTrue(scq.closed and ep.closed)

    def test_posts_after_the_endpoints_qp_is_closed_raise_valueerror(self):
        """The QP create_qp made, closed (ep.qp.close(): rdma_destroy_qp):
        every post of the endpoint then raises the closed error, ValueError,
        before C is called (C would refuse the id without a QP: EINVAL)."""
        ep = rv.Endpoint.wrap(self.fakes.recorder_id)
        self.addCleanup(ep.close)
        pd, ch, scq, rcq, srq, qp, *mrs = self.build(ep)
        self.assertIs(ep.qp, qp)
        ep.qp.close()
        self.assertEqual(self.fakes.log, ["rdma_destroy_qp qp"])
        mr = mrs[0]
        posts = [lambda: ep.post_send(mr), lambda: ep.post_send(mr, 0, 8),
                 lambda: ep.post_send(b"inline", flags=rv.IBV_SEND_INLINE),
                 lambda: ep.post_send(bytearray(b"inline"), flags=rv.IBV_SEND_INLINE),
                 lambda: ep.post_recv(mr), lambda: ep.post_recv(mr, 0, 8),
                 lambda: ep.post_write(mr, 0x1000, 0x22), lambda: ep.post_read(mr, 0x1000, 0x22),
                 lambda: ep.post_sendv([mr.sge()]), lambda: ep.post_recvv([mr.sge()]), lambda: ep.qp]
        for post in posts:
            with self.assertRaisesRegex(ValueError, r"<rdmaverbs.QP closed> is closed"):
                post()

    def test_a_child_collected_while_its_parent_closes(self):
        """A PD closed: its QP first, whose posted MR (registered before it,
        dropped by the program) is then let go, collected and closed as
        the PD's close goes on: the PD is closed all the same."""
        ep = rv.Endpoint.wrap(self.fakes.recorder_id)
        self.addCleanup(ep.close)
        pd = ep.alloc_pd()
        mr = pd.reg_mr(64)
        cq = ep.create_cq(16)
        qp = ep.create_qp(pd, cq, cq)
        qp.post_send([rv.SendWR(1, [mr.sge()], flags=rv.IBV_SEND_SIGNALED)])
        del mr
        pd.close()
        self.assertTrue(pd.closed and qp.closed)
        self.assertEqual(self.fakes.log, ["rdma_destroy_qp qp", "ibv_dereg_mr mr1", "ibv_dealloc_pd pd1"])

    def test_a_child_that_cannot_be_destroyed_when_collected(self):
        """An MR dropped whose ibv_dereg_mr fails when it is collected: its
        memory kept (still registered) with a RuntimeWarning, and its PD's
        close() (a with block) closes it, not a silent nothing."""
        ep = rv.Endpoint.wrap(self.fakes.recorder_id)
        self.addCleanup(ep.close)
        leaked = rv.objects._leaked
        self.addCleanup(lambda n=len(leaked): leaked.__delitem__(slice(n, None)))
        pd = ep.alloc_pd()
        mr = pd.reg_mr(bytearray(MESSAGE))
        addr, before = mr.addr, len(leaked)
        self.fakes.fail["mr1"] = errno.EBUSY
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            del mr
            gc.collect()
        warned = [str(x.message) for x in w if x.category is RuntimeWarning]
        self.assertEqual(len(warned), 1, warned)
        self.assertRegex(warned[0], r"^<rdmaverbs.MR 0x[0-9a-f]+> could not be destroyed when collected "
                                    r"\(\[Errno 16\] ibv_dereg_mr: .*\): its C object and what the device may use "
                                    r"are leaked")
        kept = leaked[before:]
        self.assertEqual(len(kept), 1)
        self.assertEqual(ctypes.addressof(kept[0][1]), addr)
        filler = churn()
        self.assertEqual(bytes(kept[0][1]), MESSAGE)
        self.assertEqual(len(filler), 20000)
        with pd:
            pass
        self.assertTrue(pd.closed)
        self.assertEqual(self.fakes.log, ["ibv_dealloc_pd pd1"])

    def test_collected_together_one_that_cannot_be_destroyed(self):
        """The objects of test_dropped_objects_are_closed_children_first
        collected together (a cycle), the send CQ's destroy failing: each of
        the others is destroyed still, the endpoint closed."""
        leaked = rv.objects._leaked
        self.addCleanup(lambda n=len(leaked): leaked.__delitem__(slice(n, None)))
        ep = rv.Endpoint.wrap(self.fakes.recorder_id)
        self.build(ep)
        ref = weakref.ref(ep)
        self.fakes.fail["cq1"] = errno.EBUSY
        del ep
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            gc.collect()
        self.assertEqual(sorted(self.fakes.log), sorted(x for x in self.ORDER if x != "ibv_destroy_cq cq1"))
        warned = [str(x.message) for x in w if x.category is RuntimeWarning]
        self.assertEqual(len(warned), 1, warned)
        self.assertRegex(warned[0], r"^<rdmaverbs.CQ 0x[0-9a-f]+> could not be destroyed when collected")
        self.assertIsNone(ref())

    def test_dropped_objects_are_closed_children_first(self):
        """Dropped (the endpoint and its QP hold each other: the collector's
        cycle finds them, its finalizers in any order): each object is
        destroyed after those that depend on it."""
        ep = rv.Endpoint.wrap(self.fakes.recorder_id)
        self.build(ep)
        del ep
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always", ResourceWarning)
            gc.collect()
        log = self.fakes.log
        self.assertEqual(sorted(log), sorted(self.ORDER))
        after = {"pd1": ["qp", "srq1", "mr1", "mr2", "mr3"], "srq1": ["qp"], "cq1": ["qp"], "cq2": ["qp"],
                 "channel": ["cq2"]}
        at = {line.split()[1]: i for i, line in enumerate(log)}
        for parent, children in after.items():
            for child in children:
                self.assertLess(at[child], at[parent], (child, parent, log))
        warned = [str(x.message) for x in w if issubclass(x.category, ResourceWarning)]
        self.assertTrue(warned and all(m.startswith("unclosed <rdmaverbs.") for m in warned), warned)

    def test_a_failed_call_raises_oserror_with_its_errno(self):
        with mock.patch.object(rv.raw, "ibv_alloc_pd", lambda ctx: (ctypes.set_errno(errno.ENOMEM), None)[1]):
            with self.assertRaises(OSError) as e:
                rv.Endpoint.wrap(self.fakes.recorder_id).alloc_pd()
        self.assertEqual(e.exception.errno, errno.ENOMEM)

        def error_completion(id_, wc, ms):
            wc.wr_id, wc.status = 0x42, rv.IBV_WC_REM_ACCESS_ERR   # the struct itself (passed by reference)
            return 1
        with mock.patch.object(rv.raw, "rdma_get_recv_comp_timeout", error_completion):
            with self.assertRaises(rv.CompletionError) as e:
                rv.Endpoint.wrap(self.fakes.recorder_id).get_recv_comp(1)
        self.assertEqual((e.exception.errno, e.exception.status, e.exception.wc.wr_id),
                         (errno.EIO, rv.IBV_WC_REM_ACCESS_ERR, 0x42))
        self.assertIn("remote access error", str(e.exception))


class Async(unittest.TestCase):
    """A completion channel's waits, the pipe of Fakes standing for its fd
    (ibv_get_cq_event replaced: a read of 8 bytes, EAGAIN when empty)."""

    def setUp(self):
        self.fakes = Fakes(self)
        self.fakes.patch(self)
        self.acked = []
        fd = self.fakes.pipe[0]

        def get_cq_event(channel, cq, ctx):
            try:
                os.read(fd, 8)
            except BlockingIOError:
                ctypes.set_errno(errno.EAGAIN)
                return -1
            cq._obj.value = self.cq.handle
            return 0
        patcher = mock.patch.multiple(rv.raw, ibv_get_cq_event=get_cq_event,
                                      ibv_ack_cq_events=lambda cq, n: self.acked.append((cq.value, n)))
        patcher.start()
        self.addCleanup(patcher.stop)
        self.ep = rv.Endpoint.wrap(self.fakes.recorder_id)
        self.ch = self.ep.create_comp_channel()
        self.cq = self.ep.create_cq(16, self.ch)
        self.addCleanup(self.ep.close)

    def test_another_task_runs_while_a_wait_is_pending(self):
        state = {"pending": False, "ticks": 0}

        async def ticker():
            while True:
                if state["pending"]:
                    state["ticks"] += 1
                await asyncio.sleep(0.001)

        async def main():
            t = asyncio.ensure_future(ticker())
            asyncio.get_running_loop().call_later(0.1, os.write, self.fakes.pipe[1], b"e" * 8)
            state["pending"] = True
            t0 = time.monotonic()
            cq = await self.ch.aget_cq_event(timeout=10)
            state["pending"] = False
            t.cancel()
            return cq, time.monotonic() - t0

        cq, waited = asyncio.run(main())
        self.assertIs(cq, self.cq)
        self.assertGreaterEqual(waited, 0.09)
        self.assertGreater(state["ticks"], 5)
        self.assertEqual(self.acked, [(self.cq.handle, 1)])
        self.assertEqual(self.cq.events, 1)

    def test_bounded_waits_in_both_forms(self):
        async def wait():
            with self.assertRaises(TimeoutError) as e:
                await self.ch.aget_cq_event(timeout=0.05)
            self.assertEqual(e.exception.errno, errno.ETIMEDOUT)
            # the fd is watched no more
            self.assertFalse(asyncio.get_running_loop().remove_reader(self.ch.fd))
        asyncio.run(wait())
        t0 = time.monotonic()
        with self.assertRaises(TimeoutError) as e:
            self.ch.get_cq_event(timeout=0.05)
        self.assertEqual(e.exception.errno, errno.ETIMEDOUT)
        self.assertGreaterEqual(time.monotonic() - t0, 0.045)
        os.write(self.fakes.pipe[1], b"e" * 8)
        self.assertIs(self.ch.get_cq_event(timeout=1), self.cq)

    def test_two_waits_on_one_channel_both_wake(self):
        """ep.aget_recv_comp (the id's CQ's channel watched) and
        channel.aget_cq_event on one channel at once: asyncio keeps one
        reader an fd, so they share one; two events come, both wake."""
        cid = rv.rdma_cm_id.from_address(self.fakes.recorder_id)
        cid.recv_cq, cid.recv_cq_channel = self.cq.handle, self.ch.handle
        state = {"sent": False}

        def get_comp(id_, wc, ms):
            ctypes.set_errno(errno.ETIMEDOUT)
            return -1

        def poll_cq(cq, n, wc):
            if not state["sent"]:
                return 0
            wc._obj.wr_id, wc._obj.status, wc._obj.opcode = 0x99, 0, rv.IBV_WC_RECV
            return 1
        patcher = mock.patch.multiple(rv.raw, rdma_get_recv_comp_timeout=get_comp, ibv_poll_cq=poll_cq,
                                      ibv_req_notify_cq=lambda cq, solicited: 0)
        patcher.start()
        self.addCleanup(patcher.stop)

        async def main():
            events = asyncio.ensure_future(self.ch.aget_cq_event(timeout=2))
            comp = asyncio.ensure_future(self.ep.aget_recv_comp(timeout=2))
            await asyncio.sleep(0.05)               # both waiting
            state["sent"] = True
            os.write(self.fakes.pipe[1], b"e" * 16)  # two events: one each
            got = await asyncio.gather(events, comp)
            self.assertFalse(asyncio.get_running_loop().remove_reader(self.ch.fd))
            return got

        cq, wc = asyncio.run(main())
        self.assertIs(cq, self.cq)
        self.assertEqual((wc.wr_id, wc.opcode), (0x99, rv.IBV_WC_RECV))
        self.assertEqual(rv.objects._watchers, {})

    def test_the_channels_fd_is_non_blocking(self):
        self.assertTrue(os.get_blocking(self.ch.fd) is False)


class Addresses(unittest.TestCase):
    def test_ipv4_and_ipv6(self):
        """local_addr and peer_addr (rdma_get_local_addr, ...): the
        recorder's id's IPv4 route, then a sockaddr_in6 in its place (with
        a scope: "%" and the interface); another family EAFNOSUPPORT."""
        id_ = RECORDER.recorder_id()
        ep = rv.Endpoint.wrap(id_)
        self.assertEqual((ep.local_addr, ep.peer_addr), (("10.0.0.1", 18577), ("10.0.0.2", 50000)))
        src = rv.rdma_get_local_addr(id_)

        def put(family, port, addr, scope):
            sin6 = (struct.pack("=H", family) + struct.pack("!H", port) + struct.pack("=I", 0) +
                    socket.inet_pton(socket.AF_INET6, addr) + struct.pack("=I", scope))
            ctypes.memmove(src, sin6, len(sin6))
        put(socket.AF_INET6, 4791, "2001:db8::7", 0)
        self.assertEqual(ep.local_addr, ("2001:db8::7", 4791))
        put(socket.AF_INET6, 18515, "fe80::1", 1)
        self.assertEqual(ep.local_addr, ("fe80::1%" + socket.if_indextoname(1), 18515))
        put(socket.AF_INET6, 18515, "fe80::1", 0x7fff0000)          # no such interface
        self.assertEqual(ep.local_addr, ("fe80::1%2147418112", 18515))
        self.assertEqual(ep.peer_addr, ("10.0.0.2", 50000))
        put(27, 1, "::", 0)                                         # AF_IB
        with self.assertRaises(OSError) as e:
            ep.local_addr
        self.assertEqual(e.exception.errno, errno.EAFNOSUPPORT)


class Typed(unittest.TestCase):
    def test_the_package_says_it_is_typed(self):
        self.assertTrue(os.path.isfile(os.path.join(os.path.dirname(rv.__file__), "py.typed")))

    @unittest.skipUnless(shutil.which("mypy"), "no mypy (Debian's: apt-get install mypy)")
    def test_the_examples_check_strictly_against_the_package_imported(self):
        """mypy --strict on the object and async programs, rdmaverbs found
        as this interpreter finds it (the installed package, under make:
        read for its types only because it has py.typed)."""
        examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
        files = [os.path.join(examples, f) for f in ("verbs_objects.py", "verbs_async.py", "hello.py", "echo_server.py")]
        r = subprocess.run(["mypy", "--strict", "--python-executable", sys.executable, "--cache-dir",
                            os.path.join(tempfile.gettempdir(), "rdmaverbs-mypy")] + files,
                           capture_output=True, text=True, timeout=300, env={**os.environ, "MYPYPATH": examples})
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("Success: no issues found in 4 source files", r.stdout)


if __name__ == "__main__":
    unittest.main()
