"""The rdma_verbs.h data path of an Endpoint's id (rdma_post_*,
rdma_get_*_comp), blocking and awaited: a part of Endpoint."""
from __future__ import annotations

import ctypes as C
import errno as _errno
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Union

from ..._api import ibv_comp_channel, ibv_wc
from .. import _base
from ... import raw as _R
from .._base import _INLINE, _check_errno, _check_int, _deadline, _error, _ms, _post_recv, _post_send
from ..aio import _Readiness, _spin
from ..errors import CompletionError
from ..mr import MR, Sge, _sges
from ..qp import _release

if TYPE_CHECKING:
    from ..._api import rdma_cm_id
    from .._base import Resource
    from .._base import Resource as _Base
    from ..qp import QP
else:
    _Base = object


class _DataPath(_Base):
    """Endpoint's data path (Endpoint inherits it)."""

    _qp: Optional["QP"]
    _cq_readiness: Dict[int, _Readiness]

    if TYPE_CHECKING:
        @property
        def qp(self) -> "QP": ...

        @property
        def _id(self) -> "rdma_cm_id": ...

    def post_send(self, buf: Union["MR", bytes], offset: int = 0, length: Optional[int] = None, *,
                  wr_id: int = 0, flags: int = 0) -> None:
        """rdma_post_send of length bytes at offset of an MR (held until
        the send's completion is reaped); or of bytes, which needs
        IBV_SEND_INLINE in flags (copied as it is posted).
        Raises OSError (rdma_post_send's errno), ValueError (outside the MR,
        bytes without IBV_SEND_INLINE, or it or the endpoint closed)."""
        qp = self._qp
        if qp is None or qp._closed:
            if self._closed:
                self._check_open("rdma_post_send")
            qp = self.qp
        if type(buf) is bytes and flags & _INLINE and not offset and length is None:   # the common inline send
            if _post_send(self._handle, wr_id, buf, len(buf), None, flags) < 0:
                raise _error(C.get_errno(), "rdma_post_send")
            qp._sq.append((wr_id, None))
        elif isinstance(buf, MR):
            addr, n = (buf._span(offset, length, "rdma_post_send") if offset or length is not None
                       else (buf.addr, buf.length))
            if buf._closed:
                buf._check_open("rdma_post_send")
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
        receive's completion is reaped).
        Raises OSError (rdma_post_recv's errno), ValueError (outside the MR,
        or it or the endpoint closed)."""
        qp = self._qp
        if qp is None or qp._closed:
            if self._closed:
                self._check_open("rdma_post_recv")
            qp = self.qp
        if length is not None and 0 <= offset and 0 <= length and offset + length <= mr.length and not mr._closed:
            addr, n = mr.addr + offset, length
        else:
            addr, n = mr._span(offset, length, "rdma_post_recv")
        if _post_recv(self._handle, wr_id, addr, n, mr._handle) < 0:
            raise _error(C.get_errno(), "rdma_post_recv")
        qp._rq.append((wr_id, mr))

    def post_write(self, mr: "MR", remote_addr: int, rkey: int, offset: int = 0, length: Optional[int] = None,
                   *, wr_id: int = 0, flags: int = 0) -> None:
        """rdma_post_write of mr's bytes to the peer's remote_addr (rkey).
        Raises OSError (rdma_post_write's errno), ValueError (outside the MR,
        or it or the endpoint closed)."""
        qp = self._qp
        if qp is None or qp._closed:
            if self._closed:
                self._check_open("rdma_post_write")
            qp = self.qp
        addr, n = mr._span(offset, length, "rdma_post_write")
        _check_int(_R.rdma_post_write(self._handle, wr_id, addr, n, mr._handle, flags, remote_addr, rkey),
                   "rdma_post_write")
        qp._sq.append((wr_id, mr))

    def post_read(self, mr: "MR", remote_addr: int, rkey: int, offset: int = 0, length: Optional[int] = None,
                  *, wr_id: int = 0, flags: int = 0) -> None:
        """rdma_post_read of the peer's remote_addr (rkey) into mr.
        Raises OSError (rdma_post_read's errno), ValueError (outside the MR,
        or it or the endpoint closed)."""
        qp = self._qp
        if qp is None or qp._closed:
            if self._closed:
                self._check_open("rdma_post_read")
            qp = self.qp
        addr, n = mr._span(offset, length, "rdma_post_read")
        _check_int(_R.rdma_post_read(self._handle, wr_id, addr, n, mr._handle, flags, remote_addr, rkey),
                   "rdma_post_read")
        qp._sq.append((wr_id, mr))

    def post_sendv(self, sgl: Sequence[Sge], *, wr_id: int = 0, flags: int = 0) -> None:
        """rdma_post_sendv over the SGEs (MR, offset, length).
        Raises OSError (rdma_post_sendv's errno), ValueError (outside an MR,
        or one or the endpoint closed)."""
        qp = self._qp
        if qp is None or qp._closed:
            if self._closed:
                self._check_open("rdma_post_sendv")
            qp = self.qp
        arr, holds = _sges(sgl, "rdma_post_sendv")
        _check_int(_R.rdma_post_sendv(self._handle, wr_id, arr, len(sgl), flags), "rdma_post_sendv")
        qp._sq.append((wr_id, holds))

    def post_recvv(self, sgl: Sequence[Sge], *, wr_id: int = 0) -> None:
        """rdma_post_recvv into the SGEs (MR, offset, length).
        Raises OSError (rdma_post_recvv's errno), ValueError (outside an MR,
        or one or the endpoint closed)."""
        qp = self._qp
        if qp is None or qp._closed:
            if self._closed:
                self._check_open("rdma_post_recvv")
            qp = self.qp
        arr, holds = _sges(sgl, "rdma_post_recvv")
        _check_int(_R.rdma_post_recvv(self._handle, wr_id, arr, len(sgl)), "rdma_post_recvv")
        qp._rq.append((wr_id, holds))

    def _completed(self, wc: ibv_wc, recv: bool) -> ibv_wc:
        qp = self._qp
        if qp is not None and not wc.status:
            _release(qp._rq if recv else qp._sq, wc.wr_id)
        if wc.status:
            raise CompletionError(wc, "rdma_get_recv_comp" if recv else "rdma_get_send_comp")
        return wc

    def get_send_comp(self, timeout: Optional[float] = None) -> ibv_wc:
        """The next completion of the id's send CQ
        (rdma_get_send_comp_timeout), within timeout seconds (TimeoutError);
        what it completes is let go; CompletionError for one in error.
        Raises OSError (rdma_get_send_comp_timeout's errno), TimeoutError
        (ETIMEDOUT), CompletionError (its status not IBV_WC_SUCCESS: EIO),
        ValueError (closed)."""
        if self._closed:
            self._check_open("rdma_get_send_comp_timeout")
        wc = ibv_wc()
        if _R.rdma_get_send_comp_timeout(self._handle, wc, -1 if timeout is None and not _base._made_nonblocking
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
        """The next completion of the id's receive CQ, as get_send_comp.
        Raises OSError (rdma_get_recv_comp_timeout's errno), TimeoutError
        (ETIMEDOUT), CompletionError (its status not IBV_WC_SUCCESS: EIO),
        ValueError (closed)."""
        if self._closed:
            self._check_open("rdma_get_recv_comp_timeout")
        wc = ibv_wc()
        if _R.rdma_get_recv_comp_timeout(self._handle, wc, -1 if timeout is None and not _base._made_nonblocking
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
        fn = "rdma_get_recv_comp" if recv else "rdma_get_send_comp"
        self._check_open(fn)
        wc = ibv_wc()
        ref = C.byref(wc)
        get = raw.rdma_get_recv_comp_timeout if recv else raw.rdma_get_send_comp_timeout
        if get(self._handle, ref, 0) == 1:          # ready: no arming, no wait
            return self._completed(wc, recv)
        if C.get_errno() != _errno.ETIMEDOUT:
            raise _error(C.get_errno(), fn + "_timeout")
        cid = self._id
        cq, channel = (cid.recv_cq, cid.recv_cq_channel) if recv else (cid.send_cq, cid.send_cq_channel)
        if not channel:
            raise _error(_errno.EINVAL, fn, "the id's CQ has no completion channel")
        readiness = self._cq_readiness.get(channel)
        if readiness is None:
            readiness = self._cq_readiness[channel] = _Readiness(ibv_comp_channel.from_address(channel).fd)
        deadline = _deadline(timeout)
        # What the wait ends with, closed: the endpoint, the QP it made, its
        # CQ's object and that CQ's channel's.
        owners: List["Resource"] = [self]
        qp = self._qp
        if qp is not None and qp._owned:
            owners.append(qp)
            cq_obj = qp.recv_cq if recv else qp.send_cq
            if cq_obj is not None:
                owners.append(cq_obj)
                if cq_obj.channel is not None:
                    owners.append(cq_obj.channel)
        # First polled on a few turns of the loop (aio.SPIN), then armed.
        n = await _spin(lambda: raw.ibv_poll_cq(cq, 1, ref), owners, fn, deadline)
        if n < 0:
            raise _error(C.get_errno(), "ibv_poll_cq")
        if n:
            return self._completed(wc, recv)
        ev_cq, ev_ctx = C.c_void_p(), C.c_void_p()
        while True:
            _check_errno(raw.ibv_req_notify_cq(cq, 0), "ibv_req_notify_cq")
            n = raw.ibv_poll_cq(cq, 1, ref)
            if n:
                break
            await readiness.wait(deadline, "no completion within the time limit", owners, fn)
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
        """get_send_comp, awaited: the CQ polled on a few turns of the loop
        (RDMAVERBS_ASYNC_SPIN, 64 unless set; 0: none), then armed and its
        channel's fd watched by the loop (add_reader); the loop runs other
        tasks meanwhile.
        Raises what get_send_comp raises, and OSError (ibv_req_notify_cq's,
        ibv_get_cq_event's or ibv_poll_cq's errno)."""
        return await self._acomp(False, timeout)

    async def aget_recv_comp(self, timeout: Optional[float] = None) -> ibv_wc:
        """get_recv_comp, awaited (see aget_send_comp).
        Raises what get_recv_comp raises, and OSError (ibv_req_notify_cq's,
        ibv_get_cq_event's or ibv_poll_cq's errno)."""
        return await self._acomp(True, timeout)
