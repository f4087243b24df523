-- How a wait waits: libc's poll() on a channel's fd (non-blocking, read once
-- readable), the time limits; inside a coroutine, yielding to a scheduler
-- (rv.scheduler(), or the program's: rv.use_scheduler).
local ffi = require("ffi")
local bit = require("bit")

local EINTR, F_GETFL, F_SETFL, O_NONBLOCK, POLLIN = 4, 3, 4, 2048, 1

return function(ctx)
  local failure = ctx.failure

  -- libc's, by address (a program may declare them itself with other types)
  local function libc(name, ctype)
    return ffi.cast(ctype, ffi.C.dlsym(nil, name))
  end
  local c_poll = libc("poll", "int (*)(void *, unsigned long, int)")
  local c_fcntl = libc("fcntl", "int (*)(int, int, ...)")
  local c_clock = libc("clock_gettime", "int (*)(int, int64_t *)")
  local now_ts = ffi.new("int64_t[2]")
  local function now_ms()
    c_clock(1, now_ts)   -- CLOCK_MONOTONIC
    return tonumber(now_ts[0]) * 1000 + tonumber(now_ts[1]) / 1e6
  end

  local function deadline(ms)
    return ms and now_ms() + ms or math.huge
  end
  local function left(at)
    return at == math.huge and -1 or math.max(0, math.floor(at - now_ms()))
  end

  local function nonblocking(fd, fn)
    local flags = c_fcntl(fd, F_GETFL, ffi.new("int", 0))
    if flags < 0 or c_fcntl(fd, F_SETFL, ffi.new("int", bit.bor(flags, O_NONBLOCK))) < 0 then
      return failure(fn, ffi.errno())
    end
    return true
  end

  -- Blocks until fd is readable (true) or ms pass (false; -1: no bound).
  local pfd = ffi.new("int32_t[2]")
  local function readable(fd, ms, fn)
    local at = ms < 0 and math.huge or now_ms() + ms
    while true do
      pfd[0], pfd[1] = fd, POLLIN
      local n = c_poll(pfd, 1, left(at))
      if n >= 0 then
        return n > 0
      end
      local errno = ffi.errno()
      if errno ~= EINTR then
        return failure(fn .. ": poll", errno)
      end
    end
  end

  -- ---- coroutines: a wait inside one yields to a scheduler ----
  --
  -- A scheduler is what a wait inside a coroutine yields to: an object with
  -- wait(w), called in the coroutine, which returns once w.fd is readable
  -- (true) or at w.at, a deadline in CLOCK_MONOTONIC ms (false; math.huge:
  -- none), and wake(w), which makes that wait return true now (an object
  -- it waits on was closed: the wait then finds it closed). w.fd is nil
  -- for a pause until w.at. rv.scheduler() makes one, a poll() loop of its
  -- coroutines; rv.use_scheduler(s) makes s (a loop of the program's: its
  -- cqueues, luv, ...) the one of every coroutine the binding's does not
  -- run.
  local of_co = setmetatable({}, { __mode = "k" })   -- coroutine -> the scheduler running it
  local default = nil

  local Scheduler = {}
  Scheduler.__index = Scheduler

  --- A scheduler: s:spawn(fn, ...) coroutines, s:run() them until each has
  --- returned; their waits (and s:sleep(ms)) yield to it, the others run.
  function ctx.O.scheduler()
    return setmetatable({ ready = {}, waiting = {}, live = 0 }, Scheduler)
  end
  --- Makes s the scheduler of the waits of any coroutine (nil: none, they block).
  function ctx.O.use_scheduler(s)
    default = s
  end
  --- fn(...) in a new coroutine, run by s:run().
  function Scheduler:spawn(fn, ...)
    local co = coroutine.create(fn)
    of_co[co] = self
    self.live = self.live + 1
    self.ready[#self.ready + 1] = { co, { n = select("#", ...), ... } }
    return co
  end
  --- The scheduler's side of a wait, called in the coroutine: yields it
  --- until w.fd is readable (true) or w.at passes (false).
  function Scheduler:wait(w)
    w.co = coroutine.running()
    self.waiting[w] = true
    return coroutine.yield()
  end
  --- Makes w's wait return true at once (an object it waits on closed).
  function Scheduler:wake(w)
    if self.waiting[w] then
      self.waiting[w] = nil
      self.ready[#self.ready + 1] = { w.co, { n = 1, true } }
    end
  end
  --- Yields the coroutine for ms (in one of s's coroutines).
  function Scheduler:sleep(ms)
    return self:wait({ at = now_ms() + ms })
  end
  --- Runs the coroutines until each has returned: true; or nil and the
  --- error one of them raised (the others stay where they are).
  function Scheduler:run()
    while self.live > 0 do
      while #self.ready > 0 do
        local r = table.remove(self.ready, 1)
        local ok, err = coroutine.resume(r[1], unpack(r[2], 1, r[2].n))
        if not ok then
          self.live = self.live - 1
          return nil, debug.traceback(r[1], err)
        end
        if coroutine.status(r[1]) == "dead" then
          self.live = self.live - 1
        end
      end
      if self.live == 0 or next(self.waiting) == nil then
        break
      end
      -- poll() every fd waited on until the nearest deadline
      local list, at = {}, math.huge
      for w in pairs(self.waiting) do
        list[#list + 1] = w
        at = math.min(at, w.at)
      end
      local fds = ffi.new("int32_t[?]", 2 * #list)
      for i, w in ipairs(list) do
        fds[2 * i - 2], fds[2 * i - 1] = w.fd or -1, POLLIN
      end
      local n = c_poll(fds, #list, left(at))
      if n < 0 and ffi.errno() ~= EINTR then
        return failure("poll", ffi.errno())
      end
      local t = now_ms()
      for i, w in ipairs(list) do
        local ready = n > 0 and bit.band(bit.rshift(fds[2 * i - 1], 16), 0xffff) ~= 0
        if self.waiting[w] and (ready or t >= w.at) then
          self.waiting[w] = nil
          self.ready[#self.ready + 1] = { w.co, { n = 1, ready } }
        end
      end
    end
    return true
  end

  -- The scheduler a wait here yields to: the one running this coroutine,
  -- else the one rv.use_scheduler gave; nil outside a coroutine.
  local function scheduler()
    local co = coroutine.running()
    if co == nil then
      return nil
    end
    return of_co[co] or default
  end

  -- Until fd is readable (true) or ms pass (false; -1: no bound; fd nil: a
  -- pause of ms): yielding to the scheduler inside a coroutine, else
  -- blocking. The wait is listed on owners (natives), whose close wakes it.
  local function wait_readable(fd, ms, fn, owners)
    local s = scheduler()
    if s == nil then
      if fd == nil then
        c_poll(nil, 0, ms)
        return false
      end
      return readable(fd, ms, fn)
    end
    local w = { fd = fd, at = ms < 0 and math.huge or now_ms() + ms, scheduler = s }
    for _, o in ipairs(owners or {}) do o.waiters[w] = true end
    local ok, m, e = s:wait(w)
    for _, o in ipairs(owners or {}) do o.waiters[w] = nil end
    return ok, m, e
  end

  ctx.c_poll = c_poll
  ctx.c_fcntl = c_fcntl
  ctx.now_ms = now_ms
  ctx.deadline = deadline
  ctx.left = left
  ctx.nonblocking = nonblocking
  ctx.readable = readable
  ctx.wait_readable = wait_readable
end
