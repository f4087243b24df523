"""Queue pairs and their work requests: what is posted held until its
completion is reaped."""
from __future__ import annotations

import ctypes as C
import socket
import weakref
from collections import deque
from typing import TYPE_CHECKING, Any, Deque, List, Optional, Sequence, Tuple

from .. import _api
from .._api import ibv_qp, ibv_recv_wr, ibv_send_wr, ibv_sge
from .. import raw as _R
from ._base import Resource
from .errors import PostError
from .mr import Sge, _sges

if TYPE_CHECKING:
    from .cq import CQ
    from .endpoint import Endpoint
    from .srq import SRQ


def _release(q: Deque[Tuple[int, Any]], wr_id: int) -> None:
    """A completion of wr_id reaped from a QP's queue, whose work requests
    complete in the order posted: that one and the unsignaled ones before it
    are let go (nothing, if no work request of that wr_id is held)."""
    if not q:
        return
    if q[0][0] == wr_id:
        q.popleft()
        return
    for i, (w, _) in enumerate(q):
        if w == wr_id:
            for _ in range(i + 1):
                q.popleft()
            return



class SendWR:
    """A send work request for QP.post_send: wr_id, sg (SGEs: (MR, offset,
    length), each held until the completion is reaped), opcode
    (IBV_WR_*), flags (IBV_SEND_*), imm (immediate data, host order: sent
    in network order), remote_addr and rkey (RDMA, atomics), compare_add
    and swap (atomics), inline (bytes sent inline: IBV_SEND_INLINE added)."""

    __slots__ = ("wr_id", "sg", "opcode", "flags", "imm", "remote_addr", "rkey", "compare_add", "swap",
                 "inline")

    def __init__(self, wr_id: int = 0, sg: Sequence[Sge] = (), opcode: int = _api.IBV_WR_SEND, flags: int = 0,
                 imm: int = 0, remote_addr: int = 0, rkey: int = 0, compare_add: int = 0, swap: int = 0,
                 inline: Optional[bytes] = None) -> None:
        self.wr_id, self.sg, self.opcode, self.flags, self.imm = wr_id, sg, opcode, flags, imm
        self.remote_addr, self.rkey, self.compare_add, self.swap = remote_addr, rkey, compare_add, swap
        self.inline = inline


class RecvWR:
    """A receive work request for QP.post_recv and SRQ.post_recv: wr_id
    and sg (SGEs: (MR, offset, length), each held until the completion is
    reaped)."""

    __slots__ = ("wr_id", "sg")

    def __init__(self, wr_id: int = 0, sg: Sequence[Sge] = ()) -> None:
        self.wr_id, self.sg = wr_id, sg


_ATOMICS = (_api.IBV_WR_ATOMIC_CMP_AND_SWP, _api.IBV_WR_ATOMIC_FETCH_AND_ADD)


def _recv_list(wrs: Sequence[RecvWR], fn: str = "") -> Tuple["C.Array[Any]", List[Any], List[Tuple[Any, ...]]]:
    """The receive work requests as one C list (joined by next)."""
    arr = (ibv_recv_wr * len(wrs))()
    keep, holds = [], []
    for i, w in enumerate(wrs):
        sg, held = _sges(w.sg, fn)
        keep.append(sg)
        holds.append(held)
        c = arr[i]
        c.wr_id, c.sg_list, c.num_sge = w.wr_id, C.addressof(sg), len(w.sg)
        c.next = C.addressof(arr[i + 1]) if i + 1 < len(wrs) else None
    return arr, keep, holds


def _bad_index(arr: "C.Array[Any]", size: int, bad: C.c_void_p) -> int:
    return (bad.value - C.addressof(arr)) // size if bad.value else 0



class QP(Resource):
    """A queue pair (Endpoint.create_qp): post_send, post_recv of lists of
    work requests; .qp_num. What its work requests name is held until
    their completions are reaped (sends: in the order posted, an unsignaled
    one with the next signaled one's completion), or until it closes."""

    _kind = "QP"

    def __init__(self, handle: int, parents: Sequence[Optional[Resource]], send_cq: Optional[CQ],
                 recv_cq: Optional[CQ], srq: Optional[SRQ], owned: bool = True,
                 endpoint: Optional[Endpoint] = None,
                 queues: Optional[Tuple[Deque[Tuple[int, Any]], Deque[Tuple[int, Any]]]] = None) -> None:
        super().__init__(handle, parents, owned)
        self.endpoint = endpoint
        self.send_cq, self.recv_cq, self.srq = send_cq, recv_cq, srq
        self.qp_num: int = ibv_qp.from_address(handle).qp_num
        # What its work requests hold, by wr_id, in the order posted; the
        # endpoint's (queues) for the object over an id's own QP, which the
        # id's destroy destroys: they outlive this object then.
        self._shared = queues is not None
        self._sq: Deque[Tuple[int, Any]]
        self._rq: Deque[Tuple[int, Any]]
        self._sq, self._rq = queues if queues is not None else (deque(), deque())
        for cq in {id(c): c for c in (send_cq, recv_cq) if c is not None}.values():
            cq._qps[self.qp_num] = weakref.ref(self)

    @classmethod
    def wrap(cls, handle: int, send_cq: Optional[CQ] = None, recv_cq: Optional[CQ] = None,
             srq: Optional[SRQ] = None) -> "QP":
        """A QP object over an ibv_qp made with the raw layer (its CQs' and
        SRQ's objects given, so that their completions let go of what it
        holds): closing it does not destroy the C one.
        Raises nothing."""
        return cls(handle, (), send_cq, recv_cq, srq, owned=False)

    def _destroy(self) -> None:
        if self.endpoint is not None:
            _R.rdma_destroy_qp(self.endpoint._handle)

    def _released(self) -> None:
        for cq in (self.send_cq, self.recv_cq):
            if cq is not None and cq._qps.get(self.qp_num) is not None:
                cq._qps.pop(self.qp_num, None)
        if not self._shared:
            self._sq.clear()
            self._rq.clear()

    def _held(self) -> Any:
        return self._sq, self._rq

    @property
    def pending(self) -> Tuple[int, int]:
        """(sends, receives) posted and held, their completions not reaped.
        Raises nothing."""
        return len(self._sq), len(self._rq)

    def post_send(self, wrs: Sequence[SendWR]) -> None:
        """The work requests, one list (next), one ibv_post_send; PostError
        (the provider's errno value): those from .index on were not
        posted.
        Raises PostError (ibv_post_send's errno; .index), ValueError (outside
        an MR, or closed)."""
        arr = (ibv_send_wr * len(wrs))()
        keep: List[Any] = []
        holds: List[Any] = []
        for i, w in enumerate(wrs):
            c = arr[i]
            c.wr_id, c.opcode, c.send_flags = w.wr_id, w.opcode, w.flags
            if w.inline is not None:
                data = C.create_string_buffer(w.inline, len(w.inline))
                sg = (ibv_sge * 1)(ibv_sge(C.addressof(data), len(w.inline), 0))
                keep += [data, sg]
                c.sg_list, c.num_sge, c.send_flags = C.addressof(sg), 1, w.flags | _api.IBV_SEND_INLINE
                holds.append(None)
            else:
                sg, held = _sges(w.sg, "ibv_post_send")
                keep.append(sg)
                holds.append(held)
                c.sg_list, c.num_sge = C.addressof(sg), len(w.sg)
            if w.imm:
                c.imm_data = socket.htonl(w.imm)
            if w.opcode in _ATOMICS:
                a = c.wr.atomic
                a.remote_addr, a.rkey, a.compare_add, a.swap = w.remote_addr, w.rkey, w.compare_add, w.swap
            elif w.remote_addr or w.rkey:
                c.wr.rdma.remote_addr, c.wr.rdma.rkey = w.remote_addr, w.rkey
            c.next = C.addressof(arr[i + 1]) if i + 1 < len(wrs) else None
        bad = C.c_void_p()
        err = _R.ibv_post_send(self._h("ibv_post_send"), arr, C.byref(bad))
        done = _bad_index(arr, C.sizeof(ibv_send_wr), bad) if err else len(wrs)
        for i in range(done):
            self._sq.append((wrs[i].wr_id, holds[i]))
        if err:
            raise PostError(err, "ibv_post_send", done)

    def post_recv(self, wrs: Sequence[RecvWR]) -> None:
        """The receives, one list, one ibv_post_recv (PostError as post_send).
        Raises PostError (ibv_post_recv's errno; .index), ValueError (outside
        an MR, or closed)."""
        arr, keep, holds = _recv_list(wrs, "ibv_post_recv")
        bad = C.c_void_p()
        err = _R.ibv_post_recv(self._h("ibv_post_recv"), arr, C.byref(bad))
        done = _bad_index(arr, C.sizeof(ibv_recv_wr), bad) if err else len(wrs)
        for i in range(done):
            self._rq.append((wrs[i].wr_id, holds[i]))
        if err:
            raise PostError(err, "ibv_post_recv", done)
