const rv = require('rdmaverbs');

async function serve(host, port) {
  const listener = rv.listen(host, port);
  console.log('echo: listening');
  for await (const ep of listener) {                      // each connection request: an endpoint with its QP
    try {
      const mr = ep.reg(Buffer.alloc(65536));
      ep.postRecv({ sg: [mr] });                          // before the accept: the message has its place
      await ep.accept({}, { timeout: 5000 });
      const [wc] = await ep.recvCq.next(1, { timeout: 5000 });
      ep.postSend({ sg: [mr.sge(0, wc.byte_len)] });      // the same bytes back, signaled
      await ep.sendCq.next(1, { timeout: 5000 });
    } finally {
      ep.close();
    }
  }
}
serve(process.argv[2], process.argv[3]).catch((e) => { console.error(e.message); process.exitCode = 1; });
