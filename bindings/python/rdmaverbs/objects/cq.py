"""Completion queues: polled, armed, waited for (blocking or awaited)."""
from __future__ import annotations

import ctypes as C
import errno as _errno
import time
import weakref
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence

from .._api import IBV_WC_RECV, ibv_wc
from .. import raw as _R
from ._base import Resource, _check_errno, _deadline, _error, _left, _poll_cq, _req_notify_cq
from .aio import _spin
from .qp import _release

if TYPE_CHECKING:
    from .channel import CompChannel
    from .qp import QP


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
        does not destroy the C one.
        Raises nothing."""
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
        """Up to max completions (one ibv_poll_cq), reaped.
        Raises OSError (ibv_poll_cq's errno), ValueError (closed)."""
        arr = (ibv_wc * max)()
        n = _poll_cq(self._h("ibv_poll_cq"), max, arr)
        if n < 0:
            raise _error(C.get_errno(), "ibv_poll_cq")
        out = arr[:n]
        for wc in out:
            self._reap(wc)
        return out

    def req_notify(self, solicited_only: bool = False) -> None:
        """Arms the CQ (ibv_req_notify_cq): its next completion (solicited
        only: its next solicited one) makes an event on its channel.
        Raises OSError (ibv_req_notify_cq's errno), ValueError (closed)."""
        _check_errno(_req_notify_cq(self._h("ibv_req_notify_cq"), int(solicited_only)), "ibv_req_notify_cq")

    def get(self, n: int = 1, timeout: Optional[float] = None) -> List[ibv_wc]:
        """Exactly n completions (polled, up to 16 at once), waiting up to
        timeout seconds in all (TimeoutError): on its channel's events when
        it has one (armed, polled again, then waited for), else polling
        every millisecond.
        Raises OSError (ibv_poll_cq's, ibv_req_notify_cq's or
        ibv_get_cq_event's errno), TimeoutError (ETIMEDOUT), ValueError
        (closed)."""
        deadline = _deadline(timeout)
        out: List[ibv_wc] = []
        while True:
            out += self.poll(min(16, n - len(out)))
            if len(out) >= n:
                return out
            if self.channel is None:
                if deadline is not None and time.monotonic() >= deadline:
                    raise _error(_errno.ETIMEDOUT, "ibv_poll_cq", "too few completions within the time limit")
                time.sleep(0.001)
                continue
            self.req_notify()
            out += self.poll(min(16, n - len(out)))
            if len(out) >= n:
                return out
            self.channel.get_cq_event(_left(deadline))

    async def aget(self, n: int = 1, timeout: Optional[float] = None) -> List[ibv_wc]:
        """get, awaited: polled on a few turns of the loop
        (RDMAVERBS_ASYNC_SPIN, 64 unless set; 0: none), then the channel's
        fd watched by the loop (without a channel, asyncio.sleep between
        polls).
        Raises what get raises."""
        import asyncio
        deadline = _deadline(timeout)
        out: List[ibv_wc] = []
        while True:
            out += self.poll(min(16, n - len(out)))
            if len(out) >= n:
                return out
            if self.channel is None:
                if deadline is not None and time.monotonic() >= deadline:
                    raise _error(_errno.ETIMEDOUT, "ibv_poll_cq", "too few completions within the time limit")
                await asyncio.sleep(0.001)
                continue
            # First polled on a few turns of the loop (aio.SPIN), then armed.
            owners = (self, self.channel)

            def enough() -> int:
                out.extend(self.poll(min(16, n - len(out))))
                return len(out) >= n
            if await _spin(enough, owners, "ibv_poll_cq", deadline):
                return out
            self.req_notify()
            out += self.poll(min(16, n - len(out)))
            if len(out) >= n:
                return out
            await self.channel._aget_cq_event(_left(deadline), owners)
