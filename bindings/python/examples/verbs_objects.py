#!/usr/bin/env python3
"""The verbs exchange of bindings/verbs-protocol.md through rdmaverbs'
object API (rdmaverbs.objects), as the client against the C peer's server
(`peer verbs server`) or as the server against its client (`peer verbs
client`): an EventChannel and Endpoint, a PD, a CompChannel, two CQs, an
SRQ, the QP, MRs, each closed by `with` (the channel closes everything
made on it, in the order verbs needs). The messages (the client's four,
the server's five) go from MRs of their own that the program drops as
soon as they are posted, after which it collects: the peer checks every
byte. VERBS_PROFILE=iwarp: the exchange's iWARP profile.

Usage: verbs_objects.py client|server ADDR PORT
"""
import struct
import sys
import time
from typing import List

import rdmaverbs as rv
from verbs_common import (ADD, ATOM_ACCESS, CQ_CONTEXT, INITIAL, IWARP, RECV, ROLE, SERVER_LENS, SLOT, SLOTS,
                          STALE_SWAP, SWAP, WAIT, WITH_IMM, check, collect, completion, dropped_sends, fail, imm,
                          pattern)


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
        self.atom = self.pd.reg_mr(24, ATOM_ACCESS)
        self.srq.post_recv([rv.RecvWR(0x100 + i, [self.recv.sge(SLOT * i, SLOT)]) for i in range(SLOTS)])

    def post(self, wrs: List[rv.SendWR]) -> List[rv.ibv_wc]:
        """One ibv_post_send of the list, then its completions (the send
        CQ polled: it has no channel)."""
        self.qp.post_send(wrs)
        return self.scq.get(len(wrs), WAIT)

    def post_dropped(self, seed: int, lens: List[int], two_sges: bool, wr_id: int, imm: int,
                     last_flags: int) -> None:
        self.qp.post_send(dropped_sends(self.pd, seed, lens, two_sges, wr_id, imm, last_flags))

    def next_event(self, solicited_only: bool) -> List[rv.ibv_wc]:
        """The receive CQ's next event (acknowledged), the CQ armed again,
        then up to 8 completions in one poll."""
        cq = self.channel.get_cq_event(WAIT)
        check(cq is self.rcq and cq.context == CQ_CONTEXT, "the event is not the receive CQ's")
        cq.req_notify(solicited_only)
        return cq.poll(8)

    def received(self, n: int) -> List[rv.ibv_wc]:
        """Steps 4 and 5: the receive CQ's next event (RoCE); on iWARP its n
        completions by the bounded wait (siw, Linux 6.1, signals no
        solicited completion)."""
        return self.rcq.get(n, WAIT) if IWARP else self.next_event(False)

    def sends(self, wc: List[rv.ibv_wc], wr_id: int, lens: List[int], flags: int) -> None:
        for k, n in enumerate(lens):
            completion(wc[k], wr_id + k, rv.IBV_WC_SEND, n, flags, 0, self.qp.qp_num)


def client(addr: str, port: str) -> None:
    with rv.EventChannel() as ch:
        ep = ch.create_id()
        ep.resolve(addr, port, timeout=2.0)
        s = Side(ep)
        s.rcq.req_notify()
        ep.connect(timeout=WAIT)

        def sends() -> List[bytearray]:
            """3. Four sends into the server's SRQ, two SGEs each, immediate
            data; their buffers dropped once posted, the heap refilled
            before they go."""
            s.post_dropped(0xC1, [SLOT] * 4, True, 0x300, 0xC0DE0000, 0)
            filler = collect()
            s.sends(s.scq.get(4, WAIT), 0x300, [SLOT] * 4, WITH_IMM)
            check(s.qp.pending == (0, 0), f"held after the completions: {s.qp.pending}")
            return filler

        if IWARP:       # the client speaks first
            filler = sends()
        # 1. Keys, the first event; armed again for solicited completions only.
        wc = s.next_event(True)
        check(len(wc) == 1, f"the keys' event: {len(wc)} completions")
        completion(wc[0], 0x100, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qp.qp_num)
        word, rkey, _, initial = struct.unpack_from("<QIIQ", s.recv.buf)
        check(initial == INITIAL, f"the word's value {initial:#x} is not the initial one")
        # 2. Atomics, one list: fetch-and-add, compare-and-swap, a stale one.
        # iWARP has none: a read of the word; then a write of SWAP and a
        # read back, one list (a write completes as siw sends it: after a
        # read in one list, its completion would come first).
        if IWARP:
            struct.pack_into("<Q", s.atom.buf, 8, SWAP)
            wc = s.post([rv.SendWR(0x700, [s.atom.sge(0, 8)], rv.IBV_WR_RDMA_READ, rv.IBV_SEND_SIGNALED,
                                   remote_addr=word, rkey=rkey)])
            wc += s.post([rv.SendWR(0x700 + k, [s.atom.sge(8 * k, 8)], op, rv.IBV_SEND_SIGNALED, remote_addr=word,
                                    rkey=rkey) for k, op in ((1, rv.IBV_WR_RDMA_WRITE), (2, rv.IBV_WR_RDMA_READ))])
            done_ops = (rv.IBV_WC_RDMA_READ, rv.IBV_WC_RDMA_WRITE, rv.IBV_WC_RDMA_READ)
        else:
            wrs = [rv.SendWR(0x700 + k, [s.atom.sge(8 * k, 8)],
                             rv.IBV_WR_ATOMIC_CMP_AND_SWP if k else rv.IBV_WR_ATOMIC_FETCH_AND_ADD,
                             rv.IBV_SEND_SIGNALED, remote_addr=word, rkey=rkey,
                             compare_add=INITIAL + ADD if k else ADD, swap=(0, SWAP, STALE_SWAP)[k])
                   for k in range(3)]
            wc = s.post(wrs)
            done_ops = (rv.IBV_WC_FETCH_ADD, rv.IBV_WC_COMP_SWAP, rv.IBV_WC_COMP_SWAP)
        for k, opcode in enumerate(done_ops):
            completion(wc[k], 0x700 + k, opcode, 8, 0, 0, s.qp.qp_num)
        old = list(struct.unpack("<3Q", s.atom.buf))
        check(old == [INITIAL, SWAP if IWARP else INITIAL + ADD, SWAP],
              f"the atomics' old values {[hex(v) for v in old]}")
        if not IWARP:
            filler = sends()
        # 4. The server's five, the event at the last (solicited): five at once.
        wc = s.received(5)
        check(len(wc) == 5, f"the solicited event: {len(wc)} completions in one poll, not 5")
        for k, n in enumerate(SERVER_LENS):
            completion(wc[k], 0x101 + k, rv.IBV_WC_RECV, n, RECV | WITH_IMM, imm(0x5E4D0000 + k), s.qp.qp_num)
            check(bytes(s.recv.buf[SLOT * (1 + k):SLOT * (1 + k) + n]) == pattern(0x51, k, n),
                  f"message {k}: its bytes differ")
        # 5. DONE, and the server's DONE with the word's last value.
        s.send.buf[:SLOT] = b"DONE".ljust(SLOT, b"\0")
        completion(s.post([rv.SendWR(0x500, [s.send.sge(0, SLOT)], flags=rv.IBV_SEND_SIGNALED)])[0],
                   0x500, rv.IBV_WC_SEND, SLOT, 0, 0, s.qp.qp_num)
        wc = s.received(1)
        check(len(wc) == 1, f"the DONE event: {len(wc)} completions")
        completion(wc[0], 0x106, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qp.qp_num)
        done, final = struct.unpack_from("<4s4xQ", s.recv.buf, 6 * SLOT)
        check((done, final) == (b"DONE", SWAP), f"no DONE with the word's value: {done!r} {final:#x}")
        check(s.srq.pending == SLOTS - 7, f"the SRQ holds {s.srq.pending} receives, not 1")
        # 6. Teardown: the channel closes the id and all made on it.
        ep.disconnect(WAIT)
    check(s.qp.closed and s.pd.closed and ep.closed and len(filler) == 5000, "not all closed")
    print("verbs: PASS role=client completions=15 bytes=248")


def server(addr: str, port: str) -> None:
    with rv.EventChannel() as ch:
        listener = ch.create_id()
        listener.bind(addr, port)
        listener.listen(1)
        print("verbs: listening", flush=True)
        ep = listener.get_request(WAIT)
        s = Side(ep)
        s.atom.buf[:8] = struct.pack("<Q", INITIAL)
        ep.accept(timeout=WAIT)

        def keys() -> None:
            """1. Keys: the word's address, its rkey, its value."""
            s.send.buf[:SLOT] = struct.pack("<QIIQ", s.atom.addr, s.atom.rkey, 0, INITIAL).ljust(SLOT, b"\0")
            s.sends(s.post([rv.SendWR(0x200, [s.send.sge(0, SLOT)], flags=rv.IBV_SEND_SIGNALED)]), 0x200, [SLOT], 0)

        if not IWARP:   # on iWARP the client speaks first: the keys after its four
            keys()
        # 3. The client's four sends into the SRQ, immediate data 0xc0de0000 + k.
        wc = s.rcq.get(4, WAIT)
        for k in range(4):
            completion(wc[k], 0x100 + k, rv.IBV_WC_RECV, SLOT, RECV | WITH_IMM, imm(0xC0DE0000 + k), s.qp.qp_num)
            check(bytes(s.recv.buf[SLOT * k:SLOT * (k + 1)]) == pattern(0xC1, k, SLOT), "a message byte differs")
        if IWARP:
            keys()
            # The client's write of SWAP into the word, before step 4: the
            # five must not join the keys in its first poll (on RoCE its
            # four sends come between).
            deadline = time.monotonic() + WAIT
            while struct.unpack_from("<Q", s.atom.buf)[0] != SWAP:
                check(time.monotonic() < deadline, "the client's write of SWAP did not come within the wait")
                time.sleep(0.001)
        # 4. Five sends, the last solicited: the client's event; their
        # buffers dropped once posted, the heap refilled before they go.
        s.post_dropped(0x51, list(SERVER_LENS), False, 0x300, 0x5E4D0000, rv.IBV_SEND_SOLICITED)
        filler = collect()
        s.sends(s.scq.get(5, WAIT), 0x300, list(SERVER_LENS), WITH_IMM)
        check(s.qp.pending == (0, 0), f"held after the completions: {s.qp.pending}")
        # 5. DONE: the word is the compare-and-swap's; DONE and the word back.
        wc = s.rcq.get(1, WAIT)
        completion(wc[0], 0x104, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qp.qp_num)
        check(bytes(s.recv.buf[4 * SLOT:4 * SLOT + 4]) == b"DONE", "no DONE")
        word = struct.unpack_from("<Q", s.atom.buf)[0]
        check(word == SWAP, "the word is not the compare-and-swap's value")
        s.send.buf[:SLOT] = (b"DONE\0\0\0\0" + struct.pack("<Q", word)).ljust(SLOT, b"\0")
        s.sends(s.post([rv.SendWR(0x400, [s.send.sge(0, SLOT)], flags=rv.IBV_SEND_SIGNALED)]), 0x400, [SLOT], 0)
        # 6. Teardown, after the client's disconnect.
        ep.expect(rv.RDMA_CM_EVENT_DISCONNECTED, WAIT)
    check(ep.closed and listener.closed and len(filler) == 5000, "not all closed")
    print(f"verbs: PASS role=server completions=12 word={word:#x}")


def main() -> None:
    if len(sys.argv) != 4 or sys.argv[1] not in ("client", "server"):
        sys.exit("usage: verbs_objects.py client|server ADDR PORT")
    ROLE[0] = sys.argv[1]
    try:
        (client if ROLE[0] == "client" else server)(sys.argv[2], sys.argv[3])
    except OSError as e:
        fail(f"{type(e).__name__}: {e} (errno {e.errno})")


if __name__ == "__main__":
    main()
