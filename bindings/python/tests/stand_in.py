"""What the object tests share (not a test module itself): the recording
provider (bindings/recorder/) loaded, a message and a QP number, churn(),
and Fakes, the C layer's creating and destroying calls replaced."""
import ctypes
import gc
import os
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
