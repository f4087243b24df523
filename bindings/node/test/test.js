// The Node.js binding on a machine without RDMA: every function bound, the
// refused inputs thrown as RdmaVerbsError (.code, .errno), raw results as
// C's. Exits 1 on a failure.
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

check(Object.keys(rv.raw).length === 31, '31 functions bound');
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
if (process.env.RDMAVERBS_LIBRARY) {
  const real = fs.realpathSync(process.env.RDMAVERBS_LIBRARY);
  check(fs.readFileSync('/proc/self/maps', 'utf8').includes(real), "RDMAVERBS_LIBRARY's copy is the one mapped");
}
if (failures) process.exit(1);
console.log('node: all checks passed');
