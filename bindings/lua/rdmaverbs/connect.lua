-- The short ways: rv.endpoint, rv.connect, rv.listen, a listener's
-- accept_next and requests; rv.htonl.
local ffi = require("ffi")
local bit = require("bit")

return function(ctx)
  local Endpoint = ctx.Endpoint
  local O = ctx.O
  local client

  --- An RC endpoint for host:port, not connected yet: its own event
  --- channel, the address and route resolved, ep:setup(opts) (a PD, a
  --- completion channel, a send and a receive CQ, the QP: every send
  --- signaled unless opts.sq_sig_all is false), each wait bounded by
  --- opts.timeout (ms). Post its receives, then ep:connect().
  function O.endpoint(host, port, opts)
    return client(host, port, opts or {}, false)
  end

  --- An RC endpoint connected to host:port: rv.endpoint(), then
  --- rdma_connect (opts.param), each wait bounded by opts.timeout (ms).
  function O.connect(host, port, opts)
    return client(host, port, opts or {}, true)
  end

  function client(host, port, opts, connect)
    local ch, m, e = O.event_channel()
    if not ch then
      return nil, m, e
    end
    local ep
    ep, m, e = ch:create_id()
    if not ep then
      ch:close()
      return nil, m, e
    end
    ep._owned[1] = ch
    local ok
    ok, m, e = ep:resolve(host, port, opts.timeout)
    if ok then ok, m, e = ep:setup(opts) end
    if ok and connect then ok, m, e = ep:connect(opts.param, opts.timeout) end
    if not ok then
      ep:close()
      return nil, m, e
    end
    return ep
  end

  --- An endpoint listening on host:port on its own event channel: take
  --- requests with :get_request(), or :accept_next(opts) one whole.
  function O.listen(host, port, backlog)
    local ch, m, e = O.event_channel()
    if not ch then
      return nil, m, e
    end
    local ep
    ep, m, e = ch:create_id()
    if not ep then
      ch:close()
      return nil, m, e
    end
    ep._owned[1] = ch
    local ok
    ok, m, e = ep:listen(host, port, backlog)
    if not ok then
      ep:close()
      return nil, m, e
    end
    return ep
  end

  --- A listener's next connection, set up (setup's opts) and accepted.
  function Endpoint:accept_next(opts)
    opts = opts or {}
    local ep, m, e = self:get_request(opts.timeout)
    if not ep then
      return nil, m, e
    end
    local ok
    ok, m, e = ep:setup(opts)
    if ok then ok, m, e = ep:accept(opts.param, opts.timeout) end
    if not ok then
      ep:close()
      return nil, m, e
    end
    return ep
  end

  --- A listener's connection requests, for a generic for: each an
  --- endpoint set up (setup's opts; opts.timeout bounds each wait), not
  --- accepted yet (post its receives, then ep:accept()); the loop ends
  --- when the listener is closed, and a failure raises its message.
  function Endpoint:requests(opts)
    opts = opts or {}
    return function()
      if self:closed() then
        return nil
      end
      local ep, m, e = self:get_request(opts.timeout)
      if not ep then
        if self:closed() then
          return nil
        end
        error(m .. " (errno " .. tostring(e) .. ")", 2)
      end
      local ok
      ok, m, e = ep:setup(opts)
      if not ok then
        ep:close()
        error(m .. " (errno " .. tostring(e) .. ")", 2)
      end
      return ep
    end
  end

  --- A 32-bit value's bytes swapped: host to network order and back
  --- (rv.ntohl), for imm_data.
  function O.htonl(v)
    return bit.bswap(v) % 0x100000000
  end
  O.ntohl = O.htonl

end
