local rv = require("rdmaverbs")

local ep = assert(rv.connect(arg[1], arg[2], { timeout = 5000 }))   -- its own PD, CQs and QP
local recv, send = assert(ep:reg(16)), assert(ep:reg(16))            -- 16 new bytes each
rv.ffi.copy(send.buf, "hello, server!\n")
assert(ep:post_recv({ wr_id = 1, sg = { recv } }))
assert(ep:post_send({ wr_id = 2, sg = { send }, flags = rv.IBV_SEND_SIGNALED }))
assert(ep.send_cq:next(1, 5000))
local wc = assert(ep.recv_cq:next(1, 5000))[1]
print(rv.ibv_wc_status_str(wc.status), wc.byte_len)
assert(ep:disconnect(5000))
ep:close()   -- the QP, the id, and what it made (PD, CQs, MRs), each in its turn
