const rv = require('rdmaverbs');

async function client(host, port) {
  const ep = await rv.createEndpoint(host, port, { timeout: 5000 });   // its own PD, send and receive CQs, QP
  try {
    const reply = ep.reg(Buffer.alloc(64));
    ep.postRecv({ wrId: 1, sg: [reply] });                // before the connection: the answer has its place
    await ep.connect({}, { timeout: 5000 });
    ep.postSend({ wrId: 2, sg: [ep.reg(Buffer.from('hello, server!'))] });   // signaled: every send is, by default
    await ep.sendCq.next(1, { timeout: 5000 });           // RdmaVerbsError ETIMEDOUT after 5 s
    const [wc] = await ep.recvCq.next(1, { timeout: 5000 });
    console.log(wc.byte_len, reply.buffer.toString('latin1', 0, wc.byte_len));   // 14 hello, server!
  } finally {
    ep.close();   // the QP, the id, and what it made (PD, CQs, MRs), each in its turn
  }
}
client(process.argv[2], process.argv[3]).catch((e) => { console.error(e.message); process.exitCode = 1; });
