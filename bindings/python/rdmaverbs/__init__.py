"""rdmaverbs: the static inline functions of librdmacm's <rdma/rdma_verbs.h>
and of <infiniband/verbs.h> (ibv_post_send, ibv_poll_cq, ibv_req_notify_cq,
...) from Python, through librdmaverbs.so.1, with the standard library's
ctypes; and the real librdmacm and libibverbs calls a program makes with
them (event channels and ids, completion channels, PDs, CQs, SRQs,
address handles, MRs).

Every function has its C name and C types; a failure raises OSError with
its errno: the errno the call left (read right after it: ctypes'
use_errno) for -1 (rdma_*, ibv_get_cq_event), a negative ibv_poll_cq or
NULL; the value itself for the functions that return an errno value
(ibv_post_send, ibv_dealloc_pd, ibv_advise_mr, ...); minus a negative
value (ibv_query_gid_table). Each function's docstring says which. The
unchecked ctypes functions are in `raw`. The structs (ibv_sge, ibv_wc, ibv_send_wr and its unions,
rdma_cm_event, ...) and constants come from _api.py, generated from the
library's table and checked against the system headers.

The arrays of structs (the vectored posts' SGEs, ibv_wr_set_sge_list's
and ibv_advise_mr's, ibv_poll_cq's completions) are a list or tuple (of
the struct, or of tuples of its fields), copied into one C array (and,
for ibv_poll_cq, copied back into the list's structs, so that its list
must hold the structs: tuples are refused with TypeError before C is
called), or a ctypes array of the struct, passed as it is; a count larger
than the list is refused with ValueError before C is called.
rdma_get_src_port and rdma_get_dst_port return the port in network byte
order, as C does; src_port and dst_port return it in host order.
ibv_wc_status_str and rdma_event_str return a str.

The libraries: librdmaverbs.so.1, librdmacm.so.1 and libibverbs.so.1,
found by the dynamic loader; RDMAVERBS_LIBRARY names another copy of
librdmaverbs. librdmaverbs' functions are found by their symbol version
(dlvsym: ibv_post_send@RDMAVERBS_1.3), never a same-named symbol of
another library.
"""
import ctypes
import errno
import os
import socket
from typing import TYPE_CHECKING, Any, Callable, Iterator, List, Optional, Sequence, Tuple

from . import _api
from ._api import *  # noqa: F401,F403  (the structs and constants)

if TYPE_CHECKING:   # the functions made below, as _functions.pyi declares them
    from ._functions import *  # noqa: F401,F403
    from ._functions import raw

LIBRARY = os.environ.get("RDMAVERBS_LIBRARY") or "librdmaverbs.so.1"


def _load(name: str, package: str) -> ctypes.CDLL:
    """The library name, loaded; else OSError (ENOENT) saying which library
    was looked for, where, and what provides it."""
    try:
        return ctypes.CDLL(name, use_errno=True)
    except OSError as e:
        if "/" in name:
            where = "at the path RDMAVERBS_LIBRARY names" if name == os.environ.get("RDMAVERBS_LIBRARY") else \
                "at that path"
            fix = (f"set RDMAVERBS_LIBRARY to the path of a librdmaverbs.so.1 (a clone's build/lib, after make), "
                   f"or unset it to use the installed one (the package {package})")
        else:
            where = (f"by the dynamic loader, in LD_LIBRARY_PATH ({os.environ.get('LD_LIBRARY_PATH') or 'unset'}), "
                     f"/etc/ld.so.cache and the system's library folders")
            fix = f"install the package {package}"
            if package == "librdmaverbs1":
                fix += (", or set RDMAVERBS_LIBRARY to the path of one (a clone's build/lib/librdmaverbs.so.1, "
                        "after make)")
        raise OSError(errno.ENOENT, f"rdmaverbs: cannot load {name}, looked for {where} ({e}): {fix}") from e


_LIBS = {
    "rdmaverbs": _load(LIBRARY, "librdmaverbs1"),
    "rdmacm": _load("librdmacm.so.1", "librdmacm1"),
    "ibverbs": _load("libibverbs.so.1", "libibverbs1"),
}
_libc = ctypes.CDLL("libc.so.6")
if not hasattr(_libc, "dlvsym"):    # glibc before 2.34 (Debian 11) keeps it in libdl
    _libc = ctypes.CDLL("libdl.so.2")
_libc.dlvsym.restype = ctypes.c_void_p
_libc.dlvsym.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]


def _versioned(lib: ctypes.CDLL, name: str, version: str, restype: Any, argtypes: List[Any],
               since: Optional[int]) -> Any:
    """The function name@version of lib (dlvsym on its handle), with errno
    saved after each call as CDLL's functions do. One that a later rdma-core
    release brought (since) is missing from a library built against an
    older one's headers: then a function that raises OSError(ENOSYS) saying
    so, at each call (loading the binding does not fail for it)."""
    address = _libc.dlvsym(lib._handle, name.encode(), version.encode())
    if address:
        return ctypes.CFUNCTYPE(restype, *argtypes, use_errno=True)(address)
    if since is None:
        raise AttributeError(f"rdmaverbs: {lib._name} has no {name}@{version}: it is older than this package; "
                             f"install the package librdmaverbs1 of this version, or set RDMAVERBS_LIBRARY "
                             f"to a newer build")
    return _Missing(name, restype, argtypes,
                    f"{name} is not in {lib._name}: it came with rdma-core {since}, and this build of "
                    f"rdmaverbs was made against an older rdma-core's headers (rebuild it against "
                    f"rdma-core {since} or later)")


class _Missing:
    """A function of the table that the library's build lacks: its call
    raises OSError(ENOSYS, message)."""

    def __init__(self, name: str, restype: Any, argtypes: List[Any], message: str) -> None:
        self.__name__, self.restype, self.argtypes, self.message = name, restype, argtypes, message

    def __call__(self, *args: Any) -> Any:
        raise OSError(errno.ENOSYS, self.message)


if not TYPE_CHECKING:
    class raw:
        """The ctypes functions themselves: C results, errno left in ctypes.get_errno()."""


def _array(name: str, cls: Any, value: Any, n: int, out: bool) -> Any:
    """`value` as contiguous C memory holding at least n structs `cls`: a
    ctypes array of them as it is, a list or tuple (of cls, or of tuples of
    its fields; of cls only if C writes into it, `out`: what C wrote is
    copied back into them) copied into one; None stays NULL. Anything
    refused is refused before C is called (a poll's completions would
    be lost after it)."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        if out:
            for i, element in enumerate(value):
                if not isinstance(element, cls):
                    raise TypeError(f"{name}: element {i} is a {type(element).__name__}: C writes into this "
                                    f"array, and what it writes is copied back into the list's elements, "
                                    f"which must be {cls.__name__} structs")
        value = (cls * len(value))(*value)
    elif not (isinstance(value, ctypes.Array) and issubclass(value._type_, cls)):
        raise TypeError(f"{name}: a list or tuple of {cls.__name__} (or of tuples of its fields), "
                        f"or a ctypes array of {cls.__name__}, not {type(value).__name__} "
                        f"(rdmaverbs.raw.{name} takes a pointer)")
    if n > len(value):
        raise ValueError(f"{name}: the count ({n}) is more than the array's {len(value)} elements")
    return value


def _copy_back(given: Any, copy: Any) -> None:
    """What C wrote into `copy`, the C array made of the list `given`,
    copied into the list's structs (each a struct: _array checked it)."""
    if copy is given or given is None:
        return
    for i, element in enumerate(given):
        ctypes.pointer(element)[0] = copy[i]


def _failed(error: Optional[str], r: Any) -> int:
    """The errno of a failed call, or 0: a negative value or NULL (the errno
    left), an errno value returned, a negative value (minus the errno)."""
    if (error == "int" and r < 0) or (error == "ptr" and not r):
        return ctypes.get_errno()
    if error == "errno":
        return int(r)
    if error == "neg" and r < 0:
        return -int(r)
    return 0


_FAILS = {"int": "; a failure (a negative value) raises OSError (the errno left).",
          "ptr": "; a failure (NULL) raises OSError (the errno left).",
          "errno": "; a failure (an errno value) raises OSError (that errno).",
          "neg": "; a failure (a negative value) raises OSError (minus that value).",
          None: "; it raises nothing."}


def _wrapped(name: str, fn: Any, error: Optional[str], arrays: Sequence[Tuple[int, int, str, bool]],
             note: Optional[str]) -> Callable[..., Any]:
    """fn with its arrays laid out (and copied back), its failure raised as
    OSError, its C string returned as a str."""
    text = fn.restype is ctypes.c_char_p

    def call(*given: Any) -> Any:
        args = list(given) if arrays else given
        if arrays:
            for i, count, struct, out in arrays:
                args[i] = _array(name, getattr(_api, struct), args[i], args[count], out)  # type: ignore[index]
        r = fn(*args)
        if arrays:
            for i, _, _, out in arrays:
                if out:
                    _copy_back(given[i], args[i])
        err = _failed(error, r)
        if err:
            raise OSError(err, f"{name}: {errno.errorcode.get(err, f'errno {err}')} ({os.strerror(err)})")
        return r.decode() if text and r is not None else r
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"{name}, as the C function" + (f": {note}" if note else "") + _FAILS[error]
    return call


_FUNCTIONS: List[Any] = _api.FUNCTIONS
for _lib, _name, _restype, _argtypes, _error, _arrays, _note, _version, _since in _FUNCTIONS:
    if _version:
        _fn = _versioned(_LIBS[_lib], _name, _version, _restype, _argtypes, _since)
    else:
        _fn = getattr(_LIBS[_lib], _name)
        _fn.restype, _fn.argtypes = _restype, _argtypes
    setattr(raw, _name, _fn)
    globals()[_name] = _wrapped(_name, _fn, _error, _arrays, _note)


def _host_order(name: str, c_name: str) -> Callable[..., int]:
    fn = getattr(raw, c_name)

    def call(*args: Any) -> int:
        return socket.ntohs(fn(*args))
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"{c_name}'s value in host order; it cannot fail."
    return call


for _name, _c_name in _api.HOST_ORDER.items():
    globals()[_name] = _host_order(_name, _c_name)


def layout() -> Iterator[str]:
    """This binding's layout lines, as the C layout program prints the
    system headers': 'STRUCT sizeof N', 'STRUCT.FIELD offset N', 'NAME
    value N'."""
    for cls in _api.STRUCTS:    # structs and unions
        yield f"{cls.__name__} sizeof {ctypes.sizeof(cls)}"
        for field, *_ in cls._fields_:
            yield f"{cls.__name__}.{field} offset {getattr(cls, field).offset}"
    for name in _api.CONSTANTS:
        yield f"{name} value {getattr(_api, name)}"


# The objects (objects.py): the handles above as Python objects that close
# themselves, keep what the device uses alive, and wait (with a time limit
# if given), blocking or in asyncio.
from .objects import (  # noqa: E402  (X as X: re-exported, for type checkers)
    CMEvent as CMEvent, CMEventError as CMEventError, CompChannel as CompChannel,
    CompletionError as CompletionError, CQ as CQ, Endpoint as Endpoint, EventChannel as EventChannel,
    MR as MR, PD as PD, PostError as PostError, QP as QP, RecvWR as RecvWR, Resource as Resource,
    SendWR as SendWR, SRQ as SRQ)
