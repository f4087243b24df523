// The simple path on the recording stand-in of the C calls (stand-in.js):
// every send signaled by default, whichever way the QP is made;
// rv.createEndpoint (resolved and set up, not connected) so that receives
// are posted before rdma_connect; a listener iterated (for await), each
// request set up and not accepted until its receives are posted, the
// iteration ending when the listener is closed; one MR with an access mask
// on the endpoint's PD; RdmaCmEventError's errno and code. Exits 1 on a
// failure. (On Soft-RoCE: make e2e-host's rows node hello and node echo.)
'use strict';
const rv = require('rdmaverbs');
const { koffi, types } = rv;
const { standIn } = require('./stand-in.js');

let failures = 0;
function check(ok, what) {
  console.log(`node simple: ${ok ? 'ok' : 'FAIL'}: ${what}`);
  if (!ok) failures++;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ALL = rv.IBV_ACCESS_LOCAL_WRITE | rv.IBV_ACCESS_REMOTE_READ | rv.IBV_ACCESS_REMOTE_WRITE |
  rv.IBV_ACCESS_REMOTE_ATOMIC;
// The name of each call of control.calls, in order.
const names = (control) => control.calls.map(([name]) => name).join(' ');

async function main() {
  {
    const { o, control, done } = standIn();
    const ch = new o.EventChannel();
    const a = ch.createId(), b = ch.createId(), c = ch.createId();
    a.setup();
    b.createQp({ pd: a.pd, sendCq: a.sendCq, recvCq: a.recvCq });
    c.setup({ sqSigAll: false });
    check(control.qpAttrs.join(' ') === '1 1 0',
      `every send signaled by default (setup, createQp), not with sqSigAll: false (${control.qpAttrs.join(' ')})`);
    b.close();
    a.close();
    c.close();
    ch.close();
    done();
  }
  {
    const { o, control, done, memory } = standIn();
    const at = memory(types.rdma_cm_id);
    control.idAt = at;
    control.cmEvents.push({ id: at, event: rv.RDMA_CM_EVENT_ADDR_RESOLVED },
      { id: at, event: rv.RDMA_CM_EVENT_ROUTE_RESOLVED });
    const ep = await o.createEndpoint('192.0.2.1', 7471, { timeout: 1000 });
    check(ep.id === at && ep.qp !== null && names(control) === 'rdma_resolve_addr rdma_resolve_route',
      `rv.createEndpoint: resolved, its QP made, not connected (${names(control)})`);
    const mr = ep.reg(Buffer.alloc(4096), ALL);
    const access = koffi.decode(mr.ptr, types.ibv_mr);
    check(mr.length === 4096 && access.pd === ep.pd.ptr && mr.rkey !== undefined,
      'ep.reg(buffer, access): one MR on the endpoint\'s PD, its rkey for the peer');
    ep.postRecv({ wrId: 1, sg: [mr] });
    control.cmEvents.push({ id: at, event: rv.RDMA_CM_EVENT_ESTABLISHED });
    await ep.connect({}, { timeout: 1000 });
    check(names(control) === 'rdma_resolve_addr rdma_resolve_route ibv_post_recv rdma_connect',
      `its receive posted before rdma_connect (${names(control)})`);
    ep.close();
    done();
  }
  {
    const { o, control, done, memory } = standIn();
    const listener = o.listen('192.0.2.1', 7471);
    const requests = [memory(types.rdma_cm_id), memory(types.rdma_cm_id)];
    for (const id of requests) {
      koffi.encode(id, types.rdma_cm_id, { verbs: 0xc0n });
      control.cmEvents.push({ id, listen_id: listener.id, event: rv.RDMA_CM_EVENT_CONNECT_REQUEST });
    }
    const served = [];
    const serving = (async () => {
      for await (const ep of listener) {
        served.push(ep.id);
        check(ep.qp !== null && !control.calls.some(([n, id]) => n === 'rdma_accept' && id === ep.id),
          'a request from the listener: its QP made, not accepted yet');
        ep.postRecv({ sg: [ep.reg(Buffer.alloc(64))] });
        control.cmEvents.push({ id: ep.id, event: rv.RDMA_CM_EVENT_ESTABLISHED });
        await ep.accept({}, { timeout: 1000 });
        ep.close();
      }
      return 'ended';
    })();
    for (let i = 0; i < 100 && served.length < 2; i++) await sleep(10);
    await sleep(20);
    listener.close();
    const end = await Promise.race([serving, sleep(2000).then(() => 'still iterating')]);
    const order = control.calls.filter(([n]) => n !== 'rdma_bind_addr' && n !== 'rdma_listen').map(([n, id]) =>
      `${n}${requests.indexOf(id)}`).join(' ');
    check(served.length === 2 && order === 'ibv_post_recv-1 rdma_accept0 ibv_post_recv-1 rdma_accept1' &&
      end === 'ended', `for await: each request's receive posted, then accepted; closing the listener ends it ` +
      `(${order}; ${end})`);
    done();
  }
  {
    const { o, control, done } = standIn();
    const ch = new o.EventChannel();
    const ep = ch.createId();
    control.cmEvents.push({ id: ep.id, event: rv.RDMA_CM_EVENT_REJECTED, status: 28 });
    const e = await ep.connect({}, { timeout: 1000 }).then(() => null, (x) => x);
    check(e instanceof o.RdmaCmEventError && e.errno === -111 && e.code === 'ECONNREFUSED' &&
      e.syscall === 'rdma_connect' && /ECONNREFUSED/.test(e.message) && e.event === rv.RDMA_CM_EVENT_REJECTED &&
      e.status === 28, `a rejected connect: RdmaCmEventError ECONNREFUSED, errno -111 (${e && e.message})`);
    ep.close();
    ch.close();
    done();
  }
}

main().then(() => {
  console.log(failures ? `node simple: ${failures} FAILED` : 'node simple: all checks passed');
  process.exit(failures ? 1 : 0);
}, (e) => {
  console.error(e);
  process.exit(1);
});
