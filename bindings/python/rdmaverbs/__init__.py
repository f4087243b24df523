"""rdmaverbs: librdmacm's inline <rdma/rdma_verbs.h> functions (and
rdma_get_local_addr, rdma_get_peer_addr) from Python, through
librdmaverbs.so.1, with the standard library's ctypes.

Every function has its C name and C types; a failure (-1, or NULL) raises
OSError with the errno the call left (read right after it: ctypes'
use_errno). The unchecked ctypes functions are in `raw`. The structs
(ibv_sge, ibv_wc, rdma_addrinfo, ...) and constants come from _api.py,
generated from the library's table and checked against the system headers.

The libraries: librdmaverbs.so.1 and librdmacm.so.1, found by the dynamic
loader; RDMAVERBS_LIBRARY names another copy of librdmaverbs.
"""
import ctypes
import os

from . import _api
from ._api import *  # noqa: F401,F403  (the structs and constants)

LIBRARY = os.environ.get("RDMAVERBS_LIBRARY") or "librdmaverbs.so.1"
_LIBS = {
    "rdmaverbs": ctypes.CDLL(LIBRARY, use_errno=True),
    "rdmacm": ctypes.CDLL("librdmacm.so.1", use_errno=True),
}


class raw:
    """The ctypes functions themselves: C results, errno left in ctypes.get_errno()."""


def _checked(name, fn, error):
    def call(*args):
        r = fn(*args)
        if (error == "int" and r < 0) or (error == "ptr" and not r):
            err = ctypes.get_errno()
            raise OSError(err, f"{name}: {os.strerror(err)}")
        return r
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"{name}, as the C function; a failure raises OSError (its errno)."
    return call


for _lib, _name, _restype, _argtypes, _error in _api.FUNCTIONS:
    _fn = getattr(_LIBS[_lib], _name)
    _fn.restype, _fn.argtypes = _restype, _argtypes
    setattr(raw, _name, _fn)
    globals()[_name] = _checked(_name, _fn, _error) if _error else _fn


def layout():
    """This binding's layout lines, as the C layout program prints the
    system headers': 'STRUCT sizeof N', 'STRUCT.FIELD offset N', 'NAME
    value N'."""
    for cls in _api.STRUCTS:
        yield f"{cls.__name__} sizeof {ctypes.sizeof(cls)}"
        for field, _ in cls._fields_:
            yield f"{cls.__name__}.{field} offset {getattr(cls, field).offset}"
    for name in _api.CONSTANTS:
        yield f"{name} value {getattr(_api, name)}"
