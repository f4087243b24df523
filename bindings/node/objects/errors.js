// The errors: a failed call (RdmaVerbsError, index.js's) and an rdma_cm event
// other than the one awaited.
'use strict';

module.exports = function errorsObjects(ctx) {
  const { RdmaVerbsError, rv } = ctx;

  // fn failed with errno (detail: what else is known, 'the CQ is closed').
  function fail(fn, errno, detail) {
    return new RdmaVerbsError(fn, errno, detail);
  }

  /** An rdma_cm event that is not the one awaited: .event, .status, .want. */
  class RdmaCmEventError extends Error {
    constructor(ev, want) {
      super(`${ev.name} (status ${ev.status}), not ${rv.rdma_event_str(want)}`);
      this.name = 'RdmaCmEventError';
      this.event = ev.event;
      this.status = ev.status;
      this.want = want;
    }
  }

  Object.assign(ctx, { fail, RdmaCmEventError });
};
