"""The simple path (Endpoint.create) on a machine without RDMA, librdmacm's
calls replaced by fakes that log them (pipes stand for the channels' fds):
every send signaled by default, whichever way the QP is made; the id's PD
and one MR with an access mask on it; connect and accept awaited (the id
moved onto an event channel of its own, closed after it); a rejected
connect's ECONNREFUSED; a listener iterated, blocking and awaited, its
requests' receives posted before the accept; the iteration ending when the
listener is closed. (On Soft-RoCE: make e2e-host's rows python hello and
python echo.)"""
import asyncio
import ctypes
import errno
import os
import py_compile
import re
import tempfile
import unittest
from unittest import mock

import rdmaverbs as rv
from rdmaverbs.objects.endpoint import connect as connect_module
from stand_in import Fakes

ALL = rv.IBV_ACCESS_LOCAL_WRITE | rv.IBV_ACCESS_REMOTE_READ | rv.IBV_ACCESS_REMOTE_WRITE | rv.IBV_ACCESS_REMOTE_ATOMIC


class Simple(unittest.TestCase):
    def setUp(self):
        self.fakes = f = Fakes(self)
        f.patch(self)
        self.log, self.attrs, self.events, self.requests = f.log, [], [], []
        self.cm_pipe, self.listen_pipe = os.pipe(), os.pipe()
        for fd in self.cm_pipe + self.listen_pipe:
            self.addCleanup(os.close, fd)
        self.res = rv.rdma_addrinfo()
        self.listen_channel = f.make("listen channel", rv.rdma_event_channel, fd=self.listen_pipe[0])

        def new_id(name):
            h = f.make(name, rv.rdma_cm_id, pd=f.make(name + " pd"), channel=self.listen_channel)
            rv.rdma_cm_id.from_address(h).qp = f.make(name + " qp", rv.ibv_qp, qp_num=0x42)
            return h

        def getaddrinfo(node, service, hints, out):
            out._obj.value = ctypes.addressof(self.res)
            return 0

        def create_ep(out, ai, pd, attr):
            self.attrs.append(attr._obj.sq_sig_all)
            out._obj.value = new_id("ep id")
            return 0

        def get_request(listen, out):
            try:
                os.read(self.listen_pipe[0], 1)
            except BlockingIOError:
                ctypes.set_errno(errno.EAGAIN)
                return -1
            out._obj.value = h = new_id(f"request {len(self.requests)}")
            self.requests.append(h)
            return 0

        def get_cm_event(channel, out):
            try:
                os.read(self.cm_pipe[0], 1)
            except BlockingIOError:
                ctypes.set_errno(errno.EAGAIN)
                return -1
            kind, id_ = self.events.pop(0)
            ev = rv.rdma_cm_event(id=id_, event=kind)
            self.fakes.keep.append(ev)
            out._obj.value = ctypes.addressof(ev)
            return 0

        def migrate(id_, channel):
            self.log.append(f"rdma_migrate_id {f.names[id_]} to {f.names[channel]}")
            rv.rdma_cm_id.from_address(id_).channel = channel
            return 0

        def logged(fn, r=0):
            def call(h, *_):
                self.log.append(f"{fn} {f.names[h if isinstance(h, int) else h.value]}")
                return r
            return call

        def create_qp(id_, pd, attr):
            self.attrs.append(attr._obj.sq_sig_all)
            rv.rdma_cm_id.from_address(id_).qp = f.make("qp", rv.ibv_qp, qp_num=0x43)
            return 0
        patcher = mock.patch.multiple(
            rv.raw, rdma_getaddrinfo=getaddrinfo, rdma_freeaddrinfo=lambda r: None, rdma_create_ep=create_ep,
            rdma_destroy_ep=logged("rdma_destroy_ep"), rdma_get_request=get_request, rdma_listen=logged("rdma_listen"),
            rdma_connect=logged("rdma_connect"), rdma_accept=logged("rdma_accept"),
            rdma_create_event_channel=lambda: f.make("own channel", rv.rdma_event_channel, fd=self.cm_pipe[0]),
            rdma_destroy_event_channel=logged("rdma_destroy_event_channel"), rdma_get_cm_event=get_cm_event,
            rdma_ack_cm_event=lambda ev: 0, rdma_create_qp=create_qp, rdma_create_id=self.create_id,
            rdma_destroy_id=logged("rdma_destroy_id"))
        patcher.start()
        self.addCleanup(patcher.stop)
        patcher = mock.patch.object(connect_module._cm, "rdma_migrate_id", migrate)
        patcher.start()
        self.addCleanup(patcher.stop)

    def create_id(self, channel, out, context, ps):
        out._obj.value = self.fakes.make("event-driven id", rv.rdma_cm_id, verbs=1)
        return 0

    def event(self, kind, id_):
        self.events.append((kind, id_))
        os.write(self.cm_pipe[1], b"e")

    def test_every_send_is_signaled_by_default_whichever_way_the_qp_is_made(self):
        with rv.Endpoint.create("192.0.2.1", 7471):
            pass
        with rv.Endpoint.create("192.0.2.1", 7471, sq_sig_all=False):
            pass
        with rv.EventChannel() as ch:
            ch.create_id().create_qp()
            ch.create_id().create_qp(sq_sig_all=False)
        self.assertEqual(self.attrs, [1, 0, 1, 0])

    def test_the_ids_pd_and_one_mr_with_an_access_mask(self):
        regs = []

        def reg(pd, addr, n, iova, access):
            regs.append((self.fakes.names[pd], n, access, addr == iova))
            return self.fakes.make("mr", rv.ibv_mr, length=n, lkey=5, rkey=6)
        with mock.patch.object(rv.raw, "ibv_reg_mr_iova2", reg):
            with rv.Endpoint.create("192.0.2.1", 7471) as ep:
                mr = ep.reg_mr(4096, ALL)
                self.assertEqual((mr.length, mr.lkey, mr.rkey, len(mr.buf)), (4096, 5, 6, 4096))
                self.assertIs(ep.pd, ep.pd)
        self.assertEqual(regs, [("ep id pd", 4096, ALL, True)])
        # the MR deregistered, then the id destroyed; the id's PD is not ours to deallocate
        self.assertEqual(self.log, ["ibv_dereg_mr mr", "rdma_destroy_ep ep id"])
        self.assertTrue(mr.closed)

    def test_connect_awaited_on_a_channel_of_its_own_closed_after_the_id(self):
        async def main():
            ep = rv.Endpoint.create("192.0.2.1", 7471)
            ep.post_recv(ep.reg_msgs(64))              # before the connection
            loop = asyncio.get_running_loop()
            loop.call_later(0.05, self.event, rv.RDMA_CM_EVENT_ESTABLISHED, ep.handle)
            await ep.aconnect(timeout=5)
            ep.close()
        with mock.patch.multiple(rv.raw, rdma_reg_msgs=lambda id_, a, n: self.fakes.make("msgs", rv.ibv_mr,
                                                                                          length=n),
                                 rdma_dereg_mr=lambda h: 0, rdma_post_recv=lambda *a: 0):
            with mock.patch.object(rv.objects.endpoint.datapath, "_post_recv", lambda *a: 0):
                asyncio.run(main())
        self.assertEqual(self.log, ["rdma_migrate_id ep id to own channel", "rdma_connect ep id",
                                    "rdma_destroy_ep ep id", "rdma_destroy_event_channel own channel"])

    def test_the_blocking_connect_of_an_endpoint_create_id_is_bounded(self):
        with rv.Endpoint.create("192.0.2.1", 7471) as ep:
            with self.assertRaises(TimeoutError) as e:
                ep.connect(timeout=0.05)                # no ESTABLISHED comes
            self.assertEqual(e.exception.errno, errno.ETIMEDOUT)
            self.event(rv.RDMA_CM_EVENT_ESTABLISHED, ep.handle)
            ep.accept(timeout=1)                        # (the same wait, a passive id's)
        self.assertEqual(self.log, ["rdma_migrate_id ep id to own channel", "rdma_connect ep id", "rdma_accept ep id",
                                    "rdma_destroy_ep ep id", "rdma_destroy_event_channel own channel"])

    def test_a_rejected_connect_is_econnrefused_and_bounded(self):
        async def main():
            with rv.Endpoint.create("192.0.2.1", 7471) as ep:
                asyncio.get_running_loop().call_later(0.02, self.event, rv.RDMA_CM_EVENT_REJECTED, ep.handle)
                with self.assertRaises(rv.CMEventError) as e:
                    await ep.aconnect(timeout=5)
                self.assertEqual(e.exception.errno, errno.ECONNREFUSED)
                self.assertIn("rdma_connect: ECONNREFUSED", str(e.exception))
            with rv.Endpoint.create("192.0.2.1", 7471) as ep:
                with self.assertRaises(TimeoutError) as e:
                    await ep.aconnect(timeout=0.05)
                self.assertEqual(e.exception.errno, errno.ETIMEDOUT)
        asyncio.run(main())

    def test_a_listener_iterated_its_requests_accepted_after_their_receives(self):
        posted = []
        with mock.patch.object(rv.objects.endpoint.datapath, "_post_recv",
                               lambda h, wr_id, addr, n, mr: posted.append((self.fakes.names[h], n)) or 0):
            with rv.Endpoint.create(None, 7471, passive=True) as listener:
                os.write(self.listen_pipe[1], b"rr")
                for i, ep in zip(range(2), listener):
                    with ep:
                        self.assertEqual(ep.qp.qp_num, 0x42)        # its QP made by rdma_get_request
                        ep.post_recv(ep.reg_mr(65536))
                        self.event(rv.RDMA_CM_EVENT_ESTABLISHED, ep.handle)
                        ep.accept(timeout=5)
        self.assertEqual(posted, [("request 0", 65536), ("request 1", 65536)])
        self.assertEqual([e for e in self.log if not e.startswith("ibv_")],
                         ["rdma_listen ep id", "rdma_migrate_id request 0 to own channel", "rdma_accept request 0",
                          "rdma_destroy_ep request 0", "rdma_destroy_event_channel own channel",
                          "rdma_migrate_id request 1 to own channel", "rdma_accept request 1",
                          "rdma_destroy_ep request 1", "rdma_destroy_event_channel own channel",
                          "rdma_destroy_ep ep id"])

    def test_a_listener_iterated_in_asyncio_accepted_awaited_ended_by_its_close(self):
        async def main():
            listener = rv.Endpoint.create(None, 7471, passive=True)
            got = []

            async def serve():
                async for ep in listener:
                    asyncio.get_running_loop().call_later(0.02, self.event, rv.RDMA_CM_EVENT_ESTABLISHED,
                                                          ep.handle)
                    await ep.aaccept(timeout=5)
                    got.append(ep)
            task = asyncio.ensure_future(serve())
            await asyncio.sleep(0.05)
            os.write(self.listen_pipe[1], b"r")
            for _ in range(100):
                if got:
                    break
                await asyncio.sleep(0.01)
            listener.close()                       # the iteration ends, without an error
            await asyncio.wait_for(task, 1)
            for ep in got:
                ep.close()
            return got
        got = asyncio.run(main())
        self.assertEqual(len(got), 1)
        self.assertEqual(self.log[:4], ["rdma_listen ep id", "rdma_migrate_id request 0 to own channel",
                                        "rdma_accept request 0", "rdma_destroy_ep ep id"])
        self.assertEqual(self.log[4:], ["rdma_destroy_ep request 0", "rdma_destroy_event_channel own channel"])


class Readme(unittest.TestCase):
    def test_the_readme_opens_with_the_client_word_for_word_and_the_examples_compile(self):
        here = os.path.dirname(os.path.abspath(__file__))
        def read(*path):
            with open(os.path.join(here, "..", *path)) as f:
                return f.read()
        readme = read("README.md")
        block = re.search(r"```python\n(.*?)```", readme, re.S)
        hello = os.path.join(here, "..", "examples", "hello.py")
        server = os.path.join(here, "..", "examples", "echo_server.py")
        self.assertEqual(block.start(), readme.index("```"))
        self.assertEqual(block.group(1), read("examples", "hello.py"))
        self.assertIn(read("examples", "echo_server.py"), readme)
        with tempfile.TemporaryDirectory() as d:
            for f in (hello, server):
                py_compile.compile(f, cfile=os.path.join(d, "x.pyc"), doraise=True)


if __name__ == "__main__":
    unittest.main()
