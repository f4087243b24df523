-- The RC exchange of bindings/rc-protocol.md from LuaJIT, with the
-- rdmaverbs module (ffi). Usage: luajit rc.lua server|client ADDR PORT
local rv = require("rdmaverbs")
local ffi = rv.ffi
local bit = require("bit")

local SIZE = 64
local role, addr, port = arg[1], arg[2], tonumber(arg[3])
if #arg ~= 3 or (role ~= "server" and role ~= "client") or not port then
  io.stderr:write("usage: rc.lua server|client ADDR PORT\n")
  os.exit(2)
end
local server = role == "server"
local seed, peer_seed = 0xc1, 0x51
if server then seed, peer_seed = 0x51, 0xc1 end

local function fail(what)
  io.stderr:write("rc " .. role .. ": " .. what .. "\n")
  os.exit(1)
end

-- A result, or the failure's message.
local function must(r, msg)
  if r == nil then fail(msg) end
  return r
end

local function ctx(v) return ffi.cast("void *", v) end

local function pattern(b)
  local t = {}
  for j = 0, SIZE - 1 do t[#t + 1] = string.char(bit.band(b + j, 255)) end
  return table.concat(t)
end

local function comp(id, recv, wr_id, opcode, len)
  local wc = rv.new("ibv_wc")
  local get = recv and rv.rdma_get_recv_comp or rv.rdma_get_send_comp
  local r = must(get(id, wc))
  if r ~= 1 or wc.wr_id ~= wr_id or wc.status ~= rv.IBV_WC_SUCCESS or wc.opcode ~= opcode
      or (len and wc.byte_len ~= len) then
    fail(string.format("completion: wr_id %s status %d opcode %d byte_len %d; want %#x %d %s",
      tostring(wc.wr_id), wc.status, wc.opcode, wc.byte_len, wr_id, opcode, tostring(len)))
  end
end

local function check_addr(sa, want_port, which)
  local sin = ffi.cast("struct sockaddr_in *", sa)
  local a = ffi.cast("uint8_t *", sa) + 4
  local got = string.format("%d.%d.%d.%d", a[0], a[1], a[2], a[3])
  local p = bit.bor(bit.lshift(bit.band(sin.sin_port, 255), 8), bit.rshift(sin.sin_port, 8))
  if sin.sin_family ~= rv.AF_INET or got ~= addr or (want_port and p ~= want_port) then
    fail(which .. " address " .. got .. ":" .. p)
  end
end

local function expect_errno(want, what, r, _, errno)
  if r ~= nil or errno ~= want then
    fail(what .. ": errno " .. tostring(errno) .. ", want " .. want)
  end
end

-- 1. Set up.
local hints = rv.new("rdma_addrinfo")
hints.ai_port_space = rv.RDMA_PS_TCP
hints.ai_flags = server and rv.RAI_PASSIVE or 0
local res = ffi.new("void *[1]")
must(rv.rdma_getaddrinfo(addr, tostring(port), hints, res))
local attr = rv.new("ibv_qp_init_attr")
attr.cap.max_send_wr, attr.cap.max_recv_wr, attr.cap.max_send_sge, attr.cap.max_recv_sge = 8, 8, 2, 1
attr.qp_type, attr.sq_sig_all = rv.IBV_QPT_RC, 1
local listen, idp = ffi.new("void *[1]"), ffi.new("void *[1]")
if server then
  must(rv.rdma_create_ep(listen, res[0], nil, attr))
  must(rv.rdma_listen(listen[0], 1))
  print("rc: listening")
  io.stdout:flush()
  must(rv.rdma_get_request(listen[0], idp))
else
  must(rv.rdma_create_ep(idp, res[0], nil, attr))
end
local id = idp[0]
-- 2. Memory; 3. receives.
local recv, send = ffi.new("uint8_t[?]", 4 * SIZE), ffi.new("uint8_t[?]", SIZE)
local win, back = ffi.new("uint8_t[?]", SIZE), ffi.new("uint8_t[?]", SIZE)
local recv_mr = must(rv.rdma_reg_msgs(id, recv, 4 * SIZE))
local send_mr = must(rv.rdma_reg_msgs(id, send, SIZE))
local wmr, rmr = must(rv.rdma_reg_write(id, win, SIZE)), must(rv.rdma_reg_read(id, win, SIZE))
local back_mr = must(rv.rdma_reg_msgs(id, back, SIZE))
local function mr(p) return ffi.cast("struct ibv_mr *", p) end
for i = 0, 3 do
  must(rv.rdma_post_recv(id, ctx(0x100 + i), recv + SIZE * i, SIZE, recv_mr))
end
-- 4. Connect.
local param = rv.new("rdma_conn_param")
param.responder_resources, param.initiator_depth, param.retry_count, param.rnr_retry_count = 1, 1, 7, 7
if server then must(rv.rdma_accept(id, param)) else must(rv.rdma_connect(id, param)) end
-- 5. Keys.
ffi.fill(send, SIZE)
ffi.cast("uint64_t *", send)[0] = ffi.cast("uint64_t", ffi.cast("uintptr_t", win))
ffi.cast("uint32_t *", send + 8)[0] = mr(wmr).rkey
ffi.cast("uint32_t *", send + 12)[0] = mr(rmr).rkey
must(rv.rdma_post_send(id, ctx(0x200), send, SIZE, send_mr, 0))
comp(id, false, 0x200, rv.IBV_WC_SEND)
comp(id, true, 0x100, rv.IBV_WC_RECV, SIZE)
local peer_addr = ffi.cast("uint64_t *", recv)[0]
local peer_wkey, peer_rkey = ffi.cast("uint32_t *", recv + 8)[0], ffi.cast("uint32_t *", recv + 12)[0]
-- 6. Messages, over two SGEs.
local sgl = rv.new("ibv_sge", 2)
local base = ffi.cast("uint64_t", ffi.cast("uintptr_t", send))
sgl[0].addr, sgl[0].length, sgl[0].lkey = base, 16, mr(send_mr).lkey
sgl[1].addr, sgl[1].length, sgl[1].lkey = base + 16, 48, mr(send_mr).lkey
for k = 0, 1 do
  ffi.copy(send, pattern(seed + 7 * k), SIZE)
  must(rv.rdma_post_sendv(id, ctx(0x300 + k), sgl, 2, 0))
  comp(id, false, 0x300 + k, rv.IBV_WC_SEND)
end
for k = 0, 1 do
  comp(id, true, 0x101 + k, rv.IBV_WC_RECV, SIZE)
  if ffi.string(recv + SIZE * (1 + k), SIZE) ~= pattern(peer_seed + 7 * k) then
    fail("message " .. k .. " differs")
  end
end
-- 7. RDMA write, and read back.
local written = pattern(bit.bxor(seed, 0xa5))
ffi.copy(send, written, SIZE)
must(rv.rdma_post_write(id, ctx(0x400), send, SIZE, send_mr, 0, peer_addr, peer_wkey))
comp(id, false, 0x400, rv.IBV_WC_RDMA_WRITE)
ffi.fill(back, SIZE)
must(rv.rdma_post_read(id, ctx(0x401), back, SIZE, back_mr, 0, peer_addr, peer_rkey))
comp(id, false, 0x401, rv.IBV_WC_RDMA_READ, SIZE)
if ffi.string(back, SIZE) ~= written then fail("the bytes read back differ") end
-- 8. A bounded wait that times out; 9. refused input.
expect_errno(rv.ETIMEDOUT, "rdma_get_send_comp_timeout", rv.rdma_get_send_comp_timeout(id, rv.new("ibv_wc"), 100))
expect_errno(rv.EINVAL, "rdma_post_send(NULL)", rv.rdma_post_send(nil, nil, send, SIZE, send_mr, 0))
expect_errno(rv.EINVAL, "rdma_get_local_addr(NULL)", rv.rdma_get_local_addr(nil))
-- 10. Addresses.
check_addr(must(rv.rdma_get_local_addr(id)), server and port, "local")
check_addr(must(rv.rdma_get_peer_addr(id)), not server and port, "peer")
-- 11. Done.
ffi.fill(send, SIZE)
ffi.copy(send, "DONE", 4)
must(rv.rdma_post_send(id, ctx(0x500), send, SIZE, send_mr, 0))
comp(id, false, 0x500, rv.IBV_WC_SEND)
comp(id, true, 0x103, rv.IBV_WC_RECV, SIZE)
if ffi.string(recv + 3 * SIZE, 4) ~= "DONE" then fail("no DONE") end
-- 12. Teardown.
must(rv.rdma_disconnect(id))
for _, m in ipairs({ recv_mr, send_mr, wmr, rmr, back_mr }) do must(rv.rdma_dereg_mr(m)) end
rv.rdma_destroy_ep(id)
if server then rv.rdma_destroy_ep(listen[0]) end
rv.rdma_freeaddrinfo(res[0])
print("rc: PASS role=" .. role .. " sends=4 bytes=384")
