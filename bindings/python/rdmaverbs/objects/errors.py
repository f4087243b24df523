"""The errors the objects raise beside OSError: a completion in error, an
rdma_cm event other than the one awaited, a post the provider refused."""
from __future__ import annotations

import errno as _errno
import os
from typing import TYPE_CHECKING

from .. import _api
from .._api import ibv_wc

if TYPE_CHECKING:
    from .channel import CMEvent


class CompletionError(OSError):
    """A completion whose status is not IBV_WC_SUCCESS, from a call that
    waits for one completion: errno EIO, .wc the completion, .status its
    status (ibv_wc_status_str says it in words)."""

    def __init__(self, wc: ibv_wc) -> None:
        from .. import ibv_wc_status_str
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
        from .. import rdma_event_str
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
