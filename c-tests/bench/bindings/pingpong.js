// make bench, Soft-RoCE: the Node.js side of c-tests/bench/pingpong.py's
// ping-pong (a 64-byte inline send answered by the peer; the send's and
// the reply's completions waited for; the receive posted again), both
// sides the same way:
//
//   raw       the raw functions (C names, koffi): the blocking
//             rdma_get_send_comp / rdma_get_recv_comp
//   promises  the object API: rv.createEndpoint / rv.listen, postSend,
//             postRecv, and the Promises of sendCq.next(1), recvCq.next(1)
//   rate      not a ping-pong: c-tests/bench/msgrate.c's message rate, in
//             the raw functions (ROUNDTRIPS: the messages)
//
// Usage: node pingpong.js WAY server|client ADDR PORT ROUNDTRIPS
// The client times the last ROUNDTRIPS round trips (after WARMUP) and
// prints "pingpong: way=WAY latency_us=L" ("msgrate: way=node msgs_s=T"
// for rate); each reply's first bytes are checked.
'use strict';
const rv = require('rdmaverbs');
const { koffi, types } = rv;

const SIZE = 64;
const DEPTH = 16;
const WARMUP = 100;
const [RATE_WINDOW, RATE_BATCH] = [32, 16]; // msgrate.c's

function fail(what) {
  console.error(`pingpong: ${what}`);
  process.exit(1);
}

// The raw functions' setup: the id connected, with sends queues of
// sendDepth and recvs receives of SIZE posted in buf (each its own slot,
// wr_id its index; all in one, for the message rate: slots 1).
function rawSetup(server, addr, port, sendDepth, recvs, slots = recvs) {
  const res = [null];
  rv.rdma_getaddrinfo(addr, port, { ai_port_space: rv.RDMA_PS_TCP, ai_flags: server ? rv.RAI_PASSIVE : 0 }, res);
  const attr = {
    cap: { max_send_wr: sendDepth, max_recv_wr: recvs, max_send_sge: 1, max_recv_sge: 1, max_inline_data: SIZE },
    qp_type: rv.IBV_QPT_RC, sq_sig_all: 1,
  };
  const listen = [null];
  const idOut = [null];
  if (server) {
    rv.rdma_create_ep(listen, res[0], null, attr);
    rv.rdma_listen(listen[0], 1);
    console.log('pingpong: listening');
    rv.rdma_get_request(listen[0], idOut);
  } else {
    rv.rdma_create_ep(idOut, res[0], null, attr);
  }
  const id = idOut[0];
  const buf = Buffer.alloc(slots * SIZE);
  const mr = rv.rdma_reg_msgs(id, buf, slots * SIZE);
  const base = koffi.address(buf);
  for (let i = 0; i < recvs; i++) rv.rdma_post_recv(id, i % slots, base + BigInt(SIZE * (i % slots)), SIZE, mr);
  const param = { responder_resources: 1, initiator_depth: 1, retry_count: 7, rnr_retry_count: 7 };
  (server ? rv.rdma_accept : rv.rdma_connect)(id, param);
  const done = () => {   // (it holds buf: registered memory lives until it is deregistered)
    if (buf.length !== slots * SIZE) fail('the receive buffer changed');
    rv.rdma_dereg_mr(mr);
    rv.rdma_destroy_ep(id);
    if (server) rv.rdma_destroy_ep(listen[0]);
    rv.rdma_freeaddrinfo(res[0]);
  };
  return { id, buf, base, mr, done };
}

function raw(server, addr, port, n) {
  const { id, buf, base, mr, done } = rawSetup(server, addr, port, DEPTH, DEPTH);
  const msg = Buffer.alloc(SIZE);
  msg.write(server ? 'pong' : 'ping');
  const wc = {};
  const comp = (recv) => {
    if ((recv ? rv.rdma_get_recv_comp(id, wc) : rv.rdma_get_send_comp(id, wc)) !== 1 || wc.status) {
      fail(`completion status ${wc.status}`);
    }
  };
  let t0 = 0n;
  for (let i = 0; i < (n ? n + WARMUP : 1); i++) {
    if (i === WARMUP) t0 = process.hrtime.bigint();
    const slot = i % DEPTH;
    if (server) {
      comp(true);
      rv.rdma_post_recv(id, slot, base + BigInt(SIZE * slot), SIZE, mr);
      rv.rdma_post_send(id, null, msg, SIZE, null, rv.IBV_SEND_INLINE);
      comp(false);
    } else {
      rv.rdma_post_send(id, null, msg, SIZE, null, rv.IBV_SEND_INLINE);
      comp(false);
      comp(true);
      if (buf.toString('latin1', SIZE * slot, SIZE * slot + 4) !== 'pong') fail(`round trip ${i}: no pong`);
      rv.rdma_post_recv(id, slot, base + BigInt(SIZE * slot), SIZE, mr);
    }
  }
  const elapsed = process.hrtime.bigint() - t0;
  done();
  return Number(elapsed) / 1e9;
}

async function promises(server, addr, port, n) {
  const opts = { cap: { max_send_wr: DEPTH, max_recv_wr: DEPTH, max_inline_data: SIZE }, timeout: 30000 };
  let listener = null;
  let ep;
  if (server) {
    listener = rv.listen(addr, Number(port));
    console.log('pingpong: listening');
    ep = await listener.getRequest({ timeout: 30000 });
    ep.setup(opts);
  } else {
    ep = await rv.createEndpoint(addr, Number(port), opts);
  }
  try {
    const mr = ep.reg(Buffer.alloc(DEPTH * SIZE));
    const slots = Array.from({ length: DEPTH }, (_, i) => mr.sge(SIZE * i, SIZE));
    for (let i = 0; i < DEPTH; i++) ep.postRecv({ wrId: i, sg: [slots[i]] });
    await (server ? ep.accept({}, { timeout: 30000 }) : ep.connect({}, { timeout: 30000 }));
    const msg = Buffer.alloc(SIZE);
    msg.write(server ? 'pong' : 'ping');
    const send = { sg: [ep.reg(msg)], flags: rv.IBV_SEND_INLINE };
    let t0 = 0n;
    for (let i = 0; i < (n ? n + WARMUP : 1); i++) {
      if (i === WARMUP) t0 = process.hrtime.bigint();
      const slot = i % DEPTH;
      if (server) {
        await ep.recvCq.next(1);
        ep.postRecv({ wrId: slot, sg: [slots[slot]] });
        ep.postSend(send);
        await ep.sendCq.next(1);
      } else {
        ep.postSend(send);
        await ep.sendCq.next(1);
        await ep.recvCq.next(1);
        if (mr.buffer.toString('latin1', SIZE * slot, SIZE * slot + 4) !== 'pong') fail(`round trip ${i}: no pong`);
        ep.postRecv({ wrId: slot, sg: [slots[slot]] });
      }
    }
    return Number(process.hrtime.bigint() - t0) / 1e9;
  } finally {
    ep.close();
    if (listener) listener.close();
  }
}

// msgrate.c's exchange: the server's n receives posted first (one slot),
// the client's n inline sends, RATE_WINDOW in flight; completions taken
// RATE_BATCH at a time (ibv_poll_cq, busy).
function rate(server, addr, port, n) {
  const { id, done } = rawSetup(server, addr, port, RATE_WINDOW, server ? n : 1, 1);
  const cmId = koffi.decode(id, types.rdma_cm_id);
  const [scq, rcq] = [cmId.send_cq, cmId.recv_cq];
  const wcs = Array.from({ length: RATE_BATCH }, () => ({}));
  const msg = Buffer.alloc(SIZE);
  msg.write('rate');
  const take = (cq, most) => {
    let got = 0;
    while (!got) got = rv.ibv_poll_cq(cq, most, wcs);
    for (let k = 0; k < got; k++) if (wcs[k].status) fail(`completion status ${wcs[k].status}`);
    return got;
  };
  const t0 = process.hrtime.bigint();
  if (server) {
    for (let d = 0; d < n;) d += take(rcq, RATE_BATCH);
    rv.rdma_post_send(id, null, msg, SIZE, null, rv.IBV_SEND_INLINE);
    take(scq, 1);
  } else {
    let inflight = 0;
    for (let i = 0; i < n; i++) {
      if (inflight === RATE_WINDOW) inflight -= take(scq, RATE_BATCH);
      rv.rdma_post_send(id, null, msg, SIZE, null, rv.IBV_SEND_INLINE);
      inflight++;
    }
    while (inflight) inflight -= take(scq, RATE_BATCH);
    take(rcq, 1);
  }
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  done();
  return elapsed;
}

async function main() {
  const [way, role, addr, port, count] = process.argv.slice(2);
  const ways = { raw, promises, rate };
  if (!ways[way] || !['server', 'client'].includes(role) || !port || count === undefined) {
    console.error('usage: node pingpong.js raw|promises|rate server|client ADDR PORT ROUNDTRIPS');
    process.exit(2);
  }
  const n = Number(count);
  const elapsed = await ways[way](role === 'server', addr, port, n);
  if (role === 'client' && way === 'rate') console.log(`msgrate: way=node msgs_s=${(n / elapsed).toFixed(0)}`);
  else if (role === 'client') console.log(`pingpong: way=${way} latency_us=${((elapsed / Math.max(n, 1)) * 1e6).toFixed(2)}`);
}

main().catch((e) => fail(e.stack || e.message));
