// The Node.js binding's objects (objects.js) on a machine without RDMA,
// run with --expose-gc:
//  - a posted buffer kept alive: on the recording provider
//    (bindings/recorder.c), a Buffer posted through an Endpoint, every
//    reference to it dropped, collections forced: it is still alive and
//    its bytes, read by the provider after the post returned, intact;
//    released once its completion is reaped;
//  - an MR holds its buffer, until it is closed;
//  - the order of closing, on a recording stand-in for the C calls (the
//    objects made the way objects.js makes them; nothing else of C):
//    closed in the wrong order by the program, or left to the collector
//    after an exception, each C object is destroyed once, after every
//    object that depends on it; an MR under a posted work request once
//    the completion is reaped; a failure mid-way closes what was made; a
//    PD, CQ or completion channel made on an endpoint destroyed before its
//    id; an MR of ep.reg() closed let go of by the endpoint;
//  - a failed ibv_dereg_mr: thrown, and the MR's buffer kept (leaked);
//  - completions matched to their QP by CQ and qp_num: two QPs of the same
//    number on different CQs each released by their own CQ only;
//  - rdma_cm events: queued for the ids the channel knows, dropped with
//    their id, never handed to a later id at the same address; a
//    connection request no one took has its new id destroyed;
//  - errors: RdmaVerbsError with its errno, EBADF after close().
// Exits 1 on a failure.
'use strict';
const os = require('os');
const rv = require('rdmaverbs');
const { koffi, types } = rv;
const { standIn } = require('./stand-in.js');

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

// ---- the order of closing, on a recording stand-in for the C calls ----


// Whether log destroys each thing made once, each after what depends on
// it (deps: [dependent kind, its field, the kind it depends on]).
function ordered(log, what) {
  const made = log.filter((e) => e[0] === 'make');
  const destroyed = new Map();
  log.forEach((e, i) => {
    if (e[0] === 'destroy') destroyed.set(e[2], (destroyed.get(e[2]) || []).concat(i));
  });
  const once = made.every((e) => (destroyed.get(e[2]) || []).length === 1) && destroyed.size === made.length;
  check(once, `${what}: each of the ${made.length} C objects made destroyed once`);
  return (dependent, dependency, why) => {
    const d = destroyed.get(dependent), p = destroyed.get(dependency);
    check(d && p && d[0] < p[0], `${what}: ${why}`);
  };
}

// log destroys, each once, the PD, CQ and completion channel made on an
// endpoint before its id ("whose": the, setup()'s).
function endpointLast(log, what, whose) {
  const byPtr = (kind) => log.find((e) => e[0] === 'make' && e[1] === kind)[2];
  const dependsOn = ordered(log, what);
  for (const [kind, name] of [['ProtectionDomain', 'PD'], ['CompletionQueue', 'CQ'],
    ['CompletionChannel', 'completion channel']])
    dependsOn(byPtr(kind), byPtr('Endpoint'), `${whose} ${name} before the id`);
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

async function order() {
  // The program closes in the wrong order: the PD and the channels first.
  {
    const { o, log, completions, done } = standIn();
    const ch = new o.EventChannel();
    const ep = ch.createId();
    const pd = new o.ProtectionDomain(ep);
    const cc = new o.CompletionChannel(ep);
    const scq = new o.CompletionQueue(ep, { channel: cc }), rcq = new o.CompletionQueue(ep, { channel: cc });
    const srq = new o.SharedReceiveQueue(pd);
    ep.createQp({ pd, sendCq: scq, recvCq: rcq, srq });
    const mr = pd.reg(Buffer.alloc(64));
    ep.postSend({ wrId: 7, sg: [mr], flags: rv.IBV_SEND_SIGNALED });
    for (const x of [pd, cc, ch, mr]) x.close();
    check(!log.some((e) => e[0] === 'destroy'), 'PD, channels and a posted MR closed first: nothing destroyed yet');
    check(code(() => pd.reg(Buffer.alloc(8))) === 'EBADF -9 ibv_reg_mr_iova2', 'a closed PD: EBADF at once');
    for (const x of [scq, rcq, srq]) x.close();
    check(!log.some((e) => e[0] === 'destroy'), 'the CQs and SRQ closed under the QP: nothing destroyed yet');
    ep.close();
    const byPtr = (kind) => log.find((e) => e[0] === 'make' && e[1] === kind)[2];
    const gone = log.filter((e) => e[0] === 'destroy').map((e) => e[1]).join(' ');
    check(gone === 'QP MemoryRegion CompletionQueue CompletionQueue CompletionChannel SharedReceiveQueue ' +
      'ProtectionDomain Endpoint EventChannel',
    `the endpoint closed: the QP (which releases its posted MR), then each in its turn (${gone})`);
    const dependsOn = ordered(log, 'closed in the wrong order');
    dependsOn(byPtr('QP'), byPtr('MemoryRegion'), 'the MR under a posted request after the QP');
    dependsOn(byPtr('MemoryRegion'), byPtr('ProtectionDomain'), 'the MR before its PD');
    dependsOn(byPtr('QP'), byPtr('ProtectionDomain'), 'the QP before the PD');
    dependsOn(byPtr('QP'), byPtr('SharedReceiveQueue'), 'the QP before the SRQ');
    dependsOn(byPtr('QP'), byPtr('Endpoint'), 'the QP before its id');
    dependsOn(byPtr('Endpoint'), byPtr('EventChannel'), 'the id before its event channel');
    dependsOn(byPtr('CompletionQueue'), byPtr('CompletionChannel'), 'the CQs before their channel');
    done();
  }
  // An MR closed under a posted request: deregistered once its completion
  // is reaped (unsignaled requests before it with it), the QP still there.
  {
    const { o, log, completions, done } = standIn();
    const ch = new o.EventChannel();
    const ep = ch.createId().setup();
    const mr = ep.pd.reg(Buffer.alloc(64)), other = ep.pd.reg(Buffer.alloc(64));
    ep.postSend([{ wrId: 1, sg: [mr.sge(0, 32)] }, { wrId: 2, sg: [mr.sge(32, 32), other], flags: rv.IBV_SEND_SIGNALED }]);
    ep.postSend({ wrId: 3, sg: [other], flags: rv.IBV_SEND_SIGNALED });
    mr.close();
    other.close();
    const deregs = () => log.filter((e) => e[0] === 'destroy' && e[1] === 'MemoryRegion').length;
    check(deregs() === 0, 'two MRs closed under three posted sends: neither deregistered');
    completions.push({ wr_id: 2, status: 0, opcode: rv.IBV_WC_SEND, qp_num: ep.qpNum });
    check(ep.sendCq.poll().length === 1 && deregs() === 1,
      'the completion of the 2nd (signaled) reaped: the 1st (unsignaled) released with it, the MR they used deregistered');
    completions.push({ wr_id: 3, status: 0, opcode: rv.IBV_WC_SEND, qp_num: ep.qpNum });
    check(ep.sendCq.poll().length === 1 && deregs() === 2, 'the 3rd reaped: the other MR deregistered');
    check(!log.some((e) => e[0] === 'destroy' && e[1] === 'QP'), 'the QP still there');
    ep.close();
    ch.close();
    ordered(log, 'MRs closed under posts');
    done();
  }
  // An exception mid-way: nothing closed by the program; the collector
  // closes it all, in order, with a warning each.
  {
    const { o, log, done } = standIn();
    const warnings = [];
    const onWarning = (w) => warnings.push(w);
    process.on('warning', onWarning);
    function work() {
      const ch = new o.EventChannel();
      const ep = ch.createId();
      ep.setup({ cap: { max_send_wr: 4, max_recv_wr: 4 } });
      const mr = ep.pd.reg(Buffer.alloc(64));
      ep.postRecv({ wrId: 1, sg: [mr] });
      throw new Error('mid-way');
    }
    let thrown = null;
    try {
      work();
    } catch (e) {
      thrown = e;
    }
    check(thrown && thrown.message === 'mid-way', 'an exception after 8 objects were made, none closed');
    const made = log.filter((e) => e[0] === 'make').length;
    const all = await collect(() => log.filter((e) => e[0] === 'destroy').length === made);
    check(all, `the collector destroyed all ${made} (${log.filter((e) => e[0] === 'destroy').map((e) => e[1]).join(' ')})`);
    const byPtr = (kind) => log.find((e) => e[0] === 'make' && e[1] === kind)[2];
    const dependsOn = ordered(log, 'left to the collector');
    dependsOn(byPtr('QP'), byPtr('ProtectionDomain'), 'the QP before the PD');
    dependsOn(byPtr('MemoryRegion'), byPtr('ProtectionDomain'), 'the MR (under a posted receive) before the PD');
    dependsOn(byPtr('QP'), byPtr('CompletionQueue'), 'the QP before the CQs');
    dependsOn(byPtr('Endpoint'), byPtr('EventChannel'), 'the id before its channel');
    dependsOn(byPtr('CompletionQueue'), byPtr('CompletionChannel'), 'the CQs before their channel');
    process.removeListener('warning', onWarning);
    check(warnings.length === 7 && warnings.every((w) => / closed by the garbage collector: close\(\) it/.test(w.message)),
      `a warning for each object closed by the collector (${warnings.length})`);
    done();
  }
  // A failure mid-way of setup(): what it made is closed, the error is the call's.
  {
    const { o, log, failNext, done } = standIn();
    const ch = new o.EventChannel();
    const ep = ch.createId();
    failNext.ibv_create_cq = rv.ENOMEM;
    check(code(() => ep.setup()) === 'ENOMEM -12 ibv_create_cq', 'setup() with ibv_create_cq failing: RdmaVerbsError ENOMEM');
    const mine = log.filter((e) => e[0] === 'make' && !['EventChannel', 'Endpoint'].includes(e[1]));
    check(mine.length === 2 && mine.every((m) => log.some((e) => e[0] === 'destroy' && e[2] === m[2])),
      'what it made (the PD, the completion channel) destroyed');
    ep.close();
    ch.close();
    ordered(log, 'after a failed setup');
    failNext.rdma_create_id = rv.EINVAL;
    const ch2 = new o.EventChannel();
    check(code(() => ch2.createId()) === 'EINVAL -22 rdma_create_id', 'createId failing: EINVAL');
    ch2.close();
    check(code(() => ch2.createId()) === 'EBADF -9 rdma_create_id', 'a closed EventChannel: EBADF');
    done();
  }
}

// A failed destroy: ibv_dereg_mr refused. close() throws it; the MR is
// closed all the same, but the C MR is still there, so its buffer stays
// alive (rv.leaked), and so does its PD.
async function failedDestroy() {
  const { o, log, failNext, completions, done } = standIn();
  const ch = new o.EventChannel();
  const ep = ch.createId().setup();
  const made = (() => {
    const buf = pattern(64, 0x11);
    const mr = ep.pd.reg(buf);
    return { mr, weak: new WeakRef(buf) };
  })();
  failNext.ibv_dereg_mr = rv.EBUSY;
  check(code(() => made.mr.close()) === 'EBUSY -16 ibv_dereg_mr' && made.mr.closed,
    'ibv_dereg_mr failing: close() throws RdmaVerbsError EBUSY; the MR closed (EBADF from now on)');
  check(code(() => made.mr.close()) === 'no error', 'close() again: nothing');
  check(o.leaked.length === 1 && o.leaked[0].kind === 'MemoryRegion' && o.leaked[0].ptr === made.mr.ptr,
    'rv.leaked: the MR');
  made.mr = null;
  await collect();
  check(made.weak.deref() !== undefined && made.weak.deref().equals(pattern(64, 0x11)),
    'its buffer, every reference dropped, collections forced: alive and intact (the card may still reach it)');
  // An MR closed under a posted request, deregistered when its completion
  // is reaped, and that fails: a warning (the poll's completions returned), kept.
  const warnings = [];
  const onWarning = (w) => warnings.push(w.message);
  process.on('warning', onWarning);
  const posted = ep.pd.reg(Buffer.alloc(16));
  ep.postSend({ wrId: 9, sg: [posted], flags: rv.IBV_SEND_SIGNALED });
  posted.close();
  failNext.ibv_dereg_mr = rv.EBUSY;
  completions.push({ wr_id: 9, status: 0, opcode: rv.IBV_WC_SEND, qp_num: ep.qpNum });
  check(ep.sendCq.poll().length === 1 && o.leaked.length === 2 && o.leaked[1].ptr === posted.ptr,
    'an MR closed under a posted send, its deregistration failing when the completion is reaped: the completion returned, the MR in rv.leaked');
  await tick();
  process.removeListener('warning', onWarning);
  check(warnings.length === 1 && /MemoryRegion released by a completion: ibv_dereg_mr: EBUSY/.test(warnings[0]),
    `and a warning: ${warnings[0]}`);
  ep.close();
  ch.close();
  const gone = log.filter((e) => e[0] === 'destroy').map((e) => e[1]).join(' ');
  check(gone === 'QP CompletionQueue CompletionQueue CompletionChannel',
    `the endpoint closed: what the MR depends on kept too (its PD, the id the PD was made on, its channel), the rest destroyed (${gone})`);
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

// rdma_cm events read for others: queued for the ids the channel knows,
// dropped with their id; those of ids it does not know dropped at once,
// not handed to a later id at the same address; a connection request no
// one took has its new id destroyed.
function cmEvents() {
  const { o, log, done, control, make, memory } = standIn();
  const ch = new o.EventChannel();
  const listener = ch.createId(), ep = ch.createId(), other = ch.createId(), listener2 = ch.createId();
  const child = make('Endpoint', types.rdma_cm_id, {});   // connection requests' new ids
  const child2 = make('Endpoint', types.rdma_cm_id, {});
  const child3 = make('Endpoint', types.rdma_cm_id, {});
  const nobody = memory(types.rdma_cm_id), nobodyListening = memory(types.rdma_cm_id);
  control.cmEvents.push(
    { event: rv.RDMA_CM_EVENT_CONNECT_REQUEST, id: child, listen_id: listener.id },
    { event: rv.RDMA_CM_EVENT_DISCONNECTED, id: nobody },
    { event: rv.RDMA_CM_EVENT_CONNECT_REQUEST, id: child2, listen_id: nobodyListening },
    { event: rv.RDMA_CM_EVENT_TIMEWAIT_EXIT, id: other.id },
    { event: rv.RDMA_CM_EVENT_CONNECT_REQUEST, id: child3, listen_id: listener2.id },
    { event: rv.RDMA_CM_EVENT_DISCONNECTED, id: child3 },
    { event: rv.RDMA_CM_EVENT_DISCONNECTED, id: ep.id });
  check(code(() => ep.disconnectedSync(1000)) === 'no error', "an endpoint's DISCONNECTED, read after six events of others");
  const destroyed = (p) => log.some((e) => e[0] === 'destroy' && e[2] === p);
  check(destroyed(child2) && !destroyed(child) && !destroyed(child3),
    'a connection request for a listener the channel does not know: its new id destroyed at once');
  const taken = listener2.getRequestSync(100);
  check(taken.id === child3 && code(() => taken.disconnectedSync(100)) === 'no error',
    'a request taken from the queue: its endpoint gets the event read for it before');
  other.close();
  const at = (p) => {
    control.idAt = p;
    return ch.createId();
  };
  const reused = at(other.id);
  check(code(() => reused.disconnectedSync(50)) === 'ETIMEDOUT -110 rdma_get_cm_event',
    "an id closed with an event queued (TIMEWAIT_EXIT), a new id at its address: not handed it (ETIMEDOUT)");
  const late = at(nobody);
  check(code(() => late.disconnectedSync(50)) === 'ETIMEDOUT -110 rdma_get_cm_event',
    "an event for an id the channel did not know, a new id at that address later: not handed it (ETIMEDOUT)");
  check(!destroyed(child), 'the request queued for the listener: its id not destroyed while the listener is open');
  listener.close();
  check(destroyed(child), 'the listener closed with a request no one took: its new id destroyed');
  for (const x of [ep, reused, late, taken, listener2, ch]) x.close();
  check(ch._cm !== undefined && ch._cm.known.size === 0 && ch._cm.queued.size === 0, 'every id closed: nothing known, nothing queued');
  done();
}

// What is made on an endpoint (a PD, a completion channel, CQs: given the
// Endpoint, or by setup()) is destroyed before its id; ep.reg()'s MRs
// closed by the program are let go of at once.
async function endpointOwned() {
  {
    const { o, log, done } = standIn();
    const ch = new o.EventChannel();
    const ep = ch.createId();
    const pd = new o.ProtectionDomain(ep), cc = new o.CompletionChannel(ep);
    const cq = new o.CompletionQueue(ep, { channel: cc });
    ep.close();
    check(!log.some((e) => e[0] === 'destroy' && e[1] === 'Endpoint'),
      'an endpoint closed under a PD, a completion channel and a CQ made on it: its id not destroyed yet');
    for (const x of [pd, cq, cc, ch]) x.close();
    endpointLast(log, 'made on an endpoint', 'the');
    done();
  }
  {
    const { o, log, done } = standIn();
    const ch = new o.EventChannel();
    const ep = ch.createId().setup();
    ep.close();
    ch.close();
    endpointLast(log, "setup()'s objects", "setup()'s");
    done();
  }
  {
    const { o, log, done } = standIn();
    const ch = new o.EventChannel();
    const ep = ch.createId().setup();
    const weak = [];
    for (let i = 0; i < 3; i++) {
      (() => {
        const buf = Buffer.alloc(4096, i);
        weak.push(new WeakRef(buf));
        ep.reg(buf).close();   // a message's MR, registered and closed
      })();
    }
    const kept = ep.reg(Buffer.alloc(16));
    check(await collect(() => weak.every((w) => w.deref() === undefined)),
      'MRs of ep.reg() closed by the program: their buffers collected, the endpoint open');
    ep.close();
    check(kept.closed, 'an MR of ep.reg() not closed: closed with the endpoint');
    ch.close();
    ordered(log, 'ep.reg() per message');
    done();
  }
}

(async () => {
  await lifetimes();
  await waits();
  await order();
  await failedDestroy();
  sameQpNumber();
  cmEvents();
  await endpointOwned();
  if (failures) process.exit(1);
  console.log('node objects: all checks passed');
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
