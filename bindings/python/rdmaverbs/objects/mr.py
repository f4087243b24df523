"""Memory regions: the MR object, the memory it holds, the SGEs naming it."""
from __future__ import annotations

import ctypes as C
import mmap
from typing import Any, Callable, Optional, Sequence, Tuple, Union

from .._api import ibv_mr, ibv_sge
from .. import raw as _R
from ._base import Resource, _check_errno, _check_int

# A writable buffer (bytearray, ctypes array, mmap, memoryview of one) or a
# size in bytes (zeroed memory, 8-byte aligned, allocated for the MR);
# a type checker refuses anything else (bytes and str are not writable).
Buffer = Union[int, bytearray, memoryview, mmap.mmap, "C.Array[Any]"]
# A scatter/gather element: an MR, an offset into it and a length.
Sge = Tuple["MR", int, int]


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
        deregister the C one.
        Raises TypeError (not writable memory)."""
        mem, _ = _memory(memory)
        return cls(handle, (), mem, None, owned=False)

    def _destroy(self) -> None:
        if self._deregister is not None:
            self._deregister(self._handle)

    def _held(self) -> Any:
        return self._memory

    def _span(self, offset: int, length: Optional[int], fn: str = "") -> Tuple[int, int]:
        n = self.length - offset if length is None else length
        if offset < 0 or n < 0 or offset + n > self.length:
            raise ValueError(f"{offset}+{n} bytes is outside the MR's {self.length}")
        self._check_open(fn)
        return self.addr + offset, n

    def sge(self, offset: int = 0, length: Optional[int] = None) -> Sge:
        """(self, offset, length): a part of this MR for a work request.
        Raises ValueError (outside the MR, or closed)."""
        self._span(offset, length)
        return (self, offset, self.length - offset if length is None else length)


def _sges(sgl: Sequence[Sge], fn: str = "") -> Tuple["C.Array[Any]", Tuple["MR", ...]]:
    """SGEs (MR, offset, length) as a C array; the MRs they name."""
    arr = (ibv_sge * max(1, len(sgl)))()
    for i, (mr, offset, length) in enumerate(sgl):
        addr, n = mr._span(offset, length, fn)
        arr[i].addr, arr[i].length, arr[i].lkey = addr, n, mr.lkey
    return arr, tuple(mr for mr, _, _ in sgl)
