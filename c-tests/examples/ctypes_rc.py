#!/usr/bin/env python3
"""An RC exchange over Soft-RoCE from Python, with nothing but the standard
library's ctypes, librdmacm and librdmaverbs: before librdmaverbs, the
rdma_post_* and rdma_get_*_comp functions had no symbol to call.

A server thread and a client connect; the client sends MESSAGES messages
(inline, mr = NULL), the server checks each and sends it back reversed, the
client checks the echo, waiting for it with rdma_get_recv_comp_timeout.
Every completion's wr_id is checked against the context posted. Prints "ctypes: PASS msgs=N bytes=N".

Usage: ctypes_rc.py LIBRDMAVERBS ADDR PORT
       ctypes_rc.py --layout    (the struct layouts used here, for e2e.sh
                                 to compare with the system headers)
"""
import ctypes as C
import sys
import threading

MESSAGES = 16
SIZE = 64

# From <rdma/rdma_cma.h> and <infiniband/verbs.h>; e2e.sh checks the struct
# layouts below against the headers with a C program before the guest boots.
RAI_PASSIVE = 1
RDMA_PS_TCP = 0x0106
IBV_QPT_RC = 2
IBV_SEND_INLINE = 8
IBV_WC_SUCCESS = 0
IBV_WC_RECV = 128
CONSTANTS = ["RAI_PASSIVE", "RDMA_PS_TCP", "IBV_QPT_RC", "IBV_SEND_INLINE", "IBV_WC_SUCCESS",
             "IBV_WC_RECV"]


class rdma_addrinfo(C.Structure):
    _fields_ = [("ai_flags", C.c_int), ("ai_family", C.c_int), ("ai_qp_type", C.c_int),
                ("ai_port_space", C.c_int), ("ai_src_len", C.c_uint32),
                ("ai_dst_len", C.c_uint32), ("ai_src_addr", C.c_void_p),
                ("ai_dst_addr", C.c_void_p), ("ai_src_canonname", C.c_char_p),
                ("ai_dst_canonname", C.c_char_p), ("ai_route_len", C.c_size_t),
                ("ai_route", C.c_void_p), ("ai_connect_len", C.c_size_t),
                ("ai_connect", C.c_void_p), ("ai_next", C.c_void_p)]


class ibv_qp_cap(C.Structure):
    _fields_ = [("max_send_wr", C.c_uint32), ("max_recv_wr", C.c_uint32),
                ("max_send_sge", C.c_uint32), ("max_recv_sge", C.c_uint32),
                ("max_inline_data", C.c_uint32)]


class ibv_qp_init_attr(C.Structure):
    _fields_ = [("qp_context", C.c_void_p), ("send_cq", C.c_void_p),
                ("recv_cq", C.c_void_p), ("srq", C.c_void_p), ("cap", ibv_qp_cap),
                ("qp_type", C.c_int), ("sq_sig_all", C.c_int)]


class rdma_conn_param(C.Structure):
    _fields_ = [("private_data", C.c_void_p), ("private_data_len", C.c_uint8),
                ("responder_resources", C.c_uint8), ("initiator_depth", C.c_uint8),
                ("flow_control", C.c_uint8), ("retry_count", C.c_uint8),
                ("rnr_retry_count", C.c_uint8), ("srq", C.c_uint8), ("qp_num", C.c_uint32)]


class ibv_wc(C.Structure):
    _fields_ = [("wr_id", C.c_uint64), ("status", C.c_int), ("opcode", C.c_int),
                ("vendor_err", C.c_uint32), ("byte_len", C.c_uint32),
                ("imm_data", C.c_uint32), ("qp_num", C.c_uint32), ("src_qp", C.c_uint32),
                ("wc_flags", C.c_uint), ("pkey_index", C.c_uint16), ("slid", C.c_uint16),
                ("sl", C.c_uint8), ("dlid_path_bits", C.c_uint8)]


# (C struct name, ctypes class, fields compared)
LAYOUT = [
    ("struct rdma_addrinfo", rdma_addrinfo, ["ai_flags", "ai_port_space", "ai_next"]),
    ("struct ibv_qp_init_attr", ibv_qp_init_attr, ["cap", "qp_type", "sq_sig_all"]),
    ("struct ibv_qp_cap", ibv_qp_cap, ["max_inline_data"]),
    ("struct rdma_conn_param", rdma_conn_param,
     ["responder_resources", "initiator_depth", "retry_count", "rnr_retry_count"]),
    ("struct ibv_wc", ibv_wc, ["wr_id", "status", "opcode", "byte_len"]),
]


def layout():
    """One line per struct and field: 'STRUCT sizeof N' / 'STRUCT.FIELD offset N'."""
    for cname, cls, fields in LAYOUT:
        print(f"{cname} sizeof {C.sizeof(cls)}")
        for f in fields:
            print(f"{cname}.{f} offset {getattr(cls, f).offset}")
    for name in CONSTANTS:
        print(f"{name} value {globals()[name]}")


def load(path):
    rv = C.CDLL(path, use_errno=True)
    cm = C.CDLL("librdmacm.so.1", use_errno=True)
    P, PP = C.c_void_p, C.POINTER(C.c_void_p)
    sigs = [
        (cm.rdma_getaddrinfo, C.c_int, [C.c_char_p, C.c_char_p, C.POINTER(rdma_addrinfo),
                                        C.POINTER(C.POINTER(rdma_addrinfo))]),
        (cm.rdma_freeaddrinfo, None, [C.POINTER(rdma_addrinfo)]),
        (cm.rdma_create_ep, C.c_int, [PP, C.POINTER(rdma_addrinfo), P,
                                      C.POINTER(ibv_qp_init_attr)]),
        (cm.rdma_destroy_ep, None, [P]),
        (cm.rdma_listen, C.c_int, [P, C.c_int]),
        (cm.rdma_get_request, C.c_int, [P, PP]),
        (cm.rdma_accept, C.c_int, [P, C.POINTER(rdma_conn_param)]),
        (cm.rdma_connect, C.c_int, [P, C.POINTER(rdma_conn_param)]),
        (cm.rdma_disconnect, C.c_int, [P]),
        (rv.rdma_reg_msgs, P, [P, P, C.c_size_t]),
        (rv.rdma_dereg_mr, C.c_int, [P]),
        (rv.rdma_post_recv, C.c_int, [P, P, P, C.c_size_t, P]),
        (rv.rdma_post_send, C.c_int, [P, P, P, C.c_size_t, P, C.c_int]),
        (rv.rdma_get_send_comp, C.c_int, [P, C.POINTER(ibv_wc)]),
        (rv.rdma_get_recv_comp, C.c_int, [P, C.POINTER(ibv_wc)]),
        (rv.rdma_get_recv_comp_timeout, C.c_int, [P, C.POINTER(ibv_wc), C.c_int]),
    ]
    for fn, res, args in sigs:
        fn.restype, fn.argtypes = res, args
    return rv, cm


def check(ok, what):
    if not ok:
        err = C.get_errno()
        raise RuntimeError(f"{what} failed (errno {err})")


class Side:
    """One end: its id, a registered receive buffer, and the calls."""

    def __init__(self, rv, cm, name):
        self.rv, self.cm, self.name = rv, cm, name
        self.buf = C.create_string_buffer(SIZE)
        self.id = C.c_void_p()
        self.mr = None

    def register(self):
        self.mr = self.rv.rdma_reg_msgs(self.id, self.buf, SIZE)
        check(self.mr, f"{self.name}: rdma_reg_msgs")

    def post_recv(self, ctx):
        check(self.rv.rdma_post_recv(self.id, ctx, self.buf, SIZE, self.mr) == 0,
              f"{self.name}: rdma_post_recv")

    def send(self, data, ctx):
        out = C.create_string_buffer(data, SIZE)
        check(self.rv.rdma_post_send(self.id, ctx, out, SIZE, None, IBV_SEND_INLINE) == 0,
              f"{self.name}: rdma_post_send")
        wc = ibv_wc()
        check(self.rv.rdma_get_send_comp(self.id, C.byref(wc)) == 1,
              f"{self.name}: rdma_get_send_comp")
        check(wc.status == IBV_WC_SUCCESS and wc.wr_id == ctx,
              f"{self.name}: send completion (status {wc.status}, wr_id {wc.wr_id:#x})")

    def recv(self, ctx, timeout_ms=None):
        """The next receive completion: with the blocking original, or, given
        a time-out, with the bounded wait of <rdmaverbs.h> (RDMAVERBS_1.1),
        which cannot hang if the peer goes away."""
        wc = ibv_wc()
        if timeout_ms is None:
            check(self.rv.rdma_get_recv_comp(self.id, C.byref(wc)) == 1,
                  f"{self.name}: rdma_get_recv_comp")
        else:
            check(self.rv.rdma_get_recv_comp_timeout(self.id, C.byref(wc), timeout_ms) == 1,
                  f"{self.name}: rdma_get_recv_comp_timeout")
        check(wc.status == IBV_WC_SUCCESS and wc.opcode == IBV_WC_RECV
              and wc.wr_id == ctx and wc.byte_len == SIZE,
              f"{self.name}: receive completion (status {wc.status}, wr_id {wc.wr_id:#x}, "
              f"{wc.byte_len} bytes)")
        return self.buf.raw


def message(i):
    return f"ctypes message {i:02d} over librdmaverbs".encode().ljust(SIZE, b".")


def main():
    if sys.argv[1:] == ["--layout"]:
        layout()
        return 0
    lib, addr, port = sys.argv[1:4]
    rv, cm = load(lib)
    attr = ibv_qp_init_attr(cap=ibv_qp_cap(4, 4, 1, 1, SIZE), qp_type=IBV_QPT_RC,
                            sq_sig_all=1)
    param = rdma_conn_param(responder_resources=1, initiator_depth=1, retry_count=7,
                            rnr_retry_count=7)
    listening, done = threading.Event(), threading.Event()
    errors = []

    def server():
        try:
            hints = rdma_addrinfo(ai_flags=RAI_PASSIVE, ai_port_space=RDMA_PS_TCP)
            res = C.POINTER(rdma_addrinfo)()
            check(cm.rdma_getaddrinfo(addr.encode(), port.encode(), C.byref(hints),
                                      C.byref(res)) == 0, "server: rdma_getaddrinfo")
            listen_id = C.c_void_p()
            check(cm.rdma_create_ep(C.byref(listen_id), res, None, C.byref(attr)) == 0,
                  "server: rdma_create_ep")
            check(cm.rdma_listen(listen_id, 1) == 0, "server: rdma_listen")
            listening.set()
            s = Side(rv, cm, "server")
            check(cm.rdma_get_request(listen_id, C.byref(s.id)) == 0, "server: rdma_get_request")
            s.register()
            s.post_recv(0x5000)
            check(cm.rdma_accept(s.id, C.byref(param)) == 0, "server: rdma_accept")
            for i in range(MESSAGES):
                got = s.recv(0x5000 + i)
                check(got == message(i), f"server: message {i} is {got!r}")
                s.post_recv(0x5000 + i + 1)
                s.send(got[::-1], 0x6000 + i)
            done.wait(60)   # both sides disconnect at once
            cm.rdma_disconnect(s.id)
            rv.rdma_dereg_mr(s.mr)
            cm.rdma_destroy_ep(s.id)
            cm.rdma_destroy_ep(listen_id)
            cm.rdma_freeaddrinfo(res)
        except Exception as e:  # reported by the main thread
            errors.append(e)
            listening.set()

    t = threading.Thread(target=server)
    t.start()
    listening.wait(30)
    if errors:
        raise errors[0]
    hints = rdma_addrinfo(ai_port_space=RDMA_PS_TCP)
    res = C.POINTER(rdma_addrinfo)()
    check(cm.rdma_getaddrinfo(addr.encode(), port.encode(), C.byref(hints), C.byref(res)) == 0,
          "client: rdma_getaddrinfo")
    c = Side(rv, cm, "client")
    check(cm.rdma_create_ep(C.byref(c.id), res, None, C.byref(attr)) == 0, "client: rdma_create_ep")
    c.register()
    c.post_recv(0x7000)
    check(cm.rdma_connect(c.id, C.byref(param)) == 0, "client: rdma_connect")
    for i in range(MESSAGES):
        c.send(message(i), 0x8000 + i)
        echo = c.recv(0x7000 + i, timeout_ms=30000)
        check(echo == message(i)[::-1], f"client: echo {i} is {echo!r}")
        if i + 1 < MESSAGES:
            c.post_recv(0x7000 + i + 1)
    done.set()
    cm.rdma_disconnect(c.id)
    t.join(60)
    if errors:
        raise errors[0]
    rv.rdma_dereg_mr(c.mr)
    cm.rdma_destroy_ep(c.id)
    cm.rdma_freeaddrinfo(res)
    print(f"ctypes: PASS msgs={2 * MESSAGES} bytes={2 * MESSAGES * SIZE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
