"""What every object shares: the errors of the C calls, the time limits
of the waits, the blocking wait on an fd, the objects leaked, and
Resource (the C handle, parents and children, close(), `with`, the
safety net of collection)."""
from __future__ import annotations

import ctypes as C
import errno as _errno
import fcntl
import itertools
import os
import select
import time
import warnings
import weakref
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from .. import _api

# The package's raw ctypes functions (their class: each is looked up at its
# call, so that a test may put a fake in its place).
from .. import raw as _R  # noqa: E402

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


# None as a time limit: the most poll(2) takes (24 days), so that a blocking
# wait always polls the descriptor first (a channel may be non-blocking).
_FOREVER_MS = 2 ** 31 - 1
_serial = itertools.count(1)


def _errno_text(err: int) -> str:
    """ "ECONNREFUSED (Connection refused)": err's name and text."""
    return f"{_errno.errorcode.get(err, f'errno {err}')} ({os.strerror(err)})"


def _error(err: int, what: str, detail: str = "") -> OSError:
    """OSError(err) (a TimeoutError for ETIMEDOUT, ...), saying the C
    function that failed (what), the errno's name and text, and detail:
    "[Errno 110] ibv_get_cq_event: ETIMEDOUT (Connection timed out): no
    completion event within the time limit"."""
    return OSError(err, f"{what}: {_errno_text(err)}" + (f": {detail}" if detail else ""))


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


def _readable(fd: int, deadline: Optional[float], fn: str, what: str) -> None:
    """Waits (poll(2)) until fd is readable; TimeoutError at the deadline
    (fn: the C function waited for; what: what did not come)."""
    p = select.poll()
    p.register(fd, select.POLLIN)
    while True:
        left = _left(deadline)
        if p.poll(_FOREVER_MS if left is None else _ms(left)):
            return
        if left is not None and time.monotonic() >= deadline:   # type: ignore[operator]
            raise _error(_errno.ETIMEDOUT, fn, what)


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
        # The asyncio waits pending on it (aio._Wait: the C function each
        # stands for), ended by its close.
        self._waits: Optional[Dict[Any, str]] = None
        self._parents: Tuple[Resource, ...] = tuple(p for p in parents if p is not None)
        for p in self._parents:
            p._check_open()
        for p in self._parents:
            p._children[self._serial] = weakref.ref(self)
        self._closed = False

    @property
    def handle(self) -> int:
        """The C object's address, for the raw layer's functions.
        Raises ValueError (closed)."""
        self._check_open()
        return self._handle

    def _h(self, fn: str) -> int:
        """The handle, for a call of the C function fn (the closed error,
        naming fn, once closed)."""
        if self._closed:
            self._check_open(fn)
        return self._handle

    @property
    def closed(self) -> bool:
        """Whether it is closed (its close(), or a parent's, ran). Raises
        nothing."""
        return self._closed

    def _check_open(self, fn: str = "") -> None:
        """ValueError (the closed error: "... is closed") once closed; fn,
        the C function refused, in its message."""
        if self._closed:
            raise ValueError(f"{fn + ': ' if fn else ''}{self!r} is closed")

    def _end_waits(self) -> None:
        """Ends the asyncio waits pending on this object at once: each
        raises the closed error (its task resumes after this close)."""
        waits, self._waits = self._waits or {}, None
        for w, fn in waits.items():
            w.end(ValueError(f"{fn}: the {self._kind} was closed while waiting ({self!r})"))

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
        if self._waits:
            self._end_waits()
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
        """The object itself (`with`). Raises nothing."""
        return self

    def __exit__(self, *exc: object) -> None:
        """close(). Raises what close() raises."""
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
