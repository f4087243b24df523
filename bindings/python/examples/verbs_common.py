"""What the object and async programs of the verbs exchange share
(bindings/verbs-protocol.md): its constants, the check of a completion's
every field, the messages' bytes, and the buffers posted then dropped; and
its profile: RoCE's, or iWARP's with VERBS_PROFILE=iwarp in the
environment (the client speaks first, no atomics, no immediate data, no
GRH; the fields RC leaves unset not checked: siw does not write them)."""
import gc
import os
import socket
import sys
from typing import List, NoReturn

import rdmaverbs as rv

SLOT, SLOTS = 64, 8
INITIAL, ADD = 0x1122334455667788, 0x1000000000000001
SWAP, STALE_SWAP = 0x0FEDCBA987654321, 0xDEADDEADDEADDEAD
CQ_CONTEXT = 0xC0FFEE
WAIT = 60.0                 # seconds, every wait
SERVER_LENS = (8, 16, 24, 32, 40)
IWARP = os.environ.get("VERBS_PROFILE") == "iwarp"
RECV = 0 if IWARP else rv.IBV_WC_GRH    # a receive's flags: GRH on RoCE (rxe)
WITH_IMM = 0 if IWARP else rv.IBV_WC_WITH_IMM
SEND_OP = rv.IBV_WR_SEND if IWARP else rv.IBV_WR_SEND_WITH_IMM
# The word's MR: the atomics' target on RoCE; on iWARP, a write's and reads'.
ATOM_ACCESS = rv.IBV_ACCESS_LOCAL_WRITE | rv.IBV_ACCESS_REMOTE_READ | (
    rv.IBV_ACCESS_REMOTE_WRITE if IWARP else rv.IBV_ACCESS_REMOTE_ATOMIC)
ROLE = ["?"]


def imm(value: int) -> int:
    """The immediate data a receive carries: none on iWARP."""
    return 0 if IWARP else value


def fail(what: str) -> NoReturn:
    sys.exit(f"verbs {ROLE[0]}: {what}")


def check(ok: bool, what: str) -> None:
    if not ok:
        fail(what)


def completion(wc: rv.ibv_wc, wr_id: int, opcode: int, length: int, flags: int, imm: int, qp_num: int) -> None:
    """One completion, every field (bindings/verbs-protocol.md)."""
    n = 8 if IWARP else 13
    got = (wc.wr_id, wc.status, wc.opcode, wc.byte_len, wc.wc_flags, socket.ntohl(wc.imm_data),
           wc.qp_num, wc.vendor_err, wc.src_qp, wc.pkey_index, wc.slid, wc.sl, wc.dlid_path_bits)[:n]
    want = (wr_id, rv.IBV_WC_SUCCESS, opcode, length, flags, imm, qp_num, 0, 0, 0, 0, 0, 0)[:n]
    check(got == want, f"completion {tuple(hex(v) for v in got)}; want {tuple(hex(v) for v in want)} "
          f"({rv.ibv_wc_status_str(wc.status)})")


def pattern(seed: int, k: int, length: int) -> bytes:
    """Message k of a side: byte j is (seed + 7k + j) mod 256."""
    return bytes((seed + 7 * k + j) & 0xFF for j in range(length))


def dropped_sends(pd: rv.PD, seed: int, lens: List[int], two_sges: bool, wr_id: int, imm: int,
                  last_flags: int) -> List[rv.SendWR]:
    """The messages' work requests, each over an MR of its own whose buffer
    and MR the program holds no reference to once they are posted: only
    the posted work requests do, until their completions are reaped (the
    peer checks every byte)."""
    wrs = []
    for k, n in enumerate(lens):
        mr = pd.reg_mr(bytearray(pattern(seed, k, n)), 0)
        sg = [mr.sge(0, 16), mr.sge(16, n - 16)] if two_sges else [mr.sge(0, n)]
        flags = rv.IBV_SEND_SIGNALED | (last_flags if k == len(lens) - 1 else 0)
        wrs.append(rv.SendWR(wr_id + k, sg, SEND_OP, flags, imm=imm + k))
    return wrs


def collect() -> List[bytearray]:
    """A collection, then the heap's small free blocks refilled with 0xee:
    a buffer freed too early would now send those."""
    gc.collect()
    return [bytearray(b"\xee" * 64) for _ in range(5000)]
