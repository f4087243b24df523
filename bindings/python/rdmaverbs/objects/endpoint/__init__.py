"""The endpoint: an rdma_cm id and its QP, event-driven (on an
EventChannel) or made by rdma_create_ep; the objects made on its device,
its memory. Its events and connection set-up: connect.py; its data path:
datapath.py."""
from __future__ import annotations

import ctypes as C
import errno as _errno
import socket
import struct as _struct
import weakref
from collections import deque
from typing import TYPE_CHECKING, Any, Deque, Dict, Optional, Tuple, Union

from ..._api import IBV_ACCESS_LOCAL_WRITE, IBV_QPT_RC, ibv_qp_cap, ibv_qp_init_attr, rdma_cm_id, sockaddr_in
from ... import raw as _R
from .._base import Resource, _check_int, _check_ptr
from ..aio import _Readiness
from ..channel import CMEvent, CompChannel, EventChannel
from ..cq import CQ
from ..mr import MR, Buffer, _deregister_rdma, _memory
from ..pd import PD
from ..qp import QP
from .connect import _Connection, _addrinfo
from .datapath import _DataPath

if TYPE_CHECKING:
    from ..srq import SRQ


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


class Endpoint(_DataPath, _Connection, Resource):
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
        self._request_readiness: Optional[_Readiness] = None
        self._own_channel: Optional[EventChannel] = None   # an Endpoint.create id's, once moved onto it
        self._listening = False
        self._pd: Optional[PD] = None
        if channel is not None:
            channel._ids[handle] = weakref.ref(self)

    # -- making one --

    @classmethod
    def create(cls, addr: Optional[str], port: Union[int, str], *, passive: bool = False,
               max_send_wr: int = 8, max_recv_wr: int = 8, max_send_sge: int = 1, max_recv_sge: int = 1,
               max_inline_data: int = 0, sq_sig_all: bool = True, qp_type: int = IBV_QPT_RC) -> "Endpoint":
        """rdma_getaddrinfo and rdma_create_ep: an id resolved to addr:port
        with its QP (on a send and a receive CQ, with their completion
        channels, which librdmacm makes; every send signaled unless
        sq_sig_all=False), ready for its receives to be posted, then to
        connect(); or, passive, bound there, ready to listen() and be
        iterated (the QP of each request's id made with these
        capabilities). Closing it is rdma_destroy_ep.
        Raises OSError (rdma_getaddrinfo's or rdma_create_ep's errno: ENODEV,
        EADDRNOTAVAIL, ...)."""
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
        not destroy the id (nor its QP).
        Raises nothing."""
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
        own, self._own_channel = self._own_channel, None
        if own is not None:         # after the id, which was on it
            own.close()

    def _held(self) -> Any:
        return self._sq, self._rq

    @property
    def _id(self) -> rdma_cm_id:
        return rdma_cm_id.from_address(self.handle)

    @property
    def verbs(self) -> int:
        """The id's device context (struct ibv_context *), for the raw layer.
        Raises ValueError (closed)."""
        return self._id.verbs or 0

    @property
    def local_addr(self) -> Tuple[str, int]:
        """(address, port) of this side (rdma_get_local_addr).
        Raises OSError (EAFNOSUPPORT: neither IPv4 nor IPv6), ValueError
        (closed)."""
        from ... import rdma_get_local_addr
        return _sockaddr(rdma_get_local_addr(self._h("rdma_get_local_addr")))

    @property
    def peer_addr(self) -> Tuple[str, int]:
        """(address, port) of the peer (rdma_get_peer_addr).
        Raises OSError (EAFNOSUPPORT: neither IPv4 nor IPv6), ValueError
        (closed)."""
        """(address, port) of the peer (rdma_get_peer_addr).
        Raises OSError (EAFNOSUPPORT: neither IPv4 nor IPv6), ValueError
        (closed)."""
        from ... import rdma_get_peer_addr
        return _sockaddr(rdma_get_peer_addr(self._h("rdma_get_peer_addr")))

    # -- objects made on the id's device --

    def alloc_pd(self) -> "PD":
        """A protection domain on the id's device (ibv_alloc_pd).
        Raises OSError (ibv_alloc_pd's errno), ValueError (closed)."""
        return PD(_check_ptr(_R.ibv_alloc_pd(self.verbs), "ibv_alloc_pd"), (self,))

    def create_comp_channel(self) -> "CompChannel":
        """A completion channel on the id's device (its fd non-blocking).
        Raises OSError (ibv_create_comp_channel's errno), ValueError (closed)."""
        return CompChannel(_check_ptr(_R.ibv_create_comp_channel(self.verbs), "ibv_create_comp_channel"),
                           (self,))

    def create_cq(self, cqe: int = 16, channel: Optional["CompChannel"] = None, context: int = 0,
                  vector: int = 0) -> "CQ":
        """A CQ of at least cqe entries (ibv_create_cq), its events (if a
        channel is given) on that channel, with context as cq_context.
        Raises OSError (ibv_create_cq's errno), ValueError (closed)."""
        ch = channel._h("ibv_create_cq") if channel is not None else None
        h = _check_ptr(_R.ibv_create_cq(self.verbs, cqe, context or None, ch, vector), "ibv_create_cq")
        return CQ(h, (self, channel), channel, context)

    def create_qp(self, pd: Optional["PD"] = None, send_cq: Optional["CQ"] = None,
                  recv_cq: Optional["CQ"] = None, srq: Optional["SRQ"] = None, *, max_send_wr: int = 8,
                  max_recv_wr: int = 8, max_send_sge: int = 1, max_recv_sge: int = 1, max_inline_data: int = 0,
                  qp_type: int = IBV_QPT_RC, sq_sig_all: bool = True) -> "QP":
        """The id's QP (rdma_create_qp), on these CQs and SRQ (None: the CQs
        librdmacm makes, with their channels, which get_send_comp and
        get_recv_comp use; the id's PD). Every send is signaled
        (sq_sig_all, as Endpoint.create's): each produces a completion that
        get_send_comp waits for; with sq_sig_all=False only sends posted
        with IBV_SEND_SIGNALED complete. Raises OSError (rdma_create_qp's
        errno), ValueError (closed)."""
        attr = ibv_qp_init_attr(send_cq=send_cq._h("rdma_create_qp") if send_cq else None,
                                recv_cq=recv_cq._h("rdma_create_qp") if recv_cq else None,
                                srq=srq._h("rdma_create_qp") if srq else None,
                                cap=ibv_qp_cap(max_send_wr, 0 if srq else max_recv_wr, max_send_sge,
                                               0 if srq else max_recv_sge, max_inline_data),
                                qp_type=qp_type, sq_sig_all=int(sq_sig_all))
        fn = "rdma_create_qp"
        _check_int(_R.rdma_create_qp(self._h(fn), pd._h(fn) if pd else None, C.byref(attr)), fn)
        self._qp = QP(self._id.qp, (self, pd, send_cq, recv_cq, srq), send_cq, recv_cq, srq, endpoint=self)
        return self._qp

    @property
    def qp(self) -> "QP":
        """The id's QP (made by create_qp, rdma_create_ep or rdma_get_request).
        Raises ValueError once it is closed (create_qp's: destroyed; the
        others are destroyed with the id, and what was posted to them is
        held until then: closing the object over one lets go of nothing),
        before the id has one, or once the endpoint is closed."""
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

    @property
    def pd(self) -> PD:
        """The id's PD (id->pd: the one librdmacm gave the QP of an
        Endpoint.create or get_request id, or create_qp's), as a PD object
        that closing does not deallocate. Raises ValueError before the id
        has a QP, or once the endpoint is closed."""
        pd = self._pd
        if pd is None or pd._closed:
            h = self._id.pd
            if not h:
                raise ValueError(f"{self!r} has no PD yet: make its QP first (create_qp)")
            pd = self._pd = PD(h, (self,), owned=False)
        return pd

    # -- memory --

    def reg_mr(self, buf: Buffer, access: int = IBV_ACCESS_LOCAL_WRITE) -> MR:
        """buf registered on the id's PD with these IBV_ACCESS_* flags
        (ibv_reg_mr_iova2; ep.pd.reg_mr): one MR for the sends and receives
        and, with IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
        IBV_ACCESS_REMOTE_ATOMIC, the peer's reads, writes and atomics (its
        rkey); an int is a size (zeroed memory, 8-byte aligned). Closed with
        the endpoint. Raises OSError (ibv_reg_mr_iova2's errno), ValueError
        (no QP yet, or closed)."""
        return self.pd.reg_mr(buf, access)

    def _reg(self, fn: str, buf: Buffer) -> "MR":
        mem, length = _memory(buf)
        h = _check_ptr(getattr(_R, fn)(self._h(fn), C.addressof(mem), length), fn)
        return MR(h, (self,), mem, _deregister_rdma)

    def reg_msgs(self, buf: Buffer) -> "MR":
        """buf registered for sends and receives on the id's PD
        (rdma_reg_msgs); an int is a size: zeroed memory made for it.
        Raises OSError (rdma_reg_msgs's errno), TypeError (not writable
        memory), ValueError (closed)."""
        return self._reg("rdma_reg_msgs", buf)

    def reg_read(self, buf: Buffer) -> "MR":
        """buf registered for the peer's RDMA reads (rdma_reg_read).
        Raises OSError (rdma_reg_read's errno), TypeError (not writable
        memory), ValueError (closed)."""
        return self._reg("rdma_reg_read", buf)

    def reg_write(self, buf: Buffer) -> "MR":
        """buf registered for the peer's RDMA writes (rdma_reg_write).
        Raises OSError (rdma_reg_write's errno), TypeError (not writable
        memory), ValueError (closed)."""
        return self._reg("rdma_reg_write", buf)
