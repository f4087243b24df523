"""rdmaverbs' objects: the raw layer's handles as Python objects that close
themselves, hold the memory the device uses, and wait (with a time limit
if given), blocking or in asyncio.

- EventChannel, Endpoint (an rdma_cm id, with its QP), PD, MR, CompChannel,
  CQ, SRQ, QP: each is a context manager; close() destroys it, and is
  called by `with`, by its parent's close(), and, for one dropped without
  being closed, when Python collects it (with a ResourceWarning, as an
  unclosed file has).
- Closing a parent closes its children first, newest first, so that
  whatever the program does, the C objects are destroyed in the order
  verbs needs (a QP before its CQs, SRQ and PD; an MR before its PD; a CQ
  before its completion channel; every object of an id before the id;
  every id before its event channel). A child holds its parents: a
  parent is never collected before its children.
- Memory kept alive: an MR holds its buffer (a bytearray, a ctypes array,
  an mmap, any writable buffer: its size is locked while registered), and
  a posted work request holds the MRs it names until its completion has
  been reaped through these objects (CQ.poll/get/aget, Endpoint's
  get_*_comp), or its queue is destroyed (an id's own QP, which
  rdma_create_ep made: when the id is). A completion in error releases
  nothing: what was posted to that QP stays held until the QP closes. An
  object collected whose destroy fails (its C object lives on) keeps what
  it held for the life of the process, with a RuntimeWarning.
- A failed call raises OSError with its errno (TimeoutError, a subclass,
  for ETIMEDOUT); a completion in error, from the calls that wait for one
  completion, raises CompletionError.
- Waits: timeout in seconds. Every wait can be bounded (but an
  Endpoint.create id's connect and accept: librdmacm waits inside); None
  is no limit, the default of get_event, expect, get_request,
  get_send_comp, get_recv_comp, get_cq_event and CQ.get (connect, accept
  and disconnect: 60 s; resolve: 2 s). The async form (a* methods) waits
  with the running loop's add_reader (one reader an fd, whoever waits on
  it) and never blocks the loop.
"""
from __future__ import annotations

import ctypes as C
import errno as _errno
import fcntl
import itertools
import mmap
import os
import select
import socket
import struct as _struct
import time
import warnings
import weakref
from collections import deque
from typing import (TYPE_CHECKING, Any, Callable, Deque, Dict, List, Optional, Sequence, Tuple, Union)

from . import _api
from ._api import (IBV_ACCESS_LOCAL_WRITE, IBV_QPT_RC, IBV_WC_RECV, RDMA_CM_EVENT_ADDR_RESOLVED,
                   RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_DISCONNECTED, RDMA_CM_EVENT_ESTABLISHED,
                   RDMA_CM_EVENT_ROUTE_RESOLVED, RDMA_PS_TCP, RAI_PASSIVE, ibv_comp_channel, ibv_mr, ibv_qp,
                   ibv_qp_cap, ibv_qp_init_attr, ibv_recv_wr, ibv_send_wr, ibv_sge, ibv_srq_attr,
                   ibv_srq_init_attr, ibv_wc, rdma_addrinfo, rdma_cm_event, rdma_cm_event_param, rdma_cm_id,
                   rdma_conn_param, rdma_event_channel, sockaddr_in)

# The package's raw ctypes functions (their class: each is looked up at its
# call, so that a test may put a fake in its place).
from . import raw as _R  # noqa: E402

if TYPE_CHECKING:
    import asyncio


def _nogil(fn: Any) -> Any:
    """A raw function, called without releasing the GIL (for the calls
    that never block: posts, polls, arming), errno saved as it saves it;
    a few hundred nanoseconds less a call than ctypes' default. fn itself
    where ctypes lacks what this needs."""
    try:
        flags = C._FUNCFLAG_CDECL | C._FUNCFLAG_PYTHONAPI | C._FUNCFLAG_USE_ERRNO  # type: ignore[attr-defined]
        proto = type("_NoGIL", (C._CFuncPtr,), {"_argtypes_": tuple(fn.argtypes),  # type: ignore[attr-defined]
                                                 "_restype_": fn.restype, "_flags_": flags})
        return proto(C.cast(fn, C.c_void_p).value)
    except (AttributeError, TypeError):
        return fn


# The data path's functions that never block (looked up once: a test that
# replaces one replaces it here).
_post_send = _nogil(_R.rdma_post_send)
_post_recv = _nogil(_R.rdma_post_recv)
_poll_cq = _nogil(_R.ibv_poll_cq)
_req_notify_cq = _nogil(_R.ibv_req_notify_cq)
_INLINE = _api.IBV_SEND_INLINE

__all__ = ["Resource", "EventChannel", "Endpoint", "CMEvent", "PD", "MR", "CompChannel", "CQ", "SRQ", "QP",
           "SendWR", "RecvWR", "Sge", "Buffer", "CompletionError", "CMEventError", "PostError"]

# A writable buffer (bytearray, ctypes array, mmap, memoryview of one) or a
# size in bytes (zeroed memory, 8-byte aligned, allocated for the MR);
# a type checker refuses anything else (bytes and str are not writable).
Buffer = Union[int, bytearray, memoryview, mmap.mmap, "C.Array[Any]"]
# A scatter/gather element: an MR, an offset into it and a length.
Sge = Tuple["MR", int, int]

# None as a time limit: the most poll(2) takes (24 days), so that a blocking
# wait always polls the descriptor first (a channel may be non-blocking).
_FOREVER_MS = 2 ** 31 - 1
_serial = itertools.count(1)


def _error(err: int, what: str) -> OSError:
    """OSError(err) (a TimeoutError for ETIMEDOUT, ...), saying what failed."""
    return OSError(err, f"{what}: {os.strerror(err)}")


def _check_int(r: int, what: str) -> int:
    """A -1-and-errno call's result, raised when negative."""
    if r < 0:
        raise _error(C.get_errno(), what)
    return r


def _check_errno(r: int, what: str) -> None:
    """An errno-value call's result, raised when not 0."""
    if r:
        raise _error(r, what)


def _check_ptr(p: Optional[int], what: str) -> int:
    if not p:
        raise _error(C.get_errno() or _errno.EIO, what)
    return p


def _ms(timeout: Optional[float]) -> int:
    """A timeout in seconds as whole milliseconds for C (rounded up)."""
    if timeout is None:
        return _FOREVER_MS
    if timeout <= 0:
        return 0
    return min(_FOREVER_MS, int(-(-timeout * 1000 // 1)))


def _deadline(timeout: Optional[float]) -> Optional[float]:
    return None if timeout is None else time.monotonic() + max(timeout, 0.0)


def _left(deadline: Optional[float]) -> Optional[float]:
    return None if deadline is None else max(0.0, deadline - time.monotonic())


def _readable(fd: int, deadline: Optional[float], what: str) -> None:
    """Waits (poll(2)) until fd is readable; TimeoutError at the deadline."""
    p = select.poll()
    p.register(fd, select.POLLIN)
    while True:
        left = _left(deadline)
        if p.poll(_FOREVER_MS if left is None else _ms(left)):
            return
        if left is not None and time.monotonic() >= deadline:   # type: ignore[operator]
            raise _error(_errno.ETIMEDOUT, what)


# What the objects collected without being destroyed (a destroy that
# failed in their finalizer: the C object lives on) leave the device:
# (their repr, what they held), kept for the life of the process.
_leaked: List[Tuple[str, Any]] = []

# Whether this process has made a channel's fd non-blocking (for asyncio):
# until it has, a wait without a time limit is the original's blocking read
# (rdma_get_*_comp_timeout's -1), with no poll(2) before it.
_made_nonblocking = False


def _nonblocking(fd: int) -> None:
    global _made_nonblocking
    _made_nonblocking = True
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    if not flags & os.O_NONBLOCK:
        fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)


# The futures waiting for each fd's readiness, per loop ((id(loop), fd)):
# asyncio keeps one reader per fd, so one reader is added for all the
# waiters on an fd (an Endpoint's completion wait and its CQ's channel's
# event wait can watch the same fd) and wakes them all; removed when the
# last one stops waiting. An entry lives only while a waiter's future
# (which holds its loop) does.
_watchers: Dict[Tuple[int, int], List["asyncio.Future[None]"]] = {}


def _wake(loop: "asyncio.AbstractEventLoop", fd: int) -> None:
    futures = _watchers.pop((id(loop), fd), [])
    loop.remove_reader(fd)
    for f in futures:
        if not f.done():
            f.set_result(None)


class _Readiness:
    """An fd's readiness in asyncio (the running loop's add_reader, one per
    fd and loop whoever waits on it): any number of tasks may wait on it
    at once; all are woken, each then reads what it can without blocking
    (the fd is O_NONBLOCK)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        _nonblocking(fd)

    async def wait(self, deadline: Optional[float], what: str) -> None:
        """Until the fd is readable; TimeoutError (ETIMEDOUT) at the deadline."""
        import asyncio
        loop = asyncio.get_running_loop()
        fut: "asyncio.Future[None]" = loop.create_future()
        key = (id(loop), self.fd)
        # (Added again when others wait already: the same reader, so
        # that the fd is watched whatever happened to an earlier one.)
        loop.add_reader(self.fd, _wake, loop, self.fd)
        _watchers.setdefault(key, []).append(fut)
        left = _left(deadline)
        timer = None if left is None else loop.call_later(left, _expire, fut, what)
        try:
            await fut
        finally:
            if timer is not None:
                timer.cancel()
            waiting = _watchers.get(key)
            if waiting is not None and fut in waiting:
                waiting.remove(fut)
                if not waiting:
                    del _watchers[key]
                    loop.remove_reader(self.fd)


def _expire(fut: "asyncio.Future[None]", what: str) -> None:
    if not fut.done():
        fut.set_exception(_error(_errno.ETIMEDOUT, what))


class CompletionError(OSError):
    """A completion whose status is not IBV_WC_SUCCESS, from a call that
    waits for one completion: errno EIO, .wc the completion, .status its
    status (ibv_wc_status_str says it in words)."""

    def __init__(self, wc: ibv_wc) -> None:
        from . import ibv_wc_status_str
        super().__init__(_errno.EIO, f"completion of wr_id {wc.wr_id:#x}: {ibv_wc_status_str(wc.status)} "
                                     f"(status {wc.status}, vendor_err {wc.vendor_err:#x})")
        self.wc = wc
        self.status: int = wc.status


class CMEventError(OSError):
    """An rdma_cm event other than the one awaited (REJECTED, UNREACHABLE,
    ...) or one with a status: .event the event, errno its status if
    negative, else ECONNREFUSED (REJECTED), EHOSTUNREACH (UNREACHABLE,
    ADDR_ERROR, ROUTE_ERROR) or EPROTO."""

    def __init__(self, event: "CMEvent", want: int) -> None:
        from . import rdma_event_str
        err = -event.status if event.status < 0 else {
            _api.RDMA_CM_EVENT_REJECTED: _errno.ECONNREFUSED,
            _api.RDMA_CM_EVENT_UNREACHABLE: _errno.EHOSTUNREACH,
            _api.RDMA_CM_EVENT_ADDR_ERROR: _errno.EHOSTUNREACH,
            _api.RDMA_CM_EVENT_ROUTE_ERROR: _errno.EHOSTUNREACH,
            _api.RDMA_CM_EVENT_CONNECT_ERROR: _errno.ECONNRESET,
        }.get(event.event, _errno.EPROTO)
        super().__init__(err, f"rdma_cm event {rdma_event_str(event.event)} status {event.status}, "
                              f"waiting for {rdma_event_str(want)}")
        self.event = event


class PostError(OSError):
    """A post the provider refused (its errno value): .index is the first
    work request of the list not posted (those before it were)."""

    def __init__(self, err: int, what: str, index: int) -> None:
        super().__init__(err, f"{what}: {os.strerror(err)} (work request {index} and after not posted)")
        self.index = index


class Resource:
    """What every object shares: its C handle, its parents and children,
    close() (children first, newest first), `with`, and the safety net of
    collection."""

    _kind = "resource"

    def __init__(self, handle: int, parents: Sequence[Optional["Resource"]] = (), owned: bool = True) -> None:
        self._handle = handle
        self._owned = owned
        self._closed = True        # until made: a failed constructor's __del__ does nothing
        self._serial = next(_serial)
        self._children: Dict[int, "weakref.ReferenceType[Resource]"] = {}
        self._close_after_children = False
        self._parents: Tuple[Resource, ...] = tuple(p for p in parents if p is not None)
        for p in self._parents:
            p._check_open()
        for p in self._parents:
            p._children[self._serial] = weakref.ref(self)
        self._closed = False

    @property
    def handle(self) -> int:
        """The C object's address, for the raw layer's functions."""
        self._check_open()
        return self._handle

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError(f"{self!r} is closed")

    def _destroy(self) -> None:
        """Destroys the C object (raises OSError if it cannot)."""

    def _released(self) -> None:
        """After the C object is gone: what it held is let go."""

    def _held(self) -> Any:
        """What the device may still use while the C object lives (an MR's
        memory, the buffers posted to a queue): kept for good if it cannot
        be destroyed when collected."""
        return None

    def close(self) -> None:
        """Closes the children still open (newest first), then destroys this
        object. Closing a closed object does nothing. A child or this
        object that cannot be destroyed raises its OSError and stays open
        (so does this one, then)."""
        if self._closed:
            return
        first: Optional[BaseException] = None
        collected = False
        for serial, ref in reversed(list(self._children.items())):
            if serial not in self._children:
                # Closed meanwhile: an MR that a sibling held (a QP's posts),
                # let go by its close, collected and closed then.
                continue
            child = ref()
            if child is None:
                # Being collected with this object (the collector clears
                # weak references before it finalizes): it closes first,
                # then closes this one (below). (One collected whose
                # destroy failed is listed no more: _abandon.)
                collected = True
                continue
            try:
                child.close()
            except OSError as e:
                first = first or e
        if first is not None:
            raise first
        if collected:
            self._close_after_children = True
            return
        if self._owned:
            self._destroy()
        self._closed = True
        self._released()
        parents, self._parents = self._parents, ()
        self._leave(parents)

    def __enter__(self: "_Self") -> "_Self":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # Nothing may escape a finalizer (noqa: BLE001 below).
        if getattr(self, "_closed", True):
            return
        if self._owned:
            try:
                warnings.warn(f"unclosed {self!r}, closed when collected", ResourceWarning, source=self)
            except Exception:   # noqa: BLE001 (warnings made errors)
                pass
        try:
            self.close()
        except Exception as e:   # noqa: BLE001
            self._abandon(e)

    def _leave(self, parents: Tuple["Resource", ...]) -> None:
        """No longer a child of parents; a parent that was waiting to close
        after its children (being collected, as they were) is closed now,
        or abandoned if it cannot be."""
        for p in parents:
            if p._children.pop(self._serial, None) is None:
                continue
            if p._close_after_children and not p._children and not p._closed:
                try:
                    p.close()
                except Exception as e:   # noqa: BLE001 (being collected, as its children were)
                    p._abandon(e)

    def _abandon(self, error: BaseException) -> None:
        """Collected, but its C object could not be destroyed (error): what
        the device may still use (an MR's memory, the buffers posted to a
        queue) is kept in _leaked for the life of the process, a
        RuntimeWarning says so, and its parents no longer wait for it (so
        that their close() goes on: their own destroy fails if C still
        needs this one; a parent that was waiting to close after it, being
        collected too, is closed now)."""
        _leaked.append((repr(self), self._held()))
        self._leave(self._parents)
        try:
            warnings.warn(f"{self!r} could not be destroyed when collected ({error}): its C object and "
                          f"what the device may use are leaked, kept for the life of the process",
                          RuntimeWarning)
        except Exception:   # noqa: BLE001 (warnings made errors, or at exit)
            pass

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"{self._handle:#x}"
        return f"<rdmaverbs.{type(self).__name__} {state}>"


if TYPE_CHECKING:
    from typing import TypeVar
    _Self = TypeVar("_Self", bound=Resource)


def _addrinfo(addr: Optional[str], port: Union[int, str, None], passive: bool) -> Any:
    """rdma_getaddrinfo's list (a c_void_p; rdma_freeaddrinfo frees it)."""
    hints = rdma_addrinfo(ai_port_space=RDMA_PS_TCP, ai_flags=RAI_PASSIVE if passive else 0)
    res = C.c_void_p()
    node = addr.encode() if addr else None
    service = str(port).encode() if port is not None else None
    _check_int(_R.rdma_getaddrinfo(node, service, C.byref(hints), C.byref(res)), "rdma_getaddrinfo")
    return res


def _sockaddr(sa: Optional[int]) -> Tuple[str, int]:
    """A sockaddr_in's or sockaddr_in6's (address, port in host order); an
    IPv6 address with a scope (link-local) as "fe80::1%eth0", as
    getaddrinfo takes it back. Another family (AF_IB) raises EAFNOSUPPORT."""
    if not sa:
        return ("", 0)
    sin = sockaddr_in.from_address(sa)
    if sin.sin_family == socket.AF_INET:
        return (socket.inet_ntoa(_struct.pack("=I", sin.sin_addr)), socket.ntohs(sin.sin_port))
    if sin.sin_family != socket.AF_INET6:
        raise OSError(_errno.EAFNOSUPPORT, f"address family {sin.sin_family}: neither IPv4 nor IPv6")
    # struct sockaddr_in6: family, port (network order), flowinfo, the
    # address's 16 bytes, scope_id (host order).
    raw = C.string_at(sa, 28)
    (port,), addr, (scope,) = _struct.unpack("!H", raw[2:4]), raw[8:24], _struct.unpack("=I", raw[24:28])
    host = socket.inet_ntop(socket.AF_INET6, addr)
    if scope:
        try:
            host += "%" + socket.if_indextoname(scope)
        except OSError:
            host += f"%{scope}"
    return (host, port)


def _conn_param(responder_resources: int, initiator_depth: int, retry_count: int,
                rnr_retry_count: int, private_data: Optional[bytes]) -> Tuple[rdma_conn_param, Any]:
    keep = C.create_string_buffer(private_data, len(private_data)) if private_data else None
    p = rdma_conn_param(responder_resources=responder_resources, initiator_depth=initiator_depth,
                        retry_count=retry_count, rnr_retry_count=rnr_retry_count,
                        private_data=C.addressof(keep) if keep is not None else None,
                        private_data_len=len(private_data) if private_data else 0)
    return p, keep


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
        from . import rdma_event_str
        return f"<CMEvent {rdma_event_str(self.event)} status {self.status} {self.id!r}>"


class EventChannel(Resource):
    """An rdma_cm event channel (rdma_create_event_channel); its ids are
    event-driven Endpoints (create_id). Its fd is non-blocking: waits poll
    it (blocking form) or watch it with the loop's add_reader (async
    form). Closing it closes its Endpoints first."""

    _kind = "event channel"

    def __init__(self) -> None:
        super().__init__(_check_ptr(_R.rdma_create_event_channel(), "rdma_create_event_channel"))
        self.fd: int = rdma_event_channel.from_address(self._handle).fd
        _nonblocking(self.fd)
        self._ids: Dict[int, "weakref.ReferenceType[Endpoint]"] = {}
        self._readiness: Optional[_Readiness] = None

    def _destroy(self) -> None:
        _R.rdma_destroy_event_channel(self._handle)

    def create_id(self, ps: int = RDMA_PS_TCP) -> "Endpoint":
        """A new id on this channel (rdma_create_id), as an Endpoint."""
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
                _readable(self.fd, deadline, "no rdma_cm event within the time limit")
        return ep._events.popleft()

    async def _anext(self, ep: "Endpoint", deadline: Optional[float]) -> CMEvent:
        while not ep._events:
            if not self._read():
                if self._readiness is None:
                    self._readiness = _Readiness(self.fd)
                await self._readiness.wait(deadline, "no rdma_cm event within the time limit")
        return ep._events.popleft()


class Endpoint(Resource):
    """An rdma_cm id and its QP: either event-driven, on an EventChannel
    (create_id; resolve, connect, bind, listen, get_request, accept,
    disconnect wait for their events with a time limit, blocking or
    async), or made by rdma_create_ep (Endpoint.create: librdmacm waits
    inside connect and accept itself). The rdma_verbs.h data path on the
    id's QP: post_send, post_recv, post_read, post_write, the vectored
    posts, get_send_comp and get_recv_comp (and their async forms).
    Closing it closes what was made on it (PD, CQs, QP, MRs) first."""

    _kind = "endpoint"

    def __init__(self, handle: int, channel: Optional[EventChannel] = None, owned: bool = True,
                 by_ep: bool = False) -> None:
        super().__init__(handle, (channel,), owned)
        self.channel = channel
        self._by_ep = by_ep
        self._events: Deque[CMEvent] = deque()
        self._qp: Optional[QP] = None
        # What is posted to the id's own QP (one rdma_create_ep or
        # rdma_get_request made, or the raw layer): held here, not by the
        # QP object over it (ep.qp, closed first when this closes), until
        # the id is destroyed (rdma_destroy_ep destroys that QP).
        self._sq: Deque[Tuple[int, Any]] = deque()
        self._rq: Deque[Tuple[int, Any]] = deque()
        self._cq_readiness: Dict[int, _Readiness] = {}
        if channel is not None:
            channel._ids[handle] = weakref.ref(self)

    # -- making one --

    @classmethod
    def create(cls, addr: Optional[str], port: Union[int, str], *, passive: bool = False,
               max_send_wr: int = 8, max_recv_wr: int = 8, max_send_sge: int = 1, max_recv_sge: int = 1,
               max_inline_data: int = 0, sq_sig_all: bool = True, qp_type: int = IBV_QPT_RC) -> "Endpoint":
        """rdma_getaddrinfo and rdma_create_ep: an id resolved to addr:port
        with its QP (on CQs and completion channels librdmacm makes), ready
        to connect(); or, passive, bound there, ready to listen() (the QP
        of each request's id made with these capabilities). Closing it is
        rdma_destroy_ep."""
        res = _addrinfo(addr, port, passive)
        try:
            attr = ibv_qp_init_attr(cap=ibv_qp_cap(max_send_wr, max_recv_wr, max_send_sge, max_recv_sge,
                                                   max_inline_data), qp_type=qp_type, sq_sig_all=int(sq_sig_all))
            h = C.c_void_p()
            _check_int(_R.rdma_create_ep(C.byref(h), res, None, C.byref(attr)), "rdma_create_ep")
        finally:
            _R.rdma_freeaddrinfo(res)
        return cls(h.value or 0, by_ep=True)

    @classmethod
    def wrap(cls, handle: int, channel: Optional[EventChannel] = None) -> "Endpoint":
        """An Endpoint over an id made with the raw layer: closing it does
        not destroy the id (nor its QP)."""
        return cls(handle, channel=channel, owned=False)

    def _destroy(self) -> None:
        if self._by_ep:
            _R.rdma_destroy_ep(self._handle)
        else:
            _check_int(_R.rdma_destroy_id(self._handle), "rdma_destroy_id")

    def _released(self) -> None:
        if self.channel is not None:
            self.channel._ids.pop(self._handle, None)
        self._qp = None
        self._sq.clear()
        self._rq.clear()

    def _held(self) -> Any:
        return self._sq, self._rq

    @property
    def _id(self) -> rdma_cm_id:
        return rdma_cm_id.from_address(self.handle)

    @property
    def verbs(self) -> int:
        """The id's device context (struct ibv_context *), for the raw layer."""
        return self._id.verbs or 0

    # -- events --

    def get_event(self, timeout: Optional[float] = None) -> CMEvent:
        """This id's next rdma_cm event (acknowledged already); TimeoutError
        when none comes within timeout seconds."""
        self._check_open()
        if self.channel is None:
            raise ValueError("an Endpoint made by rdma_create_ep has no events of its own")
        return self.channel._next(self, _deadline(timeout))

    async def aget_event(self, timeout: Optional[float] = None) -> CMEvent:
        """get_event, awaited (the channel's fd watched by the loop)."""
        self._check_open()
        if self.channel is None:
            raise ValueError("an Endpoint made by rdma_create_ep has no events of its own")
        return await self.channel._anext(self, _deadline(timeout))

    @staticmethod
    def _expected(ev: CMEvent, want: int) -> CMEvent:
        if ev.event != want or ev.status:
            raise CMEventError(ev, want)
        return ev

    def expect(self, want: int, timeout: Optional[float] = None) -> CMEvent:
        """The next event, which must be `want` with status 0 (else
        CMEventError)."""
        return self._expected(self.get_event(timeout), want)

    async def aexpect(self, want: int, timeout: Optional[float] = None) -> CMEvent:
        return self._expected(await self.aget_event(timeout), want)

    # -- connecting (event-driven ids; blocking and async) --

    def _start_resolve(self, addr: str, port: Union[int, str], timeout: float) -> None:
        res = _addrinfo(addr, port, False)
        try:
            dst = rdma_addrinfo.from_address(res.value).ai_dst_addr
            _check_int(_R.rdma_resolve_addr(self.handle, None, dst, _ms(timeout)), "rdma_resolve_addr")
        finally:
            _R.rdma_freeaddrinfo(res)

    def resolve(self, addr: str, port: Union[int, str], timeout: float = 2.0) -> None:
        """rdma_resolve_addr then rdma_resolve_route, each awaited
        (ADDR_RESOLVED, ROUTE_RESOLVED) within timeout seconds."""
        self._start_resolve(addr, port, timeout)
        self.expect(RDMA_CM_EVENT_ADDR_RESOLVED, timeout + 1)
        _check_int(_R.rdma_resolve_route(self.handle, _ms(timeout)), "rdma_resolve_route")
        self.expect(RDMA_CM_EVENT_ROUTE_RESOLVED, timeout + 1)

    async def aresolve(self, addr: str, port: Union[int, str], timeout: float = 2.0) -> None:
        self._start_resolve(addr, port, timeout)
        await self.aexpect(RDMA_CM_EVENT_ADDR_RESOLVED, timeout + 1)
        _check_int(_R.rdma_resolve_route(self.handle, _ms(timeout)), "rdma_resolve_route")
        await self.aexpect(RDMA_CM_EVENT_ROUTE_RESOLVED, timeout + 1)

    def bind(self, addr: Optional[str], port: Union[int, str]) -> None:
        """rdma_bind_addr to addr:port (passive rdma_getaddrinfo)."""
        res = _addrinfo(addr, port, True)
        try:
            src = rdma_addrinfo.from_address(res.value).ai_src_addr
            _check_int(_R.rdma_bind_addr(self.handle, src), "rdma_bind_addr")
        finally:
            _R.rdma_freeaddrinfo(res)

    def listen(self, backlog: int = 1) -> None:
        _check_int(_R.rdma_listen(self.handle, backlog), "rdma_listen")

    def get_request(self, timeout: Optional[float] = None) -> "Endpoint":
        """The next connection request, as a new Endpoint (event-driven: a
        CONNECT_REQUEST event; made by rdma_create_ep: rdma_get_request,
        with its QP)."""
        if self.channel is None:
            _readable(rdma_event_channel.from_address(self._id.channel).fd, _deadline(timeout),
                      "no connection request within the time limit")
            h = C.c_void_p()
            _check_int(_R.rdma_get_request(self.handle, C.byref(h)), "rdma_get_request")
            return Endpoint(h.value or 0, by_ep=True)
        return self.expect(RDMA_CM_EVENT_CONNECT_REQUEST, timeout).id

    async def aget_request(self, timeout: Optional[float] = None) -> "Endpoint":
        if self.channel is None:
            raise ValueError("an Endpoint made by rdma_create_ep waits in librdmacm: use get_request")
        return (await self.aexpect(RDMA_CM_EVENT_CONNECT_REQUEST, timeout)).id

    def connect(self, *, responder_resources: int = 1, initiator_depth: int = 1, retry_count: int = 7,
                rnr_retry_count: int = 7, private_data: Optional[bytes] = None,
                timeout: Optional[float] = 60.0) -> None:
        """rdma_connect, then (event-driven) ESTABLISHED awaited."""
        p, keep = _conn_param(responder_resources, initiator_depth, retry_count, rnr_retry_count, private_data)
        _check_int(_R.rdma_connect(self.handle, C.byref(p)), "rdma_connect")
        if self.channel is not None:
            self.expect(RDMA_CM_EVENT_ESTABLISHED, timeout)

    async def aconnect(self, *, responder_resources: int = 1, initiator_depth: int = 1, retry_count: int = 7,
                       rnr_retry_count: int = 7, private_data: Optional[bytes] = None,
                       timeout: Optional[float] = 60.0) -> None:
        if self.channel is None:
            raise ValueError("an Endpoint made by rdma_create_ep waits in librdmacm: use connect")
        p, keep = _conn_param(responder_resources, initiator_depth, retry_count, rnr_retry_count, private_data)
        _check_int(_R.rdma_connect(self.handle, C.byref(p)), "rdma_connect")
        await self.aexpect(RDMA_CM_EVENT_ESTABLISHED, timeout)

    def accept(self, *, responder_resources: int = 1, initiator_depth: int = 1, retry_count: int = 7,
               rnr_retry_count: int = 7, private_data: Optional[bytes] = None,
               timeout: Optional[float] = 60.0) -> None:
        """rdma_accept, then (event-driven) ESTABLISHED awaited."""
        p, keep = _conn_param(responder_resources, initiator_depth, retry_count, rnr_retry_count, private_data)
        _check_int(_R.rdma_accept(self.handle, C.byref(p)), "rdma_accept")
        if self.channel is not None:
            self.expect(RDMA_CM_EVENT_ESTABLISHED, timeout)

    async def aaccept(self, *, responder_resources: int = 1, initiator_depth: int = 1, retry_count: int = 7,
                      rnr_retry_count: int = 7, private_data: Optional[bytes] = None,
                      timeout: Optional[float] = 60.0) -> None:
        if self.channel is None:
            raise ValueError("an Endpoint made by rdma_create_ep waits in librdmacm: use accept")
        p, keep = _conn_param(responder_resources, initiator_depth, retry_count, rnr_retry_count, private_data)
        _check_int(_R.rdma_accept(self.handle, C.byref(p)), "rdma_accept")
        await self.aexpect(RDMA_CM_EVENT_ESTABLISHED, timeout)

    def disconnect(self, timeout: Optional[float] = 60.0, wait: bool = True) -> None:
        """rdma_disconnect, then (event-driven, wait) DISCONNECTED awaited."""
        _check_int(_R.rdma_disconnect(self.handle), "rdma_disconnect")
        if self.channel is not None and wait:
            self.expect(RDMA_CM_EVENT_DISCONNECTED, timeout)

    async def adisconnect(self, timeout: Optional[float] = 60.0, wait: bool = True) -> None:
        _check_int(_R.rdma_disconnect(self.handle), "rdma_disconnect")
        if self.channel is not None and wait:
            await self.aexpect(RDMA_CM_EVENT_DISCONNECTED, timeout)

    @property
    def local_addr(self) -> Tuple[str, int]:
        """(address, port) of this side (rdma_get_local_addr)."""
        from . import rdma_get_local_addr
        return _sockaddr(rdma_get_local_addr(self.handle))

    @property
    def peer_addr(self) -> Tuple[str, int]:
        from . import rdma_get_peer_addr
        return _sockaddr(rdma_get_peer_addr(self.handle))

    # -- objects made on the id's device --

    def alloc_pd(self) -> "PD":
        """A protection domain on the id's device (ibv_alloc_pd)."""
        return PD(_check_ptr(_R.ibv_alloc_pd(self.verbs), "ibv_alloc_pd"), (self,))

    def create_comp_channel(self) -> "CompChannel":
        """A completion channel on the id's device (its fd non-blocking)."""
        return CompChannel(_check_ptr(_R.ibv_create_comp_channel(self.verbs), "ibv_create_comp_channel"),
                           (self,))

    def create_cq(self, cqe: int = 16, channel: Optional["CompChannel"] = None, context: int = 0,
                  vector: int = 0) -> "CQ":
        """A CQ of at least cqe entries (ibv_create_cq), its events (if a
        channel is given) on that channel, with context as cq_context."""
        ch = channel.handle if channel is not None else None
        h = _check_ptr(_R.ibv_create_cq(self.verbs, cqe, context or None, ch, vector), "ibv_create_cq")
        return CQ(h, (self, channel), channel, context)

    def create_qp(self, pd: Optional["PD"] = None, send_cq: Optional["CQ"] = None,
                  recv_cq: Optional["CQ"] = None, srq: Optional["SRQ"] = None, *, max_send_wr: int = 8,
                  max_recv_wr: int = 8, max_send_sge: int = 1, max_recv_sge: int = 1, max_inline_data: int = 0,
                  qp_type: int = IBV_QPT_RC, sq_sig_all: bool = False) -> "QP":
        """The id's QP (rdma_create_qp), on these CQs and SRQ (None: the CQs
        librdmacm makes, with their channels, which get_send_comp and
        get_recv_comp use; the id's PD)."""
        attr = ibv_qp_init_attr(send_cq=send_cq.handle if send_cq else None,
                                recv_cq=recv_cq.handle if recv_cq else None, srq=srq.handle if srq else None,
                                cap=ibv_qp_cap(max_send_wr, 0 if srq else max_recv_wr, max_send_sge,
                                               0 if srq else max_recv_sge, max_inline_data),
                                qp_type=qp_type, sq_sig_all=int(sq_sig_all))
        _check_int(_R.rdma_create_qp(self.handle, pd.handle if pd else None, C.byref(attr)), "rdma_create_qp")
        self._qp = QP(self._id.qp, (self, pd, send_cq, recv_cq, srq), send_cq, recv_cq, srq, endpoint=self)
        return self._qp

    @property
    def qp(self) -> "QP":
        """The id's QP (made by create_qp, rdma_create_ep or rdma_get_request).
        ValueError once it is closed (create_qp's: destroyed; the others
        are destroyed with the id, and what was posted to them is held
        until then: closing the object over one lets go of nothing)."""
        qp = self._qp
        if qp is None or qp._closed:
            h = self._id.qp
            if qp is not None and qp._owned and (not h or h == qp._handle):
                raise ValueError(f"{qp!r} is closed")
            if not h:
                raise ValueError(f"{self!r} has no QP")
            qp = self._qp = QP(h, (self,), None, None, None, owned=False, endpoint=self,
                               queues=(self._sq, self._rq))
        return qp

    # -- memory --

    def _reg(self, fn: str, buf: Buffer) -> "MR":
        mem, length = _memory(buf)
        h = _check_ptr(getattr(_R, fn)(self.handle, C.addressof(mem), length), fn)
        return MR(h, (self,), mem, _deregister_rdma)

    def reg_msgs(self, buf: Buffer) -> "MR":
        """buf registered for sends and receives on the id's PD
        (rdma_reg_msgs); an int is a size: zeroed memory made for it."""
        return self._reg("rdma_reg_msgs", buf)

    def reg_read(self, buf: Buffer) -> "MR":
        """buf registered for the peer's RDMA reads (rdma_reg_read)."""
        return self._reg("rdma_reg_read", buf)

    def reg_write(self, buf: Buffer) -> "MR":
        """buf registered for the peer's RDMA writes (rdma_reg_write)."""
        return self._reg("rdma_reg_write", buf)

    # -- the rdma_verbs.h data path --

    def post_send(self, buf: Union["MR", bytes], offset: int = 0, length: Optional[int] = None, *,
                  wr_id: int = 0, flags: int = 0) -> None:
        """rdma_post_send of length bytes at offset of an MR (held until
        the send's completion is reaped); or of bytes, which needs
        IBV_SEND_INLINE in flags (copied as it is posted)."""
        qp = self._qp
        if qp is None or qp._closed:
            qp = self.qp
        if type(buf) is bytes and flags & _INLINE and not offset and length is None:   # the common inline send
            if _post_send(self._handle, wr_id, buf, len(buf), None, flags) < 0:
                raise _error(C.get_errno(), "rdma_post_send")
            qp._sq.append((wr_id, None))
        elif isinstance(buf, MR):
            addr, n = buf._span(offset, length) if offset or length is not None else (buf.addr, buf.length)
            if buf._closed:
                buf._check_open()
            if _post_send(self._handle, wr_id, addr, n, buf._handle, flags) < 0:
                raise _error(C.get_errno(), "rdma_post_send")
            qp._sq.append((wr_id, buf))
        else:
            if not flags & _INLINE:
                raise ValueError("post_send of bytes needs IBV_SEND_INLINE (else register them: an MR)")
            data = buf if type(buf) is bytes else bytes(buf)
            if offset or length is not None:
                data = data[offset:] if length is None else data[offset:offset + length]
            if _post_send(self._handle, wr_id, data, len(data), None, flags) < 0:
                raise _error(C.get_errno(), "rdma_post_send")
            qp._sq.append((wr_id, None))

    def post_recv(self, mr: "MR", offset: int = 0, length: Optional[int] = None, *, wr_id: int = 0) -> None:
        """rdma_post_recv into length bytes at offset of mr (held until the
        receive's completion is reaped)."""
        qp = self._qp
        if qp is None or qp._closed:
            qp = self.qp
        if length is not None and 0 <= offset and 0 <= length and offset + length <= mr.length and not mr._closed:
            addr, n = mr.addr + offset, length
        else:
            addr, n = mr._span(offset, length)
        if _post_recv(self._handle, wr_id, addr, n, mr._handle) < 0:
            raise _error(C.get_errno(), "rdma_post_recv")
        qp._rq.append((wr_id, mr))

    def post_write(self, mr: "MR", remote_addr: int, rkey: int, offset: int = 0, length: Optional[int] = None,
                   *, wr_id: int = 0, flags: int = 0) -> None:
        """rdma_post_write of mr's bytes to the peer's remote_addr (rkey)."""
        qp = self._qp
        if qp is None or qp._closed:
            qp = self.qp
        addr, n = mr._span(offset, length)
        _check_int(_R.rdma_post_write(self._handle, wr_id, addr, n, mr._handle, flags, remote_addr, rkey),
                   "rdma_post_write")
        qp._sq.append((wr_id, mr))

    def post_read(self, mr: "MR", remote_addr: int, rkey: int, offset: int = 0, length: Optional[int] = None,
                  *, wr_id: int = 0, flags: int = 0) -> None:
        """rdma_post_read of the peer's remote_addr (rkey) into mr."""
        qp = self._qp
        if qp is None or qp._closed:
            qp = self.qp
        addr, n = mr._span(offset, length)
        _check_int(_R.rdma_post_read(self._handle, wr_id, addr, n, mr._handle, flags, remote_addr, rkey),
                   "rdma_post_read")
        qp._sq.append((wr_id, mr))

    def post_sendv(self, sgl: Sequence[Sge], *, wr_id: int = 0, flags: int = 0) -> None:
        """rdma_post_sendv over the SGEs (MR, offset, length)."""
        qp = self._qp
        if qp is None or qp._closed:
            qp = self.qp
        arr, holds = _sges(sgl)
        _check_int(_R.rdma_post_sendv(self._handle, wr_id, arr, len(sgl), flags), "rdma_post_sendv")
        qp._sq.append((wr_id, holds))

    def post_recvv(self, sgl: Sequence[Sge], *, wr_id: int = 0) -> None:
        """rdma_post_recvv into the SGEs (MR, offset, length)."""
        qp = self._qp
        if qp is None or qp._closed:
            qp = self.qp
        arr, holds = _sges(sgl)
        _check_int(_R.rdma_post_recvv(self._handle, wr_id, arr, len(sgl)), "rdma_post_recvv")
        qp._rq.append((wr_id, holds))

    def _completed(self, wc: ibv_wc, recv: bool) -> ibv_wc:
        qp = self._qp
        if qp is not None and not wc.status:
            _release(qp._rq if recv else qp._sq, wc.wr_id)
        if wc.status:
            raise CompletionError(wc)
        return wc

    def get_send_comp(self, timeout: Optional[float] = None) -> ibv_wc:
        """The next completion of the id's send CQ
        (rdma_get_send_comp_timeout), within timeout seconds (TimeoutError);
        what it completes is let go; CompletionError for one in error."""
        if self._closed:
            self._check_open()
        wc = ibv_wc()
        if _R.rdma_get_send_comp_timeout(self._handle, wc, -1 if timeout is None and not _made_nonblocking
                                         else _ms(timeout)) < 0:
            raise _error(C.get_errno(), "rdma_get_send_comp_timeout")
        qp = self._qp
        if qp is None or wc.status:
            return self._completed(wc, False)
        q = qp._sq
        if q and q[0][0] == wc.wr_id:
            q.popleft()
        else:
            _release(q, wc.wr_id)
        return wc

    def get_recv_comp(self, timeout: Optional[float] = None) -> ibv_wc:
        """The next completion of the id's receive CQ, as get_send_comp."""
        if self._closed:
            self._check_open()
        wc = ibv_wc()
        if _R.rdma_get_recv_comp_timeout(self._handle, wc, -1 if timeout is None and not _made_nonblocking
                                         else _ms(timeout)) < 0:
            raise _error(C.get_errno(), "rdma_get_recv_comp_timeout")
        qp = self._qp
        if qp is None or wc.status:
            return self._completed(wc, True)
        q = qp._rq
        if q and q[0][0] == wc.wr_id:
            q.popleft()
        else:
            _release(q, wc.wr_id)
        return wc

    async def _acomp(self, recv: bool, timeout: Optional[float]) -> ibv_wc:
        raw = _R
        self._check_open()
        wc = ibv_wc()
        ref = C.byref(wc)
        get = raw.rdma_get_recv_comp_timeout if recv else raw.rdma_get_send_comp_timeout
        if get(self._handle, ref, 0) == 1:          # ready: no arming, no wait
            return self._completed(wc, recv)
        if C.get_errno() != _errno.ETIMEDOUT:
            raise _error(C.get_errno(), "rdma_get_comp")
        cid = self._id
        cq, channel = (cid.recv_cq, cid.recv_cq_channel) if recv else (cid.send_cq, cid.send_cq_channel)
        if not channel:
            raise _error(_errno.EINVAL, "the id's CQ has no completion channel")
        readiness = self._cq_readiness.get(channel)
        if readiness is None:
            readiness = self._cq_readiness[channel] = _Readiness(ibv_comp_channel.from_address(channel).fd)
        deadline = _deadline(timeout)
        ev_cq, ev_ctx = C.c_void_p(), C.c_void_p()
        while True:
            _check_errno(raw.ibv_req_notify_cq(cq, 0), "ibv_req_notify_cq")
            n = raw.ibv_poll_cq(cq, 1, ref)
            if n:
                break
            await readiness.wait(deadline, "no completion within the time limit")
            if raw.ibv_get_cq_event(channel, C.byref(ev_cq), C.byref(ev_ctx)) == 0:
                raw.ibv_ack_cq_events(ev_cq, 1)
            elif C.get_errno() not in (_errno.EAGAIN, _errno.EWOULDBLOCK):
                raise _error(C.get_errno(), "ibv_get_cq_event")
            n = raw.ibv_poll_cq(cq, 1, ref)
            if n:
                break
        if n < 0:
            raise _error(C.get_errno(), "ibv_poll_cq")
        return self._completed(wc, recv)

    async def aget_send_comp(self, timeout: Optional[float] = None) -> ibv_wc:
        """get_send_comp, awaited: the CQ armed and its channel's fd watched
        by the loop (add_reader); the loop runs other tasks meanwhile."""
        return await self._acomp(False, timeout)

    async def aget_recv_comp(self, timeout: Optional[float] = None) -> ibv_wc:
        """get_recv_comp, awaited (see aget_send_comp)."""
        return await self._acomp(True, timeout)


def _memory(buf: Buffer) -> Tuple["C.Array[Any]", int]:
    """buf as C memory (a ctypes array over its bytes, holding it), and its
    length: an int is a size (zeroed, 8-byte aligned memory)."""
    if isinstance(buf, int):
        if buf <= 0:
            raise ValueError("an MR's size must be positive")
        return (C.c_uint64 * ((buf + 7) // 8))(), buf
    if isinstance(buf, C.Array):
        return buf, C.sizeof(buf)
    view = memoryview(buf)
    if view.readonly:
        raise TypeError(f"an MR's buffer must be writable, not {type(buf).__name__}")
    if not view.c_contiguous:
        raise TypeError("an MR's buffer must be contiguous")
    n = view.nbytes
    return (C.c_char * n).from_buffer(buf), n


def _deregister_rdma(h: int) -> None:
    _check_int(_R.rdma_dereg_mr(h), "rdma_dereg_mr")


def _deregister_verbs(h: int) -> None:
    _check_errno(_R.ibv_dereg_mr(h), "ibv_dereg_mr")


class PD(Resource):
    """A protection domain (ibv_alloc_pd): reg_mr, create_srq. Closing it
    closes its MRs, SRQs and QPs first."""

    _kind = "PD"

    def _destroy(self) -> None:
        _check_errno(_R.ibv_dealloc_pd(self._handle), "ibv_dealloc_pd")

    def reg_mr(self, buf: Buffer, access: int = IBV_ACCESS_LOCAL_WRITE) -> "MR":
        """buf registered (ibv_reg_mr_iova2, its address as iova) with these
        IBV_ACCESS_* flags; an int is a size (zeroed memory made for it,
        8-byte aligned: fit for atomics)."""
        mem, length = _memory(buf)
        addr = C.addressof(mem)
        h = _check_ptr(_R.ibv_reg_mr_iova2(self.handle, addr, length, addr, access), "ibv_reg_mr_iova2")
        return MR(h, (self,), mem, _deregister_verbs)

    def create_srq(self, max_wr: int, max_sge: int = 1, srq_limit: int = 0) -> "SRQ":
        """A shared receive queue (ibv_create_srq)."""
        attr = ibv_srq_init_attr(attr=ibv_srq_attr(max_wr=max_wr, max_sge=max_sge, srq_limit=srq_limit))
        return SRQ(_check_ptr(_R.ibv_create_srq(self.handle, C.byref(attr)), "ibv_create_srq"), (self,))


class MR(Resource):
    """A memory region: it holds its memory (.buf, a memoryview of its
    bytes) as long as it lives, and is itself held by each posted work
    request naming it until that request's completion is reaped. .addr,
    .length, .lkey, .rkey; sge(offset, length) names a part of it for a
    work request."""

    _kind = "MR"

    def __init__(self, handle: int, parents: Sequence[Optional[Resource]], memory: Any,
                 deregister: Optional[Callable[[int], None]], owned: bool = True) -> None:
        super().__init__(handle, parents, owned)
        self._memory = memory
        self._deregister = deregister
        m = ibv_mr.from_address(handle)
        self.addr: int = C.addressof(memory)
        self.length: int = C.sizeof(memory) if m.length == 0 else m.length
        self.lkey: int = m.lkey
        self.rkey: int = m.rkey
        self.buf: memoryview = memoryview(memory).cast("B")[:self.length]

    @classmethod
    def wrap(cls, handle: int, memory: Any) -> "MR":
        """An MR object over an ibv_mr made with the raw layer, holding
        memory (a ctypes array or writable buffer): closing it does not
        deregister the C one."""
        mem, _ = _memory(memory)
        return cls(handle, (), mem, None, owned=False)

    def _destroy(self) -> None:
        if self._deregister is not None:
            self._deregister(self._handle)

    def _held(self) -> Any:
        return self._memory

    def _span(self, offset: int, length: Optional[int]) -> Tuple[int, int]:
        n = self.length - offset if length is None else length
        if offset < 0 or n < 0 or offset + n > self.length:
            raise ValueError(f"{offset}+{n} bytes is outside the MR's {self.length}")
        self._check_open()
        return self.addr + offset, n

    def sge(self, offset: int = 0, length: Optional[int] = None) -> Sge:
        """(self, offset, length): a part of this MR for a work request."""
        self._span(offset, length)
        return (self, offset, self.length - offset if length is None else length)


def _sges(sgl: Sequence[Sge]) -> Tuple["C.Array[Any]", Tuple["MR", ...]]:
    """SGEs (MR, offset, length) as a C array; the MRs they name."""
    arr = (ibv_sge * max(1, len(sgl)))()
    for i, (mr, offset, length) in enumerate(sgl):
        addr, n = mr._span(offset, length)
        arr[i].addr, arr[i].length, arr[i].lkey = addr, n, mr.lkey
    return arr, tuple(mr for mr, _, _ in sgl)


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
        if _R.ibv_get_cq_event(self.handle, C.byref(cq), C.byref(ctx)) < 0:
            err = C.get_errno()
            if err in (_errno.EAGAIN, _errno.EWOULDBLOCK):
                return None
            raise _error(err, "ibv_get_cq_event")
        _R.ibv_ack_cq_events(cq, 1)
        ref = self._cqs.get(cq.value or 0)
        obj = ref() if ref is not None else None
        if obj is None or (ctx.value or 0) != obj.context:
            raise _error(_errno.EIO, "ibv_get_cq_event: an event of a CQ not made on this channel, "
                                     "or not with its cq_context")
        obj.events += 1
        return obj

    def get_cq_event(self, timeout: Optional[float] = None) -> "CQ":
        """The next CQ event (ibv_get_cq_event, acknowledged at once): the CQ
        it is for; TimeoutError when none comes within timeout seconds. Arm
        the CQ again (req_notify) for the next one."""
        deadline = _deadline(timeout)
        while True:
            cq = self._read()
            if cq is not None:
                return cq
            _readable(self.fd, deadline, "no completion event within the time limit")

    async def aget_cq_event(self, timeout: Optional[float] = None) -> "CQ":
        """get_cq_event, awaited: the fd watched with the loop's add_reader."""
        deadline = _deadline(timeout)
        while True:
            cq = self._read()
            if cq is not None:
                return cq
            if self._readiness is None:
                self._readiness = _Readiness(self.fd)
            await self._readiness.wait(deadline, "no completion event within the time limit")


class CQ(Resource):
    """A completion queue (ibv_create_cq): poll (ibv_poll_cq, several at
    once), req_notify (ibv_req_notify_cq), get/aget (until n completions,
    bounded). The completions reaped let go of what their work requests
    held. Closing it closes the QPs on it first."""

    _kind = "CQ"

    def __init__(self, handle: int, parents: Sequence[Optional[Resource]] = (),
                 channel: Optional[CompChannel] = None, context: int = 0, owned: bool = True) -> None:
        super().__init__(handle, parents, owned)
        self.channel = channel
        self.context = context
        self.events = 0          # CQ events read (each acknowledged)
        self._qps: Dict[int, "weakref.ReferenceType[QP]"] = {}
        if channel is not None:
            channel._cqs[handle] = weakref.ref(self)

    @classmethod
    def wrap(cls, handle: int, channel: Optional[CompChannel] = None) -> "CQ":
        """A CQ object over an ibv_cq made with the raw layer: closing it
        does not destroy the C one."""
        return cls(handle, (), channel, owned=False)

    def _destroy(self) -> None:
        _check_errno(_R.ibv_destroy_cq(self._handle), "ibv_destroy_cq")

    def _released(self) -> None:
        if self.channel is not None:
            self.channel._cqs.pop(self._handle, None)

    def _reap(self, wc: ibv_wc) -> None:
        ref = self._qps.get(wc.qp_num)
        qp = ref() if ref is not None else None
        if qp is None or wc.status:
            return
        if wc.opcode & IBV_WC_RECV:
            if qp.srq is not None:
                qp.srq._pending.pop(wc.wr_id, None)
            else:
                _release(qp._rq, wc.wr_id)
        else:
            _release(qp._sq, wc.wr_id)

    def poll(self, max: int = 16) -> List[ibv_wc]:
        """Up to max completions (one ibv_poll_cq), reaped."""
        arr = (ibv_wc * max)()
        n = _poll_cq(self.handle, max, arr)
        if n < 0:
            raise _error(C.get_errno(), "ibv_poll_cq")
        out = arr[:n]
        for wc in out:
            self._reap(wc)
        return out

    def req_notify(self, solicited_only: bool = False) -> None:
        """Arms the CQ (ibv_req_notify_cq): its next completion (solicited
        only: its next solicited one) makes an event on its channel."""
        _check_errno(_req_notify_cq(self.handle, int(solicited_only)), "ibv_req_notify_cq")

    def get(self, n: int = 1, timeout: Optional[float] = None) -> List[ibv_wc]:
        """Exactly n completions (polled, up to 16 at once), waiting up to
        timeout seconds in all (TimeoutError): on its channel's events when
        it has one (armed, polled again, then waited for), else polling
        every millisecond."""
        deadline = _deadline(timeout)
        out: List[ibv_wc] = []
        while True:
            out += self.poll(min(16, n - len(out)))
            if len(out) >= n:
                return out
            if self.channel is None:
                if deadline is not None and time.monotonic() >= deadline:
                    raise _error(_errno.ETIMEDOUT, "too few completions within the time limit")
                time.sleep(0.001)
                continue
            self.req_notify()
            out += self.poll(min(16, n - len(out)))
            if len(out) >= n:
                return out
            self.channel.get_cq_event(_left(deadline))

    async def aget(self, n: int = 1, timeout: Optional[float] = None) -> List[ibv_wc]:
        """get, awaited: the channel's fd watched by the loop (without a
        channel, asyncio.sleep between polls)."""
        import asyncio
        deadline = _deadline(timeout)
        out: List[ibv_wc] = []
        while True:
            out += self.poll(min(16, n - len(out)))
            if len(out) >= n:
                return out
            if self.channel is None:
                if deadline is not None and time.monotonic() >= deadline:
                    raise _error(_errno.ETIMEDOUT, "too few completions within the time limit")
                await asyncio.sleep(0.001)
                continue
            self.req_notify()
            out += self.poll(min(16, n - len(out)))
            if len(out) >= n:
                return out
            await self.channel.aget_cq_event(_left(deadline))


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


def _recv_list(wrs: Sequence[RecvWR]) -> Tuple["C.Array[Any]", List[Any], List[Tuple[Any, ...]]]:
    """The receive work requests as one C list (joined by next)."""
    arr = (ibv_recv_wr * len(wrs))()
    keep, holds = [], []
    for i, w in enumerate(wrs):
        sg, held = _sges(w.sg)
        keep.append(sg)
        holds.append(held)
        c = arr[i]
        c.wr_id, c.sg_list, c.num_sge = w.wr_id, C.addressof(sg), len(w.sg)
        c.next = C.addressof(arr[i + 1]) if i + 1 < len(wrs) else None
    return arr, keep, holds


def _bad_index(arr: "C.Array[Any]", size: int, bad: C.c_void_p) -> int:
    return (bad.value - C.addressof(arr)) // size if bad.value else 0


class SRQ(Resource):
    """A shared receive queue (ibv_create_srq): post_recv. The receives it
    holds are found by wr_id when reaped, so the wr_ids of the receives
    posted and not yet reaped must differ (ValueError otherwise). Closing
    it closes the QPs on it first."""

    _kind = "SRQ"

    def __init__(self, handle: int, parents: Sequence[Optional[Resource]] = (), owned: bool = True) -> None:
        super().__init__(handle, parents, owned)
        self._pending: Dict[int, Tuple[Any, ...]] = {}

    @classmethod
    def wrap(cls, handle: int) -> "SRQ":
        """An SRQ object over an ibv_srq made with the raw layer."""
        return cls(handle, (), owned=False)

    def _destroy(self) -> None:
        _check_errno(_R.ibv_destroy_srq(self._handle), "ibv_destroy_srq")

    def _released(self) -> None:
        self._pending.clear()

    def _held(self) -> Any:
        return self._pending

    @property
    def pending(self) -> int:
        """Receives posted whose completion has not been reaped."""
        return len(self._pending)

    def post_recv(self, wrs: Sequence[RecvWR]) -> None:
        """The receives, one list, one ibv_post_srq_recv (PostError: those
        from .index on were not posted)."""
        ids = [w.wr_id for w in wrs]
        if len(set(ids)) != len(ids) or any(i in self._pending for i in ids):
            raise ValueError("an SRQ's receives posted and not reaped need distinct wr_ids")
        arr, keep, holds = _recv_list(wrs)
        bad = C.c_void_p()
        err = _R.ibv_post_srq_recv(self.handle, arr, C.byref(bad))
        done = _bad_index(arr, C.sizeof(ibv_recv_wr), bad) if err else len(wrs)
        for i in range(done):
            self._pending[ids[i]] = holds[i]
        if err:
            raise PostError(err, "ibv_post_srq_recv", done)


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
        holds): closing it does not destroy the C one."""
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
        """(sends, receives) posted and held, their completions not reaped."""
        return len(self._sq), len(self._rq)

    def post_send(self, wrs: Sequence[SendWR]) -> None:
        """The work requests, one list (next), one ibv_post_send; PostError
        (the provider's errno value): those from .index on were not
        posted."""
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
                sg, held = _sges(w.sg)
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
        err = _R.ibv_post_send(self.handle, arr, C.byref(bad))
        done = _bad_index(arr, C.sizeof(ibv_send_wr), bad) if err else len(wrs)
        for i in range(done):
            self._sq.append((wrs[i].wr_id, holds[i]))
        if err:
            raise PostError(err, "ibv_post_send", done)

    def post_recv(self, wrs: Sequence[RecvWR]) -> None:
        """The receives, one list, one ibv_post_recv (PostError as post_send)."""
        arr, keep, holds = _recv_list(wrs)
        bad = C.c_void_p()
        err = _R.ibv_post_recv(self.handle, arr, C.byref(bad))
        done = _bad_index(arr, C.sizeof(ibv_recv_wr), bad) if err else len(wrs)
        for i in range(done):
            self._rq.append((wrs[i].wr_id, holds[i]))
        if err:
            raise PostError(err, "ibv_post_recv", done)
