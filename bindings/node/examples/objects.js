// The verbs exchange of bindings/verbs-protocol.md from Node.js through the
// object API (objects.js), in either role: as the client against the C
// peer's server (`peer verbs server`), as the server against its client
// (`peer verbs client`). Every wait is the blocking form (NAMESync, each
// bounded); examples/async.js does the same with Promises. VERBS_PROFILE=iwarp
// in the environment: the exchange's iWARP profile (the client speaks first,
// no atomics, no immediate data, no GRH; the fields RC leaves unset not
// checked: siw does not write them).
// Usage: node objects.js client|server ADDR PORT
'use strict';
const rv = require('rdmaverbs');
const { koffi, types } = rv;

const SLOT = 64, SLOTS = 8;
const INITIAL = 0x1122334455667788n, ADD = 0x1000000000000001n;
const SWAP = 0x0fedcba987654321n, STALE_SWAP = 0xdeaddeaddeaddeadn;
const CQ_CONTEXT = 0xc0ffeen;
const WAIT_MS = 60000;
const SERVER_LENS = [8, 16, 24, 32, 40];
const IWARP = process.env.VERBS_PROFILE === 'iwarp';
const RECV = IWARP ? 0 : rv.IBV_WC_GRH;
const WITH_IMM = IWARP ? 0 : rv.IBV_WC_WITH_IMM;
const SEND_IMM = IWARP ? rv.IBV_WR_SEND : rv.IBV_WR_SEND_WITH_IMM;
const imm = (v) => (IWARP ? 0 : v);      // the immediate data a receive carries: none on iWARP
const PARAM = { responder_resources: 1, initiator_depth: 1, retry_count: 7, rnr_retry_count: 7 };

const [role, addr, port] = process.argv.slice(2);
if (!['client', 'server'].includes(role) || !addr || !port) {
  console.error('usage: objects.js client|server ADDR PORT');
  process.exit(2);
}

function check(ok, what) {
  if (!ok) throw new Error(what);
}
const hex = (v) => `0x${BigInt(v).toString(16)}`;

// One completion, every field (as verbs.js checks them).
function completion(wc, wrId, opcode, length, flags, imm, qpNum) {
  const got = [wc.wr_id, wc.status, wc.opcode, wc.byte_len, wc.wc_flags, rv.ntohl(wc.imm_data), wc.qp_num,
    wc.vendor_err, wc.src_qp, wc.pkey_index, wc.slid, wc.sl, wc.dlid_path_bits].map(Number).slice(0, IWARP ? 8 : 13);
  const want = [wrId, rv.IBV_WC_SUCCESS, opcode, length, flags, imm, qpNum, 0, 0, 0, 0, 0, 0].slice(0, got.length);
  check(got.every((v, i) => v === want[i]), `completion ${got.map(hex)}; want ${want.map(hex)} ` +
    `(${rv.ibv_wc_status_str(wc.status)})`);
}

// The objects of a side, on the id's context; what close() closes. The
// SRQ's eight receives posted: slot i, wrId 0x100 + i.
function objects(ep) {
  const pd = new rv.ProtectionDomain(ep);
  const cc = new rv.CompletionChannel(ep);
  const scq = new rv.CompletionQueue(ep, { cqe: 16 });
  const rcq = new rv.CompletionQueue(ep, { cqe: 16, channel: cc, context: CQ_CONTEXT });
  const srq = new rv.SharedReceiveQueue(pd, { maxWr: SLOTS, maxSge: 1 });
  ep.createQp({ pd, sendCq: scq, recvCq: rcq, srq, cap: { max_send_wr: 8, max_send_sge: 2, max_recv_wr: 0,
    max_recv_sge: 0 } });
  const qp = koffi.decode(ep.qp, types.ibv_qp);
  check(qp.send_cq === scq.ptr && qp.recv_cq === rcq.ptr && qp.srq === srq.ptr,
    "the id's QP is not on the CQs and the SRQ given");
  const recvMr = pd.reg(Buffer.alloc(SLOTS * SLOT), rv.IBV_ACCESS_LOCAL_WRITE);
  const sendMr = pd.reg(Buffer.alloc(5 * SLOT), 0);
  const atomMr = pd.reg(new BigUint64Array(3), rv.IBV_ACCESS_LOCAL_WRITE | rv.IBV_ACCESS_REMOTE_READ |
    (IWARP ? rv.IBV_ACCESS_REMOTE_WRITE : rv.IBV_ACCESS_REMOTE_ATOMIC));
  srq.postRecv(Array.from({ length: SLOTS }, (_, i) => ({ wrId: 0x100 + i, sg: [recvMr.sge(SLOT * i, SLOT)] })));
  return { pd, cc, scq, rcq, srq, recvMr, sendMr, atomMr, recv: recvMr.buffer, send: sendMr.buffer,
    atom: atomMr.buffer, qpNum: ep.qpNum, all: [srq, scq, rcq, cc, recvMr, sendMr, atomMr, pd] };
}

function client() {
  const ch = new rv.EventChannel();
  const ep = ch.createId();
  let s = null;
  try {
    ep.resolveSync(addr, port, WAIT_MS);
    s = objects(ep);
    s.rcq.reqNotify(false);
    ep.connectSync(PARAM, WAIT_MS);
    // The receive CQ's next event: its CQ and context checked, the CQ
    // armed again (solicitedOnly), then up to 8 completions in one poll.
    const nextEvent = (solicitedOnly) => {
      const ev = s.cc.getEventSync(WAIT_MS);
      check(ev.cq === s.rcq && ev.context === CQ_CONTEXT, "the event is not the receive CQ's");
      s.rcq.reqNotify(solicitedOnly);
      return s.rcq.poll(8);
    };
    // Steps 4 and 5: the next event (RoCE); on iWARP the n completions by
    // the bounded wait (siw, Linux 6.1, signals no solicited completion).
    const received = (n) => (IWARP ? s.rcq.nextSync(n, WAIT_MS) : nextEvent(false));
    // 3. Four sends into the server's SRQ, two SGEs each.
    const sends = () => {
      for (let k = 0; k < 4; k++) {
        for (let j = 0; j < SLOT; j++) s.send[SLOT * k + j] = (0xc1 + 7 * k + j) & 0xff;
      }
      ep.postSend([0, 1, 2, 3].map((k) => ({ wrId: 0x300 + k, opcode: SEND_IMM,
        flags: rv.IBV_SEND_SIGNALED, imm: 0xc0de0000 + k,
        sg: [s.sendMr.sge(SLOT * k, 16), s.sendMr.sge(SLOT * k + 16, SLOT - 16)] })));
      s.scq.nextSync(4, WAIT_MS).forEach((c, k) => completion(c, 0x300 + k, rv.IBV_WC_SEND, SLOT, WITH_IMM,
        0, s.qpNum));
    };
    if (IWARP) sends();     // the client speaks first
    // 1. Keys.
    let wc = nextEvent(true);
    check(wc.length === 1, `the keys' event: ${wc.length} completions`);
    completion(wc[0], 0x100, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qpNum);
    const word = s.recv.readBigUInt64LE(0), rkey = s.recv.readUInt32LE(8);
    check(s.recv.readBigUInt64LE(16) === INITIAL, "the word's value is not the initial one");
    // 2. Atomics, one list. iWARP has none: a read of the word; then a write
    // of SWAP and a read back, one list (a write completes as siw sends it:
    // after a read in one list, its completion would come first).
    const rdma = (k, opcode) => ({ wrId: 0x700 + k, sg: [s.atomMr.sge(8 * k, 8)], flags: rv.IBV_SEND_SIGNALED,
      opcode, rdma: { remoteAddr: word, rkey } });
    if (IWARP) {
      s.atom[1] = SWAP;
      ep.postSend([rdma(0, rv.IBV_WR_RDMA_READ)]);
      wc = s.scq.nextSync(1, WAIT_MS);
      ep.postSend([rdma(1, rv.IBV_WR_RDMA_WRITE), rdma(2, rv.IBV_WR_RDMA_READ)]);
      wc = wc.concat(s.scq.nextSync(2, WAIT_MS));
    } else {
      ep.postSend([0, 1, 2].map((k) => ({
        wrId: 0x700 + k, sg: [s.atomMr.sge(8 * k, 8)], flags: rv.IBV_SEND_SIGNALED,
        opcode: k ? rv.IBV_WR_ATOMIC_CMP_AND_SWP : rv.IBV_WR_ATOMIC_FETCH_AND_ADD,
        atomic: { remoteAddr: word, rkey, compareAdd: k ? INITIAL + ADD : ADD, swap: [0n, SWAP, STALE_SWAP][k] },
      })));
      wc = s.scq.nextSync(3, WAIT_MS);
    }
    (IWARP ? [rv.IBV_WC_RDMA_READ, rv.IBV_WC_RDMA_WRITE, rv.IBV_WC_RDMA_READ] :
      [rv.IBV_WC_FETCH_ADD, rv.IBV_WC_COMP_SWAP, rv.IBV_WC_COMP_SWAP]).forEach(
      (opcode, k) => completion(wc[k], 0x700 + k, opcode, 8, 0, 0, s.qpNum));
    const old = [INITIAL, IWARP ? SWAP : INITIAL + ADD, SWAP];
    check([...s.atom].every((v, k) => v === old[k]), `the atomics' old values ${[...s.atom].map(hex)}`);
    if (!IWARP) sends();
    // 4. Five at once, on the solicited event.
    wc = received(5);
    check(wc.length === 5, `the solicited event: ${wc.length} completions in one poll, not 5`);
    SERVER_LENS.forEach((length, k) => {
      completion(wc[k], 0x101 + k, rv.IBV_WC_RECV, length, RECV | WITH_IMM, imm(0x5e4d0000 + k), s.qpNum);
      const got = s.recv.subarray(SLOT * (1 + k), SLOT * (1 + k) + length);
      check(got.every((b, j) => b === ((0x51 + 7 * k + j) & 0xff)), `message ${k}: its bytes differ`);
    });
    // 5. DONE, and the server's DONE with the word's last value.
    s.send.fill(0, 0, SLOT);
    s.send.write('DONE');
    ep.postSend({ wrId: 0x500, sg: [s.sendMr.sge(0, SLOT)], flags: rv.IBV_SEND_SIGNALED });
    completion(s.scq.nextSync(1, WAIT_MS)[0], 0x500, rv.IBV_WC_SEND, SLOT, 0, 0, s.qpNum);
    wc = received(1);
    check(wc.length === 1, `the DONE event: ${wc.length} completions`);
    completion(wc[0], 0x106, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qpNum);
    check(s.recv.toString('latin1', 6 * SLOT, 6 * SLOT + 4) === 'DONE' &&
      s.recv.readBigUInt64LE(6 * SLOT + 8) === SWAP, "no DONE with the word's value");
    // 6. Teardown.
    ep.disconnectSync(WAIT_MS);
  } finally {
    for (const o of [ep, ...(s ? s.all : []), ch]) o.close();   // in any order: each when nothing depends on it
  }
  return 'verbs: PASS role=client completions=15 bytes=248';
}

function server() {
  const listener = rv.listen(addr, port);
  console.log('verbs: listening');
  let ep = null, s = null;
  try {
    ep = listener.getRequestSync(WAIT_MS);
    s = objects(ep);
    s.atom[0] = INITIAL;
    ep.acceptSync(PARAM, WAIT_MS);
    // Sends of the send slots: { length, imm } each, the last with flags; their completions.
    const sends = (wrId, list, lastFlags = 0) => {
      ep.postSend(list.map((m, k) => ({ wrId: wrId + k, sg: [s.sendMr.sge(SLOT * k, m.length)],
        opcode: m.imm === undefined ? rv.IBV_WR_SEND : SEND_IMM, imm: m.imm,
        flags: rv.IBV_SEND_SIGNALED | (k === list.length - 1 ? lastFlags : 0) })));
      s.scq.nextSync(list.length, WAIT_MS).forEach((c, k) => completion(c, wrId + k, rv.IBV_WC_SEND, list[k].length,
        list[k].imm === undefined ? 0 : WITH_IMM, 0, s.qpNum));
    };
    // 1. Keys: the word's address, its rkey, its value (on iWARP after
    // step 3: the client speaks first).
    const keys = () => {
      s.send.fill(0, 0, SLOT);
      s.send.writeBigUInt64LE(s.atomMr.addr, 0);
      s.send.writeUInt32LE(s.atomMr.rkey, 8);
      s.send.writeBigUInt64LE(INITIAL, 16);
      sends(0x200, [{ length: SLOT }]);
    };
    if (!IWARP) keys();
    // 3. The client's four sends into the SRQ.
    s.rcq.nextSync(4, WAIT_MS).forEach((c, k) => {
      completion(c, 0x100 + k, rv.IBV_WC_RECV, SLOT, RECV | WITH_IMM, imm(0xc0de0000 + k), s.qpNum);
      const got = s.recv.subarray(SLOT * k, SLOT * (k + 1));
      check(got.every((b, j) => b === ((0xc1 + 7 * k + j) & 0xff)), `message ${k}: its bytes differ`);
    });
    if (IWARP) {
      keys();
      // The client's write of SWAP into the word, before step 4: the five
      // must not join the keys in its first poll (on RoCE its four sends
      // come between).
      const end = Date.now() + WAIT_MS, nap = new Int32Array(new SharedArrayBuffer(4));
      while (s.atom[0] !== SWAP) {
        check(Date.now() < end, "the client's write of SWAP did not come within the wait");
        Atomics.wait(nap, 0, 0, 1);
      }
    }
    // 4. Five sends, the last solicited.
    SERVER_LENS.forEach((length, k) => {
      for (let j = 0; j < length; j++) s.send[SLOT * k + j] = (0x51 + 7 * k + j) & 0xff;
    });
    sends(0x300, SERVER_LENS.map((length, k) => ({ length, imm: 0x5e4d0000 + k })), rv.IBV_SEND_SOLICITED);
    // 5. DONE: the word is the compare-and-swap's; DONE and the word back.
    completion(s.rcq.nextSync(1, WAIT_MS)[0], 0x104, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qpNum);
    check(s.recv.toString('latin1', 4 * SLOT, 4 * SLOT + 4) === 'DONE', 'no DONE');
    check(s.atom[0] === SWAP, `the word ${hex(s.atom[0])} is not the compare-and-swap's value`);
    s.send.fill(0, 0, SLOT);
    s.send.write('DONE');
    s.send.writeBigUInt64LE(s.atom[0], 8);
    sends(0x400, [{ length: SLOT }]);
    // 6. Teardown, after the client's disconnect.
    ep.disconnectedSync(WAIT_MS);
    return `verbs: PASS role=server completions=12 word=${hex(s.atom[0])}`;
  } finally {
    for (const o of [ep, ...(s ? s.all : []), listener]) if (o) o.close();
  }
}

try {
  console.log(role === 'client' ? client() : server());
} catch (e) {
  console.error(`verbs ${role}: ${e instanceof rv.RdmaVerbsError ? `${e.message} (errno ${e.errno})` : e.message}`);
  process.exit(1);
}
