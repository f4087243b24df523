"""The channels: an rdma_cm event channel (its ids' events, routed to
each) and a completion channel (its CQs' events)."""
from __future__ import annotations

import ctypes as C
import errno as _errno
import weakref
from typing import TYPE_CHECKING, Dict, Optional, Sequence

from .._api import (RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_PS_TCP, ibv_comp_channel, rdma_cm_event,
                    rdma_cm_event_param, rdma_event_channel)
from .. import raw as _R
from ._base import (Resource, _check_errno, _check_int, _check_ptr, _deadline, _error, _nonblocking,
                    _readable)
from .aio import _Readiness

if TYPE_CHECKING:
    from .cq import CQ
    from .endpoint import Endpoint


class CMEvent:
    """An rdma_cm event, copied and acknowledged: .event (RDMA_CM_EVENT_*),
    .status, .id (the Endpoint; for a connect request, the new one),
    .listen_id (its listening Endpoint, or None), .param (the union of
    conn and ud parameters, a copy)."""

    __slots__ = ("event", "status", "id", "listen_id", "param")

    def __init__(self, event: int, status: int, id: "Endpoint", listen_id: Optional["Endpoint"],
                 param: rdma_cm_event_param) -> None:
        self.event, self.status, self.id, self.listen_id, self.param = event, status, id, listen_id, param

    def __repr__(self) -> str:
        from .. import rdma_event_str
        return f"<CMEvent {rdma_event_str(self.event)} status {self.status} {self.id!r}>"


class EventChannel(Resource):
    """An rdma_cm event channel (rdma_create_event_channel); its ids are
    event-driven Endpoints (create_id). Its fd is non-blocking: waits poll
    it (blocking form) or watch it with the loop's add_reader (async
    form). Closing it closes its Endpoints first."""

    _kind = "event channel"

    def __init__(self) -> None:
        """Raises OSError (rdma_create_event_channel's errno)."""
        super().__init__(_check_ptr(_R.rdma_create_event_channel(), "rdma_create_event_channel"))
        self.fd: int = rdma_event_channel.from_address(self._handle).fd
        _nonblocking(self.fd)
        self._ids: Dict[int, "weakref.ReferenceType[Endpoint]"] = {}
        self._readiness: Optional[_Readiness] = None

    def _destroy(self) -> None:
        _R.rdma_destroy_event_channel(self._handle)

    def create_id(self, ps: int = RDMA_PS_TCP) -> "Endpoint":
        """A new id on this channel (rdma_create_id), as an Endpoint.
        Raises OSError (rdma_create_id's errno), ValueError (closed)."""
        self._check_open()
        h = C.c_void_p()
        _check_int(_R.rdma_create_id(self._handle, C.byref(h), None, ps), "rdma_create_id")
        return Endpoint(h.value or 0, channel=self)

    def _endpoint(self, h: int) -> Optional["Endpoint"]:
        ref = self._ids.get(h)
        return ref() if ref is not None else None

    def _read(self) -> bool:
        """Reads one event if there is one (non-blocking): copied, acked,
        queued on its Endpoint (a new one for a connect request)."""
        ev = C.c_void_p()
        if _R.rdma_get_cm_event(self._handle, C.byref(ev)) < 0:
            err = C.get_errno()
            if err in (_errno.EAGAIN, _errno.EWOULDBLOCK):
                return False
            raise _error(err, "rdma_get_cm_event")
        e = rdma_cm_event.from_address(ev.value or 0)
        kind, status, h, lh = e.event, e.status, e.id or 0, e.listen_id or 0
        param = rdma_cm_event_param.from_buffer_copy(e.param)
        _check_int(_R.rdma_ack_cm_event(ev), "rdma_ack_cm_event")
        listener = self._endpoint(lh) if lh else None
        ep = self._endpoint(h)
        if ep is None:
            # A connect request's new id (ours from now on), or an event of
            # an id no Endpoint holds any more (dropped).
            if kind != RDMA_CM_EVENT_CONNECT_REQUEST:
                return True
            ep = Endpoint(h, channel=self)
        event = CMEvent(kind, status, ep, listener, param)
        (listener if kind == RDMA_CM_EVENT_CONNECT_REQUEST and listener is not None else ep)._events.append(event)
        return True

    def _next(self, ep: "Endpoint", deadline: Optional[float]) -> CMEvent:
        while not ep._events:
            if not self._read():
                _readable(self.fd, deadline, "rdma_get_cm_event", "no rdma_cm event within the time limit")
        return ep._events.popleft()

    async def _anext(self, ep: "Endpoint", deadline: Optional[float]) -> CMEvent:
        while not ep._events:
            if not self._read():
                if self._readiness is None:
                    self._readiness = _Readiness(self.fd)
                await self._readiness.wait(deadline, "no rdma_cm event within the time limit", (ep, self),
                                           "rdma_get_cm_event")
        return ep._events.popleft()


class CompChannel(Resource):
    """A completion channel (ibv_create_comp_channel): its CQs' events.
    Its fd is non-blocking; get_cq_event polls it, aget_cq_event watches it
    with the loop. Closing it closes its CQs first."""

    _kind = "completion channel"

    def __init__(self, handle: int, parents: Sequence[Optional[Resource]] = (), owned: bool = True) -> None:
        super().__init__(handle, parents, owned)
        self.fd: int = ibv_comp_channel.from_address(handle).fd
        _nonblocking(self.fd)
        self._cqs: Dict[int, "weakref.ReferenceType[CQ]"] = {}
        self._readiness: Optional[_Readiness] = None

    def _destroy(self) -> None:
        _check_errno(_R.ibv_destroy_comp_channel(self._handle), "ibv_destroy_comp_channel")

    def _read(self) -> Optional["CQ"]:
        """One event if there is one: acknowledged, its CQ (None: none)."""
        cq, ctx = C.c_void_p(), C.c_void_p()
        if _R.ibv_get_cq_event(self._h("ibv_get_cq_event"), C.byref(cq), C.byref(ctx)) < 0:
            err = C.get_errno()
            if err in (_errno.EAGAIN, _errno.EWOULDBLOCK):
                return None
            raise _error(err, "ibv_get_cq_event")
        _R.ibv_ack_cq_events(cq, 1)
        ref = self._cqs.get(cq.value or 0)
        obj = ref() if ref is not None else None
        if obj is None or (ctx.value or 0) != obj.context:
            raise _error(_errno.EIO, "ibv_get_cq_event", "an event of a CQ not made on this channel, "
                                     "or not with its cq_context")
        obj.events += 1
        return obj

    def get_cq_event(self, timeout: Optional[float] = None) -> "CQ":
        """The next CQ event (ibv_get_cq_event, acknowledged at once): the CQ
        it is for; TimeoutError when none comes within timeout seconds. Arm
        the CQ again (req_notify) for the next one.
        Raises OSError (ibv_get_cq_event's errno; EIO for a CQ not made on
        this channel), TimeoutError (ETIMEDOUT), ValueError (closed)."""
        deadline = _deadline(timeout)
        while True:
            cq = self._read()
            if cq is not None:
                return cq
            _readable(self.fd, deadline, "ibv_get_cq_event", "no completion event within the time limit")

    async def aget_cq_event(self, timeout: Optional[float] = None) -> "CQ":
        """get_cq_event, awaited: the fd watched with the loop's add_reader.
        Raises what get_cq_event raises."""
        return await self._aget_cq_event(timeout, (self,))

    async def _aget_cq_event(self, timeout: Optional[float], owners: Sequence[Resource]) -> "CQ":
        """aget_cq_event, ended by a close of any of owners."""
        deadline = _deadline(timeout)
        while True:
            cq = self._read()
            if cq is not None:
                return cq
            if self._readiness is None:
                self._readiness = _Readiness(self.fd)
            await self._readiness.wait(deadline, "no completion event within the time limit", owners,
                                       "ibv_get_cq_event")



from .endpoint import Endpoint  # noqa: E402  (an event channel's ids; endpoint.py imports this module)
