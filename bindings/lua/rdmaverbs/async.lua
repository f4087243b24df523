-- How a wait waits: libc's poll() on a channel's fd (non-blocking, read once
-- readable), the time limits.
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

  ctx.c_poll = c_poll
  ctx.c_fcntl = c_fcntl
  ctx.now_ms = now_ms
  ctx.deadline = deadline
  ctx.left = left
  ctx.nonblocking = nonblocking
  ctx.readable = readable
end
