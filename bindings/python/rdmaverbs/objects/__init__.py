"""rdmaverbs' objects: the raw layer's handles as Python objects that close
themselves, hold the memory the device uses, and wait (with a time limit
if given), blocking or in asyncio.

- EventChannel, Endpoint (an rdma_cm id, with its QP), PD, MR, CompChannel,
  CQ, SRQ, QP: each is a context manager; close() destroys it, and is
  called by `with`, by its parent's close(), and, for one dropped without
  being closed, when Python collects it (with a ResourceWarning, as an
  unclosed file has).
- Closing a parent closes its children first, newest first, so that
  whatever the program does, the C objects are destroyed in the order
  verbs needs (a QP before its CQs, SRQ and PD; an MR before its PD; a CQ
  before its completion channel; every object of an id before the id;
  every id before its event channel). A child holds its parents: a
  parent is never collected before its children.
- Memory kept alive: an MR holds its buffer (a bytearray, a ctypes array,
  an mmap, any writable buffer: its size is locked while registered), and
  a posted work request holds the MRs it names until its completion has
  been reaped through these objects (CQ.poll/get/aget, Endpoint's
  get_*_comp), or its queue is destroyed (an id's own QP, which
  rdma_create_ep made: when the id is). A completion in error releases
  nothing: what was posted to that QP stays held until the QP closes. An
  object collected whose destroy fails (its C object lives on) keeps what
  it held for the life of the process, with a RuntimeWarning.
- A failed call raises OSError with its errno (TimeoutError, a subclass,
  for ETIMEDOUT); a completion in error, from the calls that wait for one
  completion, raises CompletionError.
- Waits: timeout in seconds. Every wait can be bounded (but an
  Endpoint.create id's connect and accept: librdmacm waits inside); None
  is no limit, the default of get_event, expect, get_request,
  get_send_comp, get_recv_comp, get_cq_event and CQ.get (connect, accept
  and disconnect: 60 s; resolve: 2 s). The async form (a* methods) waits
  with the running loop's add_reader (one reader an fd, whoever waits on
  it) and never blocks the loop.
"""
from __future__ import annotations

# One module an object (the names are all here, and at the package's top).
from ._base import Resource, _leaked
from .aio import _watchers
from .channel import CMEvent, CompChannel, EventChannel
from .cq import CQ
from .endpoint import Endpoint
from .errors import CMEventError, CompletionError, PostError
from .mr import MR, Buffer, Sge, _memory
from .pd import PD
from .qp import QP, RecvWR, SendWR, _release
from .srq import SRQ

__all__ = ["Resource", "EventChannel", "Endpoint", "CMEvent", "PD", "MR", "CompChannel", "CQ", "SRQ", "QP",
           "SendWR", "RecvWR", "Sge", "Buffer", "CompletionError", "CMEventError", "PostError"]
# (_leaked, _watchers, _memory, _release: the tests look at them here.)
_private = (_leaked, _watchers, _memory, _release)
