-- A recording stand-in of the C calls the objects make and destroy with
-- (test/objects.lua, test/coroutines.lua): rv._objects over it, each made
-- object C memory of the struct the objects read, each call logged.
local rv = require("rdmaverbs")
local ffi = rv.ffi

local function address(p)
  return ffi.cast("uint64_t", ffi.cast("uintptr_t", p))
end

ffi.cdef("int eventfd(unsigned int initval, int flags); int close(int fd); long read(int fd, void *buf, unsigned long n);")
local function stand_in()
  local mem, log, fail_next, completions = {}, {}, {}, {}
  local next_key = 0x100
  -- What the test sets: the qp_num of the QPs made (if not nil), the
  -- address of the next id made (if not nil), the rdma_cm events to come.
  local control = { cm_events = {}, calls = {}, qp_attrs = {} }
  local fds = {}
  local cq_of = {}   -- a completion channel's address -> the CQ its events name, its context
  local function make(kind, struct)
    local s = struct and rv.new(struct) or ffi.new("uint8_t[64]")
    local p = ffi.cast("void *", s)
    mem[#mem + 1] = s
    log[#log + 1] = { "make", kind, tostring(address(p)) }
    return p, s
  end
  local function maybe_fail(name)
    local errno = fail_next[name]
    if errno then
      fail_next[name] = nil
      return nil, name .. ": " .. rv.errno_text(errno), errno
    end
    return true
  end
  -- A destroy: logged, unless fail_next[name] makes it fail (then nothing done).
  local function gone(kind, name)
    return function(p)
      if name then
        local ok, m, e = maybe_fail(name)
        if not ok then return nil, m, e end
      end
      log[#log + 1] = { "destroy", kind, tostring(address(p)) }
      return 0
    end
  end
  local fake = {
    rdma_create_event_channel = function()
      local p, s = make("EventChannel", "rdma_event_channel")
      s.fd = ffi.C.eventfd(0, 0)
      fds[#fds + 1] = s.fd
      return p
    end,
    rdma_destroy_event_channel = gone("EventChannel"),
    rdma_create_id = function(_, out)
      local ok, m, e = maybe_fail("rdma_create_id")
      if not ok then return nil, m, e end
      local p, s
      if control.id_at then
        p, s = control.id_at, ffi.cast("struct rdma_cm_id *", control.id_at)
        log[#log + 1] = { "make", "Endpoint", tostring(address(p)) }
        control.id_at = nil
      else
        p, s = make("Endpoint", "rdma_cm_id")
      end
      s.verbs = ffi.cast("void *", 0xc0)
      out[0] = p
      return 0
    end,
    rdma_destroy_id = gone("Endpoint"),
    ibv_alloc_pd = function() return (make("ProtectionDomain")) end,
    ibv_dealloc_pd = gone("ProtectionDomain"),
    ibv_reg_mr_iova2 = function(pd, _, length, iova)
      local p, s = make("MemoryRegion", "ibv_mr")
      s.pd, s.addr, s.length, s.lkey = pd, ffi.cast("void *", iova), length, next_key
      next_key = next_key + 1
      return p
    end,
    ibv_dereg_mr = gone("MemoryRegion", "ibv_dereg_mr"),
    ibv_create_comp_channel = function()
      local p, s = make("CompletionChannel", "ibv_comp_channel")
      s.fd = ffi.C.eventfd(0, 0)
      fds[#fds + 1] = s.fd
      return p
    end,
    ibv_destroy_comp_channel = gone("CompletionChannel"),
    ibv_create_cq = function(_, _, context, channel)
      local ok, m, e = maybe_fail("ibv_create_cq")
      if not ok then return nil, m, e end
      local p = make("CompletionQueue")
      if channel ~= nil then cq_of[tostring(address(channel))] = { p, context } end
      return p
    end,
    ibv_req_notify_cq = function() return 0 end,
    ibv_ack_cq_events = function() end,
    ibv_destroy_cq = gone("CompletionQueue"),
    ibv_create_srq = function() return (make("SharedReceiveQueue")) end,
    ibv_destroy_srq = gone("SharedReceiveQueue"),
    rdma_create_qp = function(id, pd, attr)
      control.qp_attrs[#control.qp_attrs + 1] = attr.sq_sig_all
      local p, s = make("QP", "ibv_qp")
      s.pd, s.send_cq, s.recv_cq, s.srq, s.qp_num = pd, attr.send_cq, attr.recv_cq, attr.srq, control.qp_num or next_key
      next_key = next_key + 1
      ffi.cast("struct rdma_cm_id *", id).qp = p
      return 0
    end,
    rdma_destroy_qp = function(id)
      log[#log + 1] = { "destroy", "QP", tostring(address(ffi.cast("struct rdma_cm_id *", id).qp)) }
    end,
    ibv_poll_cq = function(_, n, wc)
      local got = 0
      while got < n and #completions > 0 do
        local c = table.remove(completions, 1)
        for k, v in pairs(c) do wc[got][k] = v end
        got = got + 1
      end
      return got
    end,
    rdma_ack_cm_event = function() return 0 end,
    -- The connection's calls, logged in control.calls ({ name, id }); an
    -- address of getaddrinfo's: C memory of a struct rdma_addrinfo.
    rdma_getaddrinfo = function(_, _, _, out)
      local s = rv.new("rdma_addrinfo")
      mem[#mem + 1] = s
      out[0] = s
      return 0
    end,
    rdma_freeaddrinfo = function() end,
    raw = setmetatable({ ibv_post_send = function() return 0 end, ibv_post_recv = function() return 0 end,
      ibv_post_srq_recv = function() return 0 end,
      -- An event: 8 bytes of the channel's eventfd (none: -1, EAGAIN, as its
      -- non-blocking read leaves it), naming the channel's CQ.
      ibv_get_cq_event = function(channel, cq, context)
        if ffi.C.read(ffi.cast("struct ibv_comp_channel *", channel).fd, ffi.new("uint8_t[8]"), 8) ~= 8 then
          return -1
        end
        local c = cq_of[tostring(address(channel))]
        cq[0], context[0] = c[1], c[2]
        return 0
      end,
      -- The next of control.cm_events ({ id, listen_id, event, status }), in
      -- C memory; none: -1, EAGAIN (the non-blocking read of the channel's
      -- eventfd, never written, leaves it).
      rdma_get_cm_event = function(channel, out)
        if #control.cm_events == 0 then
          ffi.C.read(ffi.cast("struct rdma_event_channel *", channel).fd, ffi.new("uint8_t[8]"), 8)
          return -1
        end
        local e = table.remove(control.cm_events, 1)
        local ev = rv.new("rdma_cm_event")
        ev.id, ev.listen_id, ev.event, ev.status = e.id, e.listen_id, e.event, e.status or 0
        mem[#mem + 1] = ev
        out[0] = ev
        return 0
      end }, { __index = rv.raw }),
  }
  for _, name in ipairs({ "rdma_resolve_addr", "rdma_resolve_route", "rdma_connect", "rdma_accept", "rdma_bind_addr",
                          "rdma_listen", "rdma_disconnect" }) do
    fake[name] = function(id)
      control.calls[#control.calls + 1] = { name, id }
      return 0
    end
  end
  fake.raw.ibv_post_recv = function(qp)
    control.calls[#control.calls + 1] = { "ibv_post_recv", qp }
    return 0
  end
  local o = rv._objects(setmetatable(fake, { __index = rv }))
  local function done()
    for _, fd in ipairs(fds) do ffi.C.close(fd) end
  end
  -- C memory for an id the objects do not make (an id of no one): its address.
  local function memory(struct)
    local s = rv.new(struct)
    mem[#mem + 1] = s
    return ffi.cast("void *", s)
  end
  return o, log, fail_next, completions, done, { control = control, make = make, memory = memory }
end

return stand_in
