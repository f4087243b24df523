// The RC exchange of bindings/rc-protocol.md from Node.js, with the
// rdmaverbs package (koffi, librdmaverbs.so.1, librdmacm.so.1).
// Usage: node rc.js server|client ADDR PORT
'use strict';
const rv = require('rdmaverbs');
const { koffi, types } = rv;

const SIZE = 64;
const [role, addr, portText] = process.argv.slice(2);
if (!['server', 'client'].includes(role) || !addr || !portText) {
  console.error('usage: rc.js server|client ADDR PORT');
  process.exit(2);
}
const port = Number(portText);
const server = role === 'server';
const [seed, peerSeed] = server ? [0x51, 0xc1] : [0xc1, 0x51];

function fail(what) {
  console.error(`rc ${role}: ${what}`);
  process.exit(1);
}

function comp(id, recv, wrId, opcode, len) {
  const wc = {};
  const r = recv ? rv.rdma_get_recv_comp(id, wc) : rv.rdma_get_send_comp(id, wc);
  if (r !== 1 || Number(wc.wr_id) !== wrId || wc.status !== rv.IBV_WC_SUCCESS || wc.opcode !== opcode ||
      (len !== undefined && wc.byte_len !== len)) {
    fail(`completion: wr_id ${wc.wr_id} status ${wc.status} opcode ${wc.opcode} byte_len ${wc.byte_len}; ` +
      `want ${wrId} ${opcode} ${len}`);
  }
}

function checkAddr(sa, expectPort, which) {
  const sin = koffi.decode(sa, types.sockaddr_in);
  const b = Buffer.alloc(4);
  b.writeUInt32LE(sin.sin_addr);
  const got = [...b].join('.');
  const p = ((sin.sin_port & 0xff) << 8) | (sin.sin_port >> 8);
  if (sin.sin_family !== rv.AF_INET || got !== addr || (expectPort !== undefined && p !== expectPort)) {
    fail(`${which} address ${got}:${p}`);
  }
}

function pattern(base) {
  return Buffer.from(Array.from({ length: SIZE }, (_, j) => (base + j) & 0xff));
}

function expectCode(f, code, what) {
  try {
    f();
  } catch (e) {
    if (e.code !== code) fail(`${what}: ${e.code}, want ${code}`);
    return;
  }
  fail(`${what}: no error`);
}

// 1. Set up.
const hints = { ai_port_space: rv.RDMA_PS_TCP, ai_flags: server ? rv.RAI_PASSIVE : 0 };
const res = [null];
rv.rdma_getaddrinfo(addr, portText, hints, res);
const attr = {
  cap: { max_send_wr: 8, max_recv_wr: 8, max_send_sge: 2, max_recv_sge: 1, max_inline_data: 0 },
  qp_type: rv.IBV_QPT_RC, sq_sig_all: 1,
};
const listen = [null];
const idOut = [null];
if (server) {
  rv.rdma_create_ep(listen, res[0], null, attr);
  rv.rdma_listen(listen[0], 1);
  console.log('rc: listening');
  rv.rdma_get_request(listen[0], idOut);
} else {
  rv.rdma_create_ep(idOut, res[0], null, attr);
}
const id = idOut[0];
// 2. Memory; 3. receives.
const recv = Buffer.alloc(4 * SIZE);
const send = Buffer.alloc(SIZE);
const win = Buffer.alloc(SIZE);
const back = Buffer.alloc(SIZE);
const recvMr = rv.rdma_reg_msgs(id, recv, 4 * SIZE);
const sendMr = rv.rdma_reg_msgs(id, send, SIZE);
const wmr = rv.rdma_reg_write(id, win, SIZE);
const rmr = rv.rdma_reg_read(id, win, SIZE);
const backMr = rv.rdma_reg_msgs(id, back, SIZE);
const mr = (p) => koffi.decode(p, types.ibv_mr);
for (let i = 0; i < 4; i++) {
  rv.rdma_post_recv(id, 0x100 + i, koffi.address(recv) + BigInt(SIZE * i), SIZE, recvMr);
}
// 4. Connect.
const param = { responder_resources: 1, initiator_depth: 1, retry_count: 7, rnr_retry_count: 7 };
(server ? rv.rdma_accept : rv.rdma_connect)(id, param);
// 5. Keys.
send.fill(0);
send.writeBigUInt64LE(koffi.address(win), 0);
send.writeUInt32LE(mr(wmr).rkey, 8);
send.writeUInt32LE(mr(rmr).rkey, 12);
rv.rdma_post_send(id, 0x200, send, SIZE, sendMr, 0);
comp(id, false, 0x200, rv.IBV_WC_SEND);
comp(id, true, 0x100, rv.IBV_WC_RECV, SIZE);
const peerAddr = recv.readBigUInt64LE(0);
const peerWkey = recv.readUInt32LE(8);
const peerRkey = recv.readUInt32LE(12);
// 6. Messages, over two SGEs.
const lkey = mr(sendMr).lkey;
const sgl = [
  { addr: koffi.address(send), length: 16, lkey },
  { addr: koffi.address(send) + 16n, length: 48, lkey },
];
for (let k = 0; k < 2; k++) {
  pattern(seed + 7 * k).copy(send);
  rv.rdma_post_sendv(id, 0x300 + k, sgl, 2, 0);
  comp(id, false, 0x300 + k, rv.IBV_WC_SEND);
}
for (let k = 0; k < 2; k++) {
  comp(id, true, 0x101 + k, rv.IBV_WC_RECV, SIZE);
  if (!recv.subarray(SIZE * (1 + k), SIZE * (2 + k)).equals(pattern(peerSeed + 7 * k))) {
    fail(`message ${k} differs`);
  }
}
// 7. RDMA write, and read back.
const written = pattern(seed ^ 0xa5);
written.copy(send);
rv.rdma_post_write(id, 0x400, send, SIZE, sendMr, 0, peerAddr, peerWkey);
comp(id, false, 0x400, rv.IBV_WC_RDMA_WRITE);
back.fill(0);
rv.rdma_post_read(id, 0x401, back, SIZE, backMr, 0, peerAddr, peerRkey);
comp(id, false, 0x401, rv.IBV_WC_RDMA_READ, SIZE);
if (!back.equals(written)) fail('the bytes read back differ');
// 8. A bounded wait that times out; 9. refused input.
expectCode(() => rv.rdma_get_send_comp_timeout(id, {}, 100), 'ETIMEDOUT', 'rdma_get_send_comp_timeout');
expectCode(() => rv.rdma_post_send(null, null, send, SIZE, sendMr, 0), 'EINVAL', 'rdma_post_send(NULL)');
expectCode(() => rv.rdma_get_local_addr(null), 'EINVAL', 'rdma_get_local_addr(NULL)');
// 10. Addresses.
checkAddr(rv.rdma_get_local_addr(id), server ? port : undefined, 'local');
checkAddr(rv.rdma_get_peer_addr(id), server ? undefined : port, 'peer');
// 11. Done.
send.fill(0);
send.write('DONE');
rv.rdma_post_send(id, 0x500, send, SIZE, sendMr, 0);
comp(id, false, 0x500, rv.IBV_WC_SEND);
comp(id, true, 0x103, rv.IBV_WC_RECV, SIZE);
if (recv.toString('latin1', 3 * SIZE, 3 * SIZE + 4) !== 'DONE') fail('no DONE');
// 12. Teardown.
rv.rdma_disconnect(id);
for (const m of [recvMr, sendMr, wmr, rmr, backMr]) rv.rdma_dereg_mr(m);
rv.rdma_destroy_ep(id);
if (server) rv.rdma_destroy_ep(listen[0]);
rv.rdma_freeaddrinfo(res[0]);
console.log(`rc: PASS role=${role} sends=4 bytes=384`);
