// Shared receive queues.
'use strict';

module.exports = function srqObjects(ctx) {
  const { Base, Native, posted, raw, recvWr, release, rv, types } = ctx;

  class SharedReceiveQueue extends Base {
    /** ibv_create_srq on pd: maxWr receives of maxSge SGEs. */
    constructor(pd, { maxWr = 16, maxSge = 1, limit = 0 } = {}) {
      const ptr = rv.ibv_create_srq(pd._natives[0].check('ibv_create_srq'),
        { attr: { max_wr: maxWr, max_sge: maxSge, srq_limit: limit } });
      const native = new Native('SharedReceiveQueue', ptr, (p) => rv.ibv_destroy_srq(p), [pd._natives[0]]);
      super('SharedReceiveQueue', [native]);
      this.ptr = ptr;
      // wrId -> the holds of its receives (an SRQ's are not consumed in order)
      const held = (this._held = { held: new Map() });
      native.onDestroy.push(() => {
        for (const hs of held.held.values()) for (const h of hs) release(h);
        held.held.clear();
      });
    }

    /** ibv_post_srq_recv of { wrId, sg } or a list. */
    postRecv(wrs) {
      const srq = this._natives[0].check('ibv_post_srq_recv');
      const held = this._held.held;
      posted('ibv_post_srq_recv', wrs, types.ibv_recv_wr, recvWr, (at, bad) => raw.ibv_post_srq_recv(srq, at, bad),
        (h) => {
          if (!held.has(h.wrId)) held.set(h.wrId, []);
          held.get(h.wrId).push(h);
        });
    }
  }

  Object.assign(ctx, { SharedReceiveQueue });
};
