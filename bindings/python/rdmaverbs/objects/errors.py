"""The errors the objects raise beside OSError: a completion in error, an
rdma_cm event other than the one awaited, a post the provider refused."""
from __future__ import annotations

import errno as _errno
from typing import TYPE_CHECKING

from .. import _api
from .._api import ibv_wc
from ._base import _errno_text

if TYPE_CHECKING:
    from .channel import CMEvent


class CompletionError(OSError):
    """A completion whose status is not IBV_WC_SUCCESS, from a call that
    waits for one completion: errno EIO, .wc the completion, .status its
    status (ibv_wc_status_str says it in words)."""

    def __init__(self, wc: ibv_wc, fn: str = "ibv_poll_cq") -> None:
        from .. import ibv_wc_status_str
        super().__init__(_errno.EIO, f"{fn}: {_errno_text(_errno.EIO)}: completion of wr_id {wc.wr_id:#x}: "
                                     f"{ibv_wc_status_str(wc.status)} (status {wc.status}, "
                                     f"vendor_err {wc.vendor_err:#x})")
        self.wc = wc
        self.status: int = wc.status


class CMEventError(OSError):
    """An rdma_cm event other than the one awaited (REJECTED, UNREACHABLE,
    ...) or one with a status, after fn (rdma_connect, rdma_accept,
    rdma_resolve_addr, ...): .event the event, errno its status if
    negative, else ECONNREFUSED (REJECTED), EHOSTUNREACH (UNREACHABLE,
    ADDR_ERROR, ROUTE_ERROR), ECONNRESET (CONNECT_ERROR) or EPROTO; its
    message says fn, the errno's name and the event."""

    def __init__(self, event: "CMEvent", want: int, fn: str = "rdma_get_cm_event") -> None:
        from .. import rdma_event_str
        err = -event.status if event.status < 0 else {
            _api.RDMA_CM_EVENT_REJECTED: _errno.ECONNREFUSED,
            _api.RDMA_CM_EVENT_UNREACHABLE: _errno.EHOSTUNREACH,
            _api.RDMA_CM_EVENT_ADDR_ERROR: _errno.EHOSTUNREACH,
            _api.RDMA_CM_EVENT_ROUTE_ERROR: _errno.EHOSTUNREACH,
            _api.RDMA_CM_EVENT_CONNECT_ERROR: _errno.ECONNRESET,
        }.get(event.event, _errno.EPROTO)
        super().__init__(err, f"{fn}: {_errno_text(err)}: rdma_cm event {rdma_event_str(event.event)} "
                              f"status {event.status}, waiting for {rdma_event_str(want)}")
        self.event = event


class PostError(OSError):
    """A post the provider refused (its errno value): .index is the first
    work request of the list not posted (those before it were)."""

    def __init__(self, err: int, what: str, index: int) -> None:
        super().__init__(err, f"{what}: {_errno_text(err)}: work request {index} and after not posted")
        self.index = index
