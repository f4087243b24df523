-- The work requests: laid out in C memory, posted, and held (their MRs) until
-- their completions are reaped.
local ffi = require("ffi")
local bit = require("bit")

local EBADF = 9

return function(ctx)
  local MR = ctx.MR
  local failure = ctx.failure
  local mr_native = ctx.mr_native
  local native = ctx.native
  local rv = ctx.rv

  -- ---- work requests held until their completions ----

  local function key(wr_id)
    return tostring(ffi.cast("uint64_t", wr_id))
  end
  -- The QPs whose completions a CQ reaps, by the CQ's address (its key),
  -- then by QP number (unique on one device only: two devices' QPs may
  -- share one): { [cq] = { [qp_num] = { send, recv, srq, send_cq, recv_cq } } }.
  local reaping = {}
  local function cqs_of_qp(q)
    local t = {}
    for _, cq in ipairs({ q.send_cq, q.recv_cq }) do
      if cq ~= nil then t[key(ffi.cast("uintptr_t", cq))] = true end
    end
    return t
  end
  local function release(hold)
    for _, m in ipairs(hold.mrs) do
      m:drop()
    end
  end
  -- Releases a queue's holds up to the one of k (RC completes a queue's
  -- requests in order; an unsignaled one with the next signaled).
  local function release_up_to(queue, k)
    for i, h in ipairs(queue) do
      if h.key == k then
        for _ = 1, i do
          release(table.remove(queue, 1))
        end
        return
      end
    end
  end
  -- A completion cq gave: the holds it releases, those of the QP of its
  -- number among qs, the QPs whose send or receive CQ cq is (reaping's,
  -- looked up once a poll).
  local function reaped(cq, qs, wc)
    local q = qs[tonumber(wc.qp_num)]
    if not q then
      return
    end
    local k, recv = key(wc.wr_id), nil
    if wc.status == rv.IBV_WC_SUCCESS then
      recv = bit.band(wc.opcode, rv.IBV_WC_RECV) ~= 0
    elseif q.send_cq ~= q.recv_cq then
      recv = cq == q.recv_cq
    else   -- an error's opcode is undefined
      recv = true
      for _, h in ipairs(q.send) do
        if h.key == k then recv = false end
      end
    end
    if not recv then
      release_up_to(q.send, k)
    elseif q.srq then
      local held = q.srq[k]
      if held and #held > 0 then
        release(table.remove(held, 1))
        if #held == 0 then q.srq[k] = nil end
      end
    else
      release_up_to(q.recv, k)
    end
  end

  -- An SGE: an MR (all of it) or { mr, offset, length } (mr:sge()).
  local function sge(s, fn)
    local region = getmetatable(s) == MR and s or s.mr
    if getmetatable(region) ~= MR then
      error(fn .. ": an SGE is an MR or {mr = ..., offset = ..., length = ...}", 4)
    end
    local n = mr_native[region]
    if not n:check(fn) then
      return nil, n
    end
    local offset = region == s and 0 or s.offset or 0
    local length = (region == s or s.length == nil) and region.length - offset or s.length
    if offset < 0 or length < 0 or offset + length > region.length then
      error(string.format("%s: SGE [%d, %d) outside the MR's %d bytes", fn, offset, offset + length, region.length), 4)
    end
    return { addr = region.addr + offset, length = length, lkey = region.lkey }, n
  end

  local function send_wr(w, wr)
    wr.opcode = w.opcode or rv.IBV_WR_SEND
    wr.send_flags = w.flags or 0
    wr.imm_data = w.imm and bit.bswap(w.imm) % 0x100000000 or 0
    if w.rdma then
      wr.wr.rdma.remote_addr, wr.wr.rdma.rkey = w.rdma.remote_addr, w.rdma.rkey
    elseif w.atomic then
      local a = w.atomic
      wr.wr.atomic.remote_addr, wr.wr.atomic.rkey = a.remote_addr, a.rkey
      wr.wr.atomic.compare_add, wr.wr.atomic.swap = a.compare_add or 0, a.swap or 0
    elseif w.ud then
      wr.wr.ud.ah, wr.wr.ud.remote_qpn, wr.wr.ud.remote_qkey = w.ud.ah, w.ud.remote_qpn, w.ud.remote_qkey
    end
    return bit.band(wr.send_flags, rv.IBV_SEND_SIGNALED) ~= 0
  end

  -- Lays out a work request or a list of them (tables with wr_id and sg),
  -- posts them with post(first, bad) (an errno value), keeps the holds of
  -- those posted (keep(hold)): true, or nil, message, errno with the index
  -- of the first not posted (0-based) fourth.
  local function posted(fn, list, struct, fill, post, keep)
    if list.wr_id ~= nil or list.sg ~= nil then
      list = { list }
    end
    local n = #list
    if n == 0 then
      error(fn .. ": no work request", 3)
    end
    local wrs = rv.new(struct, n)
    local sgs, total = {}, 0
    for i, w in ipairs(list) do
      sgs[i] = {}
      for j, s in ipairs(w.sg or {}) do
        local c, native = sge(s, fn)
        if not c then
          return failure(fn, EBADF)
        end
        sgs[i][j] = { c = c, native = native }
        total = total + 1
      end
    end
    local sges = rv.new("ibv_sge", math.max(total, 1))
    local holds, at = {}, 0
    for i, w in ipairs(list) do
      local wr = wrs[i - 1]
      wr.wr_id = w.wr_id or 0
      wr.next = i < n and wrs + i or nil
      wr.sg_list = #sgs[i] > 0 and sges + at or nil
      wr.num_sge = #sgs[i]
      local mrs = {}
      for _, s in ipairs(sgs[i]) do
        sges[at].addr, sges[at].length, sges[at].lkey = s.c.addr, s.c.length, s.c.lkey
        at = at + 1
        mrs[#mrs + 1] = s.native
        s.native.refs = s.native.refs + 1
      end
      local signaled = fill(w, wr)
      holds[i] = { key = key(wr.wr_id), signaled = signaled ~= false, mrs = mrs }
    end
    local bad = ffi.new("void *[1]")
    local r = post(wrs, bad)
    local first_bad = n
    if r ~= 0 then
      first_bad = bad[0] == nil and 0 or
        tonumber((ffi.cast("uintptr_t", bad[0]) - ffi.cast("uintptr_t", wrs)) / ffi.sizeof("struct " .. struct))
    end
    for i, h in ipairs(holds) do
      if i <= first_bad then keep(h) else release(h) end
    end
    if r ~= 0 then
      local _, message, errno = failure(fn, r)
      return nil, message, errno, first_bad
    end
    return true
  end

  ctx.key = key
  ctx.reaping = reaping
  ctx.cqs_of_qp = cqs_of_qp
  ctx.release = release
  ctx.release_up_to = release_up_to
  ctx.reaped = reaped
  ctx.sge = sge
  ctx.send_wr = send_wr
  ctx.posted = posted
end
