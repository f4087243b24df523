"""rdmaverbs: librdmacm's inline <rdma/rdma_verbs.h> functions (and
rdma_get_local_addr, rdma_get_peer_addr) from Python, through
librdmaverbs.so.1, with the standard library's ctypes.

Every function has its C name and C types; a failure (-1, or NULL) raises
OSError with the errno the call left (read right after it: ctypes'
use_errno). The unchecked ctypes functions are in `raw`. The structs
(ibv_sge, ibv_wc, rdma_addrinfo, ...) and constants come from _api.py,
generated from the library's table and checked against the system headers.

The vectored posts (rdma_post_sendv, ...) take their SGEs as a list or
tuple (of ibv_sge, or of (addr, length, lkey) tuples), copied into one C
array, or as a ctypes array of ibv_sge; an nsge larger than the list is
refused with ValueError. rdma_get_src_port and rdma_get_dst_port return
the port in network byte order, as C does; src_port and dst_port return
it in host order. ibv_wc_status_str (libibverbs) returns a str.

The libraries: librdmaverbs.so.1, librdmacm.so.1 and libibverbs.so.1,
found by the dynamic loader; RDMAVERBS_LIBRARY names another copy of
librdmaverbs.
"""
import ctypes
import os
import socket

from . import _api
from ._api import *  # noqa: F401,F403  (the structs and constants)

LIBRARY = os.environ.get("RDMAVERBS_LIBRARY") or "librdmaverbs.so.1"
_LIBS = {
    "rdmaverbs": ctypes.CDLL(LIBRARY, use_errno=True),
    "rdmacm": ctypes.CDLL("librdmacm.so.1", use_errno=True),
    "ibverbs": ctypes.CDLL("libibverbs.so.1", use_errno=True),
}


class raw:
    """The ctypes functions themselves: C results, errno left in ctypes.get_errno()."""


def _array(name, cls, value, n):
    """`value` as contiguous C memory holding at least n structs `cls`: a
    ctypes array of them as it is, a list or tuple (of cls, or of tuples of
    its fields) copied into one; None stays NULL."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        value = (cls * len(value))(*value)
    elif not (isinstance(value, ctypes.Array) and issubclass(value._type_, cls)):
        raise TypeError(f"{name}: a list or tuple of {cls.__name__} (or of tuples of its fields), "
                        f"or a ctypes array of {cls.__name__}, not {type(value).__name__} "
                        f"(rdmaverbs.raw.{name} takes a pointer)")
    if n > len(value):
        raise ValueError(f"{name}: the count ({n}) is more than the array's {len(value)} elements")
    return value


def _wrapped(name, fn, error, arrays, note):
    """fn with its arrays laid out, its failure raised as OSError, its C
    string returned as a str."""
    text = fn.restype is ctypes.c_char_p

    def call(*args):
        if arrays:
            args = list(args)
            for i, count, struct in arrays:
                args[i] = _array(name, getattr(_api, struct), args[i], args[count])
        r = fn(*args)
        if (error == "int" and r < 0) or (error == "ptr" and not r):
            err = ctypes.get_errno()
            raise OSError(err, f"{name}: {os.strerror(err)}")
        return r.decode() if text and r is not None else r
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"{name}, as the C function" + (f": {note}" if note else "") + \
        ("; a failure raises OSError (its errno)." if error else "; it cannot fail.")
    return call


for _lib, _name, _restype, _argtypes, _error, _arrays, _note in _api.FUNCTIONS:
    _fn = getattr(_LIBS[_lib], _name)
    _fn.restype, _fn.argtypes = _restype, _argtypes
    setattr(raw, _name, _fn)
    globals()[_name] = _wrapped(_name, _fn, _error, _arrays, _note)


def _host_order(name, c_name):
    fn = getattr(raw, c_name)

    def call(*args):
        return socket.ntohs(fn(*args))
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"{c_name}'s value in host order; it cannot fail."
    return call


for _name, _c_name in _api.HOST_ORDER.items():
    globals()[_name] = _host_order(_name, _c_name)


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
