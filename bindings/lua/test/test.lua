-- The LuaJIT binding on a machine without RDMA: every function bound, the
-- refused inputs returned as nil, message, errno; the raw functions'
-- results as C's; RDMAVERBS_LIBRARY honoured. Exits 1 on a failure.
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
check(bound == 31 and #rv.FUNCTIONS == 31, "31 functions bound")
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
local env = os.getenv("RDMAVERBS_LIBRARY")
if env and env ~= "" then
  ffi.cdef("char *realpath(const char *path, char *resolved);")
  local real = ffi.string(ffi.C.realpath(env, nil))
  local maps = io.open("/proc/self/maps"):read("*a")
  check(maps:find(real, 1, true) ~= nil, "RDMAVERBS_LIBRARY's copy is the one mapped")
end
if failures > 0 then os.exit(1) end
print("lua: all checks passed")
