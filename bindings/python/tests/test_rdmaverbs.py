"""The Python binding on a machine without RDMA: every function bound, the
refused inputs surfacing as OSError with their errno, raw results as C's,
the vectored posts checked SGE by SGE on the recording provider
(bindings/recorder.c, RDMAVERBS_RECORDER), the ports in both orders, the
completion statuses. (The layout is checked by `python -m rdmaverbs
--layout` against the system headers; the RC exchange runs in make
e2e-host.)"""
import ctypes
import errno
import os
import unittest

import rdmaverbs as rv
from rdmaverbs import _api

# The recording provider: a fake id whose QP records each work request.
RECORDER = ctypes.CDLL(os.environ["RDMAVERBS_RECORDER"])
RECORDER.recorder_id.restype = ctypes.c_void_p
RECORDER.recorder_last.restype = ctypes.c_char_p

# Three SGEs, each field distinct, the top bits of addr, length and lkey set
# in the second; and what the provider records of each.
A, B, C = (0x1000, 0x10, 0x11), (0x8000000000002000, 0x80000030, 0x80000022), (0x3000, 0x40, 0x33)
SA = " sge=0x1000:0x10:0x11"
SB = " sge=0x8000000000002000:0x80000030:0x80000022"
SC = " sge=0x3000:0x40:0x33"


class Binding(unittest.TestCase):
    def test_every_function_is_bound(self):
        self.assertEqual(len(_api.FUNCTIONS), 32)
        for lib, name, *_ in _api.FUNCTIONS:
            self.assertTrue(callable(getattr(rv, name)), name)
            self.assertTrue(callable(getattr(rv.raw, name)), name)
        self.assertTrue(callable(rv.src_port) and callable(rv.dst_port))

    def post(self, fn, *args):
        """fn(id, *args) to the recording provider: what it recorded."""
        self.assertEqual(fn(self.id, *args), 0)
        return RECORDER.recorder_last().decode()

    def setUp(self):
        self.id = RECORDER.recorder_id()

    def test_vectored_posts_take_a_list(self):
        sge = [rv.ibv_sge(*A), rv.ibv_sge(*B), rv.ibv_sge(*C)]
        self.assertEqual(self.post(rv.rdma_post_sendv, 0x300, sge, 3, rv.IBV_SEND_SIGNALED),
                         "send wr_id=0x300 flags=0x2" + SA + SB + SC)
        self.assertEqual(self.post(rv.rdma_post_recvv, 0x301, sge, 2),
                         "recv wr_id=0x301" + SA + SB)
        self.assertEqual(self.post(rv.rdma_post_readv, 0x302, sge[1:], 2, 0, 0xfedc000000001000,
                                   0x80000044),
                         "read wr_id=0x302 flags=0x0 remote=0xfedc000000001000 rkey=0x80000044" + SB + SC)
        self.assertEqual(self.post(rv.rdma_post_writev, 0x303, sge, 3,
                                   rv.IBV_SEND_SIGNALED | rv.IBV_SEND_FENCE, 0xfedc000000002000, 0x55),
                         "write wr_id=0x303 flags=0x3 remote=0xfedc000000002000 rkey=0x55" + SA + SB + SC)
        self.assertEqual(RECORDER.recorder_posts(), 4)

    def test_vectored_posts_take_tuples_and_ctypes_arrays(self):
        self.assertEqual(self.post(rv.rdma_post_sendv, 0x310, (A, B, C), 3, 0),
                         "send wr_id=0x310 flags=0x0" + SA + SB + SC)
        self.assertEqual(self.post(rv.rdma_post_sendv, 0x311, [C, rv.ibv_sge(*A)], 2, 0),
                         "send wr_id=0x311 flags=0x0" + SC + SA)
        self.assertEqual(self.post(rv.rdma_post_recvv, 0x312, (rv.ibv_sge * 3)(A, B, C), 3),
                         "recv wr_id=0x312" + SA + SB + SC)

    def test_vectored_posts_refuse_more_than_the_list(self):
        with self.assertRaisesRegex(ValueError, r"rdma_post_sendv: the count \(4\) is more than the array's 3"):
            rv.rdma_post_sendv(self.id, 0x320, [A, B, C], 4, 0)
        with self.assertRaises(ValueError):
            rv.rdma_post_recvv(self.id, 0x321, (rv.ibv_sge * 1)(A), 2)
        with self.assertRaisesRegex(TypeError, "rdmaverbs.raw"):
            rv.rdma_post_sendv(self.id, 0x322, ctypes.pointer(rv.ibv_sge(*A)), 1, 0)
        self.assertEqual(RECORDER.recorder_posts(), 0)

    def test_ports(self):
        self.assertEqual((rv.src_port(self.id), rv.dst_port(self.id)), (18577, 50000))
        # x86-64: the network-order value as a little-endian integer
        self.assertEqual((rv.rdma_get_src_port(self.id), rv.rdma_get_dst_port(self.id)), (0x9148, 0x50c3))

    def test_completion_statuses(self):
        statuses = [n for n in _api.CONSTANTS if n.startswith("IBV_WC_") and n.endswith(("_ERR", "SUCCESS",
                                                                                            "INCOMPLETE"))]
        self.assertEqual(len(statuses), 24)
        self.assertEqual(rv.IBV_WC_TM_RNDV_INCOMPLETE, 23)
        self.assertEqual(rv.ibv_wc_status_str(rv.IBV_WC_SUCCESS), "success")
        self.assertEqual(rv.ibv_wc_status_str(rv.IBV_WC_LOC_PROT_ERR), "local protection error")
        self.assertEqual(rv.ibv_wc_status_str(1000), "unknown")

    def test_null_id_is_einval(self):
        wc = rv.ibv_wc()
        for call in (
            lambda: rv.rdma_post_send(None, None, None, 0, None, 0),
            lambda: rv.rdma_post_recvv(None, None, None, 0),
            lambda: rv.rdma_get_send_comp_timeout(None, ctypes.byref(wc), 0),
            lambda: rv.rdma_get_local_addr(None),
            lambda: rv.rdma_get_peer_addr(None),
            lambda: rv.rdma_reg_msgs(None, None, 0),
        ):
            with self.assertRaises(OSError) as e:
                call()
            self.assertEqual(e.exception.errno, errno.EINVAL)

    def test_seterrno(self):
        self.assertEqual(rv.rdma_seterrno(0), 0)
        with self.assertRaises(OSError) as e:
            rv.rdma_seterrno(errno.EIO)
        self.assertEqual(e.exception.errno, errno.EIO)
        with self.assertRaises(TimeoutError):
            rv.rdma_seterrno(errno.ETIMEDOUT)

    def test_raw_is_c(self):
        ctypes.set_errno(0)
        self.assertEqual(rv.raw.rdma_post_send(None, None, None, 0, None, 0), -1)
        self.assertEqual(ctypes.get_errno(), errno.EINVAL)
        self.assertIsNone(rv.raw.rdma_get_local_addr(None))

    def test_structs(self):
        sge = (rv.ibv_sge * 2)((1, 2, 3), (4, 5, 6))
        self.assertEqual((sge[1].addr, sge[1].length, sge[1].lkey), (4, 5, 6))
        self.assertEqual(ctypes.sizeof(rv.ibv_wc), 48)

    @unittest.skipUnless(os.environ.get("RDMAVERBS_LIBRARY"), "RDMAVERBS_LIBRARY is not set")
    def test_rdmaverbs_library_is_the_copy_mapped(self):
        real = os.path.realpath(os.environ["RDMAVERBS_LIBRARY"])
        with open("/proc/self/maps") as maps:
            self.assertIn(real, maps.read())


if __name__ == "__main__":
    unittest.main()
