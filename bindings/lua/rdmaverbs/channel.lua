-- The channels: an rdma_cm event channel (its ids' events, each routed to its
-- id) and a completion channel (its CQs' events).
local ffi = require("ffi")

local EAGAIN, EBADF, ETIMEDOUT = 11, 9, 110

return function(ctx)
  local O = ctx.O
  local class = ctx.class
  local context_of = ctx.context_of
  local deadline = ctx.deadline
  local failure = ctx.failure
  local key = ctx.key
  local left = ctx.left
  local native = ctx.native
  local nonblocking = ctx.nonblocking
  local object = ctx.object
  local wait_readable = ctx.wait_readable
  local rv = ctx.rv

  -- ---- the objects ----

  local EventChannel = class("EventChannel")

  --- An rdma_cm event channel (rdma_create_event_channel), its fd non-blocking.
  function O.event_channel()
    local ptr, message, errno = rv.rdma_create_event_channel()
    if not ptr then
      return nil, message, errno
    end
    local ch = object(EventChannel, { native("EventChannel", ptr, rv.rdma_destroy_event_channel) }, true)
    ch.ptr, ch.fd = ptr, ffi.cast("struct rdma_event_channel *", ptr).fd
    -- The ids it knows (its endpoints', and those of connection requests
    -- read, not yet taken) and, by id, their events read but not yet asked
    -- for: each queue dropped when its id is destroyed.
    ch._cm = { known = {}, queued = {} }
    local ok, m, e = nonblocking(ch.fd, "rdma_create_event_channel")
    if not ok then
      ch:close()
      return nil, m, e
    end
    return ch
  end

  -- An id destroyed: its queued events dropped (each acked when read); the
  -- connection requests among them (it listened) refused.
  local refuse
  local function forget_id(cm, k)
    cm.known[k] = nil
    local q = cm.queued[k] or {}
    cm.queued[k] = nil
    for _, ev in ipairs(q) do
      if ev.event == rv.RDMA_CM_EVENT_CONNECT_REQUEST then refuse(cm, ev.id) end
    end
  end
  -- A connection request's new id that no one takes: destroyed (the peer's
  -- CM gets a reject), its events dropped. A failure has no one to go to.
  function refuse(cm, id)
    forget_id(cm, key(ffi.cast("uintptr_t", id)))
    rv.rdma_destroy_id(id)
  end

  --- A new id on this channel (rdma_create_id; ps RDMA_PS_TCP by default).
  function EventChannel:create_id(ps)
    local ok, m, e = self._natives[1]:check("rdma_create_id")
    if not ok then
      return nil, m, e
    end
    local out = ffi.new("void *[1]")
    ok, m, e = rv.rdma_create_id(self.ptr, out, nil, ps or rv.RDMA_PS_TCP)
    if not ok then
      return nil, m, e
    end
    return ctx.endpoint(self, out[0])
  end

  -- The next event for k (an id's key; a listener's for its requests),
  -- read without blocking and acked: { event, name, status, id, listen_id };
  -- false if none is there yet. The events of the other ids it knows wait
  -- in their queues; those of an id it does not know (destroyed, or made
  -- with the raw functions) are dropped, and a connection request for a
  -- listener it does not know has its new id destroyed.
  function EventChannel:_take(k)
    local cm = self._cm
    local q = cm.queued[k]
    if q and #q > 0 then
      return table.remove(q, 1)
    end
    local ok, m, e = self._natives[1]:check("rdma_get_cm_event")
    if not ok then
      return nil, m, e
    end
    if not cm.known[k] then   -- its id destroyed
      return failure("rdma_get_cm_event", EBADF, "the Endpoint is closed")
    end
    while true do
      local out = ffi.new("void *[1]")
      if rv.raw.rdma_get_cm_event(self.ptr, out) ~= 0 then
        local errno = ffi.errno()
        if errno == EAGAIN then
          return false
        end
        return failure("rdma_get_cm_event", errno)
      end
      local ev = ffi.cast("struct rdma_cm_event *", out[0])
      local got = { event = ev.event, name = rv.rdma_event_str(ev.event), status = ev.status, id = ev.id,
        listen_id = ev.listen_id }
      rv.rdma_ack_cm_event(out[0])
      local request = got.event == rv.RDMA_CM_EVENT_CONNECT_REQUEST
      local to = key(ffi.cast("uintptr_t", request and got.listen_id or got.id))
      if not cm.known[to] then
        if request then refuse(cm, got.id) end
      else
        if request then   -- its events queued until it is taken
          cm.known[key(ffi.cast("uintptr_t", got.id))] = true
        end
        if to == k then
          return got
        end
        cm.queued[to] = cm.queued[to] or {}
        table.insert(cm.queued[to], got)
      end
    end
  end

  -- The next event for k (owner: its id's native, whose close ends the wait).
  function EventChannel:_event(k, timeout_ms, owner)
    local at = deadline(timeout_ms)
    local owners = { self._natives[1], owner }
    while true do
      if owner then
        local ok, om, oe = owner:check("rdma_get_cm_event")
        if not ok then
          return nil, om, oe
        end
      end
      local ev, m, e = self:_take(k)
      if ev then
        return ev
      elseif ev == nil then
        return nil, m, e
      end
      local ok
      ok, m, e = wait_readable(self.fd, left(at), "rdma_get_cm_event", owners)
      if ok == nil then
        return nil, m, e
      elseif not ok then
        return failure("rdma_get_cm_event", ETIMEDOUT)
      end
    end
  end

  local CC = class("CompletionChannel")
  local cqs_of = setmetatable({}, { __mode = "k" })   -- channel -> { [cq address] = cq } (weak values)

  --- ibv_create_comp_channel on a context (or an endpoint's: its id then
  --- destroyed after the channel), its fd non-blocking.
  function O.completion_channel(context)
    local ctx, m, e = context_of(context)
    if not ctx then
      return nil, m, e
    end
    local id = m
    local ptr
    ptr, m, e = rv.ibv_create_comp_channel(ctx)
    if not ptr then
      return nil, m, e
    end
    local cc = object(CC, { native("CompletionChannel", ptr, rv.ibv_destroy_comp_channel, id) }, true)
    cc.ptr, cc.fd = ptr, ffi.cast("struct ibv_comp_channel *", ptr).fd
    cqs_of[cc] = setmetatable({}, { __mode = "v" })
    local ok
    ok, m, e = nonblocking(cc.fd, "ibv_create_comp_channel")
    if not ok then
      cc:close()
      return nil, m, e
    end
    return cc
  end

  -- The next event if there is one (false if not): the CQ (the object, or
  -- its pointer), its cq_context; acked.
  function CC:_take()
    local ch, m, e = self._natives[1]:check("ibv_get_cq_event")
    if not ch then
      return nil, m, e
    end
    local cq, context = ffi.new("void *[1]"), ffi.new("void *[1]")
    if rv.raw.ibv_get_cq_event(ch, cq, context) ~= 0 then
      local errno = ffi.errno()
      if errno == EAGAIN then
        return false
      end
      return failure("ibv_get_cq_event", errno)
    end
    rv.ibv_ack_cq_events(cq[0], 1)
    local found = cqs_of[self][key(ffi.cast("uintptr_t", cq[0]))]
    if found then
      found._evented = true
    end
    return found or cq[0], context[0]
  end

  --- The next completion event (ibv_get_cq_event), already acknowledged:
  --- the CompletionQueue and its cq_context. Arm the CQ again
  --- (cq:req_notify()), then poll it.
  function CC:get_event(timeout_ms)
    local at = deadline(timeout_ms)
    while true do
      local cq, context, e = self:_take()
      if cq then
        return cq, context
      elseif cq == nil then
        return nil, context, e
      end
      local ok, m
      ok, m, e = wait_readable(self.fd, left(at), "ibv_get_cq_event", self._natives)
      if ok == nil then
        return nil, m, e
      elseif not ok then
        return failure("ibv_get_cq_event", ETIMEDOUT)
      end
    end
  end

  ctx.EventChannel = EventChannel
  ctx.refuse = refuse
  ctx.forget_id = forget_id
  ctx.CC = CC
  ctx.cqs_of = cqs_of
end
