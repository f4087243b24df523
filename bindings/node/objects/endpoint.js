// The endpoint: an rdma_cm id with its QP; its connection set-up (each wait a
// Promise, or NAMESync blocking) and its data path.
'use strict';

const os = require('os');
const { EBADF } = os.constants.errno;

module.exports = function endpointObjects(ctx) {
  const { Base, CompletionChannel, CompletionQueue, Native, ProtectionDomain, closeAll, collector,
    dropQp, enrollId, enrollQp, expect, fail, koffi, ownerOf, posted, raw, recvWr, release, rv,
    sendWr, types } = ctx;

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

    // The next event, which must be want (fn: the call it answers, in an
    // RdmaCmEventError).
    _wait(want, timeoutMs, sync, fn = 'rdma_get_cm_event') {
      const ch = this.channel;
      if (!ch) throw fail(fn, EBADF, 'an adopted Endpoint has no event channel');
      return sync ? expect(ch._eventSync(this.id, timeoutMs, this._id), want, ch._cm, fn)
        : ch._event(this.id, timeoutMs, this._id).then((ev) => expect(ev, want, ch._cm, fn));
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
        return this._wait(rv.RDMA_CM_EVENT_ROUTE_RESOLVED, timeoutMs, sync, 'rdma_resolve_route');
      };
      if (sync) {
        this._wait(rv.RDMA_CM_EVENT_ADDR_RESOLVED, timeoutMs, true, 'rdma_resolve_addr');
        route();
        return this;
      }
      return this._wait(rv.RDMA_CM_EVENT_ADDR_RESOLVED, timeoutMs, false, 'rdma_resolve_addr').then(route).then(() => this);
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
      return sync ? made(this.channel._eventSync(this.id, timeoutMs, this._id))
        : this.channel._event(this.id, timeoutMs, this._id).then(made);
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
     * (objects of this API); cap as struct ibv_qp_cap. Every send is
     * signaled (sqSigAll, true by default): each produces a completion,
     * which sendCq.next() waits for; with sqSigAll false, only the sends
     * posted with IBV_SEND_SIGNALED complete. */
    createQp({ pd, sendCq, recvCq, srq = null, cap = DEFAULT_CAP, qpType = rv.IBV_QPT_RC, sqSigAll = true } = {}) {
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
      return sync ? (this._wait(rv.RDMA_CM_EVENT_ESTABLISHED, timeoutMs, true, name), this)
        : this._wait(rv.RDMA_CM_EVENT_ESTABLISHED, timeoutMs, false, name).then(done);
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
      await this._wait(rv.RDMA_CM_EVENT_DISCONNECTED, timeout, false, 'rdma_disconnect');
    }

    disconnectSync(timeoutMs) {
      rv.rdma_disconnect(this._id.check('rdma_disconnect'));
      this._wait(rv.RDMA_CM_EVENT_DISCONNECTED, timeoutMs, true, 'rdma_disconnect');
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

  Object.assign(ctx, { DEFAULT_CAP, DEFAULT_PARAM, Endpoint });
};
