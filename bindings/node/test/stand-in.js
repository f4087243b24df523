// A recording stand-in of the C calls the objects make and destroy with
// (test/objects.js, test/close-waits.js): each made object C memory of the
// struct the objects read, each call logged.
'use strict';
const path = require('path');
const rv = require('rdmaverbs');
const { koffi, types } = rv;

const offset = (type, field) => koffi.type(type).members[field].offset;

// A stand-in of the functions the objects (objects/) call to make and
// destroy, each making C memory of the struct they read; log: what was
// called.
function standIn() {
  const libc = koffi.load('libc.so.6');
  const eventfd = libc.func('int eventfd(unsigned int initval, int flags)');
  const close = libc.func('int close(int fd)');
  const mem = new Map();   // pointer -> its Buffer
  const log = [];
  let next = 0x100;
  const fds = [];
  function make(kind, type, value) {
    const b = Buffer.alloc(type ? koffi.sizeof(type) : 64);
    if (type) koffi.encode(b, type, value);
    const p = koffi.address(b);
    mem.set(p, b);
    log.push(['make', kind, p]);
    return p;
  }
  const failNext = {};
  const maybeFail = (name) => {
    if (failNext[name]) {
      const errno = failNext[name];
      delete failNext[name];
      throw new rv.RdmaVerbsError(name, errno);
    }
  };
  // A destroy: logged, unless failNext[name] makes it fail (then nothing done).
  const gone = (kind, name) => (p) => {
    if (name) maybeFail(name);
    log.push(['destroy', kind, p]);
    return 0;
  };
  // What the test sets: the qp_num of the QPs made (if not null), the
  // address of the next id made (if not null), the rdma_cm events to come.
  // calls: the connection calls made, in order ([name, id]); qpAttrs: the
  // sq_sig_all of each QP made.
  const control = { qpNum: null, idAt: null, cmEvents: [], calls: [], qpAttrs: [] };
  const completions = [];
  const read = libc.func('long read(int fd, void *buf, unsigned long count)');
  const cqOf = new Map();   // a completion channel's address -> the CQ its events name
  const fake = {
    ...rv,
    rdma_create_event_channel: () => {
      const fd = eventfd(0, 0);
      fds.push(fd);
      return make('EventChannel', types.rdma_event_channel, { fd });
    },
    rdma_destroy_event_channel: gone('EventChannel'),
    rdma_create_id: (channel, out) => {
      maybeFail('rdma_create_id');
      if (control.idAt !== null) {
        koffi.encode(control.idAt, types.rdma_cm_id, { verbs: 0xc0n, channel });
        log.push(['make', 'Endpoint', control.idAt]);
        out[0] = control.idAt;
        control.idAt = null;
      } else {
        out[0] = make('Endpoint', types.rdma_cm_id, { verbs: 0xc0n, channel });
      }
      return 0;
    },
    rdma_destroy_id: gone('Endpoint'),
    ibv_alloc_pd: () => (maybeFail('ibv_alloc_pd'), make('ProtectionDomain', null)),
    ibv_dealloc_pd: gone('ProtectionDomain'),
    ibv_reg_mr_iova2: (pd, buffer, length, iova) => make('MemoryRegion', types.ibv_mr,
      { pd, addr: iova, length, lkey: next++, rkey: next++ }),
    ibv_dereg_mr: gone('MemoryRegion', 'ibv_dereg_mr'),
    ibv_create_comp_channel: (context) => {
      const fd = eventfd(0, 0);
      fds.push(fd);
      return make('CompletionChannel', types.ibv_comp_channel, { context, fd });
    },
    ibv_destroy_comp_channel: gone('CompletionChannel'),
    ibv_create_cq: (ctx, cqe, context, channel) => {
      maybeFail('ibv_create_cq');
      const p = make('CompletionQueue', null);
      if (channel !== null) cqOf.set(channel, [p, context]);
      return p;
    },
    ibv_ack_cq_events: () => {},
    ibv_req_notify_cq: () => 0,
    ibv_destroy_cq: gone('CompletionQueue'),
    ibv_create_srq: () => make('SharedReceiveQueue', null),
    ibv_destroy_srq: gone('SharedReceiveQueue'),
    rdma_create_qp: (id, pd, attr) => {
      control.qpAttrs.push(attr.sq_sig_all);
      const qp = make('QP', types.ibv_qp, { pd, send_cq: attr.send_cq, recv_cq: attr.recv_cq, srq: attr.srq,
        qp_num: control.qpNum !== null ? control.qpNum : next++ });
      koffi.encode(id, offset(types.rdma_cm_id, 'qp'), 'void *', qp);
      return 0;
    },
    rdma_destroy_qp: (id) => log.push(['destroy', 'QP', koffi.decode(id, types.rdma_cm_id).qp]),
    rdma_ack_cm_event: () => 0,
    // The connection's calls, logged in control.calls; an address of
    // getaddrinfo's: C memory of a struct rdma_addrinfo.
    rdma_getaddrinfo: (node, service, hints, out) => {
      const b = Buffer.alloc(koffi.sizeof(types.rdma_addrinfo));
      mem.set(koffi.address(b), b);
      out[0] = koffi.address(b);
      return 0;
    },
    rdma_freeaddrinfo: () => {},
    ...Object.fromEntries(['rdma_resolve_addr', 'rdma_resolve_route', 'rdma_connect', 'rdma_accept', 'rdma_bind_addr',
      'rdma_listen', 'rdma_disconnect'].map((name) => [name, (id) => (control.calls.push([name, id]), 0)])),
    ibv_poll_cq: (cq, n, wc) => {
      const got = completions.splice(0, n);
      got.forEach((c, i) => Object.assign(wc[i], c));
      return got.length;
    },
    raw: { ...rv.raw, ibv_post_send: (qp) => (control.calls.push(['ibv_post_send', qp]), 0),
      ibv_post_recv: (qp) => (control.calls.push(['ibv_post_recv', qp]), 0), ibv_post_srq_recv: () => 0,
      // An event: 8 bytes of the channel's eventfd (none: -1, EAGAIN, as its
      // non-blocking read leaves it), naming the channel's CQ.
      ibv_get_cq_event: (channel, cq, context) => {
        if (read(koffi.decode(channel, types.ibv_comp_channel).fd, Buffer.alloc(8), 8) !== 8) return -1;
        [cq[0], context[0]] = cqOf.get(channel);
        return 0;
      },
      // The next of control.cmEvents ({ id, listen_id, event, status }), in
      // C memory; none: -1, EAGAIN (the non-blocking read of the
      // channel's eventfd, never written, leaves it).
      rdma_get_cm_event: (channel, out) => {
        if (!control.cmEvents.length) {
          read(koffi.decode(channel, types.rdma_event_channel).fd, Buffer.alloc(8), 8);
          return -1;
        }
        const b = Buffer.alloc(koffi.sizeof(types.rdma_cm_event));
        koffi.encode(b, types.rdma_cm_event, { status: 0, listen_id: null, ...control.cmEvents.shift() });
        mem.set(koffi.address(b), b);
        out[0] = koffi.address(b);
        return 0;
      } },
  };
  const done = () => fds.forEach((fd) => close(fd));
  // C memory for an id the objects do not make (a connection request's
  // new id, an id of no one): its address.
  const memory = (type) => {
    const b = Buffer.alloc(koffi.sizeof(type));
    mem.set(koffi.address(b), b);
    return koffi.address(b);
  };
  return { o: require(path.join(path.dirname(require.resolve('rdmaverbs')), 'objects', 'index.js'))(fake), log, failNext, completions, done, control, make, memory };
}

// Whether log destroys each thing made once, each after what depends on
// it (deps: [dependent kind, its field, the kind it depends on]).
function orderedBy(check, log, what) {
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

module.exports = { standIn, offset, orderedBy };
