"""The Python binding on a machine without RDMA: every function bound, the
refused inputs surfacing as OSError with their errno, raw results as C's.
(The layout is checked by `python -m rdmaverbs --layout` against the system
headers; the RC exchange runs in make e2e-host.)"""
import ctypes
import errno
import os
import unittest

import rdmaverbs as rv
from rdmaverbs import _api


class Binding(unittest.TestCase):
    def test_every_function_is_bound(self):
        self.assertEqual(len(_api.FUNCTIONS), 31)
        for lib, name, *_ in _api.FUNCTIONS:
            self.assertTrue(callable(getattr(rv, name)), name)
            self.assertTrue(callable(getattr(rv.raw, name)), name)

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
