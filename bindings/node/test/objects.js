// The Node.js binding's objects (objects/) on a machine without RDMA, run
// with --expose-gc:
//  - a posted buffer kept alive: on the recording provider
//    (bindings/recorder/), a Buffer posted through an Endpoint, every
//    reference to it dropped, collections forced: it is still alive and
//    its bytes, read by the provider after the post returned, intact;
//    released once its completion is reaped;
//  - an MR holds its buffer, until it is closed;
//  - a Promise's wait on a completion channel, its bound, a channel closed
//    under it;
//  - completions matched to their QP by CQ and qp_num: two QPs of the same
//    number on different CQs each released by their own CQ only;
//  - errors: RdmaVerbsError with its errno, EBADF after close().
// (The order of closing: closing.js.) Exits 1 on a failure.
'use strict';
const os = require('os');
const rv = require('rdmaverbs');
const { koffi, types } = rv;
const { standIn, orderedBy } = require('./stand-in.js');

if (typeof global.gc !== 'function') {
  console.error('objects.js: run with node --expose-gc');
  process.exit(2);
}
let failures = 0;
function check(ok, what) {
  console.log(`node objects: ${ok ? 'ok' : 'FAIL'}: ${what}`);
  if (!ok) failures++;
}
function code(f) {
  try {
    f();
    return 'no error';
  } catch (e) {
    return e instanceof rv.RdmaVerbsError ? `${e.code} ${e.errno} ${e.syscall}` : `${e.name}: ${e.message}`;
  }
}
// Whether log destroys each thing made once, each after what depends on it.
const ordered = (log, what) => orderedBy(check, log, what);
const tick = () => new Promise((r) => setTimeout(r, 10));
// Collections, with the allocations that would reuse freed memory between
// them, until done() (or 40 rounds): whether it came.
async function collect(done = null) {
  for (let i = 0; i < (done ? 40 : 5); i++) {
    await tick();
    global.gc();
    for (let j = 0; j < 200; j++) Buffer.alloc(64, 0xee);
    global.gc();
    await tick();
    if (done && done()) return true;
  }
  return false;
}
const offset = (type, field) => koffi.type(type).members[field].offset;
const pattern = (n, seed) => Buffer.from(Array.from({ length: n }, (_, j) => (seed + 7 * j) & 0xff));

async function lifetimes() {
  const recorder = koffi.load(process.env.RDMAVERBS_RECORDER);
  const rec = {
    id: recorder.func('void *recorder_id(void)'),
    qp: recorder.func('void *recorder_qp(void)'),
    cq: recorder.func('void *recorder_cq(void)'),
    last: recorder.func('const char *recorder_last(void)'),
    bytes: (f => () => f().trimStart())(recorder.func('const char *recorder_bytes(void)')),
  };
  const id = rec.id();
  // The fake QP's number: that of the provider's second completion
  // (wr_id 0x5001, COMP_SWAP, qp_num 0x1101), which reaps the post below.
  koffi.encode(rec.qp(), offset(types.ibv_qp, 'qp_num'), 'uint32_t', 0x1101);
  // Its CQs: the provider's (completions are matched to QPs by CQ and number).
  koffi.encode(rec.qp(), offset(types.ibv_qp, 'send_cq'), 'void *', rec.cq());
  koffi.encode(rec.qp(), offset(types.ibv_qp, 'recv_cq'), 'void *', rec.cq());
  const ep = rv.Endpoint.adopt(id);
  check(ep.qpNum === 0x1101 && ep.qp === rec.qp(), 'Endpoint.adopt: the id\'s QP and its number');
  const want = pattern(64, 0x3c).toString('hex');
  // The post, in a function of its own: nothing of it stays on this stack.
  const posted = (() => {
    let buf = pattern(64, 0x3c);
    const mrStruct = Buffer.alloc(koffi.sizeof(types.ibv_mr));
    koffi.encode(mrStruct, types.ibv_mr, { addr: koffi.address(buf), length: 64, lkey: 0x77, rkey: 0x88 });
    let mr = rv.MemoryRegion.adopt(koffi.address(mrStruct), buf);
    const address = koffi.address(buf).toString(16);
    ep.postSend({ wrId: 0x5001, sg: [mr.sge(0, 64)], opcode: rv.IBV_WR_ATOMIC_CMP_AND_SWP,
      flags: rv.IBV_SEND_SIGNALED, atomic: { remoteAddr: 0x1000n, rkey: 5, compareAdd: 1n, swap: 2n } });
    check(rec.last() === `cas wr_id=0x5001 flags=0x2 remote=0x1000 rkey=0x5 compare=0x1 swap=0x2 sge=0x${address}:0x40:0x77`,
      `postSend: the work request as the provider received it: ${rec.last()}`);
    const weak = new WeakRef(buf);
    buf = mr = null;   // every reference the program had
    return { weak, mrStructKept: mrStruct };
  })();
  await collect();
  check(posted.weak.deref() !== undefined, 'a posted buffer, every reference dropped, collections forced: alive');
  check(rec.bytes() === want, `its bytes as the provider reads them after the collections: intact (${rec.bytes().slice(0, 16)}...)`);
  const cq = rv.CompletionQueue.adopt(rec.cq());
  const wc = cq.poll(4);
  check(wc.length === 3 && wc[1].wr_id === 0x5001 && wc[1].qp_num === 0x1101, 'CompletionQueue.poll: the 3 completions');
  check(await collect(() => posted.weak.deref() === undefined), 'its completion reaped: the buffer released, collected');

  // An MR holds its buffer until it is closed.
  const held = (() => {
    const buf = Buffer.alloc(32, 1);
    const mrStruct = Buffer.alloc(koffi.sizeof(types.ibv_mr));
    koffi.encode(mrStruct, types.ibv_mr, { addr: koffi.address(buf), length: 32, lkey: 1, rkey: 2 });
    return { mr: rv.MemoryRegion.adopt(koffi.address(mrStruct), buf), weak: new WeakRef(buf), mrStruct };
  })();
  await collect();
  check(held.weak.deref() !== undefined && held.mr.buffer === held.weak.deref(), 'an MR holds its buffer: alive after collections');
  held.mr.close();
  held.mr = null;
  check(await collect(() => held.weak.deref() === undefined), 'the MR closed: its buffer collected');
  // A post refused by the provider holds nothing; its error is the errno value.
  const failing = recorder.func('void recorder_fail(int err)');
  const refused = (() => {
    const buf = Buffer.alloc(16, 2);
    const mrStruct = Buffer.alloc(koffi.sizeof(types.ibv_mr));
    koffi.encode(mrStruct, types.ibv_mr, { addr: koffi.address(buf), length: 16, lkey: 3, rkey: 4 });
    const mr = rv.MemoryRegion.adopt(koffi.address(mrStruct), buf);
    failing(rv.ENOMEM);
    let error = null;
    try {
      ep.postSend([{ wrId: 1, sg: [mr] }, { wrId: 2, sg: [mr] }]);
    } catch (e) {
      error = e;
    }
    check(error instanceof rv.RdmaVerbsError && error.code === 'ENOMEM' && error.errno === -os.constants.errno.ENOMEM &&
      error.syscall === 'ibv_post_send' && error.badIndex === 0,
    'a post the provider refuses: RdmaVerbsError ENOMEM, errno -12, badIndex 0');
    return { weak: new WeakRef(buf), mrStruct };
  })();
  check(await collect(() => refused.weak.deref() === undefined), 'the refused post holds nothing: its buffer collected');
  ep.close();
  check(code(() => ep.postSend({ wrId: 1 })) === 'EBADF -9 ibv_post_send', 'a closed Endpoint: EBADF');
  check(code(() => cq.poll()) !== 'EBADF -9 ibv_poll_cq', 'an adopted CQ stays open');
}

// A Promise's wait, on the stand-in's completion channel (an eventfd):
// the event loop runs while it waits; it resolves once the fd is readable;
// its bound; a channel closed under it; the blocking form's bound.
async function waits() {
  const { o, done } = standIn();
  const libc = koffi.load('libc.so.6');
  const write = libc.func('long write(int fd, void *buf, unsigned long count)');
  const one = Buffer.alloc(8);
  one.writeBigUInt64LE(1n);
  const cc = new o.CompletionChannel(0xc0n);
  const cq = new o.CompletionQueue(0xc0n, { channel: cc, context: 0x77n });
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 1);
  const pending = cc.getEvent({ timeout: 5000 });
  setTimeout(() => write(cc.fd, one, 8), 200);
  const t0 = Date.now();
  const ev = await pending;
  const waited = Date.now() - t0;
  check(ev.cq === cq && ev.context === 0x77n && waited >= 190 && ticks > 0,
    `getEvent(): resolved once its fd was readable, ${waited} ms; the event loop ran meanwhile (a 1 ms timer ${ticks} times)`);
  let t1 = Date.now();
  const late = await cc.getEvent({ timeout: 100 }).then(() => 'resolved', (e) => e.code);
  check(late === 'ETIMEDOUT' && Date.now() - t1 >= 95, `getEvent({ timeout: 100 }) with nothing to come: ETIMEDOUT after ${Date.now() - t1} ms`);
  t1 = Date.now();
  const before = ticks;
  check(code(() => cc.getEventSync(50)) === 'ETIMEDOUT -110 ibv_get_cq_event' && Date.now() - t1 >= 45 &&
    ticks === before, 'getEventSync(50): ETIMEDOUT, blocking (the timer did not run)');
  const orphan = cc.getEvent({ timeout: 5000 }).then(() => 'resolved', (e) => e.code);
  await tick();
  t1 = Date.now();
  cq.close();
  cc.close();
  const closed = await orphan;
  check(closed === 'EBADF' && Date.now() - t1 < 1000, `a channel closed under a pending getEvent(): it rejects with EBADF at once (${closed})`);
  for (let i = 0; i < 100 && o._reactor.polling !== null; i++) await tick();
  check(o._reactor.polling === null && o._reactor.waiting.size === 0, 'nothing waited on: no poll() in flight (no pool thread held)');
  clearInterval(ticker);
  done();
}

// Two QPs with the same number (two devices') on different CQs: a
// completion releases the holds of the QP whose CQ gave it, only.
function sameQpNumber() {
  const { o, log, completions, done, control } = standIn();
  control.qpNum = 0x42;
  const ch = new o.EventChannel();
  const one = ch.createId().setup(), two = ch.createId().setup();
  check(one.qpNum === 0x42 && two.qpNum === 0x42, 'two QPs, both qp_num 0x42, on their own CQs');
  const mr1 = one.pd.reg(Buffer.alloc(16)), mr2 = two.pd.reg(Buffer.alloc(16));
  one.postSend({ wrId: 5, sg: [mr1], flags: rv.IBV_SEND_SIGNALED });
  two.postSend({ wrId: 5, sg: [mr2], flags: rv.IBV_SEND_SIGNALED });
  mr1.close();
  mr2.close();
  const deregs = () => log.filter((e) => e[0] === 'destroy' && e[1] === 'MemoryRegion').map((e) => e[2]);
  const wc = { wr_id: 5, status: 0, opcode: rv.IBV_WC_SEND, qp_num: 0x42 };
  completions.push({ ...wc });
  check(one.sendCq.poll().length === 1 && deregs().length === 1 && deregs()[0] === mr1.ptr,
    "the completion on the first QP's send CQ: its MR released (deregistered), the other QP's not");
  const stranger = new o.CompletionQueue(two);
  completions.push({ ...wc });
  check(stranger.poll().length === 1 && deregs().length === 1,
    'the same completion on a CQ of neither QP: nothing released');
  completions.push({ ...wc, opcode: rv.IBV_WC_RECV });
  check(two.recvCq.poll().length === 1 && deregs().length === 1,
    "a receive's completion on the second QP's receive CQ: its posted send not released");
  completions.push({ ...wc });
  check(two.sendCq.poll().length === 1 && deregs().length === 2 && deregs()[1] === mr2.ptr,
    "the completion on the second QP's send CQ: its MR released");
  stranger.close();
  one.close();
  two.close();
  ch.close();
  ordered(log, 'two QPs of one number');
  done();
}

(async () => {
  await lifetimes();
  await waits();
  sameQpNumber();
  if (failures) process.exit(1);
  console.log('node objects: all checks passed');
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
