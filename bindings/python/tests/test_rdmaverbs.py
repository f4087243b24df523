"""The Python binding on a machine without RDMA: every function bound
(librdmaverbs' at their symbol version, in librdmaverbs.so.1), the refused
inputs surfacing as OSError with their errno, raw results as C's, the
vectored posts checked SGE by SGE on the recording provider
(bindings/recorder/, RDMAVERBS_RECORDER), and the RDMAVERBS_1.3 data path
there: ibv_post_send of a list of work requests (the wr union's atomic
member, imm_data, two SGEs), ibv_post_recv, ibv_post_srq_recv, ibv_poll_cq
into a list, ibv_wr_set_sge_list and ibv_advise_mr of a list of SGEs,
ibv_req_notify_cq, each failure convention; the ports in both
orders, the completion statuses. (The layout is checked by `python -m
rdmaverbs --layout` against the system headers; the RC and verbs exchanges
run in make e2e-host.)"""
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
for _name in ("recorder_qp", "recorder_srq", "recorder_cq", "recorder_qp_ex", "recorder_pd"):
    getattr(RECORDER, _name).restype = ctypes.c_void_p

def exports(path=None):
    """{name: (node, since)} of the library's exports list (the build's,
    RDMAVERBS_EXPORTS; or another, every row of the table)."""
    with open(path or os.environ["RDMAVERBS_EXPORTS"]) as f:
        rows = [line.rstrip("\n").split("\t") for line in f if not line.startswith("#")]
    return {r[0]: (r[1], r[2]) for r in rows[1:]}


class Dlinfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


LIBC = ctypes.CDLL("libc.so.6")
LIBC.dlvsym.restype = ctypes.c_void_p
LIBC.dlvsym.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
LIBC.dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(Dlinfo)]

# Three SGEs, each field distinct, the top bits of addr, length and lkey set
# in the second; and what the provider records of each.
A, B, C = (0x1000, 0x10, 0x11), (0x8000000000002000, 0x80000030, 0x80000022), (0x3000, 0x40, 0x33)
SA = " sge=0x1000:0x10:0x11"
SB = " sge=0x8000000000002000:0x80000030:0x80000022"
SC = " sge=0x3000:0x40:0x33"


class Binding(unittest.TestCase):
    def test_every_function_is_bound(self):
        for lib, name, *_ in _api.FUNCTIONS:
            self.assertTrue(callable(getattr(rv, name)), name)
            self.assertTrue(callable(getattr(rv.raw, name)), name)
        self.assertTrue(callable(rv.src_port) and callable(rv.dst_port))
        ours = {f[1]: f[7] for f in _api.FUNCTIONS if f[0] == "rdmaverbs"}
        every = exports(os.environ["RDMAVERBS_ALL_EXPORTS"])
        self.assertEqual(ours, {n: node for n, (node, _) in every.items()})  # every row, at its node
        self.assertIn("ibv_post_send", exports())
        self.assertEqual({f[0] for f in _api.FUNCTIONS}, {"rdmaverbs", "rdmacm", "ibverbs"})

    def test_ours_are_found_by_version_in_librdmaverbs(self):
        handle = rv._LIBS["rdmaverbs"]._handle
        library = os.path.realpath(rv.LIBRARY) if os.sep in rv.LIBRARY else None
        for name, (node, _) in exports().items():
            address = ctypes.cast(getattr(rv.raw, name), ctypes.c_void_p).value
            self.assertEqual(address, LIBC.dlvsym(handle, name.encode(), node.encode()), name)
            info = Dlinfo()
            self.assertNotEqual(LIBC.dladdr(address, ctypes.byref(info)), 0, name)
            self.assertEqual(info.dli_sname.decode(), name)
            self.assertIn("librdmaverbs.so", os.path.basename(info.dli_fname.decode()), name)
            if library:
                self.assertEqual(os.path.realpath(info.dli_fname.decode()), library, name)

    def test_a_function_the_build_lacks_raises_at_its_call(self):
        """A row of the table that the library's build lacks (its headers are
        older than the release that brought it) is bound all the same, and
        its call raises ENOSYS naming the function and that release."""
        built = exports()
        lacking = {n: s for n, (_, s) in exports(os.environ["RDMAVERBS_ALL_EXPORTS"]).items() if n not in built}
        for name, since in lacking.items():
            for fn in (getattr(rv, name), getattr(rv.raw, name)):
                with self.assertRaises(OSError) as e:
                    fn(None, 0)
                self.assertEqual(e.exception.errno, errno.ENOSYS)
                self.assertIn(f"{name} is not in", str(e.exception))
                self.assertIn(f"it came with rdma-core {since},", str(e.exception))
        print(f"test: {len(built)} exports bound, {len(lacking)} the build lacks raise: {sorted(lacking)}")

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

    def test_ibv_post_send_a_list_with_the_unions(self):
        """ibv_post_send (RDMAVERBS_1.3) of three work requests joined by
        next: a send with immediate data over two SGEs, a compare-and-swap
        and a fetch-and-add (the wr union's atomic member), every field
        distinct, each as the provider received it."""
        qp = RECORDER.recorder_qp()
        sges = (rv.ibv_sge * 4)(A, B, C, (0x4000, 8, 0x44))
        wrs = (rv.ibv_send_wr * 3)()
        send, cas, fadd = wrs
        send.wr_id, send.opcode, send.send_flags = 0x600, rv.IBV_WR_SEND_WITH_IMM, rv.IBV_SEND_SIGNALED
        send.imm_data, send.sg_list, send.num_sge = 0x0a0b0c0d, ctypes.addressof(sges), 2
        send.next = ctypes.addressof(cas)
        cas.wr_id, cas.opcode, cas.send_flags = 0x601, rv.IBV_WR_ATOMIC_CMP_AND_SWP, rv.IBV_SEND_FENCE
        cas.wr.atomic.remote_addr, cas.wr.atomic.rkey = 0xfedc000000003000, 0x80000066
        cas.wr.atomic.compare_add, cas.wr.atomic.swap = 0x1111222233334444, 0x5555666677778888
        cas.sg_list, cas.num_sge, cas.next = ctypes.addressof(sges[2]), 1, ctypes.addressof(fadd)
        fadd.wr_id, fadd.opcode = 0x602, rv.IBV_WR_ATOMIC_FETCH_AND_ADD
        fadd.wr.atomic.remote_addr, fadd.wr.atomic.rkey = 0xfedc000000003008, 0x77
        fadd.wr.atomic.compare_add = 0x8000000000000001
        fadd.sg_list, fadd.num_sge = ctypes.addressof(sges[3]), 1
        bad = ctypes.c_void_p()
        self.assertEqual(rv.ibv_post_send(qp, ctypes.byref(send), ctypes.byref(bad)), 0)
        self.assertEqual(RECORDER.recorder_last().decode(),
                         "send_imm wr_id=0x600 flags=0x2 imm=0xa0b0c0d" + SA + SB +
                         " | cas wr_id=0x601 flags=0x1 remote=0xfedc000000003000 rkey=0x80000066"
                         " compare=0x1111222233334444 swap=0x5555666677778888" + SC +
                         " | fadd wr_id=0x602 flags=0x0 remote=0xfedc000000003008 rkey=0x77"
                         " add=0x8000000000000001 sge=0x4000:0x8:0x44")
        self.assertIsNone(bad.value)
        self.assertEqual(RECORDER.recorder_posts(), 1)
        # the rdma member shares the union's first bytes; its rkey is not atomic's
        self.assertEqual(cas.wr.rdma.remote_addr, 0xfedc000000003000)
        self.assertEqual(cas.wr.rdma.rkey, 0x33334444)

    def test_ibv_post_send_failures(self):
        """An errno value returned (the provider's), *bad_wr set; a NULL QP
        or list refused with EINVAL; nothing posted."""
        qp = RECORDER.recorder_qp()
        wr, bad = rv.ibv_send_wr(wr_id=0x610, opcode=rv.IBV_WR_SEND), ctypes.c_void_p()
        RECORDER.recorder_fail(errno.ENOMEM)
        with self.assertRaises(OSError) as e:
            rv.ibv_post_send(qp, ctypes.byref(wr), ctypes.byref(bad))
        self.assertEqual(e.exception.errno, errno.ENOMEM)
        self.assertEqual(bad.value, ctypes.addressof(wr))
        ctypes.set_errno(0)
        self.assertEqual(rv.raw.ibv_post_send(qp, None, None), errno.EINVAL)
        self.assertEqual(ctypes.get_errno(), 0)     # an errno value, errno left alone
        for call in (lambda: rv.ibv_post_send(None, ctypes.byref(wr), None),
                     lambda: rv.ibv_post_send(qp, None, ctypes.byref(bad))):
            with self.assertRaises(OSError) as e:
                call()
            self.assertEqual(e.exception.errno, errno.EINVAL)
        self.assertEqual(RECORDER.recorder_posts(), 0)

    def test_ibv_post_recv_and_srq_recv(self):
        recvs = (rv.ibv_recv_wr * 2)((0x620, None, None, 0), (0x621, None, None, 0))
        sges = (rv.ibv_sge * 3)(A, B, C)
        recvs[0].next, recvs[0].sg_list, recvs[0].num_sge = ctypes.addressof(recvs[1]), ctypes.addressof(sges), 1
        recvs[1].sg_list, recvs[1].num_sge = ctypes.addressof(sges[1]), 2
        bad = ctypes.c_void_p()
        self.assertEqual(rv.ibv_post_srq_recv(RECORDER.recorder_srq(), recvs, ctypes.byref(bad)), 0)
        self.assertEqual(RECORDER.recorder_last().decode(),
                         "srq_recv wr_id=0x620" + SA + " | srq_recv wr_id=0x621" + SB + SC)
        self.assertEqual(rv.ibv_post_recv(RECORDER.recorder_qp(), ctypes.byref(recvs[1]), None), 0)
        self.assertEqual(RECORDER.recorder_last().decode(), "recv wr_id=0x621" + SB + SC)

    def check_completions(self, wc):
        """The recording provider's three completions, every field; the
        fourth element untouched."""
        want = [(0x5000, rv.IBV_WC_SUCCESS, rv.IBV_WC_RECV, rv.IBV_WC_WITH_IMM),
                (0x5001, rv.IBV_WC_SUCCESS, rv.IBV_WC_COMP_SWAP, 0),
                (0x5002, rv.IBV_WC_REM_ACCESS_ERR, rv.IBV_WC_FETCH_ADD, 0)]
        for i, (wr_id, status, opcode, flags) in enumerate(want):
            self.assertEqual([getattr(wc[i], f) for f, _ in rv.ibv_wc._fields_],
                             [wr_id, status, opcode, 0x100 + i, 0x40 + i, 0xa0b0c0d0 + i, 0x1100 + i,
                              0x2200 + i, flags, 0x30 + i, 0x4400 + i, 1 + i, 0x50 + i], i)
        self.assertEqual((wc[3].wr_id, wc[3].status, wc[3].byte_len), (0xdead, 0, 0))

    def test_ibv_poll_cq_fills_a_list(self):
        cq = RECORDER.recorder_cq()
        wc = [rv.ibv_wc(wr_id=0xdead) for _ in range(4)]
        self.assertEqual(rv.ibv_poll_cq(cq, 4, wc), 3)
        self.check_completions(wc)
        array = (rv.ibv_wc * 4)(*(rv.ibv_wc(wr_id=0xdead) for _ in range(4)))
        self.assertEqual(rv.ibv_poll_cq(cq, 4, array), 3)
        self.check_completions(array)
        self.assertEqual(rv.ibv_poll_cq(cq, 1, wc[3:]), 1)
        self.assertEqual(wc[3].wr_id, 0x5000)
        with self.assertRaisesRegex(ValueError, r"ibv_poll_cq: the count \(5\) is more than the array's 4"):
            rv.ibv_poll_cq(cq, 5, wc)
        # A list C writes into must hold the structs (what C wrote is copied
        # back into them): tuples refused before the poll, which would
        # otherwise reap completions nobody gets.
        with self.assertRaisesRegex(TypeError, "ibv_poll_cq: element 1 is a tuple"):
            rv.ibv_poll_cq(cq, 2, [rv.ibv_wc(), (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)])
        self.assertEqual(RECORDER.recorder_posts(), 3)
        self.assertEqual(rv.ibv_poll_cq(cq, 1, wc), 1)
        self.assertEqual(RECORDER.recorder_posts(), 4)
        RECORDER.recorder_fail(errno.EIO)       # -1, errno EIO
        with self.assertRaises(OSError) as e:
            rv.ibv_poll_cq(cq, 4, wc)
        self.assertEqual(e.exception.errno, errno.EIO)

    def test_sge_lists_of_the_extended_qp_and_advise_mr(self):
        """ibv_wr_set_sge_list (the extended QP's) and ibv_advise_mr (the
        PD's context's), RDMAVERBS_1.3, with an ordinary list of SGEs (or
        of tuples), every SGE as the provider received it; a count larger
        than the list refused before C; advise_mr's errno value raised."""
        qpx, pd = RECORDER.recorder_qp_ex(), RECORDER.recorder_pd()
        sge = [rv.ibv_sge(*A), rv.ibv_sge(*B), rv.ibv_sge(*C)]
        self.assertIsNone(rv.ibv_wr_set_sge_list(qpx, 3, sge))
        self.assertEqual(RECORDER.recorder_last().decode(), "sge_list" + SA + SB + SC)
        self.assertIsNone(rv.ibv_wr_set_sge_list(qpx, 2, [C, A]))
        self.assertEqual(RECORDER.recorder_last().decode(), "sge_list" + SC + SA)
        # advice IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE (1), flags IBV_ADVISE_MR_FLAG_FLUSH (1)
        self.assertEqual(rv.ibv_advise_mr(pd, 1, 1, sge[1:], 2), 0)
        self.assertEqual(RECORDER.recorder_last().decode(), "advise advice=0x1 flags=0x1" + SB + SC)
        self.assertEqual(rv.ibv_advise_mr(pd, 2, 0, (A, B, C), 3), 0)
        self.assertEqual(RECORDER.recorder_last().decode(), "advise advice=0x2 flags=0x0" + SA + SB + SC)
        self.assertEqual(RECORDER.recorder_posts(), 4)
        with self.assertRaisesRegex(ValueError, r"ibv_wr_set_sge_list: the count \(4\) is more than the array's 3"):
            rv.ibv_wr_set_sge_list(qpx, 4, sge)
        with self.assertRaisesRegex(ValueError, r"ibv_advise_mr: the count \(3\) is more than the array's 2"):
            rv.ibv_advise_mr(pd, 1, 1, sge[:2], 3)
        self.assertEqual(RECORDER.recorder_posts(), 4)
        RECORDER.recorder_fail(errno.EOPNOTSUPP)
        with self.assertRaises(OSError) as e:
            rv.ibv_advise_mr(pd, 1, 1, sge, 3)
        self.assertEqual(e.exception.errno, errno.EOPNOTSUPP)
        self.assertEqual(RECORDER.recorder_posts(), 4)

    def test_ibv_req_notify_cq(self):
        cq = RECORDER.recorder_cq()
        self.assertEqual(rv.ibv_req_notify_cq(cq, 1), 0)
        self.assertEqual(RECORDER.recorder_last().decode(), "notify solicited_only=1")
        self.assertEqual(rv.ibv_req_notify_cq(cq, 0), 0)
        self.assertEqual(RECORDER.recorder_last().decode(), "notify solicited_only=0")
        with self.assertRaises(OSError) as e:
            rv.ibv_req_notify_cq(None, 0)
        self.assertEqual(e.exception.errno, errno.EINVAL)

    def test_values_and_cannot_fail(self):
        self.assertEqual(rv.ibv_inc_rkey(0x123456ff), 0x12345600)
        self.assertEqual(rv.ibv_inc_rkey(0x12345678), 0x12345679)
        self.assertEqual(rv.ibv_is_qpt_supported(1 << rv.IBV_QPT_UD, rv.IBV_QPT_UD), 1)
        self.assertEqual(rv.ibv_is_qpt_supported(1 << rv.IBV_QPT_UD, rv.IBV_QPT_RC), 0)
        self.assertEqual(rv.rdma_event_str(rv.RDMA_CM_EVENT_ESTABLISHED), "RDMA_CM_EVENT_ESTABLISHED")

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
