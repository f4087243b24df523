// Completion queues: polled, armed, waited for (blocking, or a Promise).
'use strict';

const os = require('os');
const { ETIMEDOUT } = os.constants.errno;

module.exports = function cqObjects(ctx) {
  const { Base, Native, contextOf, cqsOf, deadline, fail, left, reactor, readableSync, reaped,
    reaping, rv } = ctx;

  const PAUSE = new Int32Array(new SharedArrayBuffer(4));
  // The turns of the event loop (setImmediate) a Promise of completions
  // polls the CQ on before it arms the CQ and hands the channel's fd to the
  // reactor (RDMAVERBS_ASYNC_SPIN; 0: at once): a completion that comes
  // within them costs no arming, no event and no thread of libuv's pool.
  const spinTurns = () => {
    const n = Number.parseInt(process.env.RDMAVERBS_ASYNC_SPIN ?? '64', 10);
    return Number.isNaN(n) ? 64 : Math.max(0, n);
  };
  const tick = () => new Promise((r) => setImmediate(r));

  class CompletionQueue extends Base {
    /** The turns of the loop next() polls on before it arms the CQ (RDMAVERBS_ASYNC_SPIN, 64 unless set). */
    static spin = spinTurns();

    /** ibv_create_cq on a context: cqe entries, on channel (a
     * CompletionChannel) or none, with context as its cq_context. */
    constructor(context, { cqe = 16, channel = null, context: cqContext = null, compVector = 0 } = {}, adopt = null) {
      const [ctx, id] = adopt !== null ? [null, null] : contextOf(context);
      const ptr = adopt !== null ? adopt : rv.ibv_create_cq(ctx, cqe, cqContext, channel ? channel.ptr : null, compVector);
      super('CompletionQueue', [new Native('CompletionQueue', ptr, adopt !== null ? null : (p) => rv.ibv_destroy_cq(p),
        [channel && channel._natives[0], id])], adopt === null);
      this.ptr = ptr;
      this.channel = channel;
      this.cqContext = cqContext;
      this._evented = false;
      if (channel) cqsOf.get(channel).set(ptr, new WeakRef(this));
    }

    /** A CQ made with the raw functions: its completions release holds as any; not destroyed by close(). */
    static adopt(ptr) {
      return new CompletionQueue(null, {}, ptr);
    }

    /** Up to max completions, without waiting (ibv_poll_cq): an array of
     * objects with struct ibv_wc's fields (imm_data in network order). */
    poll(max = 16) {
      const cq = this._natives[0].check('ibv_poll_cq');
      const wc = [];
      for (let i = 0; i < max; i++) wc.push({});
      const n = rv.ibv_poll_cq(cq, max, wc);
      wc.length = n;
      const qs = n > 0 && reaping.get(cq);
      if (qs) for (const w of wc) reaped(cq, qs, w);
      return wc;
    }

    /** Arms the CQ (ibv_req_notify_cq): its next completion (solicitedOnly:
     * next solicited one) makes an event on its channel. */
    reqNotify(solicitedOnly = false) {
      rv.ibv_req_notify_cq(this._natives[0].check('ibv_req_notify_cq'), solicitedOnly ? 1 : 0);
    }

    // n completions: polled; then, on a channel, armed, polled again and
    // waited for; without one, polled again (sync: every ms; async:
    // setImmediate, then every ms).
    *_next(n, end) {
      const out = this.poll(n);
      let spins = 0;
      while (out.length < n) {
        if (this.channel) {
          this._evented = false;
          this.reqNotify(false);
          out.push(...this.poll(n - out.length));
          if (out.length >= n) break;
          if (left(end) === 0) throw fail('ibv_poll_cq', ETIMEDOUT);
          yield ['event', this.channel, end];
        } else {
          if (left(end) === 0) throw fail('ibv_poll_cq', ETIMEDOUT);
          yield ['pause', spins++];
        }
        out.push(...this.poll(n - out.length));
      }
      return out;
    }

    /** Exactly n completions, waiting as long as timeout allows (ETIMEDOUT
     * after): a Promise, which never blocks the event loop. */
    async next(n, { timeout } = {}) {
      const end = deadline(timeout);
      // First polled on a few turns of the loop (CompletionQueue.spin), then armed.
      const spin = this.channel ? CompletionQueue.spin : 0;
      const first = spin ? this.poll(n) : [];
      for (let k = 0; first.length < n && k < spin; k++) {
        if (left(end) === 0) throw fail('ibv_poll_cq', ETIMEDOUT);
        await tick();
        this.channel._natives[0].check('ibv_poll_cq');   // its channel closed meanwhile: EBADF
        first.push(...this.poll(n - first.length));   // the CQ closed meanwhile: EBADF
      }
      if (first.length >= n) return first;
      const steps = this._next(n - first.length, end);
      for (let step = steps.next(); ; ) {
        if (step.done) return first.concat(step.value);
        if (step.value[0] === 'event') {
          const ch = step.value[1];
          if (!this._evented && ch._take() === null) {
            await reactor.readable(ch.fd, left(step.value[2]), [this._natives[0], ch._natives[0]]);
          }
          while (ch._take() !== null);   // every event there, each acked, its CQ marked
        } else {
          await new Promise((r) => (step.value[1] < 64 ? setImmediate(r) : setTimeout(r, 1)));
        }
        step = steps.next();
      }
    }

    nextSync(n, timeoutMs) {
      const steps = this._next(n, deadline(timeoutMs));
      for (let step = steps.next(); ; ) {
        if (step.done) return step.value;
        if (step.value[0] === 'event') {
          const ch = step.value[1];
          if (!this._evented && ch._take() === null) readableSync(ch.fd, left(step.value[2]), 'ibv_get_cq_event');
          while (ch._take() !== null);
        } else {
          Atomics.wait(PAUSE, 0, 0, 1);
        }
        step = steps.next();
      }
    }
  }

  Object.assign(ctx, { PAUSE, CompletionQueue });
};
