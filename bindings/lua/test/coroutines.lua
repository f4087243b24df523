-- The LuaJIT binding's waits inside coroutines, on the recording stand-in
-- of the C calls (stand-in.lua: eventfds stand for the channels' fds):
--  - rv.scheduler(): a wait in one of its coroutines yields to it, and the
--    other coroutines run meanwhile; it resumes once the fd is readable,
--    or at its time limit (ETIMEDOUT); s:sleep(ms);
--  - closing an object from another coroutine ends every wait on it, and
--    on what its close closes, at once: nil, a message saying "closed"
--    and the C function, EBADF; a CQ waited on by two coroutines, with a
--    time limit and without, on a channel and without; its channel; an
--    endpoint's event waits (its channel open); the event channel;
--  - rv.use_scheduler(s): the waits of any coroutine yield to s (a loop of
--    the program's: its wait(w) and wake(w)), w.fd the channel's fd;
--  - outside a coroutine, a wait blocks as before.
-- Each coroutine's wait is bounded (10 s, or a guard of 5 s here), so a
-- wait a close does not end fails the test instead of hanging it.
-- Exits 1 on a failure. bindings/run.sh BUILD_DIR lua test runs it.
local rv = require("rdmaverbs")
local ffi = rv.ffi
local stand_in = dofile((debug.getinfo(1, "S").source:sub(2):gsub("coroutines%.lua$", "stand-in.lua")))

ffi.cdef("long write(int fd, const void *buf, unsigned long n);")
local AT_ONCE = 500   -- ms: far below the waits' own time limits
local failures = 0
local function check(ok, what)
  print("lua coroutines: " .. (ok and "ok" or "FAIL") .. ": " .. what)
  if not ok then failures = failures + 1 end
end
local ts = ffi.new("int64_t[2]")
ffi.cdef("int clock_gettime(int clock, int64_t *ts);")
local function now_ms()
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts[0]) * 1000 + tonumber(ts[1]) / 1e6
end
local function signal(fd)
  local one = ffi.new("uint64_t[1]", 1)
  ffi.C.write(fd, one, 8)
end
local CTX = ffi.cast("void *", 0xc0)

-- A wait yields to the scheduler; the others run; it resumes when readable.
do
  local o, _, _, _, done = stand_in()
  local s = o.scheduler()
  local cc = assert(o.completion_channel(CTX))
  local cq = assert(o.completion_queue(CTX, { channel = cc, context = ffi.cast("void *", 0x77) }))
  local got, ticks, t0 = nil, 0, now_ms()
  s:spawn(function() got = { cc:get_event(5000) } end)
  s:spawn(function()
    for _ = 1, 30 do
      ticks = ticks + 1
      s:sleep(1)
    end
    signal(cc.fd)
  end)
  local ok, err = s:run()
  local waited = now_ms() - t0
  check(ok == true and got and got[1] == cq and got[2] == ffi.cast("void *", 0x77) and ticks == 30 and waited >= 30,
    string.format("cc:get_event() in a coroutine: yielded while the other ran 30 times, then the CQ (%.0f ms) %s",
      waited, tostring(err)))
  local late
  t0 = now_ms()
  s:spawn(function() late = { cc:get_event(50) } end)
  s:run()
  check(late[1] == nil and late[3] == rv.ETIMEDOUT and now_ms() - t0 >= 45,
    "a bounded wait in a coroutine: nil, message, ETIMEDOUT after its 50 ms (" .. tostring(late[2]) .. ")")
  t0 = now_ms()
  local r, _, e = cc:get_event(30)
  check(r == nil and e == rv.ETIMEDOUT and now_ms() - t0 >= 25, "outside a coroutine, the wait blocks: ETIMEDOUT after 30 ms")
  cq:close()
  cc:close()
  done()
end

-- Starts each wait (a function) in a coroutine of s, closes (close()) from
-- another 20 ms later: each wait's results and how long after the close
-- they came.
local function closing(o, waits, close)
  local s = o.scheduler()
  local out, closed_at = {}, nil
  for i, w in ipairs(waits) do
    s:spawn(function()
      local r = { w() }
      out[i] = { r = r, after = now_ms() - (closed_at or now_ms()) }
    end)
  end
  s:spawn(function()
    s:sleep(20)
    for i = 1, #waits do check(out[i] == nil, "wait " .. i .. " still pending before the close") end
    closed_at = now_ms()
    close()
  end)
  s:run()
  return out
end
local function closed_error(out, n, what, fn)
  local ok, said = #out == n, {}
  for i = 1, n do
    local x = out[i]
    local r, m, e = x and x.r[1], x and x.r[2], x and x.r[3]
    ok = ok and r == nil and e == 9 and type(m) == "string" and m:find("closed") ~= nil and
      (fn == nil or m:find(fn, 1, true) == 1) and x.after < AT_ONCE
    said[#said + 1] = x and string.format("'%s' (%s) after %.0f ms", tostring(m), tostring(e), x.after) or "never"
  end
  check(ok, what .. ": " .. table.concat(said, "; "))
end

do
  local o, _, _, _, done = stand_in()
  local cc = assert(o.completion_channel(CTX))
  local cq = assert(o.completion_queue(CTX, { channel = cc }))
  closed_error(closing(o, { function() return cq:next(1, 10000) end, function() return cq:next(2) end },
    function() cq:close() end), 2, "a CQ closed under two next() (one bounded, one not): both end at once", "ibv_poll_cq")
  local cq2 = assert(o.completion_queue(CTX, { channel = cc }))
  closed_error(closing(o, { function() return cq2:next(1, 10000) end, function() return cc:get_event() end },
    function() cc:close() end), 2, "its channel closed under a CQ's next() and its own get_event(): both end at once")
  cq2:close()
  local polled = assert(o.completion_queue(CTX))
  closed_error(closing(o, { function() return polled:next(1, 10000) end, function() return polled:next(1) end },
    function() polled:close() end), 2, "a CQ without a channel closed under two next(): both end at once", "ibv_poll_cq")
  done()
end

do
  local o, _, _, _, done = stand_in()
  local ch = assert(o.event_channel())
  local a, b = assert(ch:create_id()), assert(ch:create_id())
  closed_error(closing(o, { function() return a:disconnected(10000) end, function() return a:get_request() end },
    function() a:close() end), 2, "an endpoint closed under its event waits (its channel open): both end at once",
    "rdma_get_cm_event")
  local _, _, e = b:disconnected(20)
  check(e == rv.ETIMEDOUT, "the channel's other endpoint waits on, to its own time limit")
  local pd = assert(o.protection_domain(b))   -- b's id destroyed after it
  closed_error(closing(o, { function() return b:disconnected(10000) end }, function() b:close() end), 1,
    "an endpoint closed under a wait, its id kept by a PD made on it: ends at once", "rdma_get_cm_event")
  pd:close()
  local c = assert(ch:create_id())
  closed_error(closing(o, { function() return c:disconnected(10000) end }, function() ch:close() end), 1,
    "the event channel closed under an endpoint's wait: it ends at once")
  c:close()
  local ep = assert(assert(assert(o.event_channel()):create_id()):setup())
  closed_error(closing(o, { function() return ep.recv_cq:next(1, 10000) end, function() return ep.send_cq:next(1) end },
    function() ep:close() end), 2, "an endpoint closed under next() on its setup() CQs: both end at once")
  done()
end

-- A scheduler of the program's own: every coroutine's waits yield to it.
do
  local o, _, _, _, done = stand_in()
  local cc = assert(o.completion_channel(CTX))
  local cq = assert(o.completion_queue(CTX, { channel = cc }))
  local asked, woken = {}, 0
  local loop = {}
  function loop.wait(_, w)
    asked[#asked + 1] = w.fd
    return coroutine.yield(w)
  end
  function loop.wake(_, w)
    woken = woken + 1
    w.woken = true
  end
  o.use_scheduler(loop)
  local co = coroutine.create(function() return cc:get_event(5000) end)
  local _, w = coroutine.resume(co)
  check(type(w) == "table" and w.fd == cc.fd and asked[1] == cc.fd and coroutine.status(co) == "suspended",
    "rv.use_scheduler(loop): a wait in any coroutine calls loop:wait(w) (w.fd the channel's fd) and yields")
  signal(cc.fd)
  local ok, got = coroutine.resume(co, true)
  check(ok and got == cq, "resumed with true once its fd is readable: the CQ")
  co = coroutine.create(function() return cc:get_event() end)
  _, w = coroutine.resume(co)
  cc:close()
  local _, r, m, e = coroutine.resume(co, true)
  check(woken == 1 and w.woken and r == nil and e == 9 and m:find("closed") ~= nil,
    "the channel closed: loop:wake(w) called, the wait resumed ends with EBADF, '" .. tostring(m) .. "'")
  o.use_scheduler(nil)
  cq:close()
  done()
end

if failures > 0 then os.exit(1) end
print("lua coroutines: all checks passed")
