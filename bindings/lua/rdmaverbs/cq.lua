-- Completion queues: polled, armed, waited for.
local ffi = require("ffi")

local ETIMEDOUT = 110

return function(ctx)
  local O = ctx.O
  local class = ctx.class
  local context_of = ctx.context_of
  local cqs_of = ctx.cqs_of
  local deadline = ctx.deadline
  local failure = ctx.failure
  local key = ctx.key
  local left = ctx.left
  local native = ctx.native
  local object = ctx.object
  local wait_readable = ctx.wait_readable
  local reaped = ctx.reaped
  local reaping = ctx.reaping
  local rv = ctx.rv

  local CQ = class("CompletionQueue")

  local function completion_queue(ptr, channel, cq_context, adopted, id)
    local n = native("CompletionQueue", ptr, not adopted and rv.ibv_destroy_cq or nil, channel and channel._natives[1], id)
    local cq = object(CQ, { n }, not adopted)
    cq.ptr, cq.channel, cq.cq_context, cq._evented = ptr, channel, cq_context, false
    cq._wc = rv.new("ibv_wc", 16)
    cq._key = key(ffi.cast("uintptr_t", ptr))   -- its holds' (reaping's) and its channel's key, made once
    if channel then
      cqs_of[channel][cq._key] = cq
    end
    return cq
  end

  --- ibv_create_cq on a context (or an endpoint's: its id then destroyed
  --- after the CQ): opts.cqe entries (16), on opts.channel (a completion
  --- channel) or none, opts.context its cq_context, opts.comp_vector.
  function O.completion_queue(context, opts)
    opts = opts or {}
    local ctx, m, e = context_of(context)
    if not ctx then
      return nil, m, e
    end
    local id = m
    local ptr
    ptr, m, e = rv.ibv_create_cq(ctx, opts.cqe or 16, opts.context, opts.channel and opts.channel.ptr or nil,
      opts.comp_vector or 0)
    if not ptr then
      return nil, m, e
    end
    return completion_queue(ptr, opts.channel, opts.context, false, id)
  end

  --- A CQ made with the raw functions: its completions release holds as
  --- any; not destroyed by :close().
  function O.adopt_cq(ptr)
    return completion_queue(ptr, nil, nil, true)
  end

  --- Up to max (16) completions, without waiting (ibv_poll_cq): a table
  --- of struct ibv_wc (imm_data in network order).
  function CQ:poll(max)
    max = max or 16
    local cq, m, e = self._natives[1]:check("ibv_poll_cq")
    if not cq then
      return nil, m, e
    end
    if max > ffi.sizeof(self._wc) / ffi.sizeof("struct ibv_wc") then
      self._wc = rv.new("ibv_wc", max)
    end
    local n
    n, m, e = rv.ibv_poll_cq(cq, max, self._wc)
    if not n then
      return nil, m, e
    end
    local out = {}
    local qs = n > 0 and reaping[self._key]
    for i = 0, n - 1 do
      local wc = rv.new("ibv_wc")
      ffi.copy(wc, self._wc + i, ffi.sizeof("struct ibv_wc"))
      out[i + 1] = wc
      if qs then reaped(cq, qs, wc) end
    end
    return out
  end

  --- Arms the CQ (ibv_req_notify_cq): its next completion (solicited_only:
  --- its next solicited one) makes an event on its channel.
  function CQ:req_notify(solicited_only)
    local cq, m, e = self._natives[1]:check("ibv_req_notify_cq")
    if not cq then
      return nil, m, e
    end
    local r
    r, m, e = rv.ibv_req_notify_cq(cq, solicited_only and solicited_only ~= 0 and 1 or 0)
    if r == nil then
      return nil, m, e
    end
    return true
  end

  --- Exactly n completions (a table), waiting as long as timeout_ms allows
  --- (then ETIMEDOUT): on its channel (armed, polled again, waited for),
  --- or, without one, polled every millisecond.
  function CQ:next(n, timeout_ms)
    local at, out = deadline(timeout_ms), {}
    local function more()
      local got, m, e = self:poll(n - #out)
      if not got then
        return nil, m, e
      end
      for _, wc in ipairs(got) do
        out[#out + 1] = wc
      end
      return true
    end
    local ok, m, e = more()
    while ok and #out < n do
      if self.channel then
        self._evented = false
        ok, m, e = self:req_notify(false)
        if ok then ok, m, e = more() end
        if ok and #out < n then
          if left(at) == 0 then
            return failure("ibv_poll_cq", ETIMEDOUT)
          end
          local ch = self.channel
          local got, gm, ge = ch:_take()
          if got == nil then
            return nil, gm, ge
          end
          if not got and not self._evented then
            local r
            r, m, e = wait_readable(ch.fd, left(at), "ibv_get_cq_event", { self._natives[1], ch._natives[1] })
            if r == nil then
              return nil, m, e
            end
            got = true   -- (false, a time-out: the next pass says so)
          end
          while got do   -- every event there, acked, its CQ marked
            got, gm, ge = ch:_take()
            if got == nil then
              return nil, gm, ge
            end
          end
          ok, m, e = more()
        end
      else
        if left(at) == 0 then
          return failure("ibv_poll_cq", ETIMEDOUT)
        end
        wait_readable(nil, 1, "ibv_poll_cq", self._natives)
        ok, m, e = more()
      end
    end
    if not ok then
      return nil, m, e
    end
    return out
  end

  ctx.CQ = CQ
  ctx.completion_queue = completion_queue
end
