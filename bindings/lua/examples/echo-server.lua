local rv = require("rdmaverbs")

local listener = assert(rv.listen(arg[1], arg[2]))
io.stdout:setvbuf("line")
print("echo: listening")
for ep in listener:requests() do                      -- each connection request: an endpoint with its QP
  local mr = assert(ep:reg(65536))
  assert(ep:post_recv({ sg = { mr } }))               -- before the accept: the message has its place
  assert(ep:accept({}, 5000))
  local wc = assert(ep.recv_cq:next(1, 5000))[1]
  assert(ep:post_send({ sg = { mr:sge(0, wc.byte_len) } }))   -- the same bytes back, signaled
  assert(ep.send_cq:next(1, 5000))
  ep:close()
end
