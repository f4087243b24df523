#!/usr/bin/env python3
"""The verbs exchange of bindings/verbs-protocol.md through rdmaverbs'
async API, in asyncio: as verbs_objects.py, every wait awaited (the
rdma_cm events on the event channel's fd, the CQ events on the completion
channel's, both watched with the loop's add_reader; the send CQ polled
with asyncio.sleep between polls). Another task counts its turns while a
wait is pending; at the end the program prints

    async: other task ran N times while waiting

Usage: verbs_async.py client|server ADDR PORT
"""
import asyncio
import struct
import sys
from typing import Awaitable, List, TypeVar

import rdmaverbs as rv
from verbs_common import (ADD, CQ_CONTEXT, INITIAL, RECV, ROLE, SERVER_LENS, SLOT, SLOTS, STALE_SWAP, SWAP,
                          WAIT, check, collect, completion, dropped_sends, fail, pattern)


T = TypeVar("T")
TICKS = {"waiting": 0, "ran": 0}


async def waiting(aw: Awaitable[T]) -> T:
    """aw awaited, the wait counted as pending meanwhile."""
    TICKS["waiting"] += 1
    try:
        return await aw
    finally:
        TICKS["waiting"] -= 1


async def ticker() -> None:
    """The other task: while a wait is pending, a turn at each pass of the
    loop, counted; else a turn every millisecond."""
    while True:
        if TICKS["waiting"]:
            TICKS["ran"] += 1
            await asyncio.sleep(0)
        else:
            await asyncio.sleep(0.001)


class Side:
    """The objects of one side, on the id's device, the QP on them."""

    def __init__(self, ep: rv.Endpoint) -> None:
        self.ep = ep
        self.pd = ep.alloc_pd()
        self.channel = ep.create_comp_channel()
        self.scq = ep.create_cq(16)
        self.rcq = ep.create_cq(16, self.channel, CQ_CONTEXT)
        self.srq = self.pd.create_srq(SLOTS, 1)
        self.qp = ep.create_qp(self.pd, self.scq, self.rcq, self.srq, max_send_wr=8, max_send_sge=2)
        q = rv.ibv_qp.from_address(self.qp.handle)
        check((q.send_cq, q.recv_cq, q.srq) == (self.scq.handle, self.rcq.handle, self.srq.handle),
              "the id's QP is not on the CQs and the SRQ given")
        self.recv = self.pd.reg_mr(SLOTS * SLOT, rv.IBV_ACCESS_LOCAL_WRITE)
        self.send = self.pd.reg_mr(5 * SLOT, 0)
        self.atom = self.pd.reg_mr(24, rv.IBV_ACCESS_LOCAL_WRITE | rv.IBV_ACCESS_REMOTE_ATOMIC |
                                   rv.IBV_ACCESS_REMOTE_READ)
        self.srq.post_recv([rv.RecvWR(0x100 + i, [self.recv.sge(SLOT * i, SLOT)]) for i in range(SLOTS)])

    async def post(self, wrs: List[rv.SendWR]) -> List[rv.ibv_wc]:
        """One ibv_post_send of the list, then its completions awaited (the
        send CQ polled: it has no channel)."""
        self.qp.post_send(wrs)
        return await waiting(self.scq.aget(len(wrs), WAIT))

    def post_dropped(self, seed: int, lens: List[int], two_sges: bool, wr_id: int, imm: int,
                     last_flags: int) -> None:
        self.qp.post_send(dropped_sends(self.pd, seed, lens, two_sges, wr_id, imm, last_flags))

    async def next_event(self, solicited_only: bool) -> List[rv.ibv_wc]:
        """The receive CQ's next event awaited (acknowledged), the CQ armed
        again, then up to 8 completions in one poll."""
        cq = await waiting(self.channel.aget_cq_event(WAIT))
        check(cq is self.rcq and cq.context == CQ_CONTEXT, "the event is not the receive CQ's")
        cq.req_notify(solicited_only)
        return cq.poll(8)

    def sends(self, wc: List[rv.ibv_wc], wr_id: int, lens: List[int], flags: int) -> None:
        for k, n in enumerate(lens):
            completion(wc[k], wr_id + k, rv.IBV_WC_SEND, n, flags, 0, self.qp.qp_num)


async def client(addr: str, port: str) -> None:
    with rv.EventChannel() as ch:
        ep = ch.create_id()
        await waiting(ep.aresolve(addr, port, timeout=2.0))
        s = Side(ep)
        s.rcq.req_notify()
        await waiting(ep.aconnect(timeout=WAIT))
        # 1. Keys, the first event; armed again for solicited completions only.
        wc = await s.next_event(True)
        check(len(wc) == 1, f"the keys' event: {len(wc)} completions")
        completion(wc[0], 0x100, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qp.qp_num)
        word, rkey, _, initial = struct.unpack_from("<QIIQ", s.recv.buf)
        check(initial == INITIAL, f"the word's value {initial:#x} is not the initial one")
        # 2. Atomics, one list: fetch-and-add, compare-and-swap, a stale one.
        wrs = [rv.SendWR(0x700 + k, [s.atom.sge(8 * k, 8)],
                         rv.IBV_WR_ATOMIC_CMP_AND_SWP if k else rv.IBV_WR_ATOMIC_FETCH_AND_ADD,
                         rv.IBV_SEND_SIGNALED, remote_addr=word, rkey=rkey,
                         compare_add=INITIAL + ADD if k else ADD, swap=(0, SWAP, STALE_SWAP)[k])
               for k in range(3)]
        wc = await s.post(wrs)
        for k, opcode in enumerate((rv.IBV_WC_FETCH_ADD, rv.IBV_WC_COMP_SWAP, rv.IBV_WC_COMP_SWAP)):
            completion(wc[k], 0x700 + k, opcode, 8, 0, 0, s.qp.qp_num)
        old = list(struct.unpack("<3Q", s.atom.buf))
        check(old == [INITIAL, INITIAL + ADD, SWAP], f"the atomics' old values {[hex(v) for v in old]}")
        # 3. Four sends into the server's SRQ, two SGEs each, immediate data;
        # their buffers dropped once posted, the heap refilled before they go.
        s.post_dropped(0xC1, [SLOT] * 4, True, 0x300, 0xC0DE0000, 0)
        filler = collect()
        s.sends(await waiting(s.scq.aget(4, WAIT)), 0x300, [SLOT] * 4, rv.IBV_WC_WITH_IMM)
        check(s.qp.pending == (0, 0), f"held after the completions: {s.qp.pending}")
        # 4. The server's five, the event at the last (solicited): five at once.
        wc = await s.next_event(False)
        check(len(wc) == 5, f"the solicited event: {len(wc)} completions in one poll, not 5")
        for k, n in enumerate(SERVER_LENS):
            completion(wc[k], 0x101 + k, rv.IBV_WC_RECV, n, RECV | rv.IBV_WC_WITH_IMM, 0x5E4D0000 + k,
                       s.qp.qp_num)
            check(bytes(s.recv.buf[SLOT * (1 + k):SLOT * (1 + k) + n]) == pattern(0x51, k, n),
                  f"message {k}: its bytes differ")
        # 5. DONE, and the server's DONE with the word's last value.
        s.send.buf[:SLOT] = b"DONE".ljust(SLOT, b"\0")
        completion((await s.post([rv.SendWR(0x500, [s.send.sge(0, SLOT)], flags=rv.IBV_SEND_SIGNALED)]))[0],
                   0x500, rv.IBV_WC_SEND, SLOT, 0, 0, s.qp.qp_num)
        wc = await s.next_event(False)
        check(len(wc) == 1, f"the DONE event: {len(wc)} completions")
        completion(wc[0], 0x106, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qp.qp_num)
        done, final = struct.unpack_from("<4s4xQ", s.recv.buf, 6 * SLOT)
        check((done, final) == (b"DONE", SWAP), f"no DONE with the word's value: {done!r} {final:#x}")
        check(s.srq.pending == SLOTS - 7, f"the SRQ holds {s.srq.pending} receives, not 1")
        # 6. Teardown: the channel closes the id and all made on it.
        await waiting(ep.adisconnect(WAIT))
    check(s.qp.closed and s.pd.closed and ep.closed and len(filler) == 5000, "not all closed")
    print("verbs: PASS role=client completions=15 bytes=248")


async def server(addr: str, port: str) -> None:
    with rv.EventChannel() as ch:
        listener = ch.create_id()
        listener.bind(addr, port)
        listener.listen(1)
        print("verbs: listening", flush=True)
        ep = await waiting(listener.aget_request(WAIT))
        s = Side(ep)
        s.atom.buf[:8] = struct.pack("<Q", INITIAL)
        await waiting(ep.aaccept(timeout=WAIT))
        # 1. Keys: the word's address, its rkey, its value.
        s.send.buf[:SLOT] = struct.pack("<QIIQ", s.atom.addr, s.atom.rkey, 0, INITIAL).ljust(SLOT, b"\0")
        s.sends(await s.post([rv.SendWR(0x200, [s.send.sge(0, SLOT)], flags=rv.IBV_SEND_SIGNALED)]), 0x200, [SLOT], 0)
        # 3. The client's four sends into the SRQ, immediate data 0xc0de0000 + k.
        wc = await waiting(s.rcq.aget(4, WAIT))
        for k in range(4):
            completion(wc[k], 0x100 + k, rv.IBV_WC_RECV, SLOT, RECV | rv.IBV_WC_WITH_IMM, 0xC0DE0000 + k,
                       s.qp.qp_num)
            check(bytes(s.recv.buf[SLOT * k:SLOT * (k + 1)]) == pattern(0xC1, k, SLOT), "a message byte differs")
        # 4. Five sends, the last solicited: the client's event; their
        # buffers dropped once posted, the heap refilled before they go.
        s.post_dropped(0x51, list(SERVER_LENS), False, 0x300, 0x5E4D0000, rv.IBV_SEND_SOLICITED)
        filler = collect()
        s.sends(await waiting(s.scq.aget(5, WAIT)), 0x300, list(SERVER_LENS), rv.IBV_WC_WITH_IMM)
        check(s.qp.pending == (0, 0), f"held after the completions: {s.qp.pending}")
        # 5. DONE: the word is the compare-and-swap's; DONE and the word back.
        wc = await waiting(s.rcq.aget(1, WAIT))
        completion(wc[0], 0x104, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qp.qp_num)
        check(bytes(s.recv.buf[4 * SLOT:4 * SLOT + 4]) == b"DONE", "no DONE")
        word = struct.unpack_from("<Q", s.atom.buf)[0]
        check(word == SWAP, "the word is not the compare-and-swap's value")
        s.send.buf[:SLOT] = (b"DONE\0\0\0\0" + struct.pack("<Q", word)).ljust(SLOT, b"\0")
        s.sends(await s.post([rv.SendWR(0x400, [s.send.sge(0, SLOT)], flags=rv.IBV_SEND_SIGNALED)]), 0x400, [SLOT], 0)
        # 6. Teardown, after the client's disconnect.
        await waiting(ep.aexpect(rv.RDMA_CM_EVENT_DISCONNECTED, WAIT))
    check(ep.closed and listener.closed and len(filler) == 5000, "not all closed")
    print(f"verbs: PASS role=server completions=12 word={word:#x}")


async def run(role: str, addr: str, port: str) -> None:
    other = asyncio.ensure_future(ticker())
    await (client if role == "client" else server)(addr, port)
    other.cancel()
    print(f"async: other task ran {TICKS['ran']} times while waiting")


def main() -> None:
    if len(sys.argv) != 4 or sys.argv[1] not in ("client", "server"):
        sys.exit("usage: verbs_async.py client|server ADDR PORT")
    ROLE[0] = sys.argv[1]
    try:
        asyncio.run(run(*sys.argv[1:]))
    except OSError as e:
        fail(f"{type(e).__name__}: {e} (errno {e.errno})")


if __name__ == "__main__":
    main()
