"""Closing an object ends every wait pending on it, and on the objects
that depend on it, at once, with the closed error (ValueError, "closed"),
in asyncio: a wait bounded or not, closed from another task; a CQ waited
on by two tasks; the waits of what an endpoint or a channel made. Each
wait is also bounded here (asyncio.wait_for) so that a wait the close does
not end fails the test instead of hanging it. The fds are pipes standing
for the channels' (as in test_objects.py); the fd's reader is gone after."""
import asyncio
import ctypes
import errno
import os
import time
import unittest
from unittest import mock

import rdmaverbs as rv
from stand_in import Fakes

# How soon "at once" is: far below every time limit of the waits (10 s).
AT_ONCE = 0.5


class Waits(unittest.TestCase):
    def setUp(self):
        self.fakes = Fakes(self)
        self.fakes.patch(self)
        self.cm_pipe = os.pipe()
        for fd in self.cm_pipe:
            self.addCleanup(os.close, fd)

        def get_comp(id_, wc, ms):               # nothing completed yet
            ctypes.set_errno(errno.ETIMEDOUT)
            return -1

        def get_cq_event(channel, cq, ctx):      # the pipe is empty: EAGAIN
            ctypes.set_errno(errno.EAGAIN)
            return -1

        def get_cm_event(channel, event):
            ctypes.set_errno(errno.EAGAIN)
            return -1
        self.ids = []

        def create_id(channel, out, context, ps):
            out._obj.value = self.fakes.make(f"id{len(self.ids)}", rv.rdma_cm_id)
            self.ids.append(out._obj.value)
            return 0
        patcher = mock.patch.multiple(
            rv.raw, rdma_get_recv_comp_timeout=get_comp, rdma_get_send_comp_timeout=get_comp,
            ibv_poll_cq=lambda cq, n, wc: 0, ibv_req_notify_cq=lambda cq, solicited: 0,
            ibv_get_cq_event=get_cq_event, ibv_ack_cq_events=lambda cq, n: None,
            rdma_create_event_channel=lambda: self.fakes.make("cm channel", rv.rdma_event_channel,
                                                              fd=self.cm_pipe[0]),
            rdma_destroy_event_channel=self.fakes.destroy("rdma_destroy_event_channel"),
            rdma_create_id=create_id, rdma_destroy_id=self.fakes.destroy("rdma_destroy_id"),
            rdma_get_cm_event=get_cm_event)
        patcher.start()
        self.addCleanup(patcher.stop)
        # (the CQ's poll and arming, bound once without the GIL's release)
        for name, fake in (("_poll_cq", lambda cq, n, wc: 0), ("_req_notify_cq", lambda cq, solicited: 0)):
            patcher = mock.patch.object(rv.objects.cq, name, fake)
            patcher.start()
            self.addCleanup(patcher.stop)
        self.ep = rv.Endpoint.wrap(self.fakes.recorder_id)
        self.addCleanup(self.ep.close)          # (while the fakes are in place)
        self.ch = self.ep.create_comp_channel()
        self.cq = self.ep.create_cq(16, self.ch)
        cid = rv.rdma_cm_id.from_address(self.fakes.recorder_id)
        cid.recv_cq, cid.recv_cq_channel = self.cq.handle, self.ch.handle
        cid.send_cq, cid.send_cq_channel = self.cq.handle, self.ch.handle

    def closing(self, waits, close, after=0.05):
        """Starts the waits (coroutines), closes (close()) from another task
        `after` seconds later: each wait's exception and how long after
        the close it ended; the fds' readers checked gone."""
        async def main():
            loop = asyncio.get_running_loop()
            tasks = [asyncio.ensure_future(asyncio.wait_for(w, 5)) for w in waits]
            await asyncio.sleep(after)
            self.assertFalse(any(t.done() for t in tasks), "a wait ended before the close")
            t0 = time.monotonic()
            close()
            out = []
            for t in tasks:
                try:
                    await t
                    out.append((None, time.monotonic() - t0))
                except BaseException as e:      # noqa: BLE001 (what the wait raised)
                    out.append((e, time.monotonic() - t0))
            for fd in (self.fakes.pipe[0], self.cm_pipe[0]):
                self.assertFalse(loop.remove_reader(fd), f"fd {fd} still watched")
            return out
        return asyncio.run(main())

    def assertClosed(self, results, n):
        self.assertEqual(len(results), n)
        for e, after in results:
            self.assertIsInstance(e, ValueError, f"the wait ended with {e!r}, not the closed error")
            self.assertIn("closed", str(e))
            self.assertLess(after, AT_ONCE, f"the wait ended {after:.2f} s after the close")
        self.assertEqual(rv.objects._watchers, {})

    def test_closing_an_endpoint_ends_its_completion_wait_with_a_time_limit(self):
        r = self.closing([self.ep.aget_recv_comp(timeout=10)], self.ep.close)
        self.assertClosed(r, 1)
        self.assertIn("rdma_get_recv_comp", str(r[0][0]))

    def test_closing_an_endpoint_ends_its_completion_wait_without_one(self):
        r = self.closing([self.ep.aget_send_comp()], self.ep.close)
        self.assertClosed(r, 1)
        self.assertIn("rdma_get_send_comp", str(r[0][0]))

    def test_closing_a_cq_ends_both_of_its_waiters(self):
        r = self.closing([self.cq.aget(1, timeout=10), self.cq.aget(2)], self.cq.close)
        self.assertClosed(r, 2)
        self.assertTrue(self.ch.closed is False)

    def test_closing_a_cq_without_a_channel_ends_its_polling_waits(self):
        cq = self.ep.create_cq(16)
        r = self.closing([cq.aget(1, timeout=10), cq.aget(1)], cq.close)
        self.assertClosed(r, 2)
        self.assertIn("ibv_poll_cq", str(r[0][0]))

    def test_closing_the_channel_ends_the_waits_of_its_cqs_and_its_own(self):
        r = self.closing([self.cq.aget(1, timeout=10), self.cq.aget(1), self.ch.aget_cq_event()], self.ch.close)
        self.assertClosed(r, 3)
        self.assertTrue(self.cq.closed)

    def test_closing_an_endpoint_ends_the_waits_of_what_it_made(self):
        """The CQ and the channel were made on the endpoint (ep.create_cq):
        its dependents, closed with it, their waits ended."""
        r = self.closing([self.cq.aget(1, timeout=10), self.ch.aget_cq_event(), self.ep.aget_recv_comp()],
                         self.ep.close)
        self.assertClosed(r, 3)
        self.assertTrue(self.cq.closed and self.ch.closed)

    def test_closing_an_event_driven_endpoint_ends_its_event_waits(self):
        channel = rv.EventChannel()
        self.addCleanup(channel.close)
        a, b = channel.create_id(), channel.create_id()
        r = self.closing([a.aget_event(timeout=10), a.aexpect(rv.RDMA_CM_EVENT_ESTABLISHED)], a.close)
        self.assertClosed(r, 2)
        self.assertIn("rdma_get_cm_event", str(r[0][0]))
        # the other id of the channel waits on, until its own time limit
        async def other():
            with self.assertRaises(TimeoutError):
                await b.aget_event(timeout=0.05)
        asyncio.run(other())
        b.close()

    def test_closing_the_event_channel_ends_the_waits_of_its_ids(self):
        channel = rv.EventChannel()
        self.addCleanup(channel.close)
        a, b = channel.create_id(), channel.create_id()
        r = self.closing([a.aget_event(timeout=10), b.aexpect(rv.RDMA_CM_EVENT_DISCONNECTED), b.aget_request()], channel.close)
        self.assertClosed(r, 3)
        self.assertTrue(a.closed and b.closed)
        self.assertIn("rdma_destroy_event_channel cm channel", self.fakes.log)


if __name__ == "__main__":
    unittest.main()
