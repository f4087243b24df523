#!/usr/bin/env python3
"""The verbs exchange of bindings/verbs-protocol.md from Python, as the
client against the C peer's server (`peer verbs server ADDR PORT`), with
the rdmaverbs package and nothing else: through the raw API only, the
RDMAVERBS_1.3 exports (ibv_post_send, ibv_post_srq_recv, ibv_poll_cq,
ibv_req_notify_cq) and the real librdmacm and libibverbs calls (an event
channel and an id, a PD, two CQs, the receive CQ's completion channel, an
SRQ, the id's QP on them, MRs).

Usage: verbs.py client ADDR PORT
"""
import ctypes as C
import select
import socket
import struct
import sys

import rdmaverbs as rv

SLOT, SLOTS = 64, 8
INITIAL, ADD = 0x1122334455667788, 0x1000000000000001
SWAP, STALE_SWAP = 0x0FEDCBA987654321, 0xDEADDEADDEADDEAD
CQ_CONTEXT = 0xC0FFEE       # the receive CQ's cq_context, as ibv_get_cq_event gives it back
WAIT_MS = 60000
SERVER_LENS = (8, 16, 24, 32, 40)
RECV = rv.IBV_WC_GRH        # a receive's flags on RoCE (rxe)


def fail(what):
    sys.exit(f"verbs client: {what}")


def check(ok, what):
    if not ok:
        fail(what)


def readable(fd, what):
    """Waits (WAIT_MS) for a channel's file descriptor to be readable."""
    p = select.poll()
    p.register(fd, select.POLLIN)
    check(p.poll(WAIT_MS), what)


def event(channel, want, id_):
    """The channel's next rdma_cm event: of the type wanted, for id_,
    status 0; read, then acknowledged (its memory is librdmacm's)."""
    readable(rv.rdma_event_channel.from_address(channel).fd, "no rdma_cm event within the wait")
    ev = C.c_void_p()
    rv.rdma_get_cm_event(channel, C.byref(ev))
    e = rv.rdma_cm_event.from_address(ev.value)
    kind, status, of = e.event, e.status, e.id
    rv.rdma_ack_cm_event(ev)
    check((kind, status, of) == (want, 0, id_),
          f"rdma_cm event {rv.rdma_event_str(kind)} status {status}; want {rv.rdma_event_str(want)}")


def completion(wc, wr_id, opcode, length, flags, imm, qp_num):
    """One completion, every field (bindings/verbs-protocol.md): what verbs
    defines, and rxe's values where it does not (0 for what RC leaves)."""
    got = (wc.wr_id, wc.status, wc.opcode, wc.byte_len, wc.wc_flags, socket.ntohl(wc.imm_data),
           wc.qp_num, wc.vendor_err, wc.src_qp, wc.pkey_index, wc.slid, wc.sl, wc.dlid_path_bits)
    want = (wr_id, rv.IBV_WC_SUCCESS, opcode, length, flags, imm, qp_num, 0, 0, 0, 0, 0, 0)
    check(got == want, f"completion {tuple(hex(v) for v in got)}; want {tuple(hex(v) for v in want)} "
          f"({rv.ibv_wc_status_str(wc.status)})")


def completions(cq, n):
    """Polls cq until n completions: a list of them."""
    out, polls = [], 0
    while len(out) < n:
        wc = (rv.ibv_wc * 8)()
        got = rv.ibv_poll_cq(cq, min(8, n - len(out)), wc)
        out += wc[:got]
        if not got:
            polls += 1
            check(polls < WAIT_MS, "too few completions within the wait")
            select.select([], [], [], 0.001)
    return out


class Side:
    """The client's objects: made on the id's context, the QP on them."""

    def __init__(self, id_):
        self.id = id_
        ctx = rv.rdma_cm_id.from_address(id_).verbs
        self.pd = rv.ibv_alloc_pd(ctx)
        self.channel = rv.ibv_create_comp_channel(ctx)
        self.scq = rv.ibv_create_cq(ctx, 16, None, None, 0)
        self.rcq = rv.ibv_create_cq(ctx, 16, CQ_CONTEXT, self.channel, 0)
        srq_attr = rv.ibv_srq_init_attr(attr=rv.ibv_srq_attr(max_wr=SLOTS, max_sge=1))
        self.srq = rv.ibv_create_srq(self.pd, C.byref(srq_attr))
        attr = rv.ibv_qp_init_attr(send_cq=self.scq, recv_cq=self.rcq, srq=self.srq,
                                   cap=rv.ibv_qp_cap(max_send_wr=8, max_send_sge=2), qp_type=rv.IBV_QPT_RC)
        rv.rdma_create_qp(id_, self.pd, C.byref(attr))
        qp = rv.ibv_qp.from_address(rv.rdma_cm_id.from_address(id_).qp)
        check((qp.send_cq, qp.recv_cq, qp.srq) == (self.scq, self.rcq, self.srq),
              "the id's QP is not on the CQs and the SRQ given")
        self.qp, self.qp_num = rv.rdma_cm_id.from_address(id_).qp, qp.qp_num
        # The buffers live as long as this object: the MRs and the posted
        # work requests point into them. atom is 8-byte aligned (c_uint64).
        self.recv, self.send = (C.c_uint8 * (SLOTS * SLOT))(), (C.c_uint8 * (5 * SLOT))()
        self.atom = (C.c_uint64 * 3)()
        self.recv_mr = self.reg(self.recv, rv.IBV_ACCESS_LOCAL_WRITE)
        self.send_mr = self.reg(self.send, 0)
        self.atom_mr = self.reg(self.atom, rv.IBV_ACCESS_LOCAL_WRITE | rv.IBV_ACCESS_REMOTE_ATOMIC |
                                rv.IBV_ACCESS_REMOTE_READ)
        # The SRQ's receives, one list: slot i, wr_id 0x100 + i.
        self.sges = (rv.ibv_sge * SLOTS)(*((C.addressof(self.recv) + SLOT * i, SLOT, self.lkey(self.recv_mr))
                                           for i in range(SLOTS)))
        self.recvs = (rv.ibv_recv_wr * SLOTS)()
        for i, r in enumerate(self.recvs):
            r.wr_id, r.sg_list, r.num_sge = 0x100 + i, C.addressof(self.sges[i]), 1
            r.next = C.addressof(self.recvs[i + 1]) if i + 1 < SLOTS else None
        bad = C.c_void_p()
        rv.ibv_post_srq_recv(self.srq, C.byref(self.recvs[0]), C.byref(bad))

    def reg(self, buf, access):
        address = C.addressof(buf)
        return rv.ibv_reg_mr_iova2(self.pd, address, C.sizeof(buf), address, access)

    @staticmethod
    def lkey(mr):
        return rv.ibv_mr.from_address(mr).lkey

    def post(self, wrs):
        """Posts a list of send work requests (a ctypes array, joined here
        by next) in one ibv_post_send; then their completions."""
        for i in range(len(wrs) - 1):
            wrs[i].next = C.addressof(wrs[i + 1])
        bad = C.c_void_p()
        rv.ibv_post_send(self.qp, C.byref(wrs[0]), C.byref(bad))
        return completions(self.scq, len(wrs))

    def next_event(self, solicited_only):
        """The receive CQ's next event on its completion channel: checked,
        acknowledged, the CQ armed again (solicited_only), then polled: the
        completions, up to 8 in one ibv_poll_cq."""
        readable(rv.ibv_comp_channel.from_address(self.channel).fd, "no completion event within the wait")
        cq, context = C.c_void_p(), C.c_void_p()
        rv.ibv_get_cq_event(self.channel, C.byref(cq), C.byref(context))
        check((cq.value, context.value) == (self.rcq, CQ_CONTEXT), "the event is not the receive CQ's")
        rv.ibv_ack_cq_events(cq, 1)
        rv.ibv_req_notify_cq(cq, solicited_only)
        wc = [rv.ibv_wc() for _ in range(8)]
        return wc[:rv.ibv_poll_cq(cq, 8, wc)]

    def teardown(self):
        """In the order the objects depend on each other (every CQ event
        acknowledged first: ibv_destroy_cq waits for it)."""
        rv.rdma_destroy_qp(self.id)
        rv.ibv_destroy_srq(self.srq)
        rv.ibv_destroy_cq(self.scq)
        rv.ibv_destroy_cq(self.rcq)
        rv.ibv_destroy_comp_channel(self.channel)
        for mr in (self.recv_mr, self.send_mr, self.atom_mr):
            rv.ibv_dereg_mr(mr)
        rv.ibv_dealloc_pd(self.pd)
        rv.rdma_destroy_id(self.id)


def main():
    if len(sys.argv) != 4 or sys.argv[1] != "client":
        sys.exit("usage: verbs.py client ADDR PORT")
    addr, port = sys.argv[2], sys.argv[3]

    # 0. Set up: an event channel and an id, the address and route
    # resolved, the objects and the QP, the SRQ's receives, the receive CQ
    # armed; connect.
    hints, res = rv.rdma_addrinfo(ai_port_space=rv.RDMA_PS_TCP), C.c_void_p()
    rv.rdma_getaddrinfo(addr.encode(), port.encode(), C.byref(hints), C.byref(res))
    channel, id_ = rv.rdma_create_event_channel(), C.c_void_p()
    rv.rdma_create_id(channel, C.byref(id_), None, rv.RDMA_PS_TCP)
    id_ = id_.value
    rv.rdma_resolve_addr(id_, None, rv.rdma_addrinfo.from_address(res.value).ai_dst_addr, 2000)
    event(channel, rv.RDMA_CM_EVENT_ADDR_RESOLVED, id_)
    rv.rdma_resolve_route(id_, 2000)
    event(channel, rv.RDMA_CM_EVENT_ROUTE_RESOLVED, id_)
    s = Side(id_)
    rv.ibv_req_notify_cq(s.rcq, 0)
    param = rv.rdma_conn_param(responder_resources=1, initiator_depth=1, retry_count=7, rnr_retry_count=7)
    rv.rdma_connect(id_, C.byref(param))
    event(channel, rv.RDMA_CM_EVENT_ESTABLISHED, id_)

    # 1. Keys, the first event; the CQ armed again for solicited completions.
    wc = s.next_event(1)
    check(len(wc) == 1, f"the keys' event: {len(wc)} completions")
    completion(wc[0], 0x100, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qp_num)
    word, rkey, _, initial = struct.unpack_from("<QIIQ", bytes(s.recv[:SLOT]))
    check(initial == INITIAL, f"the word's value {initial:#x} is not the initial one")

    # 2. Atomics, one list: fetch-and-add, compare-and-swap, a stale one.
    wrs = (rv.ibv_send_wr * 3)()
    sges = (rv.ibv_sge * 3)(*((C.addressof(s.atom) + 8 * k, 8, s.lkey(s.atom_mr)) for k in range(3)))
    for k, w in enumerate(wrs):
        w.wr_id, w.sg_list, w.num_sge, w.send_flags = 0x700 + k, C.addressof(sges[k]), 1, rv.IBV_SEND_SIGNALED
        w.opcode = rv.IBV_WR_ATOMIC_CMP_AND_SWP if k else rv.IBV_WR_ATOMIC_FETCH_AND_ADD
        w.wr.atomic.remote_addr, w.wr.atomic.rkey = word, rkey
        w.wr.atomic.compare_add = INITIAL + ADD if k else ADD
        w.wr.atomic.swap = (0, SWAP, STALE_SWAP)[k]
    wc = s.post(wrs)
    for k, opcode in enumerate((rv.IBV_WC_FETCH_ADD, rv.IBV_WC_COMP_SWAP, rv.IBV_WC_COMP_SWAP)):
        completion(wc[k], 0x700 + k, opcode, 8, 0, 0, s.qp_num)
    check(list(s.atom) == [INITIAL, INITIAL + ADD, SWAP],
          f"the atomics' old values {[hex(v) for v in s.atom]}")

    # 3. Four sends into the server's SRQ, one list, two SGEs each,
    # immediate data 0xc0de0000 + k (network order).
    for k in range(4):
        s.send[SLOT * k:SLOT * (k + 1)] = [(0xC1 + 7 * k + j) & 0xFF for j in range(SLOT)]
    wrs = (rv.ibv_send_wr * 4)()
    sges = (rv.ibv_sge * 8)()
    for k, w in enumerate(wrs):
        base = C.addressof(s.send) + SLOT * k
        sges[2 * k], sges[2 * k + 1] = (base, 16, s.lkey(s.send_mr)), (base + 16, SLOT - 16, s.lkey(s.send_mr))
        w.wr_id, w.sg_list, w.num_sge = 0x300 + k, C.addressof(sges[2 * k]), 2
        w.opcode, w.send_flags = rv.IBV_WR_SEND_WITH_IMM, rv.IBV_SEND_SIGNALED
        w.imm_data = socket.htonl(0xC0DE0000 + k)
    for k, c in enumerate(s.post(wrs)):
        completion(c, 0x300 + k, rv.IBV_WC_SEND, SLOT, rv.IBV_WC_WITH_IMM, 0, s.qp_num)

    # 4. The server's five, the event at the last (solicited): five at once.
    wc = s.next_event(0)
    check(len(wc) == 5, f"the solicited event: {len(wc)} completions in one poll, not 5")
    for k, length in enumerate(SERVER_LENS):
        completion(wc[k], 0x101 + k, rv.IBV_WC_RECV, length, RECV | rv.IBV_WC_WITH_IMM, 0x5E4D0000 + k, s.qp_num)
        got = bytes(s.recv[SLOT * (1 + k):SLOT * (1 + k) + length])
        check(got == bytes((0x51 + 7 * k + j) & 0xFF for j in range(length)), f"message {k}: its bytes differ")

    # 5. DONE, and the server's DONE with the word's last value.
    s.send[:SLOT] = list(b"DONE".ljust(SLOT, b"\0"))
    wrs = (rv.ibv_send_wr * 1)()
    sge = rv.ibv_sge(C.addressof(s.send), SLOT, s.lkey(s.send_mr))
    wrs[0].wr_id, wrs[0].sg_list, wrs[0].num_sge = 0x500, C.addressof(sge), 1
    wrs[0].opcode, wrs[0].send_flags = rv.IBV_WR_SEND, rv.IBV_SEND_SIGNALED
    completion(s.post(wrs)[0], 0x500, rv.IBV_WC_SEND, SLOT, 0, 0, s.qp_num)
    wc = s.next_event(0)
    check(len(wc) == 1, f"the DONE event: {len(wc)} completions")
    completion(wc[0], 0x106, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qp_num)
    done, final = struct.unpack_from("<4s4xQ", bytes(s.recv[6 * SLOT:7 * SLOT]))
    check((done, final) == (b"DONE", SWAP), f"no DONE with the word's value: {done!r} {final:#x}")

    # 6. Teardown.
    rv.rdma_disconnect(id_)
    event(channel, rv.RDMA_CM_EVENT_DISCONNECTED, id_)
    s.teardown()
    rv.rdma_destroy_event_channel(channel)
    rv.rdma_freeaddrinfo(res)
    print("verbs: PASS role=client completions=15 bytes=248")


if __name__ == "__main__":
    main()
