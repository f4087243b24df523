// Closing an object ends every Promise waiting on it, and on the objects
// its close closes, at once: each rejects with RdmaVerbsError EBADF, its
// message saying "closed" and naming the C function. On the recording
// stand-in of the C calls (stand-in.js: eventfds stand for the channels'
// fds): a CQ waited on by two Promises, with a time limit and without, on
// a channel and without; its channel closed under it; an event-driven
// endpoint's event waits (on a channel it does not own); an endpoint's
// setup() objects. Each wait is raced against a 5 s guard here, so that a
// wait the close does not end fails the test instead of hanging it.
// Exits 1 on a failure.
'use strict';
const rv = require('rdmaverbs');
const { standIn } = require('./stand-in.js');

const AT_ONCE = 500;   // ms: far below the waits' own time limits (10 s)
let failures = 0;
function check(ok, what) {
  console.log(`node close-waits: ${ok ? 'ok' : 'FAIL'}: ${what}`);
  if (!ok) failures++;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Starts the waits (functions returning Promises), runs close() 50 ms
// later: each one's outcome ('resolved', or its error) and how long after
// the close it came.
async function closing(waits, close) {
  const t = { closed: null };
  const outcomes = waits.map((w) => Promise.race([
    w().then(() => 'resolved', (e) => e),
    sleep(5000).then(() => 'still pending 5 s after'),
  ]).then((r) => ({ r, after: Date.now() - t.closed })));
  await sleep(50);
  t.closed = Date.now();
  close();
  return Promise.all(outcomes);
}

function closedError(results, what, fn) {
  const ok = results.every(({ r, after }) => r instanceof rv.RdmaVerbsError && r.code === 'EBADF' &&
    r.errno === -9 && /closed/.test(r.message) && (!fn || r.syscall === fn) && after < AT_ONCE);
  check(ok, `${what}: ${results.map(({ r, after }) => `${r instanceof Error ? `${r.syscall} ${r.code} ` +
    `'${r.message}'` : r} after ${after} ms`).join('; ')}`);
}

// The reactor left with nothing to wait for (no fd of a closed object).
async function idle(o) {
  for (let i = 0; i < 100 && o._reactor.polling !== null; i++) await sleep(10);
  check(o._reactor.waiting.size === 0 && o._reactor.polling === null, 'then nothing waited on, no poll() in flight');
}

async function main() {
  {
    const { o, done } = standIn();
    const cc = new o.CompletionChannel(0xc0n);
    const cq = new o.CompletionQueue(0xc0n, { channel: cc });
    closedError(await closing([() => cq.next(1, { timeout: 10000 }), () => cq.next(2)], () => cq.close()),
      'a CQ closed under two next() (one bounded, one not): both reject at once', 'ibv_poll_cq');
    const cq2 = new o.CompletionQueue(0xc0n, { channel: cc });
    closedError(await closing([() => cq2.next(1, { timeout: 10000 }), () => cc.getEvent()], () => cc.close()),
      'its channel closed under a CQ\'s next() and its own getEvent(): both reject at once');
    const polled = new o.CompletionQueue(0xc0n);
    closedError(await closing([() => polled.next(1, { timeout: 10000 }), () => polled.next(1)], () => polled.close()),
      'a CQ without a channel closed under two next(): both reject at once', 'ibv_poll_cq');
    cq2.close();
    await idle(o);
    done();
  }
  {
    const { o, done } = standIn();
    const ch = new o.EventChannel();
    const a = ch.createId(), b = ch.createId();
    closedError(await closing([() => a.disconnected({ timeout: 10000 }), () => a.getRequest()], () => a.close()),
      'an endpoint closed under its event waits (its channel open): both reject at once', 'rdma_get_cm_event');
    const other = await b.disconnected({ timeout: 50 }).then(() => 'resolved', (e) => e.code);
    check(other === 'ETIMEDOUT', `the channel's other endpoint waits on, to its own time limit (${other})`);
    const pd = new o.ProtectionDomain(b);   // b's id is destroyed after it: b closed, its id still there
    closedError(await closing([() => b.disconnected({ timeout: 10000 })], () => b.close()),
      'an endpoint closed under a wait, its id kept by a PD made on it: rejects at once', 'rdma_get_cm_event');
    pd.close();
    const c = ch.createId();
    closedError(await closing([() => c.disconnected({ timeout: 10000 })], () => ch.close()),
      'the event channel closed under an endpoint\'s wait: it rejects at once');
    c.close();
    await idle(o);
    done();
  }
  {
    const { o, done } = standIn();
    const ch = new o.EventChannel();
    const ep = ch.createId().setup();
    closedError(await closing([() => ep.recvCq.next(1, { timeout: 10000 }), () => ep.sendCq.next(1)],
      () => ep.close()), 'an endpoint closed under next() on its setup() CQs: both reject at once');
    ch.close();
    await idle(o);
    done();
  }
  {
    // The spin: next() polls on a few turns of the loop before it arms the
    // CQ (CompletionQueue.spin); a close during it rejects at once.
    const { o, done } = standIn();
    const cc = new o.CompletionChannel(0xc0n);
    const cq = new o.CompletionQueue(0xc0n, { channel: cc });
    const realPoll = cq.poll.bind(cq);
    let polls = 0;
    const armed = [];
    cq.poll = (n) => (realPoll(0), ++polls === 4 ? [{ wr_id: 7n }] : []);
    cq.reqNotify = (s) => armed.push(polls);   // how many polls came before
    const got = await cq.next(1, { timeout: 5000 });
    check(got.length === 1 && got[0].wr_id === 7n && polls === 4 && armed.length === 0 && o.CompletionQueue.spin >= 4,
      `a completion within the spin: no arming (${polls} polls, ${armed.length} armed, spin ${o.CompletionQueue.spin})`);
    const spin = o.CompletionQueue.spin;
    o.CompletionQueue.spin = 0;
    polls = -100;   // none completes now
    await cq.next(1, { timeout: 50 }).catch(() => null);
    check(armed[0] === -99, `spin 0: armed after one poll (after ${armed[0] + 100})`);
    o.CompletionQueue.spin = 100000;
    cq.poll = (n) => (realPoll(0), []);
    closedError(await closing([() => cq.next(1, { timeout: 10000 })], () => cq.close()),
      'a CQ closed while next() spins: rejects at once', 'ibv_poll_cq');
    const cq3 = new o.CompletionQueue(0xc0n, { channel: cc });
    cq3.poll = (n) => (o.CompletionQueue.prototype.poll.call(cq3, 0), []);
    closedError(await closing([() => cq3.next(1, { timeout: 10000 })], () => cc.close()),
      'its channel closed while a CQ\'s next() spins: rejects at once');
    o.CompletionQueue.spin = spin;
    cq3.close();
    done();
  }
}

main().then(() => {
  console.log(failures ? `node close-waits: ${failures} FAILED` : 'node close-waits: all checks passed');
  process.exit(failures ? 1 : 0);
}, (e) => {
  console.error(e);
  process.exit(1);
});
