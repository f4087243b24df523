-- The C objects behind the objects (native), closed in the order they depend
-- on each other; what every object shares (object, close, class); the objects
-- leaked.
local ffi = require("ffi")

local EBADF = 9

return function(ctx)
  local O = ctx.O
  local failure = ctx.failure

  -- ---- the C objects behind the objects, closed in order ----

  -- The C objects whose destroy failed (an ibv_dereg_mr refused, ...):
  -- still there in C, so kept here for the life of the Lua state with what
  -- they hold (an MR's buffer, a QP's or SRQ's posted requests) and what
  -- they depend on, which a card could otherwise reach once collected.
  local leaked = {}
  O.leaked = leaked

  -- One C object: destroyed once, when closed and nothing that depends on
  -- it (nor any posted work request, for an MR) is left. destroy returns
  -- the function's own nil, message, errno on a failure.
  local Native = {}
  Native.__index = Native
  local function native(kind, ptr, destroy, ...)
    -- (waiters: the coroutines' waits on it, woken by its close)
    local n = setmetatable({ kind = kind, ptr = ptr, destroy = destroy, deps = {}, refs = 0, state = "open",
      keep = {}, on_destroy = {}, waiters = {} }, Native)
    for i = 1, select("#", ...) do
      local d = select(i, ...)
      if d then
        n.deps[#n.deps + 1] = d
        d.refs = d.refs + 1
      end
    end
    return n
  end
  function Native:check(fn)
    if self.state ~= "open" then
      return failure(fn, EBADF, "the " .. self.kind .. " is closed")
    end
    return self.ptr
  end
  function Native:drop()
    self.refs = self.refs - 1
    if self.refs == 0 and self.state == "closing" then
      return self:finish()
    end
  end
  function Native:close()
    if self.state ~= "open" then
      return
    end
    self.state = "closing"
    for w in pairs(self.waiters) do   -- each wait then finds it closed
      self.waiters[w] = nil
      w.scheduler:wake(w)
    end
    if self.refs == 0 then
      return self:finish()
    end
  end
  -- Destroys it: the first failure's message and errno, if any. Its own
  -- failure leaves it in `leaked`, holding its buffer, its posted requests
  -- and what it depends on.
  function Native:finish()
    self.state = "closed"
    local message, errno
    if self.destroy then
      local ok, m, e = self.destroy(self.ptr)
      if ok == nil and m then
        self.state = "leaked"
        leaked[#leaked + 1] = self
        return m, e
      end
    end
    for _, f in ipairs(self.on_destroy) do
      f()
    end
    self.keep, self.on_destroy = nil, nil
    for _, d in ipairs(self.deps) do
      local m, e = d:drop()
      if m and not message then
        message, errno = m, e
      end
    end
    self.deps = {}
    return message, errno
  end

  local function close_all(natives)
    local message, errno
    for _, n in ipairs(natives) do
      local m, e = n:close()
      if m and not message then
        message, errno = m, e
      end
    end
    return message, errno
  end

  -- An object: its natives (closed by :close(), in that order; each waits
  -- for what depends on it) and, unless adopted, a finalizer closing them.
  local function object(class, natives, collect)
    local o = setmetatable({ _natives = natives }, class)
    if collect then
      o._anchor = ffi.gc(ffi.cast("void *", 0), function()
        close_all(natives)
      end)
    end
    return o
  end
  -- :close(): true, or nil, message, errno (its own destroy's, or that of
  -- what it was the last to depend on).
  local function close(self)
    if self._anchor then
      ffi.gc(self._anchor, nil)
    end
    local message, errno = close_all(self._natives)
    if self._owned then
      for _, o in ipairs(self._owned) do
        local ok, m, e = o:close()
        if not ok and not message then
          message, errno = m, e
        end
      end
      self._owned = {}
    end
    if self._mrs then
      for mr in pairs(self._mrs) do   -- (each removes itself)
        local ok, m, e = mr:close()
        if not ok and not message then
          message, errno = m, e
        end
      end
    end
    if message then
      return nil, message, errno
    end
    return true
  end
  local function class(name)
    local k = { close = close, __name = name }
    k.__index = k
    k.closed = function(self)
      return self._natives[1].state ~= "open"
    end
    return k
  end

  -- A context given as an endpoint (its id->verbs) or as a pointer: the
  -- context, and the native of the id (what is made on it is destroyed
  -- before the id, which holds librdmacm's reference to the device).
  local function context_of(x)
    if getmetatable(x) == ctx.Endpoint then
      local ctx, m, e = x:context()
      if not ctx then
        return nil, m, e
      end
      return ctx, x._id
    end
    return x
  end

  ctx.leaked = leaked
  ctx.Native = Native
  ctx.native = native
  ctx.close_all = close_all
  ctx.object = object
  ctx.close = close
  ctx.class = class
  ctx.context_of = context_of
end
