// The Node.js binding on a machine without RDMA: every function bound
// (librdmaverbs' at their symbol version, in librdmaverbs.so.1), the
// refused inputs thrown as RdmaVerbsError (.code, .errno), raw results as
// C's, the vectored posts checked SGE by SGE on the recording provider
// (bindings/recorder/, RDMAVERBS_RECORDER), and the RDMAVERBS_1.3 data
// path there (ibv_post_send of a list with the wr union, ibv_post_srq_recv,
// ibv_poll_cq into an array of objects, ibv_req_notify_cq, each failure
// convention; ibv_wr_set_sge_list on its extended QP and ibv_advise_mr on
// its PD, arrays of SGE objects checked SGE by SGE), the ports in both
// orders, the completion statuses; the README's client is
// examples/hello.js, word for word, and node --check accepts it. Exits 1
// on a failure.
'use strict';
const fs = require('fs');
const { execFileSync } = require('child_process');
const rv = require('rdmaverbs');

let failures = 0;
function check(ok, what) {
  console.log(`node: ${ok ? 'ok' : 'FAIL'}: ${what}`);
  if (!ok) failures++;
}
function code(f) {
  try {
    f();
    return 'no error';
  } catch (e) {
    return e instanceof rv.RdmaVerbsError ? `${e.code} ${e.errno} ${e.syscall}` : `${e}`;
  }
}

const { functions } = require(`${require.resolve('rdmaverbs')}/../api.js`);
const ours = functions.filter((f) => f[4]);
// {name: [node, since]} of an exports list: the build's (RDMAVERBS_EXPORTS), or
// every row of the table (RDMAVERBS_ALL_EXPORTS).
function exportsList(path) {
  const rows = fs.readFileSync(path, 'utf8').split('\n').filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split('\t'));
  return Object.fromEntries(rows.slice(1).map((r) => [r[0], [r[1], r[2]]]));
}
const built = exportsList(process.env.RDMAVERBS_EXPORTS);
const every = exportsList(process.env.RDMAVERBS_ALL_EXPORTS);
const listed = Object.fromEntries(Object.entries(every).map(([n, [node]]) => [n, node]));
const bound = Object.fromEntries(ours.map((f) => [/(\w+)\(/.exec(f[1])[1], f[4]]));
const sorted = (o) => JSON.stringify(Object.entries(o).sort());
check(Object.keys(rv.raw).length === functions.length && sorted(bound) === sorted(listed) &&
  ours.some((f) => f[4] === 'RDMAVERBS_1.3'),
`${functions.length} functions bound: ${ours.length} of librdmaverbs, each row of abi/exports.tsv at its node, ` +
  `${functions.length - ours.length} of librdmacm and libibverbs`);
{
  // A row the library's build lacks (its headers older than the release
  // that brought it) throws ENOSYS at its call, naming it and that release.
  const lacking = Object.entries(every).filter(([n]) => !built[n]);
  const wrong = lacking.filter(([n, [, since]]) => [rv[n], rv.raw[n]].some((fn) => {
    try {
      fn(null, 0);
      return true;
    } catch (e) {
      return !(e.code === 'ENOSYS' && e.errno === -require('os').constants.errno.ENOSYS && e.syscall === n &&
        e.message.includes(`${n} is not in`) && e.message.includes(`it came with rdma-core ${since},`));
    }
  }));
  check(wrong.length === 0, `the ${lacking.length} rows the build lacks throw ENOSYS at their call, ` +
    `naming the release that brought them: ${lacking.map(([n]) => n).join(' ')} ${wrong.map(([n]) => n)}`);
}
{
  // Each of ours called at the address dlvsym gives for its version, which
  // dladdr places in librdmaverbs.so.1 under its name.
  const libc = rv.koffi.load('libc.so.6');
  const DlInfo = rv.koffi.struct('DlInfo', { dli_fname: 'const char *', dli_fbase: 'void *',
    dli_sname: 'const char *', dli_saddr: 'void *' });
  const dladdr = libc.func('int dladdr(void *addr, _Out_ DlInfo *info)');
  const dlopen = libc.func('void *dlopen(const char *file, int mode)');
  const dlvsym = libc.func('void *dlvsym(void *handle, const char *name, const char *version)');
  const h = dlopen(rv.library, 2);
  const real = process.env.RDMAVERBS_LIBRARY ? fs.realpathSync(process.env.RDMAVERBS_LIBRARY) : null;
  let bad = 0;
  for (const [, proto, , , version] of ours) {
    const name = /(\w+)\(/.exec(proto)[1];
    if (!built[name]) continue;
    const info = {};
    const ok = rv.addresses[name] === dlvsym(h, name, version) && rv.addresses[name] !== null &&
      dladdr(rv.addresses[name], info) !== 0 && info.dli_sname === name &&
      /librdmaverbs\.so/.test(info.dli_fname) && (!real || fs.realpathSync(info.dli_fname) === real);
    if (!ok) {
      bad++;
      console.log(`node: ${name}@${version}: called at ${rv.addresses[name]}, ${JSON.stringify(info)}`);
    }
  }
  check(bad === 0, 'each function of librdmaverbs called at its version, in librdmaverbs.so.1');
}
check(code(() => rv.rdma_post_send(null, null, null, 0, null, 0)) === 'EINVAL -22 rdma_post_send',
  'rdma_post_send(NULL, ...): RdmaVerbsError EINVAL, errno -22');
check(code(() => rv.rdma_get_send_comp_timeout(null, {}, 0)) === 'EINVAL -22 rdma_get_send_comp_timeout',
  'rdma_get_send_comp_timeout(NULL, ...): EINVAL');
check(code(() => rv.rdma_get_local_addr(null)) === 'EINVAL -22 rdma_get_local_addr',
  'rdma_get_local_addr(NULL): EINVAL');
check(code(() => rv.rdma_seterrno(rv.EIO)) === 'EIO -5 rdma_seterrno' && rv.rdma_seterrno(0) === 0,
  'rdma_seterrno(EIO): EIO; rdma_seterrno(0): 0');
check(rv.raw.rdma_post_send(null, null, null, 0, null, 0) === -1 && rv.koffi.errno() === rv.EINVAL,
  'raw rdma_post_send: -1, errno EINVAL');
check(rv.raw.rdma_get_peer_addr(null) === null, 'raw rdma_get_peer_addr: null');
check(rv.koffi.sizeof(rv.types.ibv_wc) === 48, 'sizeof(struct ibv_wc) is 48');

// The recording provider: a fake id whose QP records each work request.
const recorder = rv.koffi.load(process.env.RDMAVERBS_RECORDER);
const rec = {
  id: recorder.func('void *recorder_id(void)'),
  posts: recorder.func('int recorder_posts(void)'),
  polledArray: recorder.func('int recorder_polled_array(void)'),
  last: recorder.func('const char *recorder_last(void)'),
};
// Three SGEs, each field distinct, the top bits of addr, length and lkey
// set in the second (its addr a BigInt: above 2^53); what the provider
// records of each.
const a = { addr: 0x1000, length: 0x10, lkey: 0x11 };
const b = { addr: 0x8000000000002000n, length: 0x80000030, lkey: 0x80000022 };
const c = { addr: 0x3000, length: 0x40, lkey: 0x33 };
const SA = ' sge=0x1000:0x10:0x11', SB = ' sge=0x8000000000002000:0x80000030:0x80000022';
const SC = ' sge=0x3000:0x40:0x33';
function recorded(r, want, what) {
  const got = rec.last();
  check(r === 0 && got === want, what + (got === want ? '' : `: recorded '${got}'`));
}
const id = rec.id();
recorded(rv.rdma_post_sendv(id, 0x300, [a, b, c], 3, rv.IBV_SEND_SIGNALED),
  `send wr_id=0x300 flags=0x2${SA}${SB}${SC}`, 'rdma_post_sendv([a, b, c], 3): every SGE');
recorded(rv.rdma_post_recvv(id, 0x301, [a, b, c], 2),
  `recv wr_id=0x301${SA}${SB}`, 'rdma_post_recvv([a, b, c], 2): the first two SGEs');
recorded(rv.rdma_post_readv(id, 0x302, [b, c], 2, 0, 0xfedc000000001000n, 0x80000044),
  `read wr_id=0x302 flags=0x0 remote=0xfedc000000001000 rkey=0x80000044${SB}${SC}`,
  'rdma_post_readv([b, c], 2): every SGE, the remote address and key');
recorded(rv.rdma_post_writev(id, 0x303, [a, b, c], 3, rv.IBV_SEND_SIGNALED | rv.IBV_SEND_FENCE,
  0xfedc000000002000n, 0x55),
`write wr_id=0x303 flags=0x3 remote=0xfedc000000002000 rkey=0x55${SA}${SB}${SC}`,
'rdma_post_writev([a, b, c], 3): every SGE');
check(rec.posts() === 4, '4 work requests posted');
check(code(() => rv.rdma_post_sendv(id, 0x304, [a, b, c], 4, 0)) ===
  'RangeError: rdma_post_sendv: the count (4) is more than the array\'s 3 elements' && rec.posts() === 4,
'rdma_post_sendv([a, b, c], 4): RangeError, nothing posted');
check(/^TypeError: rdma_post_sendv: .*rv\.raw/.test(code(() => rv.rdma_post_sendv(id, 0x305, a, 1, 0))) &&
  rec.posts() === 4, 'rdma_post_sendv(an object, 1): TypeError, nothing posted');
check(rv.src_port(id) === 18577 && rv.dst_port(id) === 50000,
  'src_port, dst_port: the ports in host order, 18577 and 50000');
// x86-64: the network-order value as a little-endian integer
check(rv.rdma_get_src_port(id) === 0x9148 && rv.rdma_get_dst_port(id) === 0x50c3,
  'rdma_get_src_port, rdma_get_dst_port: network order, 0x9148 and 0x50c3');
check(rv.ibv_wc_status_str(rv.IBV_WC_LOC_PROT_ERR) === 'local protection error' &&
  rv.ibv_wc_status_str(rv.IBV_WC_SUCCESS) === 'success' && rv.IBV_WC_TM_RNDV_INCOMPLETE === 23,
"ibv_wc_status_str: 'local protection error', 'success'; IBV_WC_TM_RNDV_INCOMPLETE is 23");
// The RDMAVERBS_1.3 data path on the recording provider's QP, SRQ and CQ.
{
  rec.id();
  const r13 = {
    qp: recorder.func('void *recorder_qp(void)'),
    srq: recorder.func('void *recorder_srq(void)'),
    cq: recorder.func('void *recorder_cq(void)'),
    fail: recorder.func('void recorder_fail(int err)'),
  };
  const qp = r13.qp(), srq = r13.srq(), cq = r13.cq();
  const { koffi } = rv;
  const sgl = koffi.alloc(rv.types.ibv_sge, 4);
  koffi.encode(sgl, rv.types.ibv_sge, [a, b, c, { addr: 0x4000, length: 8, lkey: 0x44 }], 4);
  const sge = (i) => koffi.address(sgl) + BigInt(16 * i);
  // Three work requests joined by next: a send with immediate data over two
  // SGEs (the first request, an object koffi copies), a compare-and-swap and
  // a fetch-and-add (the wr union's atomic member), in C memory of their own.
  const rest = koffi.alloc(rv.types.ibv_send_wr, 2);
  const restAt = (i) => koffi.address(rest) + BigInt(128 * i);
  koffi.encode(rest, rv.types.ibv_send_wr, [
    { wr_id: 0x601, next: restAt(1), sg_list: sge(2), num_sge: 1, opcode: rv.IBV_WR_ATOMIC_CMP_AND_SWP,
      send_flags: rv.IBV_SEND_FENCE, wr: { atomic: { remote_addr: 0xfedc000000003000n, rkey: 0x80000066,
        compare_add: 0x1111222233334444n, swap: 0x5555666677778888n } } },
    { wr_id: 0x602, next: null, sg_list: sge(3), num_sge: 1, opcode: rv.IBV_WR_ATOMIC_FETCH_AND_ADD,
      wr: { atomic: { remote_addr: 0xfedc000000003008n, rkey: 0x77, compare_add: 0x8000000000000001n } } },
  ], 2);
  const send = { wr_id: 0x600, next: restAt(0), sg_list: sge(0), num_sge: 2, opcode: rv.IBV_WR_SEND_WITH_IMM,
    send_flags: rv.IBV_SEND_SIGNALED, imm_data: 0x0a0b0c0d };
  const bad = [null];
  recorded(rv.ibv_post_send(qp, send, bad), `send_imm wr_id=0x600 flags=0x2 imm=0xa0b0c0d${SA}${SB}` +
    ' | cas wr_id=0x601 flags=0x1 remote=0xfedc000000003000 rkey=0x80000066 compare=0x1111222233334444' +
    ` swap=0x5555666677778888${SC} | fadd wr_id=0x602 flags=0x0 remote=0xfedc000000003008 rkey=0x77` +
    ' add=0x8000000000000001 sge=0x4000:0x8:0x44',
  'ibv_post_send(3 work requests: send with imm over 2 SGEs, cas, fetch-and-add): every field');
  check(bad[0] === null && rec.posts() === 1, 'ibv_post_send: *bad_wr untouched, one post');
  // Failures: the provider's errno value, *bad_wr its first request; NULL refused.
  r13.fail(rv.ENOMEM);
  check(code(() => rv.ibv_post_send(qp, restAt(1), bad)) === 'ENOMEM -12 ibv_post_send' &&
    bad[0] === restAt(1) && rec.posts() === 1,
  'ibv_post_send failing with ENOMEM: RdmaVerbsError ENOMEM, *bad_wr the request, nothing posted');
  check(code(() => rv.ibv_post_send(null, send, bad)) === 'EINVAL -22 ibv_post_send' &&
    rv.raw.ibv_post_send(qp, null, bad) === rv.EINVAL, 'ibv_post_send(NULL, ...): EINVAL; raw, a NULL list: EINVAL');
  // Receives on the SRQ, a list of two.
  const second = koffi.alloc(rv.types.ibv_recv_wr, 1);
  koffi.encode(second, rv.types.ibv_recv_wr, { wr_id: 0x621, next: null, sg_list: sge(1), num_sge: 2 });
  recorded(rv.ibv_post_srq_recv(srq, { wr_id: 0x620, next: koffi.address(second), sg_list: sge(0), num_sge: 1 }, bad),
    `srq_recv wr_id=0x620${SA} | srq_recv wr_id=0x621${SB}${SC}`, 'ibv_post_srq_recv(a list of 2): every request and SGE');
  recorded(rv.ibv_post_recv(qp, koffi.address(second), bad), `recv wr_id=0x621${SB}${SC}`, 'ibv_post_recv: every SGE');
  // Completions: 3 of 4 filled, into an array of objects.
  const wc = [{}, {}, {}, { wr_id: 0xdead }];
  const n = rv.ibv_poll_cq(cq, 4, wc);
  const status = [rv.IBV_WC_SUCCESS, rv.IBV_WC_SUCCESS, rv.IBV_WC_REM_ACCESS_ERR];
  const opcode = [rv.IBV_WC_RECV, rv.IBV_WC_COMP_SWAP, rv.IBV_WC_FETCH_ADD];
  let same = n === 3;
  for (let i = 0; i < 3; i++) {
    const want = { wr_id: 0x5000 + i, status: status[i], opcode: opcode[i], vendor_err: 0x100 + i,
      byte_len: 0x40 + i, imm_data: 0xa0b0c0d0 + i, qp_num: 0x1100 + i, src_qp: 0x2200 + i,
      wc_flags: i === 0 ? rv.IBV_WC_WITH_IMM : 0, pkey_index: 0x30 + i, slid: 0x4400 + i, sl: 1 + i,
      dlid_path_bits: 0x50 + i };
    if (JSON.stringify(wc[i]) !== JSON.stringify(want)) {
      console.log(`node: completion ${i}: ${JSON.stringify(wc[i])}`);
      same = false;
    }
  }
  check(same && wc[3].wr_id === 0xdead && wc[3].status === 0 && wc[3].byte_len === 0,
    'ibv_poll_cq(cq, 4, [4 objects]): 3, every field of each, the 4th untouched');
  check(code(() => rv.ibv_poll_cq(cq, 5, wc)) ===
    'RangeError: ibv_poll_cq: the count (5) is more than the array\'s 4 elements', 'ibv_poll_cq(5 of 4): RangeError');
  r13.fail(rv.EIO);
  check(code(() => rv.ibv_poll_cq(cq, 4, wc)) === 'EIO -5 ibv_poll_cq', 'ibv_poll_cq failing (-1, errno EIO): EIO');
  // An empty array: koffi passes a pointer, not NULL, which the provider
  // gets with the count 0, and gives 0.
  const before = rec.posts();
  check(rv.ibv_poll_cq(cq, 0, []) === 0 && rec.posts() === before + 1 && rec.polledArray() === 1,
    'ibv_poll_cq(cq, 0, []): the provider gets an array (not NULL), and gives 0');
  recorded(rv.ibv_req_notify_cq(cq, 1), 'notify solicited_only=1', 'ibv_req_notify_cq(cq, 1)');
  // The other two vectored calls, arrays of SGE objects: ibv_wr_set_sge_list
  // on the extended QP, ibv_advise_mr on the PD of an extended context.
  const more = {
    qpEx: recorder.func('void *recorder_qp_ex(void)'),
    pd: recorder.func('void *recorder_pd(void)'),
  };
  const qpx = more.qpEx(), pd = more.pd();
  check(rv.ibv_wr_set_sge_list(qpx, 3, [a, b, c]) === undefined, 'ibv_wr_set_sge_list: undefined (void)');
  recorded(0, `sge_list${SA}${SB}${SC}`, 'ibv_wr_set_sge_list(qpx, 3, [a, b, c]): every SGE');
  rv.ibv_wr_set_sge_list(qpx, 2, [c, a, b]);
  recorded(0, `sge_list${SC}${SA}`, 'ibv_wr_set_sge_list(qpx, 2, [c, a, b]): the first two SGEs');
  recorded(rv.ibv_advise_mr(pd, 2, 1, [b, c, a], 3), `advise advice=0x2 flags=0x1${SB}${SC}${SA}`,
    'ibv_advise_mr(pd, PREFETCH_NO_FAULT, FLUSH, [b, c, a], 3): every SGE');
  recorded(rv.ibv_advise_mr(pd, 0, 0, [a, b], 2), `advise advice=0x0 flags=0x0${SA}${SB}`,
    'ibv_advise_mr(pd, 0, 0, [a, b], 2): every SGE');
  const posts = rec.posts();
  check(code(() => rv.ibv_advise_mr(pd, 0, 0, [a, b], 3)) ===
    'RangeError: ibv_advise_mr: the count (3) is more than the array\'s 2 elements' &&
    code(() => rv.ibv_wr_set_sge_list(qpx, 4, [a, b, c])) ===
    'RangeError: ibv_wr_set_sge_list: the count (4) is more than the array\'s 3 elements' && rec.posts() === posts,
  'ibv_advise_mr and ibv_wr_set_sge_list with a count past the array: RangeError, the provider not called');
  r13.fail(rv.ENOMEM);
  check(code(() => rv.ibv_advise_mr(pd, 0, 0, [a], 1)) === 'ENOMEM -12 ibv_advise_mr' && rec.posts() === posts,
    'ibv_advise_mr failing with ENOMEM (its errno value): RdmaVerbsError ENOMEM');
  check(code(() => rv.ibv_req_notify_cq(null, 0)) === 'EINVAL -22 ibv_req_notify_cq', 'ibv_req_notify_cq(NULL): EINVAL');
  check(rv.ibv_inc_rkey(0x123456ff) === 0x12345600 &&
    rv.rdma_event_str(rv.RDMA_CM_EVENT_ESTABLISHED) === 'RDMA_CM_EVENT_ESTABLISHED',
  'ibv_inc_rkey, rdma_event_str');
}
// The README opens with examples/hello.js, word for word, which node
// --check accepts.
{
  const readme = fs.readFileSync(`${__dirname}/../README.md`, 'utf8');
  const hello = `${__dirname}/../examples/hello.js`;
  const block = /^```js\n([\s\S]*?)^```$/m.exec(readme);
  check(block !== null && block.index === readme.indexOf('```') && block[1] === fs.readFileSync(hello, 'utf8'),
    "README.md's first block is examples/hello.js, word for word");
  let syntax = 'ok';
  try {
    execFileSync(process.execPath, ['--check', hello], { stdio: 'pipe' });
  } catch (e) {
    syntax = `${e.stderr}`;
  }
  check(syntax === 'ok', `node --check examples/hello.js: ${syntax}`);
}
// The reference, index.d.ts (with api.d.ts): every export of the package
// declared; every function, method and constructor of index.d.ts says what
// it throws (@throws in its doc comment).
{
  const dts = fs.readFileSync(`${__dirname}/../index.d.ts`, 'utf8');
  const all = dts + fs.readFileSync(`${__dirname}/../api.d.ts`, 'utf8');
  const undeclared = Object.keys(rv).filter((k) => !k.startsWith('_') &&
    !new RegExp(`export declare (const|function|class) ${k}\\b`).test(all));
  check(undeclared.length === 0, `every export declared in index.d.ts or api.d.ts (${undeclared.join(' ') || 'all'})`);
  const lines = dts.split('\n');
  const silent = [];
  let doc = '';
  let inDoc = false;
  for (const line of lines) {
    if (/^\s*\/\*\*/.test(line)) {
      inDoc = true;
      doc = '';
    }
    if (inDoc) {
      doc += line;
      if (line.includes('*/')) inDoc = false;
      continue;
    }
    if (/^\s*(export declare function \w+|static \w+|constructor|\[Symbol\.asyncIterator\]|\w+)\(/.test(line) &&
      !doc.includes('@throws')) silent.push(line.trim().slice(0, 40));
    if (line.trim() && !/^\s*\/\//.test(line)) doc = '';
  }
  check(silent.length === 0, `every function, method and constructor of index.d.ts says what it throws (${
    silent.join('; ') || 'all do'})`);
}
// A missing library: the error names it, where it was looked for, and what
// provides it (a node of its own requires the package).
{
  const loading = (env) => {
    const e = { ...process.env, ...env };
    for (const k of Object.keys(e)) if (e[k] === undefined) delete e[k];
    try {
      execFileSync(process.execPath, ['-e', 'require("rdmaverbs")'], { env: e, stdio: 'pipe' });
      return 'loaded';
    } catch (x) {
      return `${x.stderr}`.split('\n').find((l) => l.startsWith('Error: ')) || `${x.stderr}`;
    }
  };
  let line = loading({ RDMAVERBS_LIBRARY: '/nonexistent/librdmaverbs.so.1' });
  check(line.startsWith('Error: rdmaverbs: cannot load /nonexistent/librdmaverbs.so.1, looked for at the path ' +
    'RDMAVERBS_LIBRARY names') && line.includes('librdmaverbs1'),
  `RDMAVERBS_LIBRARY naming no file: the error says which, where, and what provides it: ${line}`);
  line = loading({ RDMAVERBS_LIBRARY: undefined, LD_LIBRARY_PATH: '/nonexistent' });
  if (line === 'loaded') {
    console.log('node: skipped: librdmaverbs.so.1 is installed, the loader finds it');
  } else {
    check(line.includes('by the dynamic loader, in LD_LIBRARY_PATH (/nonexistent)') &&
      line.includes('install the package librdmaverbs1, or set RDMAVERBS_LIBRARY'),
    `no librdmaverbs.so.1 the loader finds: the error says where it looked, and the package: ${line}`);
  }
}
if (process.env.RDMAVERBS_LIBRARY) {
  const real = fs.realpathSync(process.env.RDMAVERBS_LIBRARY);
  check(fs.readFileSync('/proc/self/maps', 'utf8').includes(real), "RDMAVERBS_LIBRARY's copy is the one mapped");
}
if (failures) process.exit(1);
console.log('node: all checks passed');
