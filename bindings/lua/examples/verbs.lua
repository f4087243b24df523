-- The verbs exchange of bindings/verbs-protocol.md from LuaJIT, as the
-- client against the C peer's server (`peer verbs server ADDR PORT`), with
-- the rdmaverbs module and nothing else: through the raw API only, the
-- RDMAVERBS_1.3 exports (ibv_post_send, ibv_post_srq_recv, ibv_poll_cq,
-- ibv_req_notify_cq) and the real librdmacm and libibverbs calls (an event
-- channel and an id, a PD, two CQs, the receive CQ's completion channel, an
-- SRQ, the id's QP on them, MRs).
-- Usage: luajit verbs.lua client ADDR PORT
local rv = require("rdmaverbs")
local ffi = rv.ffi
local bit = require("bit")

local SLOT, SLOTS = 64, 8
local INITIAL, ADD = 0x1122334455667788ULL, 0x1000000000000001ULL
local SWAP, STALE_SWAP = 0x0fedcba987654321ULL, 0xdeaddeaddeaddeadULL
local CQ_CONTEXT = 0xc0ffee      -- the receive CQ's cq_context, as ibv_get_cq_event gives it back
local WAIT_MS = 60000
local SERVER_LENS = { 8, 16, 24, 32, 40 }
local RECV = rv.IBV_WC_GRH       -- a receive's flags on RoCE (rxe)

local role, addr, port = arg[1], arg[2], arg[3]
if #arg ~= 3 or role ~= "client" then
  io.stderr:write("usage: verbs.lua client ADDR PORT\n")
  os.exit(2)
end

local function fail(what)
  io.stderr:write("verbs client: " .. what .. "\n")
  os.exit(1)
end

local function check(ok, what)
  if not ok then fail(what) end
end

-- A result, or the end with the failure's message.
local function must(r, msg)
  if r == nil then fail(msg) end
  return r
end

local function ntohl(v) return bit.bswap(v) % 0x100000000 end
local function htonl(v) return bit.bswap(v) % 0x100000000 end
local function address(p) return ffi.cast("uint64_t", ffi.cast("uintptr_t", p)) end

ffi.cdef([[
struct verbs_pollfd { int fd; short events; short revents; };
int poll(struct verbs_pollfd *fds, unsigned long nfds, int timeout);
]])
local POLLIN = 1

-- Waits (WAIT_MS) for a channel's file descriptor to be readable.
local function readable(fd, what)
  local p = ffi.new("struct verbs_pollfd", { fd = fd, events = POLLIN })
  check(ffi.C.poll(p, 1, WAIT_MS) == 1, what)
end

-- The channel's next rdma_cm event: of the type wanted, for id, status 0;
-- read, then acknowledged (its memory is librdmacm's).
local function event(channel, want, id)
  readable(ffi.cast("struct rdma_event_channel *", channel).fd, "no rdma_cm event within the wait")
  local ev = ffi.new("void *[1]")
  must(rv.rdma_get_cm_event(channel, ev))
  local e = ffi.cast("struct rdma_cm_event *", ev[0])
  local kind, status, of = e.event, e.status, e.id
  must(rv.rdma_ack_cm_event(ev[0]))
  check(kind == want and status == 0 and of == id, string.format("rdma_cm event %s status %d; want %s",
    rv.rdma_event_str(kind), status, rv.rdma_event_str(want)))
end

-- One completion, every field (bindings/verbs-protocol.md): what verbs
-- defines, and rxe's values where it does not (0 for what RC leaves).
local function completion(wc, wr_id, opcode, length, flags, imm, qp_num)
  local got = { tonumber(wc.wr_id), wc.status, wc.opcode, wc.byte_len, wc.wc_flags, ntohl(wc.imm_data),
    wc.qp_num, wc.vendor_err, wc.src_qp, wc.pkey_index, wc.slid, wc.sl, wc.dlid_path_bits }
  local want = { wr_id, rv.IBV_WC_SUCCESS, opcode, length, flags, imm, qp_num, 0, 0, 0, 0, 0, 0 }
  for i = 1, #want do
    if got[i] ~= want[i] then
      local g, w = {}, {}
      for j = 1, #want do
        g[j], w[j] = string.format("%#x", got[j]), string.format("%#x", want[j])
      end
      fail("completion " .. table.concat(g, " ") .. "; want " .. table.concat(w, " ") ..
        " (" .. rv.ibv_wc_status_str(wc.status) .. ")")
    end
  end
end

-- Polls cq until n completions: an array of them (index 0 up).
local function completions(cq, n)
  local out, wc, got, polls = rv.new("ibv_wc", n), rv.new("ibv_wc", 8), 0, 0
  while got < n do
    local r = must(rv.ibv_poll_cq(cq, math.min(8, n - got), wc))
    ffi.copy(out + got, wc, r * ffi.sizeof("struct ibv_wc"))
    got = got + r
    if r == 0 then
      polls = polls + 1
      check(polls < WAIT_MS, "too few completions within the wait")
      ffi.C.poll(nil, 0, 1)
    end
  end
  return out
end

-- The client's objects: made on the id's context, the QP on them.
local side = {}
side.__index = side

local function new_side(id)
  local s = setmetatable({ id = id }, side)
  local ctx = ffi.cast("struct rdma_cm_id *", id).verbs
  s.pd = must(rv.ibv_alloc_pd(ctx))
  s.channel = must(rv.ibv_create_comp_channel(ctx))
  s.scq = must(rv.ibv_create_cq(ctx, 16, nil, nil, 0))
  s.rcq = must(rv.ibv_create_cq(ctx, 16, ffi.cast("void *", CQ_CONTEXT), s.channel, 0))
  local srq_attr = rv.new("ibv_srq_init_attr")
  srq_attr.attr.max_wr, srq_attr.attr.max_sge = SLOTS, 1
  s.srq = must(rv.ibv_create_srq(s.pd, srq_attr))
  local attr = rv.new("ibv_qp_init_attr")
  attr.send_cq, attr.recv_cq, attr.srq = s.scq, s.rcq, s.srq
  attr.cap.max_send_wr, attr.cap.max_send_sge, attr.qp_type = 8, 2, rv.IBV_QPT_RC
  must(rv.rdma_create_qp(id, s.pd, attr))
  s.qp = ffi.cast("struct rdma_cm_id *", id).qp
  local qp = ffi.cast("struct ibv_qp *", s.qp)
  check(qp.send_cq == s.scq and qp.recv_cq == s.rcq and qp.srq == s.srq,
    "the id's QP is not on the CQs and the SRQ given")
  s.qp_num = qp.qp_num
  -- The buffers live as long as this table: the MRs and the posted work
  -- requests point into them. atom is 8-byte aligned (uint64_t[3]).
  s.recv, s.send = ffi.new("uint8_t[?]", SLOTS * SLOT), ffi.new("uint8_t[?]", 5 * SLOT)
  s.atom = ffi.new("uint64_t[3]")
  s.recv_mr = s:reg(s.recv, SLOTS * SLOT, rv.IBV_ACCESS_LOCAL_WRITE)
  s.send_mr = s:reg(s.send, 5 * SLOT, 0)
  s.atom_mr = s:reg(s.atom, 24, bit.bor(rv.IBV_ACCESS_LOCAL_WRITE, rv.IBV_ACCESS_REMOTE_ATOMIC,
    rv.IBV_ACCESS_REMOTE_READ))
  -- The SRQ's receives, one list: slot i, wr_id 0x100 + i.
  s.sges, s.recvs = rv.new("ibv_sge", SLOTS), rv.new("ibv_recv_wr", SLOTS)
  for i = 0, SLOTS - 1 do
    s.sges[i].addr, s.sges[i].length, s.sges[i].lkey = address(s.recv + SLOT * i), SLOT, s:lkey(s.recv_mr)
    local r = s.recvs[i]
    r.wr_id, r.sg_list, r.num_sge = 0x100 + i, s.sges + i, 1
    r.next = i + 1 < SLOTS and s.recvs + i + 1 or nil
  end
  must(rv.ibv_post_srq_recv(s.srq, s.recvs, ffi.new("void *[1]")))
  return s
end

function side:reg(buf, len, access)
  return must(rv.ibv_reg_mr_iova2(self.pd, buf, len, address(buf), access))
end

function side:lkey(mr)
  return ffi.cast("struct ibv_mr *", mr).lkey
end

-- Posts a list of n send work requests (a cdata array, joined here by
-- next) in one ibv_post_send; then their completions.
function side:post(wrs, n)
  for i = 0, n - 2 do
    wrs[i].next = wrs + i + 1
  end
  must(rv.ibv_post_send(self.qp, wrs, ffi.new("void *[1]")))
  return completions(self.scq, n)
end

-- The receive CQ's next event on its completion channel: checked,
-- acknowledged, the CQ armed again (solicited_only), then polled: the
-- completions (up to 8 in one ibv_poll_cq) and their count.
function side:next_event(solicited_only)
  readable(ffi.cast("struct ibv_comp_channel *", self.channel).fd, "no completion event within the wait")
  local cq, context = ffi.new("void *[1]"), ffi.new("void *[1]")
  must(rv.ibv_get_cq_event(self.channel, cq, context))
  check(cq[0] == self.rcq and ffi.cast("uintptr_t", context[0]) == CQ_CONTEXT, "the event is not the receive CQ's")
  rv.ibv_ack_cq_events(cq[0], 1)
  must(rv.ibv_req_notify_cq(cq[0], solicited_only))
  local wc = { {}, {}, {}, {}, {}, {}, {}, {} }
  return wc, must(rv.ibv_poll_cq(cq[0], 8, wc))
end

-- In the order the objects depend on each other (every CQ event
-- acknowledged first: ibv_destroy_cq waits for it).
function side:teardown()
  rv.rdma_destroy_qp(self.id)
  must(rv.ibv_destroy_srq(self.srq))
  must(rv.ibv_destroy_cq(self.scq))
  must(rv.ibv_destroy_cq(self.rcq))
  must(rv.ibv_destroy_comp_channel(self.channel))
  for _, mr in ipairs({ self.recv_mr, self.send_mr, self.atom_mr }) do
    must(rv.ibv_dereg_mr(mr))
  end
  must(rv.ibv_dealloc_pd(self.pd))
  must(rv.rdma_destroy_id(self.id))
end

-- 0. Set up: an event channel and an id, the address and route resolved,
-- the objects and the QP, the SRQ's receives, the receive CQ armed; connect.
local hints = rv.new("rdma_addrinfo")
hints.ai_port_space = rv.RDMA_PS_TCP
local res = ffi.new("void *[1]")
must(rv.rdma_getaddrinfo(addr, port, hints, res))
local channel = must(rv.rdma_create_event_channel())
local idp = ffi.new("void *[1]")
must(rv.rdma_create_id(channel, idp, nil, rv.RDMA_PS_TCP))
local id = idp[0]
must(rv.rdma_resolve_addr(id, nil, ffi.cast("struct rdma_addrinfo *", res[0]).ai_dst_addr, 2000))
event(channel, rv.RDMA_CM_EVENT_ADDR_RESOLVED, id)
must(rv.rdma_resolve_route(id, 2000))
event(channel, rv.RDMA_CM_EVENT_ROUTE_RESOLVED, id)
local s = new_side(id)
must(rv.ibv_req_notify_cq(s.rcq, 0))
local param = rv.new("rdma_conn_param")
param.responder_resources, param.initiator_depth, param.retry_count, param.rnr_retry_count = 1, 1, 7, 7
must(rv.rdma_connect(id, param))
event(channel, rv.RDMA_CM_EVENT_ESTABLISHED, id)

-- 1. Keys, the first event; the CQ armed again for solicited completions.
local wc, n = s:next_event(1)
check(n == 1, "the keys' event: " .. n .. " completions")
completion(wc[1], 0x100, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qp_num)
local word, rkey = ffi.cast("uint64_t *", s.recv)[0], ffi.cast("uint32_t *", s.recv + 8)[0]
check(ffi.cast("uint64_t *", s.recv + 16)[0] == INITIAL, "the word's value is not the initial one")

-- 2. Atomics, one list: fetch-and-add, compare-and-swap, a stale one.
do
  local wrs, sges = rv.new("ibv_send_wr", 3), rv.new("ibv_sge", 3)
  for k = 0, 2 do
    sges[k].addr, sges[k].length, sges[k].lkey = address(s.atom + k), 8, s:lkey(s.atom_mr)
    local w = wrs[k]
    w.wr_id, w.sg_list, w.num_sge, w.send_flags = 0x700 + k, sges + k, 1, rv.IBV_SEND_SIGNALED
    w.opcode = k > 0 and rv.IBV_WR_ATOMIC_CMP_AND_SWP or rv.IBV_WR_ATOMIC_FETCH_AND_ADD
    w.wr.atomic.remote_addr, w.wr.atomic.rkey = word, rkey
    w.wr.atomic.compare_add = k > 0 and INITIAL + ADD or ADD
    w.wr.atomic.swap = ({ 0ULL, SWAP, STALE_SWAP })[k + 1]
  end
  local done = s:post(wrs, 3)
  local opcodes = { rv.IBV_WC_FETCH_ADD, rv.IBV_WC_COMP_SWAP, rv.IBV_WC_COMP_SWAP }
  for k = 0, 2 do
    completion(done[k], 0x700 + k, opcodes[k + 1], 8, 0, 0, s.qp_num)
  end
  check(s.atom[0] == INITIAL and s.atom[1] == INITIAL + ADD and s.atom[2] == SWAP,
    "the atomics' old values " .. tostring(s.atom[0]) .. " " .. tostring(s.atom[1]) .. " " .. tostring(s.atom[2]))
end

-- 3. Four sends into the server's SRQ, one list, two SGEs each, immediate
-- data 0xc0de0000 + k (network order).
do
  for k = 0, 3 do
    for j = 0, SLOT - 1 do
      s.send[SLOT * k + j] = bit.band(0xc1 + 7 * k + j, 0xff)
    end
  end
  local wrs, sges = rv.new("ibv_send_wr", 4), rv.new("ibv_sge", 8)
  local lkey = s:lkey(s.send_mr)
  for k = 0, 3 do
    local base = address(s.send + SLOT * k)
    sges[2 * k].addr, sges[2 * k].length, sges[2 * k].lkey = base, 16, lkey
    sges[2 * k + 1].addr, sges[2 * k + 1].length, sges[2 * k + 1].lkey = base + 16, SLOT - 16, lkey
    local w = wrs[k]
    w.wr_id, w.sg_list, w.num_sge = 0x300 + k, sges + 2 * k, 2
    w.opcode, w.send_flags = rv.IBV_WR_SEND_WITH_IMM, rv.IBV_SEND_SIGNALED
    w.imm_data = htonl(0xc0de0000 + k)
  end
  local done = s:post(wrs, 4)
  for k = 0, 3 do
    completion(done[k], 0x300 + k, rv.IBV_WC_SEND, SLOT, rv.IBV_WC_WITH_IMM, 0, s.qp_num)
  end
end

-- 4. The server's five, the event at the last (solicited): five at once.
wc, n = s:next_event(0)
check(n == 5, "the solicited event: " .. n .. " completions in one poll, not 5")
for k = 0, 4 do
  local length = SERVER_LENS[k + 1]
  completion(wc[k + 1], 0x101 + k, rv.IBV_WC_RECV, length, bit.bor(RECV, rv.IBV_WC_WITH_IMM), 0x5e4d0000 + k, s.qp_num)
  for j = 0, length - 1 do
    check(s.recv[SLOT * (1 + k) + j] == bit.band(0x51 + 7 * k + j, 0xff), "message " .. k .. ": its bytes differ")
  end
end

-- 5. DONE, and the server's DONE with the word's last value.
do
  ffi.fill(s.send, SLOT)
  ffi.copy(s.send, "DONE", 4)
  local wrs, sge = rv.new("ibv_send_wr", 1), rv.new("ibv_sge")
  sge.addr, sge.length, sge.lkey = address(s.send), SLOT, s:lkey(s.send_mr)
  wrs[0].wr_id, wrs[0].sg_list, wrs[0].num_sge = 0x500, sge, 1
  wrs[0].opcode, wrs[0].send_flags = rv.IBV_WR_SEND, rv.IBV_SEND_SIGNALED
  completion(s:post(wrs, 1)[0], 0x500, rv.IBV_WC_SEND, SLOT, 0, 0, s.qp_num)
end
wc, n = s:next_event(0)
check(n == 1, "the DONE event: " .. n .. " completions")
completion(wc[1], 0x106, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qp_num)
local done, final = ffi.string(s.recv + 6 * SLOT, 4), ffi.cast("uint64_t *", s.recv + 6 * SLOT + 8)[0]
check(done == "DONE" and final == SWAP, "no DONE with the word's value: " .. done .. " " .. tostring(final))

-- 6. Teardown.
must(rv.rdma_disconnect(id))
event(channel, rv.RDMA_CM_EVENT_DISCONNECTED, id)
s:teardown()
rv.rdma_destroy_event_channel(channel)
rv.rdma_freeaddrinfo(res[0])
print("verbs: PASS role=client completions=15 bytes=248")
