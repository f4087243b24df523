-- The LuaJIT binding on a machine without RDMA: every function bound
-- (librdmaverbs' at their symbol version, in librdmaverbs.so.1), the
-- refused inputs returned as nil, message, errno; the raw functions'
-- results as C's; RDMAVERBS_LIBRARY honoured; the vectored posts checked
-- SGE by SGE on the recording provider (bindings/recorder/,
-- RDMAVERBS_RECORDER), and the RDMAVERBS_1.3 data path there (ibv_post_send
-- of a list with the wr union, ibv_post_srq_recv, ibv_poll_cq into a table,
-- ibv_req_notify_cq, each failure convention; ibv_wr_set_sge_list on its
-- extended QP and ibv_advise_mr on its PD, tables of SGEs checked SGE by
-- SGE); the ports in both orders; the completion statuses; the README's
-- client is examples/hello.lua, word for word, and compiles.
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

-- The libraries stay loaded once the module is: their namespaces are not
-- collected (which would dlclose them under rv.raw's functions).
collectgarbage("collect")
collectgarbage("collect")
local RTLD_NOW, RTLD_NOLOAD = 2, 4
if ffi.C.dlopen("librdmacm.so.1", RTLD_NOW + RTLD_NOLOAD) == nil then
  print("lua: FAIL: librdmacm unloaded by collectgarbage(): its functions would crash")
  os.exit(1)
end
check(rv.rdma_event_str(rv.RDMA_CM_EVENT_CONNECT_REQUEST) == "RDMA_CM_EVENT_CONNECT_REQUEST",
  "librdmacm still loaded after collectgarbage(), its functions callable")

local bound = 0
for _, f in ipairs(rv.FUNCTIONS) do
  if type(rv[f[2]]) == "function" or type(rv[f[2]]) == "cdata" then bound = bound + 1 end
end
-- {name = {node, since}} of an exports list: the build's (RDMAVERBS_EXPORTS), or
-- every row of the table (RDMAVERBS_ALL_EXPORTS).
local function exports_list(variable)
  local out, n, head = {}, 0, true
  for line in io.lines(os.getenv(variable)) do
    if line:sub(1, 1) ~= "#" then
      local name, node, since = line:match("^([^\t]+)\t([^\t]+)\t([^\t]+)\t")
      if not head then out[name], n = {node, since}, n + 1 end
      head = false
    end
  end
  return out, n
end
local built = exports_list("RDMAVERBS_EXPORTS")
local every, nlisted = exports_list("RDMAVERBS_ALL_EXPORTS")
local listed = {}
for name, row in pairs(every) do listed[name] = row[1] end
local ours, v13, same = 0, 0, true
for _, f in ipairs(rv.FUNCTIONS) do
  if f[7] then
    ours = ours + 1
    same = same and listed[f[2]] == f[7]
  end
  v13 = v13 + (f[7] == "RDMAVERBS_1.3" and 1 or 0)
end
check(bound == #rv.FUNCTIONS and same and ours == nlisted and v13 > 0,
  bound .. " functions bound: " .. ours .. " of librdmaverbs (" .. v13 .. " at RDMAVERBS_1.3), each row of "
  .. "abi/exports.tsv at its node; " .. (bound - ours) .. " of librdmacm and libibverbs")
do
  -- A row the library's build lacks (its headers older than the release
  -- that brought it) raises an error at its call, naming it and that release.
  local lacking, bad = {}, 0
  for name, row in pairs(every) do
    if not built[name] then
      lacking[#lacking + 1] = name
      for _, fn in ipairs({rv[name], rv.raw[name]}) do
        local ok, err = pcall(fn, nil, 0)
        if ok or not err:find(name .. " is not in", 1, true)
          or not err:find("it came with rdma-core " .. row[2] .. ",", 1, true) then
          bad = bad + 1
          print("lua: " .. name .. ", which the build lacks: " .. tostring(err))
        end
      end
    end
  end
  check(bad == 0, "the " .. #lacking .. " rows the build lacks raise at their call, naming the release"
    .. " that brought them: " .. table.concat(lacking, " "))
end
do
  -- Each of ours called at the address dlvsym gives for its version, which
  -- dladdr places in librdmaverbs.so.1 under its name.
  ffi.cdef([[
  typedef struct { const char *dli_fname; void *dli_fbase; const char *dli_sname; void *dli_saddr; } rv_test_dlinfo;
  int dladdr(const void *address, rv_test_dlinfo *info);
  ]])
  local h, bad = ffi.C.dlopen(rv.library, 2), 0
  for _, f in ipairs(rv.FUNCTIONS) do
    if f[7] and built[f[2]] then
      local name, info = f[2], ffi.new("rv_test_dlinfo")
      local at = rv.addresses[name]
      local ok = at ~= nil and at == ffi.C.dlvsym(h, name, f[7])
        and ffi.cast("void *", rv.raw[name]) == at and ffi.C.dladdr(at, info) ~= 0
        and ffi.string(info.dli_sname) == name and ffi.string(info.dli_fname):find("librdmaverbs.so", 1, true)
      if not ok then
        bad = bad + 1
        print("lua: " .. name .. "@" .. f[7] .. " is not what rv.raw calls")
      end
    end
  end
  check(bad == 0, "each function of librdmaverbs called at its version, in librdmaverbs.so.1")
end
local wc = rv.new("ibv_wc")
local e, msg = errno_of(rv.rdma_post_send(nil, nil, nil, 0, nil, 0))
check(e == rv.EINVAL and msg == "rdma_post_send: EINVAL (Invalid argument)",
  "rdma_post_send(NULL, ...): nil, 'rdma_post_send: EINVAL (Invalid argument)', EINVAL")
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
int recorder_polled_array(void);
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

-- The RDMAVERBS_1.3 data path on the recording provider's QP, SRQ and CQ.
do
  ffi.cdef([[
  void *recorder_qp(void);
  void *recorder_srq(void);
  void *recorder_cq(void);
  void recorder_fail(int err);
  ]])
  rec.recorder_id()
  local qp, srq, cq = rec.recorder_qp(), rec.recorder_srq(), rec.recorder_cq()
  local sgl = rv.new("ibv_sge", 4)
  for i, s in ipairs({ { 0x1000, 0x10, 0x11 }, { 0x8000000000002000ULL, 0x80000030, 0x80000022 },
      { 0x3000, 0x40, 0x33 }, { 0x4000, 8, 0x44 } }) do
    sgl[i - 1].addr, sgl[i - 1].length, sgl[i - 1].lkey = s[1], s[2], s[3]
  end
  -- Three work requests joined by next: a send with immediate data over two
  -- SGEs, a compare-and-swap and a fetch-and-add (the wr union's atomic
  -- member).
  local w = rv.new("ibv_send_wr", 3)
  w[0].wr_id, w[0].opcode, w[0].send_flags = 0x600, rv.IBV_WR_SEND_WITH_IMM, rv.IBV_SEND_SIGNALED
  w[0].imm_data, w[0].sg_list, w[0].num_sge, w[0].next = 0x0a0b0c0d, sgl, 2, w + 1
  w[1].wr_id, w[1].opcode, w[1].send_flags = 0x601, rv.IBV_WR_ATOMIC_CMP_AND_SWP, rv.IBV_SEND_FENCE
  w[1].wr.atomic.remote_addr, w[1].wr.atomic.rkey = 0xfedc000000003000ULL, 0x80000066
  w[1].wr.atomic.compare_add, w[1].wr.atomic.swap = 0x1111222233334444ULL, 0x5555666677778888ULL
  w[1].sg_list, w[1].num_sge, w[1].next = sgl + 2, 1, w + 2
  w[2].wr_id, w[2].opcode = 0x602, rv.IBV_WR_ATOMIC_FETCH_AND_ADD
  w[2].wr.atomic.remote_addr, w[2].wr.atomic.rkey = 0xfedc000000003008ULL, 0x77
  w[2].wr.atomic.compare_add, w[2].sg_list, w[2].num_sge = 0x8000000000000001ULL, sgl + 3, 1
  local bad = ffi.new("void *[1]")
  recorded(rv.ibv_post_send(qp, w, bad), "send_imm wr_id=0x600 flags=0x2 imm=0xa0b0c0d" .. SA .. SB
    .. " | cas wr_id=0x601 flags=0x1 remote=0xfedc000000003000 rkey=0x80000066 compare=0x1111222233334444"
    .. " swap=0x5555666677778888" .. SC .. " | fadd wr_id=0x602 flags=0x0 remote=0xfedc000000003008 rkey=0x77"
    .. " add=0x8000000000000001 sge=0x4000:0x8:0x44",
    "ibv_post_send(3 work requests: send with imm over 2 SGEs, cas, fetch-and-add): every field")
  check(bad[0] == nil and rec.recorder_posts() == 1, "ibv_post_send: *bad_wr untouched, one post")
  check(w[1].wr.rdma.remote_addr == 0xfedc000000003000ULL and w[1].wr.rdma.rkey == 0x33334444,
    "the wr union's rdma member shares atomic's first bytes; its rkey is not atomic's")
  -- Failures: the provider's errno value, *bad_wr its first request; NULL refused.
  rec.recorder_fail(rv.ENOMEM)
  local r, msg, errno = rv.ibv_post_send(qp, w + 2, bad)
  check(r == nil and errno == rv.ENOMEM and msg == "ibv_post_send: ENOMEM (Cannot allocate memory)" and bad[0] == ffi.cast("void *", w + 2)
    and rec.recorder_posts() == 1, "ibv_post_send failing with ENOMEM: nil, message, ENOMEM; *bad_wr the request")
  check(errno_of(rv.ibv_post_send(nil, w, bad)) == rv.EINVAL and rv.raw.ibv_post_send(qp, nil, bad) == rv.EINVAL,
    "ibv_post_send(NULL, ...): EINVAL; raw, a NULL list: EINVAL returned")
  -- Receives on the SRQ, a list of two.
  local rw = rv.new("ibv_recv_wr", 2)
  rw[0].wr_id, rw[0].next, rw[0].sg_list, rw[0].num_sge = 0x620, rw + 1, sgl, 1
  rw[1].wr_id, rw[1].sg_list, rw[1].num_sge = 0x621, sgl + 1, 2
  recorded(rv.ibv_post_srq_recv(srq, rw, bad), "srq_recv wr_id=0x620" .. SA .. " | srq_recv wr_id=0x621" .. SB .. SC,
    "ibv_post_srq_recv(a list of 2): every request and SGE")
  -- Completions: 3 of 4 filled, into a table (and into a cdata array).
  local function as_recorded(wc, base)
    local status = { rv.IBV_WC_SUCCESS, rv.IBV_WC_SUCCESS, rv.IBV_WC_REM_ACCESS_ERR }
    local opcode = { rv.IBV_WC_RECV, rv.IBV_WC_COMP_SWAP, rv.IBV_WC_FETCH_ADD }
    local ok = true
    for i = 0, 2 do
      local c = wc[i + base]
      local same = c.wr_id == 0x5000 + i and c.status == status[i + 1] and c.opcode == opcode[i + 1]
        and c.vendor_err == 0x100 + i and c.byte_len == 0x40 + i and c.imm_data == 0xa0b0c0d0 + i
        and c.qp_num == 0x1100 + i and c.src_qp == 0x2200 + i
        and c.wc_flags == (i == 0 and rv.IBV_WC_WITH_IMM or 0) and c.pkey_index == 0x30 + i
        and c.slid == 0x4400 + i and c.sl == 1 + i and c.dlid_path_bits == 0x50 + i
      if not same then print("lua: completion " .. i .. ": wr_id " .. tostring(c.wr_id)) end
      ok = ok and same
    end
    local last = wc[3 + base]
    return ok and last.wr_id == 0xdead and (last.status or 0) == 0 and (last.byte_len or 0) == 0
  end
  local wc = { {}, {}, {}, { wr_id = 0xdead } }
  check(rv.ibv_poll_cq(cq, 4, wc) == 3 and as_recorded(wc, 1),
    "ibv_poll_cq(cq, 4, a table of 4): 3, every field of each, the 4th untouched")
  local array = rv.new("ibv_wc", 4)
  array[3].wr_id = 0xdead
  check(rv.ibv_poll_cq(cq, 4, array) == 3 and as_recorded(array, 0),
    "ibv_poll_cq(cq, 4, rv.new('ibv_wc', 4)): 3, every field of each, the 4th untouched")
  local ok, err = pcall(rv.ibv_poll_cq, cq, 5, wc)
  check(not ok and err:find("ibv_poll_cq: the count (5) is more than the array's 4 elements", 1, true),
    "ibv_poll_cq(5 of 4): an error (" .. tostring(err) .. ")")
  rec.recorder_fail(rv.EIO)
  check(errno_of(rv.ibv_poll_cq(cq, 4, wc)) == rv.EIO, "ibv_poll_cq failing (-1, errno EIO): nil, message, EIO")
  -- An empty table: copied into a C array of one, not NULL, which the
  -- provider gets with the count 0, and gives 0.
  local before = rec.recorder_posts()
  check(rv.ibv_poll_cq(cq, 0, {}) == 0 and rec.recorder_posts() == before + 1
    and rec.recorder_polled_array() == 1,
    "ibv_poll_cq(cq, 0, {}): the provider gets an array (not NULL), and gives 0")
  recorded(rv.ibv_req_notify_cq(cq, 1), "notify solicited_only=1", "ibv_req_notify_cq(cq, 1)")
  -- The other two vectored calls, tables of SGEs: ibv_wr_set_sge_list on
  -- the extended QP, ibv_advise_mr on the PD of an extended context.
  ffi.cdef([[
  void *recorder_qp_ex(void);
  void *recorder_pd(void);
  ]])
  local qpx, pd = rec.recorder_qp_ex(), rec.recorder_pd()
  rv.ibv_wr_set_sge_list(qpx, 3, { a, b, c })
  recorded(0, "sge_list" .. SA .. SB .. SC, "ibv_wr_set_sge_list(qpx, 3, {a, b, c}): every SGE")
  rv.ibv_wr_set_sge_list(qpx, 2, { c, a, b })
  recorded(0, "sge_list" .. SC .. SA, "ibv_wr_set_sge_list(qpx, 2, {c, a, b}): the first two SGEs")
  recorded(rv.ibv_advise_mr(pd, 2, 1, { b, c, a }, 3), "advise advice=0x2 flags=0x1" .. SB .. SC .. SA,
    "ibv_advise_mr(pd, PREFETCH_NO_FAULT, FLUSH, {b, c, a}, 3): every SGE")
  recorded(rv.ibv_advise_mr(pd, 0, 0, { sgl[1], a }, 2), "advise advice=0x0 flags=0x0" .. SB .. SA,
    "ibv_advise_mr(pd, 0, 0, {struct cdata, table}, 2): every SGE")
  local posts = rec.recorder_posts()
  local ok1, err1 = pcall(rv.ibv_advise_mr, pd, 0, 0, { a, b }, 3)
  local ok2, err2 = pcall(rv.ibv_wr_set_sge_list, qpx, 4, { a, b, c })
  check(not ok1 and err1:find("ibv_advise_mr: the count (3) is more than the array's 2 elements", 1, true)
    and not ok2 and err2:find("ibv_wr_set_sge_list: the count (4) is more than the array's 3 elements", 1, true)
    and rec.recorder_posts() == posts,
    "ibv_advise_mr and ibv_wr_set_sge_list with a count past the array: an error, the provider not called")
  rec.recorder_fail(rv.ENOMEM)
  local r2, msg2, errno2 = rv.ibv_advise_mr(pd, 0, 0, { a }, 1)
  check(r2 == nil and errno2 == rv.ENOMEM and msg2 == "ibv_advise_mr: ENOMEM (Cannot allocate memory)" and rec.recorder_posts() == posts,
    "ibv_advise_mr failing with ENOMEM (its errno value): nil, message, ENOMEM")
  check(errno_of(rv.ibv_req_notify_cq(nil, 0)) == rv.EINVAL, "ibv_req_notify_cq(NULL): EINVAL")
  check(rv.ibv_inc_rkey(0x123456ff) == 0x12345600
    and rv.rdma_event_str(rv.RDMA_CM_EVENT_ESTABLISHED) == "RDMA_CM_EVENT_ESTABLISHED",
    "ibv_inc_rkey, rdma_event_str")
end

-- The README opens with examples/hello.lua, word for word, which compiles.
do
  local readme = io.open("bindings/lua/README.md"):read("*a")
  local hello = io.open("bindings/lua/examples/hello.lua"):read("*a")
  local first = readme:find("```", 1, true)
  local block = readme:match("^```lua\n(.-\n)```\n", first)
  check(block ~= nil and block == hello, "README.md's first block is examples/hello.lua, word for word")
  local chunk, err = loadstring(hello, "=examples/hello.lua")
  check(chunk ~= nil, "examples/hello.lua compiles: " .. tostring(err or "ok"))
end

local env = os.getenv("RDMAVERBS_LIBRARY")
if env and env ~= "" then
  ffi.cdef("char *realpath(const char *path, char *resolved);")
  local real = ffi.string(ffi.C.realpath(env, nil))
  local maps = io.open("/proc/self/maps"):read("*a")
  check(maps:find(real, 1, true) ~= nil, "RDMAVERBS_LIBRARY's copy is the one mapped")
end
-- The reference: every public function of the objects (rdmaverbs/*.lua:
-- rv.NAME, Class:NAME) has its --- comment.
do
  local silent = {}
  for _, m in ipairs(require("rdmaverbs")._MODULES) do
    local prev = ""
    for line in io.lines("bindings/lua/rdmaverbs/" .. m:gsub("%.", "/") .. ".lua") do
      local name = line:match("^  function ([%w_]+[.:][%a][%w_]*)%(")
      if name and not name:match("^Native") and not prev:match("^  %-%-%-") then
        silent[#silent + 1] = m .. ": " .. name
      end
      if line:match("%S") then prev = line end
    end
  end
  check(#silent == 0, "every public function of rdmaverbs/*.lua has its --- comment (" ..
    (#silent > 0 and table.concat(silent, ", ") or "all do") .. ")")
end

-- A missing library: the error names it, where it was looked for, and what
-- provides it (a LuaJIT of its own requires the module).
do
  local function loading(env)
    local p = io.popen(env .. " luajit -e 'require(\"rdmaverbs\")' 2>&1")
    local out = p:read("*a")
    p:close()
    return out
  end
  local out = loading("RDMAVERBS_LIBRARY=/nonexistent/librdmaverbs.so.1")
  check(out:find("rdmaverbs: cannot load /nonexistent/librdmaverbs.so.1, looked for at the path RDMAVERBS_LIBRARY names",
    1, true) and out:find("librdmaverbs1", 1, true),
    "RDMAVERBS_LIBRARY naming no file: the error says which, where, and what provides it: " .. out:match("^[^\n]*"))
  local probe = io.popen("env -u RDMAVERBS_LIBRARY LD_LIBRARY_PATH=/nonexistent luajit -e " ..
    "'print(pcall(require(\"ffi\").load, \"librdmaverbs.so.1\"))' 2>&1"):read("*a")
  if probe:find("^true") then
    print("lua: skipped: librdmaverbs.so.1 is installed, the loader finds it")
  else
    out = loading("env -u RDMAVERBS_LIBRARY LD_LIBRARY_PATH=/nonexistent")
    check(out:find("by the dynamic loader, in LD_LIBRARY_PATH (/nonexistent)", 1, true) and
      out:find("install the package librdmaverbs1, or set RDMAVERBS_LIBRARY", 1, true),
      "no librdmaverbs.so.1 the loader finds: the error says where it looked, and the package: " ..
      out:match("^[^\n]*"))
  end
end

if failures > 0 then os.exit(1) end
print("lua: all checks passed")
