local rv = require("rdmaverbs")

local ep = assert(rv.endpoint(arg[1], arg[2], { timeout = 5000 }))   -- its own PD, send and receive CQs, QP
local reply, send = assert(ep:reg(64)), assert(ep:reg(14))           -- new bytes, registered
assert(ep:post_recv({ wr_id = 1, sg = { reply } }))   -- before the connection: the answer has its place
assert(ep:connect({}, 5000))
rv.ffi.copy(send.buf, "hello, server!", 14)
assert(ep:post_send({ wr_id = 2, sg = { send } }))    -- signaled: every send is, by default
assert(ep.send_cq:next(1, 5000))                      -- nil, "...", ETIMEDOUT after 5 s
local wc = assert(ep.recv_cq:next(1, 5000))[1]
print(wc.byte_len .. " " .. rv.ffi.string(reply.buf, wc.byte_len))   -- 14 hello, server!
ep:close()   -- the QP, the id, and what it made (PD, CQs, MRs), each in its turn
