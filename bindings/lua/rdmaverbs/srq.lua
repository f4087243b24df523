-- Shared receive queues.
local ffi = require("ffi")

return function(ctx)
  local O = ctx.O
  local class = ctx.class
  local native = ctx.native
  local object = ctx.object
  local posted = ctx.posted
  local release = ctx.release
  local rv = ctx.rv

  local SRQ = class("SharedReceiveQueue")

  --- ibv_create_srq on pd: opts.max_wr (16) receives of opts.max_sge (1) SGEs.
  function O.shared_receive_queue(pd, opts)
    opts = opts or {}
    local p, m, e = pd._natives[1]:check("ibv_create_srq")
    if not p then
      return nil, m, e
    end
    local attr = rv.new("ibv_srq_init_attr")
    attr.attr.max_wr, attr.attr.max_sge, attr.attr.srq_limit = opts.max_wr or 16, opts.max_sge or 1, opts.limit or 0
    local ptr
    ptr, m, e = rv.ibv_create_srq(p, attr)
    if not ptr then
      return nil, m, e
    end
    local n = native("SharedReceiveQueue", ptr, rv.ibv_destroy_srq, pd._natives[1])
    local srq = object(SRQ, { n }, true)
    local held = {}   -- wr_id's key -> the holds of its receives (an SRQ's are not consumed in order)
    srq.ptr, srq._held = ptr, held
    table.insert(n.on_destroy, function()
      for k, hs in pairs(held) do
        for _, h in ipairs(hs) do release(h) end
        held[k] = nil
      end
    end)
    return srq
  end

  --- ibv_post_srq_recv of { wr_id, sg } or a list.
  function SRQ:post_recv(wrs)
    local srq, m, e = self._natives[1]:check("ibv_post_srq_recv")
    if not srq then
      return nil, m, e
    end
    local held = self._held
    return posted("ibv_post_srq_recv", wrs, "ibv_recv_wr", function() end, function(first, bad)
      return rv.raw.ibv_post_srq_recv(srq, first, bad)
    end, function(h)
      held[h.key] = held[h.key] or {}
      table.insert(held[h.key], h)
    end)
  end

  ctx.SRQ = SRQ
end
