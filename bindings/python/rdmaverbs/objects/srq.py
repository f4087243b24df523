"""Shared receive queues."""
from __future__ import annotations

import ctypes as C
from typing import Any, Dict, Optional, Sequence, Tuple

from .._api import ibv_recv_wr
from .. import raw as _R
from ._base import Resource, _check_errno
from .errors import PostError
from .qp import RecvWR, _bad_index, _recv_list


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
        """An SRQ object over an ibv_srq made with the raw layer.
        Raises nothing."""
        return cls(handle, (), owned=False)

    def _destroy(self) -> None:
        _check_errno(_R.ibv_destroy_srq(self._handle), "ibv_destroy_srq")

    def _released(self) -> None:
        self._pending.clear()

    def _held(self) -> Any:
        return self._pending

    @property
    def pending(self) -> int:
        """Receives posted whose completion has not been reaped.
        Raises nothing."""
        return len(self._pending)

    def post_recv(self, wrs: Sequence[RecvWR]) -> None:
        """The receives, one list, one ibv_post_srq_recv (PostError: those
        from .index on were not posted).
        Raises PostError (ibv_post_srq_recv's errno; .index), ValueError
        (wr_ids not distinct, outside an MR, or closed)."""
        ids = [w.wr_id for w in wrs]
        if len(set(ids)) != len(ids) or any(i in self._pending for i in ids):
            raise ValueError("an SRQ's receives posted and not reaped need distinct wr_ids")
        arr, keep, holds = _recv_list(wrs, "ibv_post_srq_recv")
        bad = C.c_void_p()
        err = _R.ibv_post_srq_recv(self._h("ibv_post_srq_recv"), arr, C.byref(bad))
        done = _bad_index(arr, C.sizeof(ibv_recv_wr), bad) if err else len(wrs)
        for i in range(done):
            self._pending[ids[i]] = holds[i]
        if err:
            raise PostError(err, "ibv_post_srq_recv", done)
