// The Node.js binding on a machine without RDMA: every function bound, the
// refused inputs thrown as RdmaVerbsError (.code, .errno), raw results as
// C's, the vectored posts checked SGE by SGE on the recording provider
// (bindings/recorder.c, RDMAVERBS_RECORDER), the ports in both orders, the
// completion statuses. Exits 1 on a failure.
'use strict';
const fs = require('fs');
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

check(Object.keys(rv.raw).length === 32, '32 functions bound');
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
if (process.env.RDMAVERBS_LIBRARY) {
  const real = fs.realpathSync(process.env.RDMAVERBS_LIBRARY);
  check(fs.readFileSync('/proc/self/maps', 'utf8').includes(real), "RDMAVERBS_LIBRARY's copy is the one mapped");
}
if (failures) process.exit(1);
console.log('node: all checks passed');
