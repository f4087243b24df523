-- The verbs exchange of bindings/verbs-protocol.md from LuaJIT through the
-- object API (rv.event_channel(), endpoints, rv.protection_domain(), ...),
-- in either role: as the client against the C peer's server (`peer verbs
-- server`), as the server against its client (`peer verbs client`). Every
-- wait is bounded. VERBS_PROFILE=iwarp in the environment: the exchange's
-- iWARP profile (the client speaks first, no atomics, no immediate data, no
-- GRH; the fields RC leaves unset not checked: siw does not write them).
-- Usage: luajit objects.lua client|server ADDR PORT
local rv = require("rdmaverbs")
local ffi = rv.ffi
local bit = require("bit")

local SLOT, SLOTS = 64, 8
local INITIAL, ADD = 0x1122334455667788ULL, 0x1000000000000001ULL
local SWAP, STALE_SWAP = 0x0fedcba987654321ULL, 0xdeaddeaddeaddeadULL
local CQ_CONTEXT = 0xc0ffee
local WAIT_MS = 60000
local SERVER_LENS = { 8, 16, 24, 32, 40 }
local IWARP = os.getenv("VERBS_PROFILE") == "iwarp"
local RECV = IWARP and 0 or rv.IBV_WC_GRH
local WITH_IMM = IWARP and 0 or rv.IBV_WC_WITH_IMM
local SEND_IMM = IWARP and rv.IBV_WR_SEND or rv.IBV_WR_SEND_WITH_IMM
-- The immediate data a receive carries: none on iWARP.
local function imm(v) return IWARP and 0 or v end
local PARAM = { responder_resources = 1, initiator_depth = 1, retry_count = 7, rnr_retry_count = 7 }

local role, addr, port = arg[1], arg[2], arg[3]
if #arg ~= 3 or (role ~= "client" and role ~= "server") then
  io.stderr:write("usage: objects.lua client|server ADDR PORT\n")
  os.exit(2)
end

-- A failure (nil, message, errno) or a check that does not hold: raised,
-- caught at the end (every object is closed on the way out).
local function must(...)
  local r, message, errno = ...
  if r == nil then
    error({ message = message .. " (errno " .. tostring(errno) .. ")" }, 2)
  end
  return ...
end
local function check(ok, what)
  if not ok then error({ message = what }, 2) end
end

-- One completion, every field (as verbs.lua checks them).
local function completion(wc, wr_id, opcode, length, flags, imm, qp_num)
  local got = { tonumber(wc.wr_id), wc.status, wc.opcode, wc.byte_len, wc.wc_flags, rv.ntohl(wc.imm_data),
    wc.qp_num, wc.vendor_err, wc.src_qp, wc.pkey_index, wc.slid, wc.sl, wc.dlid_path_bits }
  local want = { wr_id, rv.IBV_WC_SUCCESS, opcode, length, flags, imm, qp_num, 0, 0, 0, 0, 0, 0 }
  for i = 1, IWARP and 8 or #want do
    if got[i] ~= want[i] then
      local g, w = {}, {}
      for j = 1, #want do
        g[j], w[j] = string.format("%#x", got[j]), string.format("%#x", want[j])
      end
      check(false, "completion " .. table.concat(g, " ") .. "; want " .. table.concat(w, " ") ..
        " (" .. rv.ibv_wc_status_str(wc.status) .. ")")
    end
  end
end

-- The objects of a side, on the id's context; the SRQ's eight receives
-- posted (slot i, wr_id 0x100 + i). s.all: what the side closes.
local function objects(ep, s)
  s.pd = must(rv.protection_domain(ep))
  s.cc = must(rv.completion_channel(ep))
  s.scq = must(rv.completion_queue(ep, { cqe = 16 }))
  s.rcq = must(rv.completion_queue(ep, { cqe = 16, channel = s.cc, context = ffi.cast("void *", CQ_CONTEXT) }))
  s.srq = must(rv.shared_receive_queue(s.pd, { max_wr = SLOTS, max_sge = 1 }))
  s.all = { s.srq, s.scq, s.rcq, s.cc, s.pd }
  must(ep:create_qp({ pd = s.pd, send_cq = s.scq, recv_cq = s.rcq, srq = s.srq,
    cap = { max_send_wr = 8, max_send_sge = 2 } }))
  local qp = ffi.cast("struct ibv_qp *", ep.qp)
  check(qp.send_cq == s.scq.ptr and qp.recv_cq == s.rcq.ptr and qp.srq == s.srq.ptr,
    "the id's QP is not on the CQs and the SRQ given")
  s.qp_num = ep.qp_num
  s.recv_mr = must(s.pd:reg(SLOTS * SLOT, rv.IBV_ACCESS_LOCAL_WRITE))
  s.send_mr = must(s.pd:reg(5 * SLOT, 0))
  s.atom_mr = must(s.pd:reg(ffi.new("uint64_t[3]"), 24,
    bit.bor(rv.IBV_ACCESS_LOCAL_WRITE, rv.IBV_ACCESS_REMOTE_READ,
      IWARP and rv.IBV_ACCESS_REMOTE_WRITE or rv.IBV_ACCESS_REMOTE_ATOMIC)))
  for _, mr in ipairs({ s.recv_mr, s.send_mr, s.atom_mr }) do table.insert(s.all, mr) end
  s.recv, s.send, s.atom = s.recv_mr.buf, s.send_mr.buf, ffi.cast("uint64_t *", s.atom_mr.buf)
  local wrs = {}
  for i = 0, SLOTS - 1 do
    wrs[i + 1] = { wr_id = 0x100 + i, sg = { s.recv_mr:sge(SLOT * i, SLOT) } }
  end
  must(s.srq:post_recv(wrs))
end

local function client(s)
  s.ch = must(rv.event_channel())
  local ep = must(s.ch:create_id())
  s.ep = ep
  must(ep:resolve(addr, port, WAIT_MS))
  objects(ep, s)
  must(s.rcq:req_notify(false))
  must(ep:connect(PARAM, WAIT_MS))
  -- The receive CQ's next event: its CQ and context checked, the CQ armed
  -- again (solicited_only), then up to 8 completions in one poll.
  local function next_event(solicited_only)
    local cq, context = must(s.cc:get_event(WAIT_MS))
    check(cq == s.rcq and ffi.cast("uintptr_t", context) == CQ_CONTEXT, "the event is not the receive CQ's")
    must(s.rcq:req_notify(solicited_only))
    return must(s.rcq:poll(8))
  end
  -- Steps 4 and 5: the next event (RoCE); on iWARP the n completions by the
  -- bounded wait (siw, Linux 6.1, signals no solicited completion).
  local function received(n)
    if IWARP then return must(s.rcq:next(n, WAIT_MS)) end
    return next_event(false)
  end
  -- 3. Four sends into the server's SRQ, two SGEs each.
  local function client_sends()
    local sends = {}
    for k = 0, 3 do
      for j = 0, SLOT - 1 do
        s.send[SLOT * k + j] = bit.band(0xc1 + 7 * k + j, 0xff)
      end
      sends[k + 1] = { wr_id = 0x300 + k, opcode = SEND_IMM, flags = rv.IBV_SEND_SIGNALED,
        imm = 0xc0de0000 + k, sg = { s.send_mr:sge(SLOT * k, 16), s.send_mr:sge(SLOT * k + 16, SLOT - 16) } }
    end
    must(ep:post_send(sends))
    local wc = must(s.scq:next(4, WAIT_MS))
    for k = 0, 3 do
      completion(wc[k + 1], 0x300 + k, rv.IBV_WC_SEND, SLOT, WITH_IMM, 0, s.qp_num)
    end
  end
  if IWARP then client_sends() end   -- the client speaks first
  -- 1. Keys.
  local wc = next_event(true)
  check(#wc == 1, "the keys' event: " .. #wc .. " completions")
  completion(wc[1], 0x100, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qp_num)
  local word, rkey = ffi.cast("uint64_t *", s.recv)[0], ffi.cast("uint32_t *", s.recv + 8)[0]
  check(ffi.cast("uint64_t *", s.recv + 16)[0] == INITIAL, "the word's value is not the initial one")
  -- 2. Atomics, one list. iWARP has none: a read of the word; then a write
  -- of SWAP and a read back, one list (a write completes as siw sends it:
  -- after a read in one list, its completion would come first).
  local atomics, opcodes = {}, nil
  if IWARP then
    s.atom[1] = SWAP
    local ops = { rv.IBV_WR_RDMA_READ, rv.IBV_WR_RDMA_WRITE, rv.IBV_WR_RDMA_READ }
    for k = 0, 2 do
      atomics[k + 1] = { wr_id = 0x700 + k, sg = { s.atom_mr:sge(8 * k, 8) }, flags = rv.IBV_SEND_SIGNALED,
        opcode = ops[k + 1], rdma = { remote_addr = word, rkey = rkey } }
    end
    opcodes = { rv.IBV_WC_RDMA_READ, rv.IBV_WC_RDMA_WRITE, rv.IBV_WC_RDMA_READ }
    must(ep:post_send({ atomics[1] }))
    wc = must(s.scq:next(1, WAIT_MS))
    must(ep:post_send({ atomics[2], atomics[3] }))
    local rest = must(s.scq:next(2, WAIT_MS))
    wc[2], wc[3] = rest[1], rest[2]
  else
    for k = 0, 2 do
      atomics[k + 1] = { wr_id = 0x700 + k, sg = { s.atom_mr:sge(8 * k, 8) }, flags = rv.IBV_SEND_SIGNALED,
        opcode = k > 0 and rv.IBV_WR_ATOMIC_CMP_AND_SWP or rv.IBV_WR_ATOMIC_FETCH_AND_ADD,
        atomic = { remote_addr = word, rkey = rkey, compare_add = k > 0 and INITIAL + ADD or ADD,
          swap = ({ 0ULL, SWAP, STALE_SWAP })[k + 1] } }
    end
    opcodes = { rv.IBV_WC_FETCH_ADD, rv.IBV_WC_COMP_SWAP, rv.IBV_WC_COMP_SWAP }
  end
  if not IWARP then
    must(ep:post_send(atomics))
    wc = must(s.scq:next(3, WAIT_MS))
  end
  for k = 0, 2 do
    completion(wc[k + 1], 0x700 + k, opcodes[k + 1], 8, 0, 0, s.qp_num)
  end
  check(s.atom[0] == INITIAL and s.atom[1] == (IWARP and SWAP or INITIAL + ADD) and s.atom[2] == SWAP,
    "the atomics' old values")
  if not IWARP then client_sends() end
  -- 4. Five at once, on the solicited event.
  wc = received(5)
  check(#wc == 5, "the solicited event: " .. #wc .. " completions in one poll, not 5")
  for k = 0, 4 do
    local length = SERVER_LENS[k + 1]
    completion(wc[k + 1], 0x101 + k, rv.IBV_WC_RECV, length, bit.bor(RECV, WITH_IMM), imm(0x5e4d0000 + k), s.qp_num)
    for j = 0, length - 1 do
      check(s.recv[SLOT * (1 + k) + j] == bit.band(0x51 + 7 * k + j, 0xff), "message " .. k .. ": its bytes differ")
    end
  end
  -- 5. DONE, and the server's DONE with the word's last value.
  ffi.fill(s.send, SLOT)
  ffi.copy(s.send, "DONE", 4)
  must(ep:post_send({ wr_id = 0x500, sg = { s.send_mr:sge(0, SLOT) }, flags = rv.IBV_SEND_SIGNALED }))
  completion(must(s.scq:next(1, WAIT_MS))[1], 0x500, rv.IBV_WC_SEND, SLOT, 0, 0, s.qp_num)
  wc = received(1)
  check(#wc == 1, "the DONE event: " .. #wc .. " completions")
  completion(wc[1], 0x106, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qp_num)
  check(ffi.string(s.recv + 6 * SLOT, 4) == "DONE" and ffi.cast("uint64_t *", s.recv + 6 * SLOT + 8)[0] == SWAP,
    "no DONE with the word's value")
  -- 6. Teardown.
  must(ep:disconnect(WAIT_MS))
  return "verbs: PASS role=client completions=15 bytes=248"
end

local function server(s)
  s.listener = must(rv.listen(addr, port))
  print("verbs: listening")
  io.stdout:flush()
  local ep = must(s.listener:get_request(WAIT_MS))
  s.ep = ep
  objects(ep, s)
  s.atom[0] = INITIAL
  must(ep:accept(PARAM, WAIT_MS))
  -- Sends of the send slots, { length, imm } each, the last with flags; their completions.
  local function sends(wr_id, list, last_flags)
    local wrs = {}
    for k, m in ipairs(list) do
      wrs[k] = { wr_id = wr_id + k - 1, sg = { s.send_mr:sge(SLOT * (k - 1), m.length) },
        opcode = m.imm and SEND_IMM or rv.IBV_WR_SEND, imm = m.imm,
        flags = bit.bor(rv.IBV_SEND_SIGNALED, k == #list and last_flags or 0) }
    end
    must(ep:post_send(wrs))
    local wc = must(s.scq:next(#list, WAIT_MS))
    for k, m in ipairs(list) do
      completion(wc[k], wr_id + k - 1, rv.IBV_WC_SEND, m.length, m.imm and WITH_IMM or 0, 0, s.qp_num)
    end
  end
  -- 1. Keys: the word's address, its rkey, its value (on iWARP after step
  -- 3: the client speaks first).
  local function keys()
    ffi.fill(s.send, SLOT)
    ffi.cast("uint64_t *", s.send)[0] = s.atom_mr.addr
    ffi.cast("uint32_t *", s.send + 8)[0] = s.atom_mr.rkey
    ffi.cast("uint64_t *", s.send + 16)[0] = INITIAL
    sends(0x200, { { length = SLOT } })
  end
  if not IWARP then keys() end
  -- 3. The client's four sends into the SRQ.
  local wc = must(s.rcq:next(4, WAIT_MS))
  for k = 0, 3 do
    completion(wc[k + 1], 0x100 + k, rv.IBV_WC_RECV, SLOT, bit.bor(RECV, WITH_IMM), imm(0xc0de0000 + k), s.qp_num)
    for j = 0, SLOT - 1 do
      check(s.recv[SLOT * k + j] == bit.band(0xc1 + 7 * k + j, 0xff), "message " .. k .. ": its bytes differ")
    end
  end
  if IWARP then
    keys()
    -- The client's write of SWAP into the word, before step 4: the five must
    -- not join the keys in its first poll (on RoCE its four sends come
    -- between).
    pcall(ffi.cdef, "int usleep(unsigned int usec);")
    local spins = 0
    while s.atom[0] ~= SWAP do
      spins = spins + 1
      check(spins < WAIT_MS, "the client's write of SWAP did not come within the wait")
      ffi.C.usleep(1000)
    end
  end
  -- 4. Five sends, the last solicited.
  local five = {}
  for k = 0, 4 do
    for j = 0, SERVER_LENS[k + 1] - 1 do
      s.send[SLOT * k + j] = bit.band(0x51 + 7 * k + j, 0xff)
    end
    five[k + 1] = { length = SERVER_LENS[k + 1], imm = 0x5e4d0000 + k }
  end
  sends(0x300, five, rv.IBV_SEND_SOLICITED)
  -- 5. DONE: the word is the compare-and-swap's; DONE and the word back.
  completion(must(s.rcq:next(1, WAIT_MS))[1], 0x104, rv.IBV_WC_RECV, SLOT, RECV, 0, s.qp_num)
  check(ffi.string(s.recv + 4 * SLOT, 4) == "DONE", "no DONE")
  check(s.atom[0] == SWAP, "the word is not the compare-and-swap's value")
  ffi.fill(s.send, SLOT)
  ffi.copy(s.send, "DONE", 4)
  ffi.cast("uint64_t *", s.send + 8)[0] = s.atom[0]
  sends(0x400, { { length = SLOT } })
  -- 6. Teardown, after the client's disconnect.
  must(ep:disconnected(WAIT_MS))
  return "verbs: PASS role=server completions=12 word=0x" .. bit.tohex(s.atom[0]):gsub("^0+(.)", "%1")
end

local s = {}
local ok, result = pcall(role == "client" and client or server, s)
-- Closed in any order (each C object once nothing depends on it).
for _, o in ipairs({ s.ep or false, s.ch or false, s.listener or false, unpack(s.all or {}) }) do
  if o then o:close() end
end
if not ok then
  io.stderr:write("verbs " .. role .. ": " .. (type(result) == "table" and result.message or tostring(result)) .. "\n")
  os.exit(1)
end
print(result)
