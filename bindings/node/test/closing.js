// The Node.js binding's objects closed, on the recording stand-in for the C
// calls (stand-in.js: the objects made the way objects/ makes them;
// nothing else of C), run with --expose-gc:
//  - closed in the wrong order by the program, or left to the collector
//    after an exception, each C object is destroyed once, after every
//    object that depends on it; an MR under a posted work request once
//    the completion is reaped; a failure mid-way closes what was made; a
//    PD, CQ or completion channel made on an endpoint destroyed before its
//    id; an MR of ep.reg() closed let go of by the endpoint;
//  - a failed ibv_dereg_mr: thrown, and the MR's buffer kept (leaked);
//  - rdma_cm events: queued for the ids the channel knows, dropped with
//    their id, never handed to a later id at the same address; a
//    connection request no one took has its new id destroyed.
// Exits 1 on a failure.
'use strict';
const rv = require('rdmaverbs');
const { koffi, types } = rv;
const { standIn, orderedBy } = require('./stand-in.js');

if (typeof global.gc !== 'function') {
  console.error('closing.js: run with node --expose-gc');
  process.exit(2);
}
let failures = 0;
function check(ok, what) {
  console.log(`node closing: ${ok ? 'ok' : 'FAIL'}: ${what}`);
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
const pattern = (n, seed) => Buffer.from(Array.from({ length: n }, (_, j) => (seed + 7 * j) & 0xff));

// ---- the order of closing, on a recording stand-in for the C calls ----


// log destroys, each once, the PD, CQ and completion channel made on an
// endpoint before its id ("whose": the, setup()'s).
function endpointLast(log, what, whose) {
  const byPtr = (kind) => log.find((e) => e[0] === 'make' && e[1] === kind)[2];
  const dependsOn = ordered(log, what);
  for (const [kind, name] of [['ProtectionDomain', 'PD'], ['CompletionQueue', 'CQ'],
    ['CompletionChannel', 'completion channel']])
    dependsOn(byPtr(kind), byPtr('Endpoint'), `${whose} ${name} before the id`);
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
  await order();
  await failedDestroy();
  cmEvents();
  await endpointOwned();
  if (failures) process.exit(1);
  console.log('node closing: all checks passed');
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
