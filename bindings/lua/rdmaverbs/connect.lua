-- The short ways: rv.connect, rv.listen, a listener's accept_next; rv.htonl.
local ffi = require("ffi")
local bit = require("bit")

return function(ctx)
  local Endpoint = ctx.Endpoint
  local O = ctx.O

  --- An RC endpoint connected to host:port: its own event channel, the
  --- address and route resolved, ep:setup(opts), rdma_connect
  --- (opts.param), each wait bounded by opts.timeout (ms).
  function O.connect(host, port, opts)
    opts = opts or {}
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
    if ok then ok, m, e = ep:connect(opts.param, opts.timeout) end
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

  function O.htonl(v)
    return bit.bswap(v) % 0x100000000
  end
  O.ntohl = O.htonl

end
