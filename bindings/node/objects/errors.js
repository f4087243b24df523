// The errors: a failed call (RdmaVerbsError, index.js's) and an rdma_cm event
// other than the one awaited.
'use strict';

const os = require('os');
const { ECONNREFUSED, ECONNRESET, EHOSTUNREACH, EPROTO } = os.constants.errno;

module.exports = function errorsObjects(ctx) {
  const { RdmaVerbsError, rv } = ctx;

  // fn failed with errno (detail: what else is known, 'the CQ is closed').
  function fail(fn, errno, detail) {
    return new RdmaVerbsError(fn, errno, detail);
  }

  // The errno an rdma_cm event stands for: its status if negative, else by
  // event: REJECTED ECONNREFUSED, UNREACHABLE, ADDR_ERROR and ROUTE_ERROR
  // EHOSTUNREACH, CONNECT_ERROR ECONNRESET, any other EPROTO (as Python's
  // CMEventError, Rust's and Java's).
  function cmErrno(ev) {
    if (ev.status < 0) return -ev.status;
    switch (ev.event) {
      case rv.RDMA_CM_EVENT_REJECTED: return ECONNREFUSED;
      case rv.RDMA_CM_EVENT_UNREACHABLE: case rv.RDMA_CM_EVENT_ADDR_ERROR: case rv.RDMA_CM_EVENT_ROUTE_ERROR:
        return EHOSTUNREACH;
      case rv.RDMA_CM_EVENT_CONNECT_ERROR: return ECONNRESET;
      default: return EPROTO;
    }
  }

  /** An rdma_cm event that is not the one awaited (or one with a status),
   * after fn (rdma_connect, rdma_accept, rdma_resolve_addr, ...): an
   * RdmaVerbsError (.errno negative, .code, .syscall: 'ECONNREFUSED' for
   * REJECTED), with .event, .status, .want; its message says them all. */
  class RdmaCmEventError extends RdmaVerbsError {
    constructor(ev, want, fn = 'rdma_get_cm_event') {
      super(fn, cmErrno(ev), `event ${ev.name} (status ${ev.status}), not ${rv.rdma_event_str(want)}`);
      this.name = 'RdmaCmEventError';
      this.event = ev.event;
      this.status = ev.status;
      this.want = want;
    }
  }

  Object.assign(ctx, { fail, RdmaCmEventError });
};
