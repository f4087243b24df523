// rdmaverbs' objects for Node.js, beside the raw functions (index.js):
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

const os = require('os');
const { EBADF, EAGAIN, EINTR, ETIMEDOUT } = os.constants.errno;

module.exports = function objects(rv) {
  const { koffi, types, RdmaVerbsError } = rv;
  const raw = rv.raw;

  // ---- libc: poll, fcntl, an eventfd ----
  const libc = koffi.load('libc.so.6');
  const c = {
    poll: libc.func('int poll(void *fds, unsigned long nfds, int timeout)'),
    fcntl: libc.func('int fcntl(int fd, int cmd, ...)'),
    eventfd: libc.func('int eventfd(unsigned int initval, int flags)'),
    read: libc.func('long read(int fd, void *buf, unsigned long count)'),
    write: libc.func('long write(int fd, void *buf, unsigned long count)'),
  };
  const POLLIN = 1, POLLERR = 8, POLLHUP = 16, POLLNVAL = 32;
  const F_GETFL = 3, F_SETFL = 4, O_NONBLOCK = 0o4000, EFD_CLOEXEC = 0o2000000;

  function fail(fn, errno) {
    return new RdmaVerbsError(fn, errno);
  }

  // A wait's deadline: undefined or Infinity is none.
  function deadline(ms) {
    if (ms === undefined || ms === null || ms === Infinity) return Infinity;
    if (typeof ms !== 'number' || !(ms >= 0)) throw new TypeError(`a timeout in ms, not ${ms}`);
    return Date.now() + ms;
  }
  const left = (end) => (end === Infinity ? Infinity : Math.max(0, end - Date.now()));

  function nonblocking(fd, fn) {
    const flags = c.fcntl(fd, F_GETFL, 'int', 0);
    if (flags < 0 || c.fcntl(fd, F_SETFL, 'int', flags | O_NONBLOCK) < 0) throw fail(fn, koffi.errno());
  }

  // Blocks until fd is readable (true) or ms pass (false).
  function readableSync(fd, ms, fn) {
    const p = Buffer.alloc(8);
    p.writeInt32LE(fd, 0);
    p.writeInt16LE(POLLIN, 4);
    const end = ms === Infinity ? Infinity : Date.now() + ms;
    for (;;) {
      const wait = end === Infinity ? -1 : Math.min(left(end), 0x7fffffff);
      const n = c.poll(p, 1, wait);
      if (n >= 0) return n > 0;
      const errno = koffi.errno();
      if (errno !== EINTR) throw fail(`${fn}: poll`, errno);
    }
  }

  // ---- the reactor: one async poll() at a time over the fds waited on ----
  const reactor = {
    waiting: new Map(),   // fd -> Set of waiters {fd, done, timer}
    polling: null,        // the fds of the poll in flight, or null
    wake: -1,

    // A Promise of fd being readable (true) within ms (false after).
    readable(fd, ms) {
      return new Promise((resolve) => {
        const w = { fd, timer: null, done: (ok) => resolve(ok) };
        if (ms !== Infinity) {
          w.timer = setTimeout(() => {
            this.remove(w);
            resolve(false);
          }, ms);
        }
        if (!this.waiting.has(fd)) this.waiting.set(fd, new Set());
        this.waiting.get(fd).add(w);
        if (this.polling && !this.polling.includes(fd)) this.kick();
        this.start();
      });
    },

    // Wakes the Promises waiting on fd (its channel was closed: each then
    // reads it, and rejects with EBADF).
    wakeAll(fd) {
      const set = this.waiting.get(fd);
      if (!set) return;
      this.waiting.delete(fd);
      for (const w of set) {
        if (w.timer) clearTimeout(w.timer);
        w.done(true);
      }
      if (this.polling) this.kick();
    },

    remove(w) {
      const set = this.waiting.get(w.fd);
      if (!set) return;
      set.delete(w);
      if (!set.size) this.waiting.delete(w.fd);
      if (this.polling && !this.waiting.size) this.kick();   // nothing left to wait for: free the thread
    },

    // Wakes the poll in flight (it starts again with the fds waited on now).
    kick() {
      const one = Buffer.alloc(8);
      one.writeBigUInt64LE(1n);
      c.write(this.wake, one, 8);
    },

    start() {
      if (this.polling || !this.waiting.size) return;
      if (this.wake < 0) {
        this.wake = c.eventfd(0, EFD_CLOEXEC);
        if (this.wake < 0) throw fail('eventfd', koffi.errno());
        nonblocking(this.wake, 'eventfd');
      }
      const fds = [this.wake, ...this.waiting.keys()];
      const p = Buffer.alloc(8 * fds.length);
      fds.forEach((fd, i) => {
        p.writeInt32LE(fd, 8 * i);
        p.writeInt16LE(POLLIN, 8 * i + 4);
      });
      this.polling = fds;
      c.poll.async(p, fds.length, -1, (err, n) => {
        this.polling = null;
        c.read(this.wake, Buffer.alloc(8), 8);   // drained (non-blocking)
        for (let i = 1; i < fds.length && (err || n > 0); i++) {
          // A failed call wakes every waiter: each reads its fd, and its
          // error, if any, is its own. (poll's own -1 is EINTR: again.)
          const revents = p.readInt16LE(8 * i + 6);
          if (!err && !(revents & (POLLIN | POLLERR | POLLHUP | POLLNVAL))) continue;
          const set = this.waiting.get(fds[i]);
          if (!set) continue;
          this.waiting.delete(fds[i]);
          for (const w of set) {
            if (w.timer) clearTimeout(w.timer);
            w.done(true);
          }
        }
        this.start();
      });
    },
  };

  // ---- the C objects behind the JS ones, closed in order ----

  // The C objects whose destroy failed (an ibv_dereg_mr refused, ...):
  // still there in C, so kept here for the life of the process with what
  // they hold (an MR's buffer, a QP's or SRQ's posted requests) and what
  // they depend on, which a card could otherwise reach once collected.
  const leaked = [];

  // One C object: destroyed once, when closed and no object that depends
  // on it (nor any posted work request, for an MR) is left.
  class Native {
    constructor(kind, ptr, destroy, deps = []) {
      this.kind = kind;
      this.ptr = ptr;
      this.destroy = destroy;   // null: adopted, not ours to destroy
      this.deps = deps.filter(Boolean);
      this.refs = 0;
      this.state = 'open';
      this.keep = [];            // what must live as long as the C object (an MR's buffer)
      this.onDestroy = [];       // what else goes with it (a QP's held work requests)
      for (const d of this.deps) d.refs++;
    }

    check(fn) {
      if (this.state !== 'open') throw fail(fn, EBADF);
      return this.ptr;
    }

    drop() {
      if (--this.refs === 0 && this.state === 'closing') return this.finish();
      return null;
    }

    // Closes it now, or once nothing depends on it; the first error.
    close() {
      if (this.state !== 'open') return null;
      this.state = 'closing';
      return this.refs === 0 ? this.finish() : null;
    }

    // Destroys it; a failure (thrown to the caller) leaves it in `leaked`,
    // holding its buffer, its posted requests and what it depends on.
    finish() {
      this.state = 'closed';
      try {
        if (this.destroy) this.destroy(this.ptr);
      } catch (e) {
        this.state = 'leaked';
        leaked.push(this);
        return e;
      }
      let error = null;
      for (const f of this.onDestroy) f();
      this.keep = this.onDestroy = null;
      for (const d of this.deps) error = d.drop() || error;
      this.deps = [];
      return error;
    }
  }

  function closeAll(natives) {
    let error = null;
    for (const n of natives) error = n.close() || error;
    return error;
  }

  // The safety net: an object collected unclosed is closed, with a warning.
  const collector = new FinalizationRegistry(({ kind, natives }) => {
    const error = closeAll(natives);
    process.emitWarning(`rdmaverbs: ${kind} closed by the garbage collector: close() it` +
      (error ? ` (${error.message})` : ''), 'RdmaVerbsWarning');
  });

  // An object: its natives (closed by close(), in that order; the rest
  // waits for what depends on it) and whether the collector closes them.
  class Base {
    constructor(kind, natives, collect = true) {
      this._natives = natives;
      if (collect) collector.register(this, { kind, natives }, this);
    }

    /** Closes the object (its C objects once nothing depends on them); again: nothing. */
    close() {
      collector.unregister(this);
      const error = closeAll(this._natives);
      if (error) throw error;
    }

    get closed() {
      return this._natives[0].state !== 'open';
    }
  }
  if (Symbol.dispose) Base.prototype[Symbol.dispose] = Base.prototype.close;

  // ---- the work requests held until their completions ----

  // The QPs whose completions a CQ reaps, by the CQ's address, then by QP
  // number (unique on one device only: two devices' QPs may share one):
  // Map(cq -> Map(qp_num -> {native, send, recv, srq, sendCq, recvCq})).
  const reaping = new Map();
  function enrollQp(q, qpNum) {
    for (const cq of new Set([q.sendCq, q.recvCq])) {
      if (cq === null) continue;
      if (!reaping.has(cq)) reaping.set(cq, new Map());
      reaping.get(cq).set(qpNum, q);
    }
  }
  function dropQp(q, qpNum) {
    for (const cq of new Set([q.sendCq, q.recvCq])) {
      const qs = reaping.get(cq);
      if (!qs || qs.get(qpNum) !== q) continue;
      qs.delete(qpNum);
      if (!qs.size) reaping.delete(cq);
    }
  }

  // A posted work request's hold ({ wrId, signaled, mrs }) on the MRs of
  // its SGEs: each MR's refs counts it until release.
  // An MR closed under it is deregistered now: a failure has no caller to
  // go to (a poll's completions would be lost), so it is a warning, the MR
  // in leaked.
  function release(hold) {
    for (const m of hold.mrs) {
      const error = m.drop();
      if (error) process.emitWarning(`rdmaverbs: ${m.kind} released by a completion: ${error.message}`, 'RdmaVerbsWarning');
    }
  }
  // Releases the holds of a queue up to the one of wrId (RC completes a
  // queue's requests in order; an unsignaled one with the next signaled).
  function releaseUpTo(queue, wrId) {
    const i = queue.findIndex((h) => h.wrId === wrId);
    if (i < 0) return false;
    for (const h of queue.splice(0, i + 1)) release(h);
    return true;
  }

  // A completion cq gave: the holds it releases, those of the QP of its
  // number among qs, the QPs whose send or receive CQ cq is (reaping's,
  // looked up once a poll).
  function reaped(cq, qs, wc) {
    const q = qs.get(wc.qp_num);
    if (!q) return;
    const wrId = BigInt(wc.wr_id);
    let recv;
    if (wc.status === rv.IBV_WC_SUCCESS) recv = (wc.opcode & rv.IBV_WC_RECV) !== 0;
    else if (q.sendCq !== q.recvCq) recv = cq === q.recvCq;
    else recv = !q.send.some((h) => h.wrId === wrId);   // an error's opcode is undefined
    if (!recv) {
      releaseUpTo(q.send, wrId);
    } else if (q.srq) {
      const held = q.srq.held.get(wrId);
      if (held && held.length) {
        release(held.shift());
        if (!held.length) q.srq.held.delete(wrId);
      }
    } else {
      releaseUpTo(q.recv, wrId);
    }
  }

  // ---- work requests: objects to C ----

  const mrOf = new WeakMap();   // MemoryRegion -> its native

  // An SGE of the object API: an MR (all of it), or { mr, offset, length }.
  function sge(s, fn) {
    const region = s instanceof MemoryRegion ? s : s && s.mr;
    if (!(region instanceof MemoryRegion)) throw new TypeError(`${fn}: an SGE is an MR or { mr, offset, length }`);
    const native = mrOf.get(region);
    native.check(fn);
    const offset = s === region ? 0 : s.offset || 0;
    const length = s === region || s.length === undefined ? region.length - offset : s.length;
    if (offset < 0 || length < 0 || offset + length > region.length) {
      throw new RangeError(`${fn}: SGE [${offset}, ${offset + length}) outside the MR's ${region.length} bytes`);
    }
    return { c: { addr: region.addr + BigInt(offset), length, lkey: region.lkey }, native };
  }

  // A list of work requests laid out in C memory (Buffers, alive while
  // the list is), joined by next: { at, holds, count }.
  function layout(list, type, fn, toC) {
    const wrs = Array.isArray(list) ? list : [list];
    if (!wrs.length) throw new RangeError(`${fn}: no work request`);
    const size = koffi.sizeof(type);
    const mem = Buffer.alloc(size * wrs.length);
    const base = koffi.address(mem);
    const sgs = wrs.map((w) => (w.sg || []).map((s) => sge(s, fn)));
    const sgMem = Buffer.alloc(16 * Math.max(1, sgs.reduce((n, s) => n + s.length, 0)));
    const sgBase = koffi.address(sgMem);
    let k = 0;
    const holds = wrs.map((w, i) => {
      const first = k;
      for (const s of sgs[i]) koffi.encode(sgMem, 16 * k++, types.ibv_sge, s.c);
      const wr = toC(w);
      wr.wr_id = BigInt(w.wrId || 0);
      wr.next = i + 1 < wrs.length ? base + BigInt(size * (i + 1)) : null;
      wr.sg_list = sgs[i].length ? sgBase + BigInt(16 * first) : null;
      wr.num_sge = sgs[i].length;
      koffi.encode(mem, size * i, type, wr);
      return { wrId: wr.wr_id, signaled: toC === sendWr ? (wr.send_flags & rv.IBV_SEND_SIGNALED) !== 0 : true,
        mrs: sgs[i].map((s) => s.native) };
    });
    return { mem, sgMem, at: base, size, holds };
  }

  function sendWr(w) {
    const wr = { opcode: w.opcode === undefined ? rv.IBV_WR_SEND : w.opcode, send_flags: w.flags || 0,
      imm_data: w.imm === undefined ? 0 : htonl(w.imm), wr: { rdma: { remote_addr: 0, rkey: 0 } } };
    if (w.rdma) wr.wr = { rdma: { remote_addr: BigInt(w.rdma.remoteAddr), rkey: w.rdma.rkey } };
    if (w.atomic) {
      const a = w.atomic;
      wr.wr = { atomic: { remote_addr: BigInt(a.remoteAddr), rkey: a.rkey, compare_add: BigInt(a.compareAdd || 0),
        swap: BigInt(a.swap || 0) } };
    }
    if (w.ud) wr.wr = { ud: { ah: w.ud.ah, remote_qpn: w.ud.remoteQpn, remote_qkey: w.ud.remoteQkey } };
    return wr;
  }
  const recvWr = () => ({});

  // Posts a list with post(first, bad): the holds of those posted kept by
  // keep(hold), the others released; a failure thrown with .badIndex.
  function posted(fn, list, type, toC, post, keep) {
    const l = layout(list, type, fn, toC);
    const bad = [null];
    for (const h of l.holds) for (const m of h.mrs) m.refs++;
    const r = post(l.at, bad);
    let badIndex = l.holds.length;
    if (r !== 0) badIndex = bad[0] === null ? 0 : Number((BigInt(bad[0]) - l.at) / BigInt(l.size));
    l.holds.forEach((h, i) => (i < badIndex ? keep(h) : release(h)));
    if (r !== 0) {
      const e = fail(fn, r);
      e.badIndex = badIndex;
      throw e;
    }
  }

  // ---- the objects ----

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
      return new Endpoint(this, out[0]);
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
      if (!cm.known.has(key)) throw fail('rdma_get_cm_event', EBADF);   // its id destroyed
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

    _eventSync(key, timeoutMs) {
      const end = deadline(timeoutMs);
      for (;;) {
        const ev = this._take(key);
        if (ev) return ev;
        if (!readableSync(this.fd, left(end), 'rdma_get_cm_event')) throw fail('rdma_get_cm_event', ETIMEDOUT);
      }
    }

    async _event(key, timeoutMs) {
      const end = deadline(timeoutMs);
      for (;;) {
        const ev = this._take(key);
        if (ev) return ev;
        if (!(await reactor.readable(this.fd, left(end)))) throw fail('rdma_get_cm_event', ETIMEDOUT);
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
  // ev if it is want, with status 0; else RdmaCmEventError (a connection
  // request's new id then refused: no Endpoint is made of it).
  function expect(ev, want, cm) {
    if (ev.event !== want || ev.status !== 0) {
      if (ev.event === rv.RDMA_CM_EVENT_CONNECT_REQUEST) refuse(cm, ev.id);
      throw new RdmaCmEventError(ev, want);
    }
    return ev;
  }

  const DEFAULT_CAP = { max_send_wr: 16, max_recv_wr: 16, max_send_sge: 4, max_recv_sge: 4, max_inline_data: 0 };
  const DEFAULT_PARAM = { responder_resources: 1, initiator_depth: 1, retry_count: 7, rnr_retry_count: 7 };

  class Endpoint extends Base {
    // An id of channel (null: adopted), and the QP it gets.
    constructor(channel, id, adopted = false) {
      const idNative = new Native('Endpoint', id, adopted ? null : (p) => rv.rdma_destroy_id(p),
        channel ? [channel._natives[0]] : []);
      super('Endpoint', [idNative], !adopted);
      if (channel) enrollId(channel._cm, id, idNative);
      this.id = id;
      this._id = idNative;
      this._qp = null;
      this._owned = [];   // the objects it made itself (setup, connect, listen): closed with it
      this._mrs = new Set();   // the MRs of reg() not closed yet: closed with it
      this.pd = this.sendCq = this.recvCq = this.srq = null;
      this.channel = channel;
    }

    /** An id made with the raw functions (its QP too, if it has one): not
     * destroyed by close(); its posts held and released as any. */
    static adopt(id) {
      const ep = new Endpoint(null, id, true);
      const qp = koffi.decode(id, types.rdma_cm_id).qp;
      if (qp !== null) ep._attach(qp, null, null, null, null, true);
      return ep;
    }

    /** The id's device context (id->verbs): where its PD, CQs and channels are made. */
    get context() {
      return koffi.decode(this._id.check('context'), types.rdma_cm_id).verbs;
    }

    /** The QP (id->qp) or null. */
    get qp() {
      return this._qp ? this._qp.ptr : null;
    }

    get qpNum() {
      return this._qp ? this._qpNum : null;
    }

    // ---- connection set-up: each wait a Promise, or NAMESync blocking ----

    _wait(want, timeoutMs, sync) {
      const ch = this.channel;
      if (!ch) throw fail(rv.rdma_event_str(want), EBADF);
      return sync ? expect(ch._eventSync(this.id, timeoutMs), want, ch._cm)
        : ch._event(this.id, timeoutMs).then((ev) => expect(ev, want, ch._cm));
    }

    _resolve(host, port, timeoutMs, sync) {
      const ms = timeoutMs === undefined || timeoutMs === Infinity ? 2000 : Math.max(1, Math.min(timeoutMs, 0x7fffffff));
      const res = [null];
      rv.rdma_getaddrinfo(String(host), String(port), { ai_port_space: rv.RDMA_PS_TCP }, res);
      try {
        rv.rdma_resolve_addr(this._id.check('rdma_resolve_addr'), null,
          koffi.decode(res[0], types.rdma_addrinfo).ai_dst_addr, ms);
      } finally {
        rv.rdma_freeaddrinfo(res[0]);
      }
      const route = () => {
        rv.rdma_resolve_route(this._id.check('rdma_resolve_route'), ms);
        return this._wait(rv.RDMA_CM_EVENT_ROUTE_RESOLVED, timeoutMs, sync);
      };
      if (sync) {
        this._wait(rv.RDMA_CM_EVENT_ADDR_RESOLVED, timeoutMs, true);
        route();
        return this;
      }
      return this._wait(rv.RDMA_CM_EVENT_ADDR_RESOLVED, timeoutMs, false).then(route).then(() => this);
    }

    /** Resolves host:port's address and route (rdma_getaddrinfo,
     * rdma_resolve_addr, rdma_resolve_route, each event awaited). */
    async resolve(host, port, { timeout } = {}) {
      return this._resolve(host, port, timeout, false);
    }

    resolveSync(host, port, timeoutMs) {
      return this._resolve(host, port, timeoutMs, true);
    }

    /** Binds to host:port and listens (rdma_bind_addr, rdma_listen). */
    listen(host, port, backlog = 1) {
      const res = [null];
      rv.rdma_getaddrinfo(String(host), String(port), { ai_flags: rv.RAI_PASSIVE, ai_port_space: rv.RDMA_PS_TCP }, res);
      try {
        rv.rdma_bind_addr(this._id.check('rdma_bind_addr'), koffi.decode(res[0], types.rdma_addrinfo).ai_src_addr);
      } finally {
        rv.rdma_freeaddrinfo(res[0]);
      }
      rv.rdma_listen(this.id, backlog);
      return this;
    }

    _request(timeoutMs, sync) {
      const made = (ev) => new Endpoint(this.channel, expect(ev, rv.RDMA_CM_EVENT_CONNECT_REQUEST, this.channel._cm).id);
      this._id.check('rdma_get_cm_event');
      return sync ? made(this.channel._eventSync(this.id, timeoutMs))
        : this.channel._event(this.id, timeoutMs).then(made);
    }

    /** A listener's next connection request: a new Endpoint (no QP yet). */
    async getRequest({ timeout } = {}) {
      return this._request(timeout, false);
    }

    getRequestSync(timeoutMs) {
      return this._request(timeoutMs, true);
    }

    _attach(qp, pd, sendCq, recvCq, srq, adopted = false) {
      const id = this.id;   // (the closure must not hold the Endpoint: the collector could not take it)
      const native = new Native('QP', qp, adopted ? null : () => rv.rdma_destroy_qp(id),
        [this._id, pd && pd._natives[0], sendCq && sendCq._natives[0], recvCq && recvCq._natives[0],
          srq && srq._natives[0]]);
      const qpNum = koffi.decode(qp, types.ibv_qp).qp_num;
      const q = { native, send: [], recv: [], srq: srq ? srq._held : null,
        sendCq: sendCq ? sendCq.ptr : koffi.decode(qp, types.ibv_qp).send_cq,
        recvCq: recvCq ? recvCq.ptr : koffi.decode(qp, types.ibv_qp).recv_cq };
      enrollQp(q, qpNum);
      native.onDestroy.push(() => {
        dropQp(q, qpNum);
        for (const h of q.send.splice(0)) release(h);
        for (const h of q.recv.splice(0)) release(h);
      });
      this._qp = native;
      this._qpNum = qpNum;
      this._q = q;
      this._natives.unshift(native);
    }

    /** Makes the id's QP (rdma_create_qp) on pd, sendCq, recvCq and srq
     * (objects of this API); cap as struct ibv_qp_cap. */
    createQp({ pd, sendCq, recvCq, srq = null, cap = DEFAULT_CAP, qpType = rv.IBV_QPT_RC, sqSigAll = false } = {}) {
      const id = this._id.check('rdma_create_qp');
      if (this._qp) throw fail('rdma_create_qp', rv.EINVAL);
      for (const o of [pd, sendCq, recvCq, srq]) if (o) o._natives[0].check('rdma_create_qp');
      const full = { ...DEFAULT_CAP, ...(srq ? { max_recv_wr: 0, max_recv_sge: 0 } : {}), ...cap };
      rv.rdma_create_qp(id, pd.ptr, { send_cq: sendCq.ptr, recv_cq: recvCq.ptr, srq: srq ? srq.ptr : null,
        cap: full, qp_type: qpType, sq_sig_all: sqSigAll ? 1 : 0 });
      this._attach(koffi.decode(id, types.rdma_cm_id).qp, pd, sendCq, recvCq, srq);
      Object.assign(this, { pd, sendCq, recvCq, srq });
      return this;
    }

    /** The objects of a QP, made where not given: a PD, a completion
     * channel and a send and a receive CQ on it; then the QP. What it made
     * is closed with the endpoint. */
    setup({ pd, sendCq, recvCq, srq = null, cap = {}, qpType, sqSigAll } = {}) {
      const full = { ...DEFAULT_CAP, ...cap };
      const made = [];
      try {
        this._id.check('setup');
        if (!pd) made.push((pd = new ProtectionDomain(this)));
        let channel = null;
        if (!sendCq || !recvCq) made.push((channel = new CompletionChannel(this)));
        if (!sendCq) made.push((sendCq = new CompletionQueue(this, { cqe: full.max_send_wr, channel })));
        if (!recvCq) made.push((recvCq = new CompletionQueue(this, { cqe: full.max_recv_wr, channel })));
        this.createQp({ pd, sendCq, recvCq, srq, cap: full, qpType, sqSigAll });
      } catch (e) {
        for (const o of made.reverse()) o.close();
        throw e;
      }
      this._owned.push(...made);
      return this;
    }

    _connect(name, param, timeoutMs, sync) {
      rv[name](this._id.check(name), { ...DEFAULT_PARAM, ...param });
      const done = () => this;
      return sync ? (this._wait(rv.RDMA_CM_EVENT_ESTABLISHED, timeoutMs, true), this)
        : this._wait(rv.RDMA_CM_EVENT_ESTABLISHED, timeoutMs, false).then(done);
    }

    /** rdma_connect (param as struct rdma_conn_param; responder_resources and
     * initiator_depth 1, retry_count and rnr_retry_count 7 unless given), then ESTABLISHED. */
    async connect(param = {}, { timeout } = {}) {
      return this._connect('rdma_connect', param, timeout, false);
    }

    connectSync(param = {}, timeoutMs) {
      return this._connect('rdma_connect', param, timeoutMs, true);
    }

    /** rdma_accept (param as connect's), then ESTABLISHED. */
    async accept(param = {}, { timeout } = {}) {
      return this._connect('rdma_accept', param, timeout, false);
    }

    acceptSync(param = {}, timeoutMs) {
      return this._connect('rdma_accept', param, timeoutMs, true);
    }

    /** rdma_disconnect, then DISCONNECTED. */
    async disconnect({ timeout } = {}) {
      rv.rdma_disconnect(this._id.check('rdma_disconnect'));
      await this._wait(rv.RDMA_CM_EVENT_DISCONNECTED, timeout, false);
    }

    disconnectSync(timeoutMs) {
      rv.rdma_disconnect(this._id.check('rdma_disconnect'));
      this._wait(rv.RDMA_CM_EVENT_DISCONNECTED, timeoutMs, true);
    }

    /** Waits for DISCONNECTED (the peer's rdma_disconnect). */
    async disconnected({ timeout } = {}) {
      await this._wait(rv.RDMA_CM_EVENT_DISCONNECTED, timeout, false);
    }

    disconnectedSync(timeoutMs) {
      this._wait(rv.RDMA_CM_EVENT_DISCONNECTED, timeoutMs, true);
    }

    // ---- the data path ----

    _qpOf(fn) {
      this._id.check(fn);
      if (!this._qp) throw fail(fn, rv.EINVAL);   // no QP yet
      return this._qp.check(fn);
    }

    /** ibv_post_send of a work request or a list of them, each
     * { wrId, sg: [SGE...], opcode (IBV_WR_SEND), flags, imm (host order),
     *   rdma: { remoteAddr, rkey }, atomic: { remoteAddr, rkey, compareAdd, swap },
     *   ud: { ah, remoteQpn, remoteQkey } }; an SGE is an MR or { mr, offset, length }.
     * Their MRs are held until their completions are reaped. */
    postSend(wrs) {
      const qp = this._qpOf('ibv_post_send');
      const q = this._q;
      posted('ibv_post_send', wrs, types.ibv_send_wr, sendWr, (at, bad) => raw.ibv_post_send(qp, at, bad),
        (h) => q.send.push(h));
    }

    /** ibv_post_recv of { wrId, sg } or a list (the QP's own receive queue). */
    postRecv(wrs) {
      const qp = this._qpOf('ibv_post_recv');
      const q = this._q;
      posted('ibv_post_recv', wrs, types.ibv_recv_wr, recvWr, (at, bad) => raw.ibv_post_recv(qp, at, bad),
        (h) => q.recv.push(h));
    }

    /** An MR on the endpoint's PD (pd.reg), closed with the endpoint
     * unless closed before (the endpoint then lets go of it). */
    reg(buffer, access = rv.IBV_ACCESS_LOCAL_WRITE) {
      this._id.check('ibv_reg_mr_iova2');
      if (!this.pd) throw fail('ibv_reg_mr_iova2', rv.EINVAL);   // no QP (no PD) yet
      const mr = this.pd.reg(buffer, access);
      this._mrs.add(mr);
      ownerOf.set(mr, this._mrs);
      return mr;
    }

    /** The local and the peer's port, in host order. */
    get srcPort() {
      return rv.src_port(this._id.check('rdma_get_src_port'));
    }

    get dstPort() {
      return rv.dst_port(this._id.check('rdma_get_dst_port'));
    }

    /** Closes the QP, the id, and the objects it made itself; each C
     * object once nothing depends on it. */
    close() {
      collector.unregister(this);
      let error = closeAll(this._natives);
      for (const o of [...this._owned.splice(0), ...this._mrs]) {
        try {
          o.close();
        } catch (e) {
          error = error || e;
        }
      }
      if (error) throw error;
    }
  }

  // A context given as an Endpoint (its id->verbs) or as a pointer: the
  // context, and the native of the id (what is made on it is destroyed
  // before the id, which holds librdmacm's reference to the device).
  function contextOf(context) {
    return context instanceof Endpoint ? [context.context, context._id] : [context, null];
  }

  class ProtectionDomain extends Base {
    /** ibv_alloc_pd on a context (an Endpoint's: the Endpoint, its id then
     * destroyed after the PD; or a context pointer, ep.context). */
    constructor(context) {
      const [ctx, id] = contextOf(context);
      const ptr = rv.ibv_alloc_pd(ctx);
      super('ProtectionDomain', [new Native('ProtectionDomain', ptr, (p) => rv.ibv_dealloc_pd(p), [id])]);
      this.ptr = ptr;
    }

    /** Registers buffer (a Buffer, typed array or ArrayBuffer) with
     * ibv_reg_mr_iova2 (iova its address): an MR that holds it. */
    reg(buffer, access = rv.IBV_ACCESS_LOCAL_WRITE) {
      const pd = this._natives[0].check('ibv_reg_mr_iova2');
      if (!(buffer instanceof ArrayBuffer || ArrayBuffer.isView(buffer))) {
        throw new TypeError('ibv_reg_mr_iova2: a Buffer, typed array or ArrayBuffer');
      }
      const address = koffi.address(buffer);
      const ptr = rv.ibv_reg_mr_iova2(pd, buffer, buffer.byteLength, address, access);
      return new MemoryRegion(ptr, buffer, (p) => rv.ibv_dereg_mr(p), this._natives[0]);
    }
  }

  const ownerOf = new WeakMap();   // MemoryRegion of ep.reg -> the endpoint's set of them

  class MemoryRegion extends Base {
    constructor(ptr, buffer, destroy, pd) {
      const native = new Native('MemoryRegion', ptr, destroy, [pd]);
      native.keep.push(buffer);
      super('MemoryRegion', [native], destroy !== null);
      mrOf.set(this, native);
      const mr = koffi.decode(ptr, types.ibv_mr);
      this.ptr = ptr;
      this.buffer = buffer;
      this.addr = BigInt(mr.addr);
      this.length = Number(mr.length);
      this.lkey = mr.lkey;
      this.rkey = mr.rkey;
    }

    close() {
      try {
        super.close();
      } finally {
        const owner = ownerOf.get(this);
        if (owner) owner.delete(this);
        ownerOf.delete(this);
      }
    }

    /** An MR made with the raw functions, over buffer: held as any, not
     * deregistered by close(). */
    static adopt(ptr, buffer) {
      return new MemoryRegion(ptr, buffer, null, null);
    }

    /** An SGE of length bytes at offset (the rest of the MR by default). */
    sge(offset = 0, length = this.length - offset) {
      return { mr: this, offset, length };
    }
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
        if (!(await reactor.readable(this.fd, left(end)))) throw fail('ibv_get_cq_event', ETIMEDOUT);
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

  const PAUSE = new Int32Array(new SharedArrayBuffer(4));

  class CompletionQueue extends Base {
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
      const steps = this._next(n, deadline(timeout));
      for (let step = steps.next(); ; ) {
        if (step.done) return step.value;
        if (step.value[0] === 'event') {
          const ch = step.value[1];
          if (!this._evented && ch._take() === null) await reactor.readable(ch.fd, left(step.value[2]));
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

  // ---- the short ways ----

  function client(host, port, opts, sync) {
    const channel = new EventChannel();
    let ep;
    try {
      ep = channel.createId();
    } catch (e) {
      channel.close();
      throw e;
    }
    ep._owned.push(channel);
    const t = opts.timeout;
    const abandon = (e) => {
      ep.close();
      throw e;
    };
    if (sync) {
      try {
        ep.resolveSync(host, port, t);
        ep.setup(opts);
        return ep.connectSync(opts.param, t);
      } catch (e) {
        return abandon(e);
      }
    }
    return ep.resolve(host, port, { timeout: t }).then(() => ep.setup(opts))
      .then(() => ep.connect(opts.param, { timeout: t })).catch(abandon);
  }

  /** An RC endpoint connected to host:port: its own event channel, the
   * address and route resolved, setup(opts), rdma_connect (opts.param),
   * each wait bounded by opts.timeout (ms). */
  async function connect(host, port, opts = {}) {
    return client(host, port, opts, false);
  }
  function connectSync(host, port, opts = {}) {
    return client(host, port, opts, true);
  }

  /** An endpoint listening on host:port, on its own event channel: take
   * requests with getRequest(), or accept() one whole. */
  function listen(host, port, { backlog = 1 } = {}) {
    const channel = new EventChannel();
    let ep;
    try {
      ep = channel.createId();
      ep._owned.push(channel);
      return ep.listen(host, port, backlog);
    } catch (e) {
      if (ep) ep.close();
      else channel.close();
      throw e;
    }
  }

  // Endpoint.accept on a listener: the next request, set up (opts), accepted.
  function serve(listener, opts, sync) {
    const t = opts.timeout;
    const go = (ep) => {
      try {
        ep.setup(opts);
      } catch (e) {
        ep.close();
        throw e;
      }
      const bad = (e) => {
        ep.close();
        throw e;
      };
      if (sync) {
        try {
          return ep.acceptSync(opts.param, t);
        } catch (e) {
          return bad(e);
        }
      }
      return ep.accept(opts.param, { timeout: t }).catch(bad);
    };
    return sync ? go(listener.getRequestSync(t)) : listener.getRequest({ timeout: t }).then(go);
  }
  /** A listener's next connection, set up (setup's opts) and accepted. */
  Endpoint.prototype.acceptNext = async function acceptNext(opts = {}) {
    return serve(this, opts, false);
  };
  Endpoint.prototype.acceptNextSync = function acceptNextSync(opts = {}) {
    return serve(this, opts, true);
  };

  function htonl(v) {
    return (((v & 0xff) << 24) | ((v & 0xff00) << 8) | ((v >>> 8) & 0xff00) | (v >>> 24)) >>> 0;
  }

  return {
    EventChannel, Endpoint, ProtectionDomain, MemoryRegion, CompletionChannel, CompletionQueue,
    SharedReceiveQueue, RdmaCmEventError, connect, connectSync, listen, htonl, ntohl: htonl, leaked,
    _reactor: reactor,
  };
};
