"""The asyncio side of the waits: an fd's readiness watched with the
running loop's add_reader, one reader an fd whoever waits on it."""
from __future__ import annotations

import errno as _errno
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from ._base import _error, _left, _nonblocking

if TYPE_CHECKING:
    import asyncio



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


class _Readiness:
    """An fd's readiness in asyncio (the running loop's add_reader, one per
    fd and loop whoever waits on it): any number of tasks may wait on it
    at once; all are woken, each then reads what it can without blocking
    (the fd is O_NONBLOCK)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        _nonblocking(fd)

    async def wait(self, deadline: Optional[float], what: str) -> None:
        """Until the fd is readable; TimeoutError (ETIMEDOUT) at the deadline."""
        import asyncio
        loop = asyncio.get_running_loop()
        fut: "asyncio.Future[None]" = loop.create_future()
        key = (id(loop), self.fd)
        # (Added again when others wait already: the same reader, so
        # that the fd is watched whatever happened to an earlier one.)
        loop.add_reader(self.fd, _wake, loop, self.fd)
        _watchers.setdefault(key, []).append(fut)
        left = _left(deadline)
        timer = None if left is None else loop.call_later(left, _expire, fut, what)
        try:
            await fut
        finally:
            if timer is not None:
                timer.cancel()
            waiting = _watchers.get(key)
            if waiting is not None and fut in waiting:
                waiting.remove(fut)
                if not waiting:
                    del _watchers[key]
                    loop.remove_reader(self.fd)


def _expire(fut: "asyncio.Future[None]", what: str) -> None:
    if not fut.done():
        fut.set_exception(_error(_errno.ETIMEDOUT, what))
