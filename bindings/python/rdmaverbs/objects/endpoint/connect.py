"""An endpoint's rdma_cm events and connection set-up (resolve, bind,
listen, get_request, connect, accept, disconnect), blocking and awaited:
a part of Endpoint."""
from __future__ import annotations

import ctypes as C
import errno as _errno
import weakref
from typing import TYPE_CHECKING, Any, AsyncIterator, Iterator, Optional, Tuple, Union, cast

from ..._api import (RDMA_CM_EVENT_ADDR_RESOLVED, rdma_cm_id, RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_DISCONNECTED,
                     RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_EVENT_ROUTE_RESOLVED, RDMA_PS_TCP, RAI_PASSIVE,
                     rdma_addrinfo, rdma_conn_param, rdma_event_channel)
from ... import raw as _R
from .._base import _check_int, _deadline, _error, _ms, _readable
from ..aio import _Readiness
from ..channel import CMEvent, EventChannel
from ..errors import CMEventError

if TYPE_CHECKING:
    from . import Endpoint
    from .._base import Resource as _Base
else:
    _Base = object


def _addrinfo(addr: Optional[str], port: Union[int, str, None], passive: bool) -> Any:
    """rdma_getaddrinfo's list (a c_void_p; rdma_freeaddrinfo frees it)."""
    hints = rdma_addrinfo(ai_port_space=RDMA_PS_TCP, ai_flags=RAI_PASSIVE if passive else 0)
    res = C.c_void_p()
    node = addr.encode() if addr else None
    service = str(port).encode() if port is not None else None
    _check_int(_R.rdma_getaddrinfo(node, service, C.byref(hints), C.byref(res)), "rdma_getaddrinfo")
    return res


def _conn_param(responder_resources: int, initiator_depth: int, retry_count: int,
                rnr_retry_count: int, private_data: Optional[bytes]) -> Tuple[rdma_conn_param, Any]:
    keep = C.create_string_buffer(private_data, len(private_data)) if private_data else None
    p = rdma_conn_param(responder_resources=responder_resources, initiator_depth=initiator_depth,
                        retry_count=retry_count, rnr_retry_count=rnr_retry_count,
                        private_data=C.addressof(keep) if keep is not None else None,
                        private_data_len=len(private_data) if private_data else 0)
    return p, keep


class _cm:
    """librdmacm's calls that the generated layer does not bind (looked
    up at each call: a test may put a fake in its place)."""

    _lib = C.CDLL("librdmacm.so.1", use_errno=True)
    rdma_migrate_id = _lib.rdma_migrate_id
    rdma_migrate_id.restype, rdma_migrate_id.argtypes = C.c_int, [C.c_void_p, C.c_void_p]


class _Connection(_Base):
    """Endpoint's events and connection set-up (Endpoint inherits it)."""

    channel: Optional[EventChannel]
    _by_ep: bool
    _own_channel: Optional[EventChannel]
    _listening: bool
    _request_readiness: Optional[_Readiness]

    if TYPE_CHECKING:
        @property
        def _id(self) -> "rdma_cm_id": ...

    # -- events --

    def get_event(self, timeout: Optional[float] = None) -> CMEvent:
        """This id's next rdma_cm event (acknowledged already); TimeoutError
        when none comes within timeout seconds.
        Raises OSError (rdma_get_cm_event's errno), TimeoutError (ETIMEDOUT),
        ValueError (closed); ValueError for an Endpoint.create id before it
        connects or accepts (its events are librdmacm's)."""
        self._check_open("rdma_get_cm_event")
        if self.channel is None:
            raise ValueError("rdma_get_cm_event: an Endpoint made by rdma_create_ep has no events of its own "
                             "until it connects or accepts")
        return self.channel._next(cast("Endpoint", self), _deadline(timeout))

    async def aget_event(self, timeout: Optional[float] = None) -> CMEvent:
        """get_event, awaited (the channel's fd watched by the loop).
        Raises what get_event raises."""
        self._check_open("rdma_get_cm_event")
        if self.channel is None:
            raise ValueError("rdma_get_cm_event: an Endpoint made by rdma_create_ep has no events of its own "
                             "until it connects or accepts")
        return await self.channel._anext(cast("Endpoint", self), _deadline(timeout))

    def _evented(self) -> Optional[EventChannel]:
        """The id's event channel. An Endpoint.create id, whose events
        librdmacm reads inside its own calls (rdma_connect and rdma_accept
        wait there, without a limit), is moved onto one of its own first
        (rdma_migrate_id), closed after the id: its events are then
        awaited, bounded. None: an id of the raw layer's without one."""
        ch = self.channel
        if ch is None and self._by_ep:
            ch = EventChannel()
            if _cm.rdma_migrate_id(self._h("rdma_migrate_id"), ch._handle) < 0:
                err = C.get_errno()
                ch.close()
                raise _error(err, "rdma_migrate_id")
            self.channel = self._own_channel = ch
            ch._ids[self._handle] = weakref.ref(cast("Endpoint", self))
        return ch

    def _async_evented(self, fn: str) -> None:
        if self._evented() is None:
            raise ValueError(f"{fn}: an id of the raw layer's without an event channel: use the blocking form")

    @staticmethod
    def _expected(ev: CMEvent, want: int, fn: str = "rdma_get_cm_event") -> CMEvent:
        if ev.event != want or ev.status:
            raise CMEventError(ev, want, fn)
        return ev

    def expect(self, want: int, timeout: Optional[float] = None) -> CMEvent:
        """The next event, which must be `want` with status 0 (else
        CMEventError).
        Raises CMEventError (another event, or a status: its errno) and what
        get_event raises."""
        return self._expected(self.get_event(timeout), want)

    async def aexpect(self, want: int, timeout: Optional[float] = None) -> CMEvent:
        """expect, awaited.
        Raises what expect raises."""
        """expect, awaited.
        Raises what expect raises."""
        return self._expected(await self.aget_event(timeout), want)

    # -- connecting (event-driven ids; blocking and async) --

    def _start_resolve(self, addr: str, port: Union[int, str], timeout: float) -> None:
        res = _addrinfo(addr, port, False)
        try:
            dst = rdma_addrinfo.from_address(res.value).ai_dst_addr
            _check_int(_R.rdma_resolve_addr(self._h("rdma_resolve_addr"), None, dst, _ms(timeout)), "rdma_resolve_addr")
        finally:
            _R.rdma_freeaddrinfo(res)

    def resolve(self, addr: str, port: Union[int, str], timeout: float = 2.0) -> None:
        """rdma_resolve_addr then rdma_resolve_route, each awaited
        (ADDR_RESOLVED, ROUTE_RESOLVED) within timeout seconds.
        Raises OSError (rdma_getaddrinfo's, rdma_resolve_addr's or
        rdma_resolve_route's errno), CMEventError (ADDR_ERROR, ROUTE_ERROR:
        EHOSTUNREACH, ...), TimeoutError (ETIMEDOUT), ValueError (closed)."""
        self._start_resolve(addr, port, timeout)
        self._expected(self.get_event(timeout + 1), RDMA_CM_EVENT_ADDR_RESOLVED, "rdma_resolve_addr")
        _check_int(_R.rdma_resolve_route(self._h("rdma_resolve_route"), _ms(timeout)), "rdma_resolve_route")
        self._expected(self.get_event(timeout + 1), RDMA_CM_EVENT_ROUTE_RESOLVED, "rdma_resolve_route")

    async def aresolve(self, addr: str, port: Union[int, str], timeout: float = 2.0) -> None:
        """resolve, awaited.
        Raises what resolve raises."""
        """resolve, awaited.
        Raises what resolve raises."""
        self._start_resolve(addr, port, timeout)
        self._expected(await self.aget_event(timeout + 1), RDMA_CM_EVENT_ADDR_RESOLVED, "rdma_resolve_addr")
        _check_int(_R.rdma_resolve_route(self._h("rdma_resolve_route"), _ms(timeout)), "rdma_resolve_route")
        self._expected(await self.aget_event(timeout + 1), RDMA_CM_EVENT_ROUTE_RESOLVED, "rdma_resolve_route")

    def bind(self, addr: Optional[str], port: Union[int, str]) -> None:
        """rdma_bind_addr to addr:port (passive rdma_getaddrinfo).
        Raises OSError (rdma_getaddrinfo's or rdma_bind_addr's errno),
        ValueError (closed)."""
        res = _addrinfo(addr, port, True)
        try:
            src = rdma_addrinfo.from_address(res.value).ai_src_addr
            _check_int(_R.rdma_bind_addr(self._h("rdma_bind_addr"), src), "rdma_bind_addr")
        finally:
            _R.rdma_freeaddrinfo(res)

    def listen(self, backlog: int = 1) -> None:
        """rdma_listen: connection requests come (get_request, or iterate
        the endpoint).
        Raises OSError (rdma_listen's errno), ValueError (closed)."""
        _check_int(_R.rdma_listen(self._h("rdma_listen"), backlog), "rdma_listen")
        self._listening = True

    def get_request(self, timeout: Optional[float] = None) -> "Endpoint":
        """The next connection request, as a new Endpoint (event-driven: a
        CONNECT_REQUEST event; made by rdma_create_ep: rdma_get_request,
        with its QP).
        Raises OSError (rdma_get_request's or rdma_get_cm_event's errno),
        CMEventError, TimeoutError (ETIMEDOUT), ValueError (closed)."""
        if self.channel is None:
            from . import Endpoint
            _readable(rdma_event_channel.from_address(self._id.channel).fd, _deadline(timeout),
                      "rdma_get_request", "no connection request within the time limit")
            h = C.c_void_p()
            _check_int(_R.rdma_get_request(self._h("rdma_get_request"), C.byref(h)), "rdma_get_request")
            return Endpoint(h.value or 0, by_ep=True)
        return self.expect(RDMA_CM_EVENT_CONNECT_REQUEST, timeout).id

    async def aget_request(self, timeout: Optional[float] = None) -> "Endpoint":
        """get_request, awaited (made by rdma_create_ep: the listener's own
        channel watched by the loop, then rdma_get_request).
        Raises OSError (rdma_get_request's or rdma_get_cm_event's errno),
        CMEventError, TimeoutError (ETIMEDOUT), ValueError (closed)."""
        if self.channel is not None:
            return (await self.aexpect(RDMA_CM_EVENT_CONNECT_REQUEST, timeout)).id
        from . import Endpoint
        deadline = _deadline(timeout)
        if self._request_readiness is None:     # (its fd made non-blocking: rdma_get_request then never blocks)
            self._request_readiness = _Readiness(rdma_event_channel.from_address(self._id.channel).fd)
        while True:
            h = C.c_void_p()
            if _R.rdma_get_request(self._h("rdma_get_request"), C.byref(h)) == 0:
                return Endpoint(h.value or 0, by_ep=True)
            err = C.get_errno()
            if err not in (_errno.EAGAIN, _errno.EWOULDBLOCK):
                raise _error(err, "rdma_get_request")
            await self._request_readiness.wait(deadline, "no connection request within the time limit",
                                               (self,), "rdma_get_request")

    def __iter__(self) -> Iterator["Endpoint"]:
        """A listener's connection requests, one Endpoint each
        (get_request: made by Endpoint.create, with its QP; not accepted
        yet: post its receives, then accept), listening first if it does
        not yet; it ends when the listener is closed.
        Raises (from the iteration) what get_request raises but the closed
        error, which ends it."""
        if not self._listening:
            self.listen()
        while not self._closed:
            try:
                yield self.get_request()
            except ValueError:
                if self._closed:
                    return
                raise

    def __aiter__(self) -> AsyncIterator["Endpoint"]:
        """The connection requests, as __iter__, awaited (aget_request).
        Raises (from the iteration) what aget_request raises but the closed
        error, which ends it."""
        if not self._listening:
            self.listen()
        return self._requests()

    async def _requests(self) -> AsyncIterator["Endpoint"]:
        while not self._closed:
            try:
                ep = await self.aget_request()
            except ValueError:
                if self._closed:
                    return
                raise
            yield ep

    def connect(self, *, responder_resources: int = 1, initiator_depth: int = 1, retry_count: int = 7,
                rnr_retry_count: int = 7, private_data: Optional[bytes] = None,
                timeout: Optional[float] = 60.0) -> None:
        """rdma_connect, then ESTABLISHED awaited within timeout seconds
        (an Endpoint.create id's events moved onto a channel of its own
        first: librdmacm would wait inside, without a limit).
        Raises OSError (rdma_connect's or rdma_migrate_id's errno),
        CMEventError (REJECTED: ECONNREFUSED, ...), TimeoutError (ETIMEDOUT),
        ValueError (closed)."""
        self._evented()
        p, keep = _conn_param(responder_resources, initiator_depth, retry_count, rnr_retry_count, private_data)
        _check_int(_R.rdma_connect(self._h("rdma_connect"), C.byref(p)), "rdma_connect")
        if self.channel is not None:
            self._expected(self.get_event(timeout), RDMA_CM_EVENT_ESTABLISHED, "rdma_connect")

    async def aconnect(self, *, responder_resources: int = 1, initiator_depth: int = 1, retry_count: int = 7,
                       rnr_retry_count: int = 7, private_data: Optional[bytes] = None,
                       timeout: Optional[float] = 60.0) -> None:
        """connect, awaited: ESTABLISHED within timeout seconds (an
        Endpoint.create id's events moved onto a channel of its own
        first).
        Raises OSError (rdma_connect's or rdma_migrate_id's errno),
        CMEventError (REJECTED: ECONNREFUSED, ...), TimeoutError (ETIMEDOUT),
        ValueError (closed); ValueError for an id of the raw layer's without
        an event channel."""
        self._async_evented("rdma_connect")
        p, keep = _conn_param(responder_resources, initiator_depth, retry_count, rnr_retry_count, private_data)
        _check_int(_R.rdma_connect(self._h("rdma_connect"), C.byref(p)), "rdma_connect")
        self._expected(await self.aget_event(timeout), RDMA_CM_EVENT_ESTABLISHED, "rdma_connect")

    def accept(self, *, responder_resources: int = 1, initiator_depth: int = 1, retry_count: int = 7,
               rnr_retry_count: int = 7, private_data: Optional[bytes] = None,
               timeout: Optional[float] = 60.0) -> None:
        """rdma_accept, then ESTABLISHED awaited within timeout seconds (as
        connect).
        Raises OSError (rdma_accept's or rdma_migrate_id's errno),
        CMEventError (another event: its errno), TimeoutError (ETIMEDOUT),
        ValueError (closed)."""
        self._evented()
        p, keep = _conn_param(responder_resources, initiator_depth, retry_count, rnr_retry_count, private_data)
        _check_int(_R.rdma_accept(self._h("rdma_accept"), C.byref(p)), "rdma_accept")
        if self.channel is not None:
            self._expected(self.get_event(timeout), RDMA_CM_EVENT_ESTABLISHED, "rdma_accept")

    async def aaccept(self, *, responder_resources: int = 1, initiator_depth: int = 1, retry_count: int = 7,
                      rnr_retry_count: int = 7, private_data: Optional[bytes] = None,
                      timeout: Optional[float] = 60.0) -> None:
        """accept, awaited (as aconnect).
        Raises what accept raises."""
        self._async_evented("rdma_accept")
        p, keep = _conn_param(responder_resources, initiator_depth, retry_count, rnr_retry_count, private_data)
        _check_int(_R.rdma_accept(self._h("rdma_accept"), C.byref(p)), "rdma_accept")
        self._expected(await self.aget_event(timeout), RDMA_CM_EVENT_ESTABLISHED, "rdma_accept")

    def disconnect(self, timeout: Optional[float] = 60.0, wait: bool = True) -> None:
        """rdma_disconnect, then (event-driven, wait) DISCONNECTED awaited.
        Raises OSError (rdma_disconnect's errno), CMEventError, TimeoutError
        (ETIMEDOUT), ValueError (closed)."""
        _check_int(_R.rdma_disconnect(self._h("rdma_disconnect")), "rdma_disconnect")
        if self.channel is not None and wait:
            self._expected(self.get_event(timeout), RDMA_CM_EVENT_DISCONNECTED, "rdma_disconnect")

    async def adisconnect(self, timeout: Optional[float] = 60.0, wait: bool = True) -> None:
        """disconnect, awaited.
        Raises what disconnect raises."""
        """disconnect, awaited.
        Raises what disconnect raises."""
        _check_int(_R.rdma_disconnect(self._h("rdma_disconnect")), "rdma_disconnect")
        if self.channel is not None and wait:
            self._expected(await self.aget_event(timeout), RDMA_CM_EVENT_DISCONNECTED, "rdma_disconnect")
