// rdmaverbs' objects for Node.js, beside the raw functions (../index.js):
// an endpoint (an rdma_cm id with its QP), event and completion channels,
// PDs, MRs, CQs and SRQs as objects that close themselves.
//
// - close() closes an object; a FinalizationRegistry closes it when it is
//   collected unclosed (with a warning, as Node's FileHandle does). Either
//   way the C objects go in the order they depend on each other, whatever
//   the program does: an object others depend on (a PD under its MRs and
//   QPs, a CQ under its QPs, a channel under its CQs or ids) is destroyed
//   once the last of them is, and an MR once no posted work request uses
//   it. A closed object's methods throw EBADF at once.
// - An MR holds its buffer; a posted work request holds the MRs of its
//   SGEs (so their buffers) until its completion is reaped by
//   CompletionQueue's poll(), next() or nextSync(), or its QP (its SRQ) is
//   destroyed. A completion reaped with the raw ibv_poll_cq releases
//   nothing until then.
// - A failure throws RdmaVerbsError (.errno negative, .code, .syscall); a
//   bound that expires, ETIMEDOUT. A destroy that fails (close() throws)
//   leaves its C object, and so what it holds (an MR's buffer) and depends
//   on, kept for the rest of the process (leaked).
// - Every wait has two forms: NAMESync(..., timeoutMs) blocks (libc's
//   poll() on the channel's fd, then the non-blocking read), NAME(...,
//   { timeout }) returns a Promise and never blocks the event loop (below).
//
// How a Promise waits: the channels' fds are set O_NONBLOCK and read only
// when they are readable; readability is learned from one koffi async call
// of poll() at a time, over every fd a Promise waits on and an eventfd that
// wakes it when that set changes (a libuv pool thread is busy in it while
// some Promise waits, none otherwise). Node cannot watch these fds itself:
// net.Socket refuses their types (ERR_INVALID_FD_TYPE) and libuv's
// uv_poll_t is not exposed. A timer polling them would add up to its period
// to every wait and wake the process while idle; a worker_threads worker
// would do what this does with a second V8 isolate and messages. A CQ
// without a completion channel is polled (setImmediate, then every ms).
'use strict';

// One module an object (and what they share: errors, async, native, work),
// each a function of ctx, the names the modules before it defined; a name
// of a module after it is looked up in ctx when called (ctx.Endpoint).
const MODULES = ['errors', 'async', 'native', 'work', 'mr', 'pd', 'channel', 'cq', 'srq', 'endpoint', 'connect'];

module.exports = function objects(rv) {
  const ctx = { rv, koffi: rv.koffi, types: rv.types, RdmaVerbsError: rv.RdmaVerbsError, raw: rv.raw };
  for (const m of MODULES) require(`./${m}.js`)(ctx);
  const {
    EventChannel, Endpoint, ProtectionDomain, MemoryRegion, CompletionChannel, CompletionQueue,
    SharedReceiveQueue, RdmaCmEventError, connect, connectSync, createEndpoint, createEndpointSync, listen, htonl,
    leaked, reactor,
  } = ctx;
  return {
    EventChannel, Endpoint, ProtectionDomain, MemoryRegion, CompletionChannel, CompletionQueue,
    SharedReceiveQueue, RdmaCmEventError, connect, connectSync, createEndpoint, createEndpointSync, listen, htonl,
    ntohl: htonl, leaked, _reactor: reactor,
  };
};
