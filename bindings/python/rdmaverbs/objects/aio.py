"""The asyncio side of the waits: an fd's readiness watched with the
running loop's add_reader, one reader an fd whoever waits on it."""
from __future__ import annotations

import errno as _errno
import os
import time
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence, Tuple

from ._base import _error, _left, _nonblocking

if TYPE_CHECKING:
    import asyncio

    from ._base import Resource



# The turns of the loop an async completion wait polls its CQ on before it
# arms the CQ and watches its channel's fd (RDMAVERBS_ASYNC_SPIN; 0: at
# once): a completion that comes within them costs no arming, no event and
# no reader, and the loop runs the other tasks between the polls.
def _spin_turns() -> int:
    try:
        return max(0, int(os.environ.get("RDMAVERBS_ASYNC_SPIN", "64")))
    except ValueError:
        return 64


SPIN = _spin_turns()


async def _spin(poll: Callable[[], int], owners: Sequence["Resource"], fn: str,
                deadline: Optional[float]) -> int:
    """poll() on up to SPIN turns of the running loop, until it returns
    non-zero (returned); 0 when none did. Ends as a wait does: ValueError
    (closed) once an owner is closed, TimeoutError (ETIMEDOUT) at the
    deadline."""
    import asyncio
    for _ in range(SPIN):
        await asyncio.sleep(0)
        for o in owners:
            o._check_open(fn)
        n = poll()
        if n:
            return n
        if deadline is not None and time.monotonic() >= deadline:
            raise _error(_errno.ETIMEDOUT, fn, "no completion within the time limit")
    return 0


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


class _Wait:
    """One task's wait for an fd's readiness: its future, and where it is
    listed (_watchers); ended by a close of what it waits on (end())."""

    __slots__ = ("fut", "loop", "fd", "__weakref__")

    def __init__(self, fut: "asyncio.Future[None]", loop: "asyncio.AbstractEventLoop", fd: int) -> None:
        self.fut, self.loop, self.fd = fut, loop, fd

    def unlist(self) -> None:
        """No longer watching: its fd's reader removed with the last waiter."""
        key = (id(self.loop), self.fd)
        waiting = _watchers.get(key)
        if waiting is not None and self.fut in waiting:
            waiting.remove(self.fut)
            if not waiting:
                del _watchers[key]
                self.loop.remove_reader(self.fd)

    def end(self, error: BaseException) -> None:
        """Ends the wait with error at once (a close): unlisted now, before
        the fd may be closed, its future failed (from another thread: by
        the loop)."""
        import asyncio
        try:
            here = asyncio.get_running_loop() is self.loop
        except RuntimeError:
            here = False
        if not here:
            self.loop.call_soon_threadsafe(self.end, error)
            return
        self.unlist()
        if not self.fut.done():
            self.fut.set_exception(error)


class _Readiness:
    """An fd's readiness in asyncio (the running loop's add_reader, one per
    fd and loop whoever waits on it): any number of tasks may wait on it
    at once; all are woken, each then reads what it can without blocking
    (the fd is O_NONBLOCK). A wait is ended at once by a close of an
    object it waits on (owners): the closed error."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        _nonblocking(fd)

    async def wait(self, deadline: Optional[float], what: str, owners: Sequence["Resource"] = (),
                   fn: str = "") -> None:
        """Until the fd is readable; TimeoutError (ETIMEDOUT) at the
        deadline; ValueError (closed) once an owner is closed (fn: the C
        function the wait stands for, in its message)."""
        import asyncio
        loop = asyncio.get_running_loop()
        for o in owners:
            o._check_open(fn)
        fut: "asyncio.Future[None]" = loop.create_future()
        w = _Wait(fut, loop, self.fd)
        # (Added again when others wait already: the same reader, so
        # that the fd is watched whatever happened to an earlier one.)
        loop.add_reader(self.fd, _wake, loop, self.fd)
        _watchers.setdefault((id(loop), self.fd), []).append(fut)
        for o in owners:
            if o._waits is None:
                o._waits = {}
            o._waits[w] = fn
        left = _left(deadline)
        timer = None if left is None else loop.call_later(left, _expire, fut, fn, what)
        try:
            await fut
        finally:
            if timer is not None:
                timer.cancel()
            for o in owners:
                if o._waits is not None:
                    o._waits.pop(w, None)
            w.unlist()
        # Woken, then closed before this task ran: the closed error, never
        # a read of what is destroyed.
        for o in owners:
            o._check_open(fn)


def _expire(fut: "asyncio.Future[None]", fn: str, what: str) -> None:
    if not fut.done():
        fut.set_exception(_error(_errno.ETIMEDOUT, fn, what))
