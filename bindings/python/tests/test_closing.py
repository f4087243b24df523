"""Closing in dependency order whatever the program does, with the C
layer's creating and destroying calls replaced by fakes that log them; an
object whose destroy fails when collected; errors with their errno."""
import ctypes
import errno
import gc
import unittest
import warnings
import weakref
from unittest import mock

import rdmaverbs as rv
from stand_in import MESSAGE, churn, Fakes


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



if __name__ == "__main__":
    unittest.main()
