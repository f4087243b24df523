-- The endpoint: an rdma_cm id; its connection set-up, each event awaited.
local ffi = require("ffi")

local EBADF, ECONNREFUSED, ECONNRESET, EHOSTUNREACH, EPROTO = 9, 111, 104, 113, 71

return function(ctx)
  local class = ctx.class
  local failure = ctx.failure
  local forget_id = ctx.forget_id
  local key = ctx.key
  local native = ctx.native
  local object = ctx.object
  local refuse = ctx.refuse
  local rv = ctx.rv

  local Endpoint = class("Endpoint")

  local function endpoint(channel, id, adopted)
    local idn = native("Endpoint", id, not adopted and rv.rdma_destroy_id or nil, channel and channel._natives[1])
    local ep = object(Endpoint, { idn }, not adopted)
    ep.id, ep.channel, ep._id, ep._owned, ep._mrs = id, channel, idn, {}, {}
    local k = key(ffi.cast("uintptr_t", id))
    ep._key = k
    if channel then   -- known to its channel until destroyed
      local cm = channel._cm
      cm.known[k] = true
      table.insert(idn.on_destroy, function() forget_id(cm, k) end)
    end
    return ep
  end

  -- The errno an rdma_cm event stands for: its status if negative, else by
  -- event: REJECTED ECONNREFUSED; UNREACHABLE, ADDR_ERROR, ROUTE_ERROR
  -- EHOSTUNREACH; CONNECT_ERROR ECONNRESET; any other EPROTO (as the other
  -- bindings give).
  local function cm_errno(ev)
    if ev.status < 0 then
      return -ev.status
    elseif ev.event == rv.RDMA_CM_EVENT_REJECTED then
      return ECONNREFUSED
    elseif ev.event == rv.RDMA_CM_EVENT_UNREACHABLE or ev.event == rv.RDMA_CM_EVENT_ADDR_ERROR or
        ev.event == rv.RDMA_CM_EVENT_ROUTE_ERROR then
      return EHOSTUNREACH
    elseif ev.event == rv.RDMA_CM_EVENT_CONNECT_ERROR then
      return ECONNRESET
    end
    return EPROTO
  end

  -- The endpoint's next event, of the type wanted, status 0; else nil, a
  -- message (fn, the call it answers, the errno, the event's name and
  -- status) and the event's errno (cm_errno).
  function Endpoint:_wait(want, timeout_ms, fn)
    fn = fn or "rdma_get_cm_event"
    if not self.channel then
      return failure(fn, EBADF, "an adopted endpoint has no event channel")
    end
    local ev, m, e = self.channel:_event(self._key, timeout_ms, self._id)
    if not ev then
      return nil, m, e
    end
    if ev.event ~= want or ev.status ~= 0 then
      if ev.event == rv.RDMA_CM_EVENT_CONNECT_REQUEST then
        refuse(self.channel._cm, ev.id)   -- no endpoint made of it
      end
      return failure(fn, cm_errno(ev), string.format("event %s (status %d), not %s", ev.name, ev.status,
        rv.rdma_event_str(want)))
    end
    return ev
  end

  local function addrinfo(host, port, passive)
    local hints = rv.new("rdma_addrinfo")
    hints.ai_port_space, hints.ai_flags = rv.RDMA_PS_TCP, passive and rv.RAI_PASSIVE or 0
    local res = ffi.new("void *[1]")
    local ok, m, e = rv.rdma_getaddrinfo(tostring(host), tostring(port), hints, res)
    if not ok then
      return nil, m, e
    end
    return res[0]
  end

  --- Resolves host:port's address and route (rdma_resolve_addr,
  --- rdma_resolve_route, each event awaited): the endpoint.
  function Endpoint:resolve(host, port, timeout_ms)
    local id, m, e = self._id:check("rdma_resolve_addr")
    if not id then
      return nil, m, e
    end
    local res
    res, m, e = addrinfo(host, port, false)
    if not res then
      return nil, m, e
    end
    local ms = math.max(1, math.min(timeout_ms or 2000, 0x7fffffff))
    local ok
    ok, m, e = rv.rdma_resolve_addr(id, nil, ffi.cast("struct rdma_addrinfo *", res).ai_dst_addr, ms)
    rv.rdma_freeaddrinfo(res)
    if ok then ok, m, e = self:_wait(rv.RDMA_CM_EVENT_ADDR_RESOLVED, timeout_ms, "rdma_resolve_addr") end
    if ok then ok, m, e = rv.rdma_resolve_route(id, ms) end
    if ok then ok, m, e = self:_wait(rv.RDMA_CM_EVENT_ROUTE_RESOLVED, timeout_ms, "rdma_resolve_route") end
    if not ok then
      return nil, m, e
    end
    return self
  end

  --- Binds to host:port and listens (rdma_bind_addr, rdma_listen).
  function Endpoint:listen(host, port, backlog)
    local id, m, e = self._id:check("rdma_bind_addr")
    if not id then
      return nil, m, e
    end
    local res
    res, m, e = addrinfo(host, port, true)
    if not res then
      return nil, m, e
    end
    local ok
    ok, m, e = rv.rdma_bind_addr(id, ffi.cast("struct rdma_addrinfo *", res).ai_src_addr)
    rv.rdma_freeaddrinfo(res)
    if ok then ok, m, e = rv.rdma_listen(id, backlog or 1) end
    if not ok then
      return nil, m, e
    end
    return self
  end

  --- A listener's next connection request: a new endpoint (no QP yet).
  function Endpoint:get_request(timeout_ms)
    local ok, m, e = self._id:check("rdma_get_cm_event")
    if not ok then
      return nil, m, e
    end
    local ev
    ev, m, e = self:_wait(rv.RDMA_CM_EVENT_CONNECT_REQUEST, timeout_ms)
    if not ev then
      return nil, m, e
    end
    return endpoint(self.channel, ev.id)
  end

  local function conn_param(p)
    local param = rv.new("rdma_conn_param")
    param.responder_resources, param.initiator_depth, param.retry_count, param.rnr_retry_count = 1, 1, 7, 7
    for k, v in pairs(p or {}) do
      param[k] = v
    end
    return param
  end

  function Endpoint:_connect(fn, param, timeout_ms)
    local id, m, e = self._id:check(fn)
    if not id then
      return nil, m, e
    end
    local ok
    ok, m, e = rv[fn](id, conn_param(param))
    if ok then ok, m, e = self:_wait(rv.RDMA_CM_EVENT_ESTABLISHED, timeout_ms, fn) end
    if not ok then
      return nil, m, e
    end
    return self
  end

  --- rdma_connect (param: struct rdma_conn_param's fields; responder_resources
  --- and initiator_depth 1, retry_count and rnr_retry_count 7 unless given), then ESTABLISHED.
  function Endpoint:connect(param, timeout_ms)
    return self:_connect("rdma_connect", param, timeout_ms)
  end

  --- rdma_accept (param as connect's), then ESTABLISHED.
  function Endpoint:accept(param, timeout_ms)
    return self:_connect("rdma_accept", param, timeout_ms)
  end

  --- rdma_disconnect, then DISCONNECTED.
  function Endpoint:disconnect(timeout_ms)
    local id, m, e = self._id:check("rdma_disconnect")
    if not id then
      return nil, m, e
    end
    local ok
    ok, m, e = rv.rdma_disconnect(id)
    if ok then ok, m, e = self:_wait(rv.RDMA_CM_EVENT_DISCONNECTED, timeout_ms, "rdma_disconnect") end
    if not ok then
      return nil, m, e
    end
    return true
  end

  --- Waits for DISCONNECTED (the peer's rdma_disconnect).
  function Endpoint:disconnected(timeout_ms)
    local ok, m, e = self:_wait(rv.RDMA_CM_EVENT_DISCONNECTED, timeout_ms)
    if not ok then
      return nil, m, e
    end
    return true
  end

  ctx.Endpoint = Endpoint
  ctx.endpoint = endpoint
  ctx.addrinfo = addrinfo
end
