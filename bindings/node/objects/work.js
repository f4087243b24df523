// The work requests: laid out in C memory, posted, and held (their MRs) until
// their completions are reaped.
'use strict';

module.exports = function workObjects(ctx) {
  const { c, fail, koffi, rv, types } = ctx;

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
    const region = s instanceof ctx.MemoryRegion ? s : s && s.mr;
    if (!(region instanceof ctx.MemoryRegion)) throw new TypeError(`${fn}: an SGE is an MR or { mr, offset, length }`);
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

  function htonl(v) {
    return (((v & 0xff) << 24) | ((v & 0xff00) << 8) | ((v >>> 8) & 0xff00) | (v >>> 24)) >>> 0;
  }

  Object.assign(ctx, { reaping, enrollQp, dropQp, release, releaseUpTo, reaped, mrOf, sge, layout, sendWr, recvWr, posted, htonl });
};
