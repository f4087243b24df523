// The channels: an rdma_cm event channel (its ids' events, each routed to its
// id) and a completion channel (its CQs' events).
'use strict';

const os = require('os');
const { EBADF, EAGAIN, ETIMEDOUT } = os.constants.errno;

module.exports = function channelObjects(ctx) {
  const { Base, Native, RdmaCmEventError, contextOf, deadline, fail, koffi, left, nonblocking, raw,
    reactor, readableSync, rv, types } = ctx;

  class EventChannel extends Base {
    /** An rdma_cm event channel (rdma_create_event_channel), its fd non-blocking. */
    constructor() {
      const ptr = rv.rdma_create_event_channel();
      const native = new Native('EventChannel', ptr, (p) => rv.rdma_destroy_event_channel(p));
      super('EventChannel', [native]);
      this.ptr = ptr;
      this.fd = koffi.decode(ptr, types.rdma_event_channel).fd;
      // The ids it knows (its Endpoints', and those of connection requests
      // read, not yet taken) and, by id, their events read but not yet
      // asked for: each queue dropped when its id is destroyed.
      this._cm = { known: new Set(), queued: new Map() };
      try {
        nonblocking(this.fd, 'rdma_create_event_channel');
      } catch (e) {
        this.close();
        throw e;
      }
    }

    close() {
      try {
        super.close();
      } finally {
        reactor.wakeAll(this.fd);
      }
    }

    /** A new id on this channel (rdma_create_id; ps RDMA_PS_TCP by default). */
    createId(ps = rv.RDMA_PS_TCP) {
      this._natives[0].check('rdma_create_id');
      const out = [null];
      rv.rdma_create_id(this.ptr, out, null, ps);
      return new ctx.Endpoint(this, out[0]);
    }

    // The next event for key (an id; a listener's for its requests), read
    // from the channel without blocking: its fields, the event acked; null
    // if none is there yet. The events of the other ids it knows wait in
    // their queues; those of an id it does not know (destroyed, or made
    // with the raw functions) are dropped, and a connection request for a
    // listener it does not know has its new id destroyed.
    _take(key) {
      const cm = this._cm;
      const q = cm.queued.get(key);
      if (q && q.length) return q.shift();
      this._natives[0].check('rdma_get_cm_event');
      if (!cm.known.has(key)) throw fail('rdma_get_cm_event', EBADF, 'the Endpoint is closed');   // its id destroyed
      for (;;) {
        const out = [null];
        if (raw.rdma_get_cm_event(this.ptr, out) !== 0) {
          const errno = koffi.errno();
          if (errno === EAGAIN) return null;
          throw fail('rdma_get_cm_event', errno);
        }
        const e = koffi.decode(out[0], types.rdma_cm_event);
        const ev = { event: e.event, name: rv.rdma_event_str(e.event), status: e.status, id: e.id,
          listenId: e.listen_id };
        rv.rdma_ack_cm_event(out[0]);
        const request = ev.event === rv.RDMA_CM_EVENT_CONNECT_REQUEST;
        const to = request ? ev.listenId : ev.id;
        if (!cm.known.has(to)) {
          if (request) refuse(cm, ev.id);
          continue;
        }
        if (request) cm.known.add(ev.id);   // its events queued until it is taken
        if (to === key) return ev;
        if (!cm.queued.has(to)) cm.queued.set(to, []);
        cm.queued.get(to).push(ev);
      }
    }

    // The next event for key (its id's native: owner), blocking.
    _eventSync(key, timeoutMs, owner) {
      const end = deadline(timeoutMs);
      for (;;) {
        if (owner) owner.check('rdma_get_cm_event');
        const ev = this._take(key);
        if (ev) return ev;
        if (!readableSync(this.fd, left(end), 'rdma_get_cm_event')) throw fail('rdma_get_cm_event', ETIMEDOUT);
      }
    }

    // The next event for key, a Promise, ended by the close of the channel
    // or of owner (its id's native).
    async _event(key, timeoutMs, owner) {
      const end = deadline(timeoutMs);
      const owners = owner ? [this._natives[0], owner] : [this._natives[0]];
      for (;;) {
        if (owner) owner.check('rdma_get_cm_event');
        const ev = this._take(key);
        if (ev) return ev;
        if (!(await reactor.readable(this.fd, left(end), owners))) throw fail('rdma_get_cm_event', ETIMEDOUT);
      }
    }
  }

  // An id of an event channel (cm: its _cm) known until idNative destroys
  // it: its events queued for it meanwhile.
  function enrollId(cm, id, idNative) {
    cm.known.add(id);
    idNative.onDestroy.push(() => forgetId(cm, id));
  }
  // An id destroyed: its queued events dropped (each acked when read); the
  // connection requests among them (it listened) refused.
  function forgetId(cm, id) {
    cm.known.delete(id);
    const q = cm.queued.get(id) || [];
    cm.queued.delete(id);
    for (const ev of q) if (ev.event === rv.RDMA_CM_EVENT_CONNECT_REQUEST) refuse(cm, ev.id);
  }
  // A connection request's new id that no one takes: destroyed (the peer's
  // CM gets a reject), its events dropped. A failure has no one to go to.
  function refuse(cm, id) {
    forgetId(cm, id);
    try {
      rv.rdma_destroy_id(id);
    } catch (e) {
      // (nothing holds it)
    }
  }

  // ev if it is want, with status 0; else RdmaCmEventError (a connection
  // request's new id then refused: no Endpoint is made of it).
  function expect(ev, want, cm, fn) {
    if (ev.event !== want || ev.status !== 0) {
      if (ev.event === rv.RDMA_CM_EVENT_CONNECT_REQUEST) refuse(cm, ev.id);
      throw new RdmaCmEventError(ev, want, fn);
    }
    return ev;
  }

  const cqsOf = new WeakMap();   // CompletionChannel -> Map(cq pointer -> WeakRef of the CQ)

  class CompletionChannel extends Base {
    /** ibv_create_comp_channel on a context, its fd non-blocking. */
    constructor(context) {
      const [ctx, id] = contextOf(context);
      const ptr = rv.ibv_create_comp_channel(ctx);
      super('CompletionChannel', [new Native('CompletionChannel', ptr, (p) => rv.ibv_destroy_comp_channel(p), [id])]);
      this.ptr = ptr;
      this.fd = koffi.decode(ptr, types.ibv_comp_channel).fd;
      cqsOf.set(this, new Map());
      try {
        nonblocking(this.fd, 'ibv_create_comp_channel');
      } catch (e) {
        this.close();
        throw e;
      }
    }

    close() {
      try {
        super.close();
      } finally {
        reactor.wakeAll(this.fd);
      }
    }

    // The next event if there is one (null if not): { cq, context }, acked.
    _take() {
      const ch = this._natives[0].check('ibv_get_cq_event');
      const cq = [null], context = [null];
      if (raw.ibv_get_cq_event(ch, cq, context) !== 0) {
        const errno = koffi.errno();
        if (errno === EAGAIN) return null;
        throw fail('ibv_get_cq_event', errno);
      }
      rv.ibv_ack_cq_events(cq[0], 1);
      const ref = cqsOf.get(this).get(cq[0]);
      const object = ref && ref.deref();
      if (object) object._evented = true;
      return { cq: object || cq[0], context: context[0] };
    }

    _eventSync(timeoutMs) {
      const end = deadline(timeoutMs);
      for (;;) {
        const ev = this._take();
        if (ev) return ev;
        if (!readableSync(this.fd, left(end), 'ibv_get_cq_event')) throw fail('ibv_get_cq_event', ETIMEDOUT);
      }
    }

    async _event(timeoutMs) {
      const end = deadline(timeoutMs);
      for (;;) {
        const ev = this._take();
        if (ev) return ev;
        if (!(await reactor.readable(this.fd, left(end), this._natives))) throw fail('ibv_get_cq_event', ETIMEDOUT);
      }
    }

    /** The next completion event (ibv_get_cq_event), already acknowledged:
     * { cq: the CompletionQueue, context: its cq_context }. Arm the CQ
     * again (reqNotify), then poll it. */
    async getEvent({ timeout } = {}) {
      return this._event(timeout);
    }

    getEventSync(timeoutMs) {
      return this._eventSync(timeoutMs);
    }
  }

  Object.assign(ctx, { EventChannel, enrollId, forgetId, refuse, expect, cqsOf, CompletionChannel });
};
