"""Protection domains."""
from __future__ import annotations

import ctypes as C

from .._api import IBV_ACCESS_LOCAL_WRITE, ibv_srq_attr, ibv_srq_init_attr
from .. import raw as _R
from ._base import Resource, _check_errno, _check_ptr
from .mr import MR, Buffer, _deregister_verbs, _memory
from .srq import SRQ


class PD(Resource):
    """A protection domain (ibv_alloc_pd): reg_mr, create_srq. Closing it
    closes its MRs, SRQs and QPs first."""

    _kind = "PD"

    def _destroy(self) -> None:
        _check_errno(_R.ibv_dealloc_pd(self._handle), "ibv_dealloc_pd")

    def reg_mr(self, buf: Buffer, access: int = IBV_ACCESS_LOCAL_WRITE) -> "MR":
        """buf registered (ibv_reg_mr_iova2, its address as iova) with these
        IBV_ACCESS_* flags; an int is a size (zeroed memory made for it,
        8-byte aligned: fit for atomics).
        Raises OSError (ibv_reg_mr_iova2's errno), TypeError (not writable
        memory), ValueError (a size not positive, or closed)."""
        mem, length = _memory(buf)
        addr = C.addressof(mem)
        h = _check_ptr(_R.ibv_reg_mr_iova2(self._h("ibv_reg_mr_iova2"), addr, length, addr, access), "ibv_reg_mr_iova2")
        return MR(h, (self,), mem, _deregister_verbs)

    def create_srq(self, max_wr: int, max_sge: int = 1, srq_limit: int = 0) -> "SRQ":
        """A shared receive queue (ibv_create_srq).
        Raises OSError (ibv_create_srq's errno), ValueError (closed)."""
        attr = ibv_srq_init_attr(attr=ibv_srq_attr(max_wr=max_wr, max_sge=max_sge, srq_limit=srq_limit))
        return SRQ(_check_ptr(_R.ibv_create_srq(self._h("ibv_create_srq"), C.byref(attr)), "ibv_create_srq"), (self,))
