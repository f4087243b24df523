-- The LuaJIT binding's objects (rdmaverbs/) on a machine without RDMA:
--  - a posted buffer kept alive: on the recording provider
--    (bindings/recorder/), a buffer posted through an endpoint, every
--    reference to it dropped, collectgarbage() run: it is still alive and
--    its bytes, read by the provider after the post returned, intact;
--    released once its completion is reaped;
--  - an MR holds its buffer, until it is closed;
--  - failures as nil, message, errno; EBADF after :close().
-- (The order of closing: closing.lua.) Exits 1 on a failure.
-- bindings/run.sh BUILD_DIR lua test runs it.
local rv = require("rdmaverbs")
local ffi = rv.ffi

local failures = 0
local function check(ok, what)
  print("lua objects: " .. (ok and "ok" or "FAIL") .. ": " .. what)
  if not ok then failures = failures + 1 end
end
local function errno_of(r, message, errno)
  if r ~= nil then return "no error" end
  return errno, message
end
local function collect()
  for _ = 1, 3 do
    collectgarbage("collect")
    for _ = 1, 200 do ffi.new("uint8_t[64]", 0xee) end
  end
  collectgarbage("collect")
end
local function address(p)
  return ffi.cast("uint64_t", ffi.cast("uintptr_t", p))
end
local function pattern(n, seed)
  local b = ffi.new("uint8_t[?]", n)
  for j = 0, n - 1 do b[j] = bit.band(seed + 7 * j, 0xff) end
  return b
end
local function hex(b, n)
  local t = {}
  for j = 0, n - 1 do t[#t + 1] = string.format("%02x", b[j]) end
  return table.concat(t)
end

-- ---- a posted buffer, kept alive until its completion is reaped ----
ffi.cdef([[
void *recorder_id(void);
void *recorder_qp(void);
void *recorder_cq(void);
void recorder_fail(int err);
const char *recorder_last(void);
const char *recorder_bytes(void);
]])
local rec = ffi.load(os.getenv("RDMAVERBS_RECORDER"))
do
  local id = rec.recorder_id()
  -- The fake QP's number: that of the provider's second completion (wr_id
  -- 0x5001, COMP_SWAP, qp_num 0x1101), which reaps the post below.
  ffi.cast("struct ibv_qp *", rec.recorder_qp()).qp_num = 0x1101
  -- Its CQs: the provider's (completions are matched to QPs by CQ and number).
  ffi.cast("struct ibv_qp *", rec.recorder_qp()).send_cq = rec.recorder_cq()
  ffi.cast("struct ibv_qp *", rec.recorder_qp()).recv_cq = rec.recorder_cq()
  local ep = rv.adopt_endpoint(id)
  check(ep.qp_num == 0x1101 and ep.qp == rec.recorder_qp(), "rv.adopt_endpoint: the id's QP and its number")
  local weak = setmetatable({}, { __mode = "v" })
  local want = hex(pattern(64, 0x3c), 64)
  local mr_struct = rv.new("ibv_mr")
  do
    local buf = pattern(64, 0x3c)
    mr_struct.addr, mr_struct.length, mr_struct.lkey, mr_struct.rkey = buf, 64, 0x77, 0x88
    local mr = rv.adopt_mr(mr_struct, buf)
    local ok = ep:post_send({ wr_id = 0x5001, sg = { mr:sge(0, 64) }, opcode = rv.IBV_WR_ATOMIC_CMP_AND_SWP,
      flags = rv.IBV_SEND_SIGNALED, atomic = { remote_addr = 0x1000, rkey = 5, compare_add = 1, swap = 2 } })
    local recorded = ffi.string(rec.recorder_last())
    check(ok == true and recorded == string.format(
      "cas wr_id=0x5001 flags=0x2 remote=0x1000 rkey=0x5 compare=0x1 swap=0x2 sge=0x%x:0x40:0x77", tonumber(address(buf))),
      "post_send: the work request as the provider received it: " .. recorded)
    weak[1] = buf
    buf, mr = nil, nil   -- every reference the program had
  end
  collect()
  check(weak[1] ~= nil, "a posted buffer, every reference dropped, collectgarbage(): alive")
  local bytes = (ffi.string(rec.recorder_bytes()):gsub("^ ", ""))
  check(bytes == want, "its bytes as the provider reads them after the collections: intact (" .. bytes:sub(1, 16) .. "...)")
  local cq = rv.adopt_cq(rec.recorder_cq())
  local wc = cq:poll(4)
  check(#wc == 3 and wc[2].wr_id == 0x5001 and wc[2].qp_num == 0x1101, "cq:poll(): the 3 completions")
  collect()
  check(weak[1] == nil, "its completion reaped: the buffer released, collected")

  -- An MR holds its buffer until it is closed.
  local mr
  do
    local buf = ffi.new("uint8_t[32]")
    local s = rv.new("ibv_mr")
    s.addr, s.length, s.lkey = buf, 32, 1
    mr = rv.adopt_mr(s, buf)
    mr._struct = s
    weak[2] = buf
  end
  collect()
  check(weak[2] ~= nil and mr.buf == ffi.cast("uint8_t *", weak[2]), "an MR holds its buffer: alive after collectgarbage()")
  check(mr:close() == true, "mr:close(): true")
  mr = nil
  collect()
  check(weak[2] == nil, "the MR closed: its buffer collected")
  -- A post the provider refuses holds nothing; its failure is the errno value.
  do
    local buf = ffi.new("uint8_t[16]")
    local s = rv.new("ibv_mr")
    s.addr, s.length, s.lkey = buf, 16, 3
    local m = rv.adopt_mr(s, buf)
    rec.recorder_fail(rv.ENOMEM)
    local r, message, errno, first_bad = ep:post_send({ { wr_id = 1, sg = { m } }, { wr_id = 2, sg = { m } } })
    check(r == nil and errno == rv.ENOMEM and message == "ibv_post_send: ENOMEM (Cannot allocate memory)" and first_bad == 0,
      "a post the provider refuses: nil, 'ibv_post_send: ENOMEM (Cannot allocate memory)', ENOMEM, 0 posted")
    weak[3] = buf
    buf, m, s = nil, nil, nil
  end
  collect()
  check(weak[3] == nil, "the refused post holds nothing: its buffer collected")
  check(ep:close() == true, "ep:close() of an adopted endpoint: true")
  check(errno_of(ep:post_send({ wr_id = 1 })) == 9, "a closed endpoint: EBADF")
  check(type(cq:poll()) == "table", "an adopted CQ stays open")
end

if failures > 0 then os.exit(1) end
print("lua objects: all checks passed")
