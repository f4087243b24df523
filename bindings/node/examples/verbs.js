// The verbs exchange of bindings/verbs-protocol.md from Node.js, as the
// client against the C peer's server (`peer verbs server ADDR PORT`), with
// the rdmaverbs package and nothing else: through the raw API only, the
// RDMAVERBS_1.3 exports (ibv_post_send, ibv_post_srq_recv, ibv_poll_cq,
// ibv_req_notify_cq) and the real librdmacm and libibverbs calls (an event
// channel and an id, a PD, two CQs, the receive CQ's completion channel, an
// SRQ, the id's QP on them, MRs). Each wait is libc's poll() on the
// channel's fd first (60 s at most), then the call that reads the event:
// this client blocks while it waits (the object API's Promises do not).
// Usage: node verbs.js client ADDR PORT
'use strict';
const rv = require('rdmaverbs');
const { koffi, types } = rv;

const SLOT = 64, SLOTS = 8;
const INITIAL = 0x1122334455667788n, ADD = 0x1000000000000001n;
const SWAP = 0x0fedcba987654321n, STALE_SWAP = 0xdeaddeaddeaddeadn;
const MASK = (1n << 64n) - 1n;
const CQ_CONTEXT = 0xc0ffeen;   // the receive CQ's cq_context, as ibv_get_cq_event gives it back
const WAIT_MS = 60000;
const SERVER_LENS = [8, 16, 24, 32, 40];
const RECV = rv.IBV_WC_GRH;     // a receive's flags on RoCE (rxe)

const [role, addr, port] = process.argv.slice(2);
if (role !== 'client' || !addr || !port) {
  console.error('usage: verbs.js client ADDR PORT');
  process.exit(2);
}

function fail(what) {
  console.error(`verbs client: ${what}`);
  process.exit(1);
}
function check(ok, what) {
  if (!ok) fail(what);
}
const hex = (v) => `0x${BigInt(v).toString(16)}`;
const bswap32 = (v) => (((v & 0xff) << 24) | ((v & 0xff00) << 8) | ((v >>> 8) & 0xff00) | (v >>> 24)) >>> 0;

// libc's poll(), to wait for a channel's fd before the call that reads it.
const libc = koffi.load('libc.so.6');
const pollfd = koffi.struct('verbs_pollfd', { fd: 'int', events: 'short', revents: 'short' });
const poll = libc.func('int poll(_Inout_ verbs_pollfd *fds, unsigned long nfds, int timeout)');
const POLLIN = 1;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));
function readable(fd, what) {
  const p = { fd, events: POLLIN, revents: 0 };
  check(poll(p, 1, WAIT_MS) === 1, what);
}

// The channel's next rdma_cm event: of the type wanted, for id, status 0;
// read, then acknowledged (its memory is librdmacm's).
function event(channel, want, id) {
  readable(koffi.decode(channel, types.rdma_event_channel).fd, 'no rdma_cm event within the wait');
  const ev = [null];
  rv.rdma_get_cm_event(channel, ev);
  const e = koffi.decode(ev[0], types.rdma_cm_event);
  const { event: kind, status, id: of } = e;
  rv.rdma_ack_cm_event(ev[0]);
  check(kind === want && status === 0 && of === id,
    `rdma_cm event ${rv.rdma_event_str(kind)} status ${status}; want ${rv.rdma_event_str(want)}`);
}

// One completion, every field (bindings/verbs-protocol.md): what verbs
// defines, and rxe's values where it does not (0 for what RC leaves).
function completion(wc, wrId, opcode, length, flags, imm, qpNum) {
  const got = [wc.wr_id, wc.status, wc.opcode, wc.byte_len, wc.wc_flags, bswap32(wc.imm_data), wc.qp_num,
    wc.vendor_err, wc.src_qp, wc.pkey_index, wc.slid, wc.sl, wc.dlid_path_bits].map(Number);
  const want = [wrId, rv.IBV_WC_SUCCESS, opcode, length, flags, imm, qpNum, 0, 0, 0, 0, 0, 0];
  check(got.every((v, i) => v === want[i]), `completion ${got.map(hex)}; want ${want.map(hex)} ` +
    `(${rv.ibv_wc_status_str(wc.status)})`);
}

// Polls cq until n completions: an array of them.
function completions(cq, n) {
  const out = [];
  let polls = 0;
  while (out.length < n) {
    const wc = Array.from({ length: 8 }, () => ({}));
    const got = rv.ibv_poll_cq(cq, Math.min(8, n - out.length), wc);
    out.push(...wc.slice(0, got));
    if (!got) {
      check(++polls < WAIT_MS, 'too few completions within the wait');
      Atomics.wait(PAUSE, 0, 0, 1);   // 1 ms
    }
  }
  return out;
}

// C memory of n structs of a type (a Buffer: it lives while referenced),
// with each element's address.
function cArray(type, n) {
  const mem = Buffer.alloc(n * koffi.sizeof(type));
  const size = BigInt(koffi.sizeof(type));
  return { mem, at: (i) => koffi.address(mem) + size * BigInt(i) };
}

// The client's objects: made on the id's context, the QP on them.
class Side {
  constructor(id) {
    this.id = id;
    const ctx = koffi.decode(id, types.rdma_cm_id).verbs;
    this.pd = rv.ibv_alloc_pd(ctx);
    this.channel = rv.ibv_create_comp_channel(ctx);
    this.scq = rv.ibv_create_cq(ctx, 16, null, null, 0);
    this.rcq = rv.ibv_create_cq(ctx, 16, CQ_CONTEXT, this.channel, 0);
    this.srq = rv.ibv_create_srq(this.pd, { attr: { max_wr: SLOTS, max_sge: 1 } });
    rv.rdma_create_qp(id, this.pd, { send_cq: this.scq, recv_cq: this.rcq, srq: this.srq,
      cap: { max_send_wr: 8, max_send_sge: 2 }, qp_type: rv.IBV_QPT_RC });
    this.qp = koffi.decode(id, types.rdma_cm_id).qp;
    const qp = koffi.decode(this.qp, types.ibv_qp);
    check(qp.send_cq === this.scq && qp.recv_cq === this.rcq && qp.srq === this.srq,
      "the id's QP is not on the CQs and the SRQ given");
    this.qpNum = qp.qp_num;
    // The buffers live as long as this object: the MRs and the posted work
    // requests point into them. atom is 8-byte aligned (a BigUint64Array).
    this.recv = Buffer.alloc(SLOTS * SLOT);
    this.send = Buffer.alloc(5 * SLOT);
    this.atom = new BigUint64Array(3);
    check(koffi.address(this.atom) % 8n === 0n, 'atom is not 8-byte aligned');
    this.recvMr = this.reg(this.recv, rv.IBV_ACCESS_LOCAL_WRITE);
    this.sendMr = this.reg(this.send, 0);
    this.atomMr = this.reg(this.atom, rv.IBV_ACCESS_LOCAL_WRITE | rv.IBV_ACCESS_REMOTE_ATOMIC |
      rv.IBV_ACCESS_REMOTE_READ);
    // The SRQ's receives, one list in C memory: slot i, wr_id 0x100 + i.
    const sges = cArray(types.ibv_sge, SLOTS), wrs = cArray(types.ibv_recv_wr, SLOTS);
    const base = koffi.address(this.recv), lkey = this.lkey(this.recvMr);
    koffi.encode(sges.mem, types.ibv_sge, Array.from({ length: SLOTS },
      (_, i) => ({ addr: base + BigInt(SLOT * i), length: SLOT, lkey })), SLOTS);
    koffi.encode(wrs.mem, types.ibv_recv_wr, Array.from({ length: SLOTS }, (_, i) => ({
      wr_id: 0x100 + i, next: i + 1 < SLOTS ? wrs.at(i + 1) : null, sg_list: sges.at(i), num_sge: 1 })), SLOTS);
    rv.ibv_post_srq_recv(this.srq, wrs.at(0), [null]);
  }

  reg(buf, access) {
    const address = koffi.address(buf);
    return rv.ibv_reg_mr_iova2(this.pd, buf, buf.byteLength, address, access);
  }

  lkey(mr) {
    return koffi.decode(mr, types.ibv_mr).lkey;
  }

  // Posts a list of send work requests (objects, joined here by next in C
  // memory) in one ibv_post_send; then their completions.
  post(list) {
    const wrs = cArray(types.ibv_send_wr, list.length);
    koffi.encode(wrs.mem, types.ibv_send_wr,
      list.map((w, i) => ({ ...w, next: i + 1 < list.length ? wrs.at(i + 1) : null })), list.length);
    rv.ibv_post_send(this.qp, wrs.at(0), [null]);
    return completions(this.scq, list.length);
  }

  // The receive CQ's next event on its completion channel: checked,
  // acknowledged, the CQ armed again (solicitedOnly), then polled: the
  // completions, up to 8 in one ibv_poll_cq.
  nextEvent(solicitedOnly) {
    readable(koffi.decode(this.channel, types.ibv_comp_channel).fd, 'no completion event within the wait');
    const cq = [null], context = [null];
    rv.ibv_get_cq_event(this.channel, cq, context);
    check(cq[0] === this.rcq && context[0] === CQ_CONTEXT, "the event is not the receive CQ's");
    rv.ibv_ack_cq_events(cq[0], 1);
    rv.ibv_req_notify_cq(cq[0], solicitedOnly);
    const wc = Array.from({ length: 8 }, () => ({}));
    return wc.slice(0, rv.ibv_poll_cq(cq[0], 8, wc));
  }

  // In the order the objects depend on each other (every CQ event
  // acknowledged first: ibv_destroy_cq waits for it).
  teardown() {
    rv.rdma_destroy_qp(this.id);
    rv.ibv_destroy_srq(this.srq);
    rv.ibv_destroy_cq(this.scq);
    rv.ibv_destroy_cq(this.rcq);
    rv.ibv_destroy_comp_channel(this.channel);
    for (const mr of [this.recvMr, this.sendMr, this.atomMr]) rv.ibv_dereg_mr(mr);
    rv.ibv_dealloc_pd(this.pd);
    rv.rdma_destroy_id(this.id);
  }
}

// 0. Set up: an event channel and an id, the address and route resolved,
// the objects and the QP, the SRQ's receives, the receive CQ armed; connect.
const res = [null];
rv.rdma_getaddrinfo(addr, port, { ai_port_space: rv.RDMA_PS_TCP }, res);
const channel = rv.rdma_create_event_channel();
const idOut = [null];
rv.rdma_create_id(channel, idOut, null, rv.RDMA_PS_TCP);
const id = idOut[0];
rv.rdma_resolve_addr(id, null, koffi.decode(res[0], types.rdma_addrinfo).ai_dst_addr, 2000);
event(channel, rv.RDMA_CM_EVENT_ADDR_RESOLVED, id);
rv.rdma_resolve_route(id, 2000);
event(channel, rv.RDMA_CM_EVENT_ROUTE_RESOLVED, id);
const s = new Side(id);
rv.ibv_req_notify_cq(s.rcq, 0);
rv.rdma_connect(id, { responder_resources: 1, initiator_depth: 1, retry_count: 7, rnr_retry_count: 7 });
event(channel, rv.RDMA_CM_EVENT_ESTABLISHED, id);

// 1. Keys, the first event; the CQ armed again for solicited completions.
let wc = s.nextEvent(1);
check(wc.length === 1, `the keys' event: ${wc.length} completions`);
completion(wc[0], 0x100, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qpNum);
const word = s.recv.readBigUInt64LE(0), rkey = s.recv.readUInt32LE(8);
check(s.recv.readBigUInt64LE(16) === INITIAL, `the word's value ${hex(s.recv.readBigUInt64LE(16))} is not the initial one`);

// 2. Atomics, one list: fetch-and-add, compare-and-swap, a stale one.
{
  const sges = cArray(types.ibv_sge, 3);
  const base = koffi.address(s.atom), lkey = s.lkey(s.atomMr);
  koffi.encode(sges.mem, types.ibv_sge, [0, 1, 2].map((k) => ({ addr: base + BigInt(8 * k), length: 8, lkey })), 3);
  const list = [0, 1, 2].map((k) => ({
    wr_id: 0x700 + k, sg_list: sges.at(k), num_sge: 1, send_flags: rv.IBV_SEND_SIGNALED,
    opcode: k ? rv.IBV_WR_ATOMIC_CMP_AND_SWP : rv.IBV_WR_ATOMIC_FETCH_AND_ADD,
    wr: { atomic: { remote_addr: word, rkey, compare_add: k ? (INITIAL + ADD) & MASK : ADD,
      swap: [0n, SWAP, STALE_SWAP][k] } },
  }));
  wc = s.post(list);
  [rv.IBV_WC_FETCH_ADD, rv.IBV_WC_COMP_SWAP, rv.IBV_WC_COMP_SWAP].forEach(
    (opcode, k) => completion(wc[k], 0x700 + k, opcode, 8, 0, 0, s.qpNum));
  const want = [INITIAL, (INITIAL + ADD) & MASK, SWAP];
  check([...s.atom].every((v, k) => v === want[k]), `the atomics' old values ${[...s.atom].map(hex)}`);
}

// 3. Four sends into the server's SRQ, one list, two SGEs each, immediate
// data 0xc0de0000 + k (network order).
{
  for (let k = 0; k < 4; k++) {
    for (let j = 0; j < SLOT; j++) s.send[SLOT * k + j] = (0xc1 + 7 * k + j) & 0xff;
  }
  const sges = cArray(types.ibv_sge, 8);
  const lkey = s.lkey(s.sendMr);
  koffi.encode(sges.mem, types.ibv_sge, Array.from({ length: 8 }, (_, i) => {
    const at = koffi.address(s.send) + BigInt(SLOT * (i >> 1));
    return i & 1 ? { addr: at + 16n, length: SLOT - 16, lkey } : { addr: at, length: 16, lkey };
  }), 8);
  const list = [0, 1, 2, 3].map((k) => ({ wr_id: 0x300 + k, sg_list: sges.at(2 * k), num_sge: 2,
    opcode: rv.IBV_WR_SEND_WITH_IMM, send_flags: rv.IBV_SEND_SIGNALED, imm_data: bswap32(0xc0de0000 + k) }));
  s.post(list).forEach((c, k) => completion(c, 0x300 + k, rv.IBV_WC_SEND, SLOT, rv.IBV_WC_WITH_IMM, 0, s.qpNum));
}

// 4. The server's five, the event at the last (solicited): five at once.
wc = s.nextEvent(0);
check(wc.length === 5, `the solicited event: ${wc.length} completions in one poll, not 5`);
SERVER_LENS.forEach((length, k) => {
  completion(wc[k], 0x101 + k, rv.IBV_WC_RECV, length, RECV | rv.IBV_WC_WITH_IMM, 0x5e4d0000 + k, s.qpNum);
  const got = s.recv.subarray(SLOT * (1 + k), SLOT * (1 + k) + length);
  check(got.every((b, j) => b === ((0x51 + 7 * k + j) & 0xff)), `message ${k}: its bytes differ`);
});

// 5. DONE, and the server's DONE with the word's last value.
{
  s.send.fill(0, 0, SLOT);
  s.send.write('DONE');
  const sge = cArray(types.ibv_sge, 1);
  koffi.encode(sge.mem, types.ibv_sge, { addr: koffi.address(s.send), length: SLOT, lkey: s.lkey(s.sendMr) });
  wc = s.post([{ wr_id: 0x500, sg_list: sge.at(0), num_sge: 1, opcode: rv.IBV_WR_SEND,
    send_flags: rv.IBV_SEND_SIGNALED }]);
  completion(wc[0], 0x500, rv.IBV_WC_SEND, SLOT, 0, 0, s.qpNum);
}
wc = s.nextEvent(0);
check(wc.length === 1, `the DONE event: ${wc.length} completions`);
completion(wc[0], 0x106, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qpNum);
const done = s.recv.toString('latin1', 6 * SLOT, 6 * SLOT + 4), final = s.recv.readBigUInt64LE(6 * SLOT + 8);
check(done === 'DONE' && final === SWAP, `no DONE with the word's value: ${done} ${hex(final)}`);

// 6. Teardown.
rv.rdma_disconnect(id);
event(channel, rv.RDMA_CM_EVENT_DISCONNECTED, id);
s.teardown();
rv.rdma_destroy_event_channel(channel);
rv.rdma_freeaddrinfo(res[0]);
console.log('verbs: PASS role=client completions=15 bytes=248');
