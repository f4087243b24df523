-- The LuaJIT binding on a machine without RDMA: every function bound, the
-- refused inputs returned as nil, message, errno; the raw functions'
-- results as C's; RDMAVERBS_LIBRARY honoured; the vectored posts checked
-- SGE by SGE on the recording provider (bindings/recorder.c,
-- RDMAVERBS_RECORDER); the ports in both orders; the completion statuses.
-- Exits 1 on a failure.
-- bindings/run.sh BUILD_DIR lua test runs it (LUA_PATH: bindings/lua).
local rv = require("rdmaverbs")
local ffi = rv.ffi

local failures = 0
local function check(ok, what)
  print("lua: " .. (ok and "ok" or "FAIL") .. ": " .. what)
  if not ok then failures = failures + 1 end
end

local function errno_of(...)
  local r, msg, errno = ...
  return r == nil and errno or "no error", msg
end

local bound = 0
for _, f in ipairs(rv.FUNCTIONS) do
  if type(rv[f[2]]) == "function" or type(rv[f[2]]) == "cdata" then bound = bound + 1 end
end
check(bound == 32 and #rv.FUNCTIONS == 32, "32 functions bound")
local wc = rv.new("ibv_wc")
local e, msg = errno_of(rv.rdma_post_send(nil, nil, nil, 0, nil, 0))
check(e == rv.EINVAL and msg == "rdma_post_send: Invalid argument",
  "rdma_post_send(NULL, ...): nil, 'rdma_post_send: Invalid argument', EINVAL")
check(errno_of(rv.rdma_get_send_comp_timeout(nil, wc, 0)) == rv.EINVAL,
  "rdma_get_send_comp_timeout(NULL, ...): EINVAL")
check(errno_of(rv.rdma_get_local_addr(nil)) == rv.EINVAL, "rdma_get_local_addr(NULL): EINVAL")
check(errno_of(rv.rdma_post_sendv(nil, nil, rv.new("ibv_sge", 2), 2, 0)) == rv.EINVAL,
  "rdma_post_sendv(NULL, ..., sgl[2], 2, 0): EINVAL")
check(errno_of(rv.rdma_seterrno(rv.EIO)) == rv.EIO and rv.rdma_seterrno(0) == 0,
  "rdma_seterrno(EIO): EIO; rdma_seterrno(0): 0")
local r = rv.raw.rdma_post_send(nil, nil, nil, 0, nil, 0)
check(r == -1 and ffi.errno() == rv.EINVAL, "raw rdma_post_send: -1, errno EINVAL")
check(rv.raw.rdma_get_peer_addr(nil) == nil and ffi.errno() == rv.EINVAL,
  "raw rdma_get_peer_addr: NULL, errno EINVAL")
check(ffi.sizeof("struct ibv_wc") == 48, "sizeof(struct ibv_wc) is 48")
-- The recording provider: a fake id whose QP records each work request.
ffi.cdef([[
void *recorder_id(void);
int recorder_posts(void);
const char *recorder_last(void);
]])
local rec = ffi.load(os.getenv("RDMAVERBS_RECORDER"))
-- Three SGEs, each field distinct, the top bits of addr, length and lkey set
-- in the second (its addr a 64-bit cdata: above 2^53); what the provider
-- records of each.
local a = { addr = 0x1000, length = 0x10, lkey = 0x11 }
local b = { addr = 0x8000000000002000ULL, length = 0x80000030, lkey = 0x80000022 }
local c = { 0x3000, 0x40, 0x33 }   -- in field order
local SA, SB = " sge=0x1000:0x10:0x11", " sge=0x8000000000002000:0x80000030:0x80000022"
local SC = " sge=0x3000:0x40:0x33"
local function recorded(r, want, what)
  local got = ffi.string(rec.recorder_last())
  check(r == 0 and got == want, what .. (got == want and "" or ": recorded '" .. got .. "'"))
end
local function ctx(v) return ffi.cast("void *", v) end
local id = rec.recorder_id()
recorded(rv.rdma_post_sendv(id, ctx(0x300), { a, b, c }, 3, rv.IBV_SEND_SIGNALED),
  "send wr_id=0x300 flags=0x2" .. SA .. SB .. SC, "rdma_post_sendv({a, b, c}, 3): every SGE")
recorded(rv.rdma_post_recvv(id, ctx(0x301), { a, b, c }, 2),
  "recv wr_id=0x301" .. SA .. SB, "rdma_post_recvv({a, b, c}, 2): the first two SGEs")
recorded(rv.rdma_post_readv(id, ctx(0x302), { b, c }, 2, 0, 0xfedc000000001000ULL, 0x80000044),
  "read wr_id=0x302 flags=0x0 remote=0xfedc000000001000 rkey=0x80000044" .. SB .. SC,
  "rdma_post_readv({b, c}, 2): every SGE, the remote address and key")
recorded(rv.rdma_post_writev(id, ctx(0x303), { a, b, c }, 3, bit.bor(rv.IBV_SEND_SIGNALED, rv.IBV_SEND_FENCE),
    0xfedc000000002000ULL, 0x55),
  "write wr_id=0x303 flags=0x3 remote=0xfedc000000002000 rkey=0x55" .. SA .. SB .. SC,
  "rdma_post_writev({a, b, c}, 3): every SGE")
local vla = rv.new("ibv_sge", 2)
vla[0].addr, vla[0].length, vla[0].lkey = 0x3000, 0x40, 0x33
vla[1].addr, vla[1].length, vla[1].lkey = 0x1000, 0x10, 0x11
recorded(rv.rdma_post_sendv(id, ctx(0x304), vla, 2, 0), "send wr_id=0x304 flags=0x0" .. SC .. SA,
  "rdma_post_sendv(rv.new('ibv_sge', 2), 2): every SGE")
recorded(rv.rdma_post_sendv(id, ctx(0x305), { vla[1], b }, 2, 0), "send wr_id=0x305 flags=0x0" .. SA .. SB,
  "rdma_post_sendv({struct cdata, table}, 2): every SGE")
check(rec.recorder_posts() == 6, "6 work requests posted")
local ok, err = pcall(rv.rdma_post_sendv, id, ctx(0x306), { a, b, c }, 4, 0)
check(not ok and err:find("rdma_post_sendv: the count (4) is more than the array's 3 elements", 1, true)
  and rec.recorder_posts() == 6, "rdma_post_sendv({a, b, c}, 4): an error, nothing posted (" .. tostring(err) .. ")")
ok, err = pcall(rv.rdma_post_sendv, id, ctx(0x307), vla, 3, 0)
check(not ok and rec.recorder_posts() == 6, "rdma_post_sendv(a cdata array of 2, 3): an error, nothing posted")
ok, err = pcall(rv.rdma_post_sendv, id, ctx(0x308), ffi.cast("struct ibv_sge *", vla), 1, 0)
check(not ok and err:find("rv.raw", 1, true) and rec.recorder_posts() == 6,
  "rdma_post_sendv(a pointer, 1): an error naming rv.raw, nothing posted")
check(rv.src_port(id) == 18577 and rv.dst_port(id) == 50000,
  "src_port, dst_port: the ports in host order, 18577 and 50000")
-- x86-64: the network-order value as a little-endian integer
check(rv.rdma_get_src_port(id) == 0x9148 and rv.rdma_get_dst_port(id) == 0x50c3,
  "rdma_get_src_port, rdma_get_dst_port: network order, 0x9148 and 0x50c3")
check(rv.ibv_wc_status_str(rv.IBV_WC_LOC_PROT_ERR) == "local protection error"
  and rv.ibv_wc_status_str(rv.IBV_WC_SUCCESS) == "success" and rv.IBV_WC_TM_RNDV_INCOMPLETE == 23,
  "ibv_wc_status_str: 'local protection error', 'success'; IBV_WC_TM_RNDV_INCOMPLETE is 23")

local env = os.getenv("RDMAVERBS_LIBRARY")
if env and env ~= "" then
  ffi.cdef("char *realpath(const char *path, char *resolved);")
  local real = ffi.string(ffi.C.realpath(env, nil))
  local maps = io.open("/proc/self/maps"):read("*a")
  check(maps:find(real, 1, true) ~= nil, "RDMAVERBS_LIBRARY's copy is the one mapped")
end
if failures > 0 then os.exit(1) end
print("lua: all checks passed")
