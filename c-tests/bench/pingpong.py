#!/usr/bin/env python3
"""make bench, Soft-RoCE: a Python RC ping-pong of 64-byte messages, as
c-tests/e2e/rdma/pingpong.c's latency part (an inline rdma_post_send answered
by the peer; the send's and the reply's completions through the blocking
rdma_get_send_comp / rdma_get_recv_comp; each receive posted again), in
four ways, both sides the same way:

    raw       rdmaverbs' functions under their C names (as examples/rc.py)
    objects   rdmaverbs' object API (Endpoint, MR; waits without a limit)
    async     rdmaverbs' async API (aget_send_comp, aget_recv_comp in asyncio)
    pyverbs   rdma-core's pyverbs (Debian's python3-pyverbs): CMID, MR
    rate      not a ping-pong: c-tests/bench/msgrate.c's message rate, in
              the raw functions (ROUNDTRIPS: the messages)

Usage: pingpong.py WAY server|client ADDR PORT ROUNDTRIPS
The server echoes ROUNDTRIPS + WARMUP messages (printing "pingpong:
listening" first; ROUNDTRIPS 0: one message, for the README's client,
python-guest.sh); the client times the last ROUNDTRIPS round trips and
prints "pingpong: way=WAY latency_us=L". Each message's first bytes are
checked on the client's side.
"""
import asyncio
import ctypes as C
import sys
import time

SIZE, DEPTH, WARMUP = 64, 16, 100
RATE_WINDOW, RATE_BATCH = 32, 16   # msgrate.c's


def fail(what):
    sys.exit(f"pingpong: {what}")


class RawSide:
    """The raw functions' side of a run: its id connected (rdma_create_ep;
    the server's through rdma_listen and rdma_get_request), with send
    queues of `sends`, and `recvs` receives of SIZE posted into `slots`
    slots of one registered buffer (receive i into slot i % slots)."""

    def __init__(self, server, addr, port, sends, recvs, slots):
        import rdmaverbs as rv
        self.rv, self.server = rv, server
        hints = rv.rdma_addrinfo(ai_port_space=rv.RDMA_PS_TCP, ai_flags=rv.RAI_PASSIVE if server else 0)
        self.res = C.c_void_p()
        rv.rdma_getaddrinfo(addr.encode(), port.encode(), C.byref(hints), C.byref(self.res))
        attr = rv.ibv_qp_init_attr(cap=rv.ibv_qp_cap(sends, recvs, 1, 1, SIZE), qp_type=rv.IBV_QPT_RC, sq_sig_all=1)
        self.listen, self.id = C.c_void_p(), C.c_void_p()
        if server:
            rv.rdma_create_ep(C.byref(self.listen), self.res, None, C.byref(attr))
            rv.rdma_listen(self.listen, 1)
            print("pingpong: listening", flush=True)
            rv.rdma_get_request(self.listen, C.byref(self.id))
        else:
            rv.rdma_create_ep(C.byref(self.id), self.res, None, C.byref(attr))
        self.buf = C.create_string_buffer(slots * SIZE)
        self.mr = rv.rdma_reg_msgs(self.id, self.buf, slots * SIZE)
        self.base = C.addressof(self.buf)
        for i in range(recvs):
            self.repost(i % slots)
        param = rv.rdma_conn_param(responder_resources=1, initiator_depth=1, retry_count=7, rnr_retry_count=7)
        (rv.rdma_accept if server else rv.rdma_connect)(self.id, C.byref(param))

    def repost(self, slot):
        self.rv.rdma_post_recv(self.id, None, self.base + SIZE * slot, SIZE, self.mr)

    def close(self):
        rv = self.rv
        rv.rdma_dereg_mr(self.mr)
        rv.rdma_destroy_ep(self.id)
        if self.server:
            rv.rdma_destroy_ep(self.listen)
        rv.rdma_freeaddrinfo(self.res)


def raw(role, addr, port, n):
    server = role == "server"
    side = RawSide(server, addr, port, DEPTH, DEPTH, DEPTH)
    rv, id_, buf = side.rv, side.id, side.buf
    msg = (b"pong" if server else b"ping").ljust(SIZE, b"\0")
    wc = rv.ibv_wc()
    t0 = 0.0
    for i in range(n + WARMUP if n else 1):
        if i == WARMUP:
            t0 = time.monotonic()
        if server:
            rv.rdma_get_recv_comp(id_, C.byref(wc))
            side.repost(i % DEPTH)
            rv.rdma_post_send(id_, None, msg, SIZE, None, rv.IBV_SEND_INLINE)
            rv.rdma_get_send_comp(id_, C.byref(wc))
        else:
            rv.rdma_post_send(id_, None, msg, SIZE, None, rv.IBV_SEND_INLINE)
            rv.rdma_get_send_comp(id_, C.byref(wc))
            rv.rdma_get_recv_comp(id_, C.byref(wc))
            if wc.status or buf.raw[SIZE * (i % DEPTH):SIZE * (i % DEPTH) + 4] != b"pong":
                fail(f"round trip {i}: status {wc.status}")
            side.repost(i % DEPTH)
    elapsed = time.monotonic() - t0
    side.close()
    return elapsed


def objects(role, addr, port, n):
    import rdmaverbs as rv
    server = role == "server"
    caps = dict(max_send_wr=DEPTH, max_recv_wr=DEPTH, max_inline_data=SIZE)
    with rv.Endpoint.create(addr, port, passive=server, **caps) as first:
        if server:
            first.listen(1)
            print("pingpong: listening", flush=True)
        with (first.get_request() if server else first) as ep:
            mr = ep.reg_msgs(DEPTH * SIZE)
            for i in range(DEPTH):
                ep.post_recv(mr, SIZE * i, SIZE)
            (ep.accept if server else ep.connect)()
            msg = (b"pong" if server else b"ping").ljust(SIZE, b"\0")
            t0 = 0.0
            for i in range(n + WARMUP if n else 1):
                if i == WARMUP:
                    t0 = time.monotonic()
                if server:
                    ep.get_recv_comp()
                    ep.post_recv(mr, SIZE * (i % DEPTH), SIZE)
                    ep.post_send(msg, flags=rv.IBV_SEND_INLINE)
                    ep.get_send_comp()
                else:
                    ep.post_send(msg, flags=rv.IBV_SEND_INLINE)
                    ep.get_send_comp()
                    ep.get_recv_comp()
                    if mr.buf[SIZE * (i % DEPTH):SIZE * (i % DEPTH) + 4] != b"pong":
                        fail(f"round trip {i}: no pong")
                    ep.post_recv(mr, SIZE * (i % DEPTH), SIZE)
            return time.monotonic() - t0


def async_(role, addr, port, n):
    import rdmaverbs as rv
    server = role == "server"
    caps = dict(max_send_wr=DEPTH, max_recv_wr=DEPTH, max_inline_data=SIZE)

    async def run(ep):
        mr = ep.reg_msgs(DEPTH * SIZE)
        for i in range(DEPTH):
            ep.post_recv(mr, SIZE * i, SIZE)
        (ep.accept if server else ep.connect)()
        msg = (b"pong" if server else b"ping").ljust(SIZE, b"\0")
        t0 = 0.0
        for i in range(n + WARMUP if n else 1):
            if i == WARMUP:
                t0 = time.monotonic()
            if server:
                await ep.aget_recv_comp()
                ep.post_recv(mr, SIZE * (i % DEPTH), SIZE)
                ep.post_send(msg, flags=rv.IBV_SEND_INLINE)
                await ep.aget_send_comp()
            else:
                ep.post_send(msg, flags=rv.IBV_SEND_INLINE)
                await ep.aget_send_comp()
                await ep.aget_recv_comp()
                if mr.buf[SIZE * (i % DEPTH):SIZE * (i % DEPTH) + 4] != b"pong":
                    fail(f"round trip {i}: no pong")
                ep.post_recv(mr, SIZE * (i % DEPTH), SIZE)
        return time.monotonic() - t0

    with rv.Endpoint.create(addr, port, passive=server, **caps) as first:
        if server:
            first.listen(1)
            print("pingpong: listening", flush=True)
        with (first.get_request() if server else first) as ep:
            return asyncio.run(run(ep))


def pyverbs(role, addr, port, n):
    import pyverbs.cm_enums as ce
    import pyverbs.enums as e
    from pyverbs.cmid import CMID, AddrInfo
    from pyverbs.qp import QPCap, QPInitAttr
    server = role == "server"
    attr = QPInitAttr(qp_type=e.IBV_QPT_RC, cap=QPCap(max_send_wr=DEPTH, max_recv_wr=DEPTH, max_inline_data=SIZE),
                      sq_sig_all=1)
    if server:
        ai = AddrInfo(src=addr, src_service=port, port_space=ce.RDMA_PS_TCP, flags=ce.RAI_PASSIVE)
        listen = CMID(creator=ai, qp_init_attr=attr)
        listen.listen(1)
        print("pingpong: listening", flush=True)
        cmid = listen.get_request()
    else:
        ai = AddrInfo(dst=addr, dst_service=port, port_space=ce.RDMA_PS_TCP)
        cmid = CMID(creator=ai, qp_init_attr=attr)
    # pyverbs posts a receive at the start of an MR: one MR per slot
    mrs = [cmid.reg_msgs(SIZE) for _ in range(DEPTH)]
    send = cmid.reg_msgs(SIZE)
    send.write((b"pong" if server else b"ping").ljust(SIZE, b"\0"), SIZE)
    for mr in mrs:
        cmid.post_recv(mr, SIZE)
    (cmid.accept if server else cmid.connect)()
    t0 = 0.0
    for i in range(n + WARMUP if n else 1):
        if i == WARMUP:
            t0 = time.monotonic()
        if server:
            cmid.get_recv_comp()
            cmid.post_recv(mrs[i % DEPTH], SIZE)
            cmid.post_send(send, e.IBV_SEND_INLINE, SIZE)
            cmid.get_send_comp()
        else:
            cmid.post_send(send, e.IBV_SEND_INLINE, SIZE)
            cmid.get_send_comp()
            wc = cmid.get_recv_comp()
            if wc.status or mrs[i % DEPTH].read(4, 0) != b"pong":
                fail(f"round trip {i}: status {wc.status}")
            cmid.post_recv(mrs[i % DEPTH], SIZE)
    elapsed = time.monotonic() - t0
    for mr in mrs + [send]:
        mr.close()
    cmid.close()
    if server:
        listen.close()
    return elapsed


def rate(role, addr, port, n):
    """c-tests/bench/msgrate.c's exchange, in the raw functions: the
    server's n receives posted first, taken RATE_BATCH at a time
    (ibv_poll_cq, busy), then one message back; the client's n inline
    sends, RATE_WINDOW in flight, their completions taken RATE_BATCH at a
    time. Returns the time from the first post to that message."""
    server = role == "server"
    side = RawSide(server, addr, port, RATE_WINDOW, n if server else 1, 1)
    rv, id_ = side.rv, side.id
    cm_id = rv.rdma_cm_id.from_address(id_.value)
    scq, rcq = cm_id.send_cq, cm_id.recv_cq
    wcs = (rv.ibv_wc * RATE_BATCH)()
    msg = b"rate".ljust(SIZE, b"\0")
    poll, post_send, inline = rv.ibv_poll_cq, rv.rdma_post_send, rv.IBV_SEND_INLINE

    def take(cq, most):
        got = 0
        while not got:
            got = poll(cq, most, wcs)
        for k in range(got):
            if wcs[k].status:
                fail(f"completion status {wcs[k].status}")
        return got

    t0 = time.monotonic()
    if server:
        done = 0
        while done < n:
            done += take(rcq, RATE_BATCH)
        post_send(id_, None, msg, SIZE, None, inline)
        take(scq, 1)
    else:
        inflight = 0
        for _ in range(n):
            if inflight == RATE_WINDOW:
                inflight -= take(scq, RATE_BATCH)
            post_send(id_, None, msg, SIZE, None, inline)
            inflight += 1
        while inflight:
            inflight -= take(scq, RATE_BATCH)
        take(rcq, 1)
    elapsed = time.monotonic() - t0
    side.close()
    return elapsed


WAYS = {"raw": raw, "objects": objects, "async": async_, "pyverbs": pyverbs, "rate": rate}


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in WAYS or sys.argv[2] not in ("server", "client"):
        sys.exit("usage: pingpong.py raw|objects|async|pyverbs|rate server|client ADDR PORT ROUNDTRIPS")
    way, role, addr, port, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    elapsed = WAYS[way](role, addr, port, n)
    n = max(n, 1)
    if role == "client" and way == "rate":
        print(f"msgrate: way=python msgs_s={n / elapsed:.0f}")
    elif role == "client":
        print(f"pingpong: way={way} latency_us={elapsed / n * 1e6:.2f}")


if __name__ == "__main__":
    main()
