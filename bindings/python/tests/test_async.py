"""The asyncio waits on a pipe standing for a channel's fd, two at once;
IPv4 and IPv6 addresses; the package typed (mypy --strict on the
examples)."""
import asyncio
import ctypes
import errno
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

import rdmaverbs as rv
from stand_in import RECORDER, Fakes


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

    def test_a_completion_within_the_spin_needs_no_arming(self):
        from rdmaverbs.objects import aio
        wc, polls, armed = rv.ibv_wc(wr_id=7), [], []
        with mock.patch.object(self.cq, "poll", lambda n: polls.append(n) or ([wc] if len(polls) == 4 else [])), \
                mock.patch.object(self.cq, "req_notify", lambda *a: armed.append(a)):
            got = asyncio.run(self.cq.aget(1, timeout=5))
        self.assertEqual([w.wr_id for w in got], [7])
        self.assertEqual((polls, armed), ([1, 1, 1, 1], []))   # the first poll, then 3 turns of the loop
        self.assertGreaterEqual(aio.SPIN, 4)

    def test_no_spin_arms_at_once_and_a_close_ends_the_spin(self):
        from rdmaverbs.objects import aio
        armed, polls = [], []

        def poll(n):    # none (the fake CQ is not polled); closed: as CQ.poll
            self.cq._check_open("ibv_poll_cq")
            polls.append(n)
            return []
        with mock.patch.object(aio, "SPIN", 0), mock.patch.object(self.cq, "poll", poll), \
                mock.patch.object(self.cq, "req_notify", lambda *a: armed.append(a)):
            with self.assertRaises(TimeoutError):
                asyncio.run(self.cq.aget(1, timeout=0.05))
            self.assertEqual((armed, polls), ([()], [1, 1]))   # polled, armed, polled again, waited

            async def closed_while_spinning():
                asyncio.get_running_loop().call_soon(self.cq.close)
                with self.assertRaises(ValueError) as e:
                    await self.cq.aget(1, timeout=5)
                return e.exception
            aio.SPIN, armed[:] = 1000, []
            self.assertIn("closed", str(asyncio.run(closed_while_spinning())))
            self.assertEqual(armed, [])

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
