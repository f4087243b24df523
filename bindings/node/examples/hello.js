const rv = require('rdmaverbs');

async function client(host, port) {
  const ep = await rv.connect(host, port, { timeout: 5000 });   // its own PD, CQs and QP
  try {
    const recv = ep.reg(Buffer.alloc(16)), send = ep.reg(Buffer.from('hello, server!\n\0'));
    ep.postRecv({ wrId: 1, sg: [recv] });
    ep.postSend({ wrId: 2, sg: [send], flags: rv.IBV_SEND_SIGNALED });
    await ep.sendCq.next(1, { timeout: 5000 });
    const [wc] = await ep.recvCq.next(1, { timeout: 5000 });
    console.log(rv.ibv_wc_status_str(wc.status), wc.byte_len);
    await ep.disconnect({ timeout: 5000 });
  } finally {
    ep.close();   // the QP, the id, and what it made (PD, CQs, MRs), each in its turn
  }
}
client(process.argv[2], process.argv[3]).catch((e) => { console.error(e.message); process.exitCode = 1; });
