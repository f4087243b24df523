-- The endpoint: an rdma_cm id; its connection set-up, each event awaited.
local ffi = require("ffi")

local EBADF = 9

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

  -- The endpoint's next event, of the type wanted, status 0; else nil, a
  -- message (the event's name and status) and the status's errno if it is
  -- one (EPROTO if not).
  function Endpoint:_wait(want, timeout_ms)
    if not self.channel then
      return failure(rv.rdma_event_str(want), EBADF)
    end
    local ev, m, e = self.channel:_event(self._key, timeout_ms, self._id)
    if not ev then
      return nil, m, e
    end
    if ev.event ~= want or ev.status ~= 0 then
      if ev.event == rv.RDMA_CM_EVENT_CONNECT_REQUEST then
        refuse(self.channel._cm, ev.id)   -- no endpoint made of it
      end
      return nil, string.format("%s (status %d), not %s", ev.name, ev.status, rv.rdma_event_str(want)),
        ev.status < 0 and -ev.status or 71
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
    if ok then ok, m, e = self:_wait(rv.RDMA_CM_EVENT_ADDR_RESOLVED, timeout_ms) end
    if ok then ok, m, e = rv.rdma_resolve_route(id, ms) end
    if ok then ok, m, e = self:_wait(rv.RDMA_CM_EVENT_ROUTE_RESOLVED, timeout_ms) end
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
    if ok then ok, m, e = self:_wait(rv.RDMA_CM_EVENT_ESTABLISHED, timeout_ms) end
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
    if ok then ok, m, e = self:_wait(rv.RDMA_CM_EVENT_DISCONNECTED, timeout_ms) end
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
