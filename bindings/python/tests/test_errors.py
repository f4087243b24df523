"""Every error says what to do: the errno's number and name, the C function
that failed, and for a closed object the word closed; a missing library
names the library, where it was looked for, and what provides it."""
import ctypes
import errno
import os
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import rdmaverbs as rv
from stand_in import RECORDER, Fakes


class Messages(unittest.TestCase):
    def setUp(self):
        self.fakes = Fakes(self)
        self.fakes.patch(self)

    def says(self, e, number, name, fn, *more):
        self.assertEqual(e.errno, number)
        text = str(e)
        for part in (f"[Errno {number}]", name, fn) + more:
            self.assertIn(part, text)

    def test_a_raw_function(self):
        with self.assertRaises(OSError) as e:
            rv.ibv_req_notify_cq(None, 0)
        self.says(e.exception, errno.EINVAL, "EINVAL", "ibv_req_notify_cq: ")

    def test_a_failed_call_of_the_objects(self):
        with mock.patch.object(rv.raw, "ibv_alloc_pd", lambda ctx: (ctypes.set_errno(errno.ENOMEM), None)[1]):
            with rv.Endpoint.wrap(self.fakes.recorder_id) as ep:
                with self.assertRaises(OSError) as e:
                    ep.alloc_pd()
        self.says(e.exception, errno.ENOMEM, "ENOMEM (Cannot allocate memory)", "ibv_alloc_pd: ")

    def test_a_completion_in_error(self):
        def error_completion(id_, wc, ms):
            wc.wr_id, wc.status = 0x42, rv.IBV_WC_REM_ACCESS_ERR
            return 1
        with mock.patch.object(rv.raw, "rdma_get_recv_comp_timeout", error_completion):
            with self.assertRaises(rv.CompletionError) as e:
                rv.Endpoint.wrap(self.fakes.recorder_id).get_recv_comp(1)
        self.says(e.exception, errno.EIO, "EIO", "rdma_get_recv_comp: ", "wr_id 0x42", "remote access error")

    def test_a_refused_post(self):
        RECORDER.recorder_loopback()
        qp = rv.QP.wrap(RECORDER.recorder_qp())
        RECORDER.recorder_fail(errno.ENOMEM)
        with self.assertRaises(rv.PostError) as e:
            qp.post_send([rv.SendWR(1), rv.SendWR(2)])
        self.says(e.exception, errno.ENOMEM, "ENOMEM", "ibv_post_send: ", "work request 0 and after not posted")

    def test_a_time_limit(self):
        ch = rv.Endpoint.wrap(self.fakes.recorder_id).create_comp_channel()
        with mock.patch.object(rv.raw, "ibv_get_cq_event",
                               lambda c, cq, ctx: (ctypes.set_errno(errno.EAGAIN), -1)[1]):
            with self.assertRaises(TimeoutError) as e:
                ch.get_cq_event(timeout=0.01)
        self.says(e.exception, errno.ETIMEDOUT, "ETIMEDOUT", "ibv_get_cq_event: ", "within the time limit")
        ch.close()

    def test_a_closed_object(self):
        ep = rv.Endpoint.wrap(self.fakes.recorder_id)
        cq = ep.create_cq(4)
        ep.close()
        for call, fn in ((lambda: cq.poll(), "ibv_poll_cq"), (lambda: cq.req_notify(), "ibv_req_notify_cq"),
                         (lambda: ep.get_recv_comp(1), "rdma_get_recv_comp_timeout"),
                         (lambda: ep.disconnect(), "rdma_disconnect"),
                         (lambda: ep.post_recv(None), "rdma_post_recv"),
                         (lambda: ep.post_send(b"x", flags=rv.IBV_SEND_INLINE), "rdma_post_send")):
            with self.assertRaises(ValueError) as e:
                call()
            self.assertRegex(str(e.exception), f"^{fn}: .* is closed$")


class MissingLibrary(unittest.TestCase):
    def load(self, **env):
        """An interpreter importing the package with env: its stderr's last line."""
        env = {**os.environ, **env}
        for k in [k for k, v in env.items() if v is None]:
            del env[k]
        here = os.path.dirname(os.path.dirname(os.path.abspath(rv.__file__)))
        r = subprocess.run([sys.executable, "-c", "import rdmaverbs"], capture_output=True, text=True,
                           timeout=60, env={**env, "PYTHONPATH": here})
        self.assertNotEqual(r.returncode, 0)
        return r.stderr.strip().splitlines()[-1]

    def test_rdmaverbs_library_names_a_missing_file(self):
        line = self.load(RDMAVERBS_LIBRARY="/nonexistent/librdmaverbs.so.1")
        for part in ("FileNotFoundError: [Errno 2] rdmaverbs: cannot load /nonexistent/librdmaverbs.so.1",
                     "the path RDMAVERBS_LIBRARY names", "cannot open shared object file", "librdmaverbs1"):
            self.assertIn(part, line)

    def test_the_loader_finds_none(self):
        with tempfile.TemporaryDirectory() as empty:
            probe = subprocess.run([sys.executable, "-c", "import ctypes; ctypes.CDLL('librdmaverbs.so.1')"],
                                   capture_output=True, env={"LD_LIBRARY_PATH": empty, "PATH": os.environ["PATH"]})
            if probe.returncode == 0:
                self.skipTest("librdmaverbs.so.1 is installed: the loader finds it")
            line = self.load(RDMAVERBS_LIBRARY=None, LD_LIBRARY_PATH=empty)
        for part in ("rdmaverbs: cannot load librdmaverbs.so.1", f"LD_LIBRARY_PATH ({empty})", "/etc/ld.so.cache",
                     "install the package librdmaverbs1", "RDMAVERBS_LIBRARY"):
            self.assertIn(part, line)


if __name__ == "__main__":
    unittest.main()
