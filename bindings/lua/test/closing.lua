-- The LuaJIT binding's objects closed, on a recording stand-in for the C
-- calls (stand-in.lua: rv._objects over it; nothing else of C):
--  - closed in the wrong order by the program, or left to the ffi.gc
--    finalizers after an error, each C object is destroyed once, after
--    every object that depends on it; an MR under a posted work request
--    once the completion is reaped; a failure mid-way closes what was
--    made; a PD, CQ or completion channel made on an endpoint destroyed
--    before its id; an MR of ep:reg() closed let go of by the endpoint;
--  - a failed ibv_dereg_mr: its failure returned, the MR's buffer kept
--    (rv.leaked);
--  - completions matched to their QP by CQ and qp_num: two QPs of the same
--    number on different CQs each released by their own CQ only;
--  - rdma_cm events: queued for the ids the channel knows, dropped with
--    their id, never handed to a later id at the same address; a
--    connection request no one took has its new id destroyed.
-- Exits 1 on a failure. bindings/run.sh BUILD_DIR lua test runs it.
local rv = require("rdmaverbs")
local ffi = rv.ffi

local failures = 0
local function check(ok, what)
  print("lua closing: " .. (ok and "ok" or "FAIL") .. ": " .. what)
  if not ok then failures = failures + 1 end
end
local function errno_of(r, message, errno)
  if r ~= nil then return "no error" end
  return errno, message
end
local function collect()
  for _ = 1, 3 do
    collectgarbage("collect")
    for _ = 1, 200 do ffi.new("uint8_t[64]", 0xee) end
  end
  collectgarbage("collect")
end
local function address(p)
  return ffi.cast("uint64_t", ffi.cast("uintptr_t", p))
end
local function pattern(n, seed)
  local b = ffi.new("uint8_t[?]", n)
  for j = 0, n - 1 do b[j] = bit.band(seed + 7 * j, 0xff) end
  return b
end
local function hex(b, n)
  local t = {}
  for j = 0, n - 1 do t[#t + 1] = string.format("%02x", b[j]) end
  return table.concat(t)
end

-- ---- the order of closing, on a recording stand-in for the C calls ----

local stand_in = dofile((debug.getinfo(1, "S").source:sub(2):gsub("closing%.lua$", "stand-in.lua")))

local function kinds(log, what)
  local t = {}
  for _, e in ipairs(log) do
    if e[1] == what then t[#t + 1] = e[2] end
  end
  return table.concat(t, " ")
end
local function ptr_of(log, kind)
  for _, e in ipairs(log) do
    if e[1] == "make" and e[2] == kind then return e[3] end
  end
end
-- Whether log destroys each thing made once; then a check of "dependent
-- destroyed before dependency".
local function ordered(log, what)
  local made, at, count = 0, {}, {}
  for i, e in ipairs(log) do
    if e[1] == "make" then
      made = made + 1
    else
      at[e[3]] = at[e[3]] or i
      count[e[3]] = (count[e[3]] or 0) + 1
    end
  end
  local once, n = true, 0
  for _, c in pairs(count) do
    n = n + 1
    once = once and c == 1
  end
  check(once and n == made, what .. ": each of the " .. made .. " C objects made destroyed once")
  return function(dependent, dependency, why)
    local d, p = at[ptr_of(log, dependent)], at[ptr_of(log, dependency)]
    check(d ~= nil and p ~= nil and d < p, what .. ": " .. why)
  end
end
-- log destroys, each once, the PD, CQ and completion channel made on an
-- endpoint before its id (whose: "the", "setup()'s").
local function endpoint_last(log, what, whose)
  local before = ordered(log, what)
  for _, k in ipairs({ { "ProtectionDomain", "PD" }, { "CompletionQueue", "CQ" },
                       { "CompletionChannel", "completion channel" } }) do
    before(k[1], "Endpoint", whose .. " " .. k[2] .. " before the id")
  end
end

-- The program closes in the wrong order: the PD and the channels first.
do
  local o, log, _, _, done = stand_in()
  local ch = assert(o.event_channel())
  local ep = assert(ch:create_id())
  local pd = assert(o.protection_domain(ep))
  local cc = assert(o.completion_channel(ep))
  local scq, rcq = assert(o.completion_queue(ep, { channel = cc })), assert(o.completion_queue(ep, { channel = cc }))
  local srq = assert(o.shared_receive_queue(pd))
  assert(ep:create_qp({ pd = pd, send_cq = scq, recv_cq = rcq, srq = srq }))
  local mr = assert(pd:reg(64))
  assert(ep:post_send({ wr_id = 7, sg = { mr }, flags = rv.IBV_SEND_SIGNALED }))
  for _, x in ipairs({ pd, cc, ch, mr }) do assert(x:close()) end
  check(kinds(log, "destroy") == "", "PD, channels and a posted MR closed first: nothing destroyed yet")
  check(errno_of(pd:reg(8)) == 9, "a closed PD: EBADF at once")
  for _, x in ipairs({ scq, rcq, srq }) do assert(x:close()) end
  check(kinds(log, "destroy") == "", "the CQs and SRQ closed under the QP: nothing destroyed yet")
  assert(ep:close())
  check(kinds(log, "destroy") == "QP MemoryRegion CompletionQueue CompletionQueue CompletionChannel " ..
    "SharedReceiveQueue ProtectionDomain Endpoint EventChannel",
    "the endpoint closed: the QP (which releases its posted MR), then each in its turn (" .. kinds(log, "destroy") .. ")")
  local before = ordered(log, "closed in the wrong order")
  before("QP", "MemoryRegion", "the MR under a posted request after the QP")
  before("MemoryRegion", "ProtectionDomain", "the MR before its PD")
  before("QP", "ProtectionDomain", "the QP before the PD")
  before("QP", "SharedReceiveQueue", "the QP before the SRQ")
  before("QP", "Endpoint", "the QP before its id")
  before("Endpoint", "EventChannel", "the id before its event channel")
  before("CompletionQueue", "CompletionChannel", "the CQs before their channel")
  done()
end

-- MRs closed under posted requests: each deregistered once the completion
-- that releases it is reaped (unsignaled requests before it with it).
do
  local o, log, _, completions, done = stand_in()
  local ch = assert(o.event_channel())
  local ep = assert(assert(ch:create_id()):setup())
  local mr, other = assert(ep.pd:reg(64)), assert(ep.pd:reg(64))
  assert(ep:post_send({ { wr_id = 1, sg = { mr:sge(0, 32) } },
    { wr_id = 2, sg = { mr:sge(32, 32), other }, flags = rv.IBV_SEND_SIGNALED } }))
  assert(ep:post_send({ wr_id = 3, sg = { other }, flags = rv.IBV_SEND_SIGNALED }))
  assert(mr:close())
  assert(other:close())
  local function deregs()
    return select(2, kinds(log, "destroy"):gsub("MemoryRegion", ""))
  end
  check(deregs() == 0, "two MRs closed under three posted sends: neither deregistered")
  completions[1] = { wr_id = 2, status = 0, opcode = rv.IBV_WC_SEND, qp_num = ep.qp_num }
  check(#ep.send_cq:poll() == 1 and deregs() == 1,
    "the 2nd (signaled) reaped: the 1st (unsignaled) released with it, the MR they used deregistered")
  completions[1] = { wr_id = 3, status = 0, opcode = rv.IBV_WC_SEND, qp_num = ep.qp_num }
  check(#ep.send_cq:poll() == 1 and deregs() == 2, "the 3rd reaped: the other MR deregistered")
  check(not kinds(log, "destroy"):find("QP"), "the QP still there")
  assert(ep:close())
  assert(ch:close())
  ordered(log, "MRs closed under posts")
  done()
end

-- An error mid-way: nothing closed by the program; the finalizers close it
-- all, in order.
do
  local o, log, _, _, done = stand_in()
  local ok, err = pcall(function()
    local ch = assert(o.event_channel())
    local ep = assert(ch:create_id())
    assert(ep:setup({ cap = { max_send_wr = 4, max_recv_wr = 4 } }))
    local mr = assert(ep.pd:reg(64))
    assert(ep:post_recv({ wr_id = 1, sg = { mr } }))
    error("mid-way")
  end)
  check(not ok and err:find("mid%-way") ~= nil, "an error after 8 objects were made, none closed")
  collectgarbage("collect")
  collectgarbage("collect")
  local made = select(2, kinds(log, "make"):gsub("%S+", ""))
  local destroyed = select(2, kinds(log, "destroy"):gsub("%S+", ""))
  check(made == 8 and destroyed == 8, "the finalizers destroyed all " .. made .. " (" .. kinds(log, "destroy") .. ")")
  local before = ordered(log, "left to the finalizers")
  before("QP", "ProtectionDomain", "the QP before the PD")
  before("MemoryRegion", "ProtectionDomain", "the MR (under a posted receive) before the PD")
  before("QP", "CompletionQueue", "the QP before the CQs")
  before("Endpoint", "EventChannel", "the id before its channel")
  before("CompletionQueue", "CompletionChannel", "the CQs before their channel")
  done()
end

-- A failure mid-way of setup(): what it made is closed, the failure is the call's.
do
  local o, log, fail_next, _, done = stand_in()
  local ch = assert(o.event_channel())
  local ep = assert(ch:create_id())
  fail_next.ibv_create_cq = rv.ENOMEM
  local r, message, errno = ep:setup()
  check(r == nil and errno == rv.ENOMEM and message == "ibv_create_cq: ENOMEM (Cannot allocate memory)",
    "setup() with ibv_create_cq failing: nil, 'ibv_create_cq: ENOMEM (Cannot allocate memory)', ENOMEM")
  check(kinds(log, "destroy") == "CompletionChannel ProtectionDomain", "what it made (the PD, the completion channel) destroyed")
  assert(ep:close())
  assert(ch:close())
  ordered(log, "after a failed setup")
  fail_next.rdma_create_id = rv.EINVAL
  local ch2 = assert(o.event_channel())
  check(errno_of(ch2:create_id()) == rv.EINVAL, "create_id failing: EINVAL")
  assert(ch2:close())
  check(errno_of(ch2:create_id()) == 9, "a closed event channel: EBADF")
  done()
end

-- A failed destroy: ibv_dereg_mr refused. :close() returns its failure; the
-- MR is closed all the same, but the C MR is still there, so its buffer
-- stays alive (rv.leaked), and so does what it depends on.
do
  local o, log, fail_next, completions, done = stand_in()
  local ch = assert(o.event_channel())
  local ep = assert(assert(ch:create_id()):setup())
  local weak = setmetatable({}, { __mode = "v" })
  local mr
  do
    local buf = pattern(64, 0x11)
    mr = assert(ep.pd:reg(buf, 64))
    weak[1] = buf
  end
  fail_next.ibv_dereg_mr = rv.EBUSY
  local r, message, errno = mr:close()
  check(r == nil and errno == rv.EBUSY and message == "ibv_dereg_mr: EBUSY (Device or resource busy)" and mr:closed(),
    "ibv_dereg_mr failing: mr:close() returns nil, 'ibv_dereg_mr: EBUSY (Device or resource busy)', EBUSY; the MR closed")
  check(mr:close() == true, ":close() again: true (nothing to do)")
  check(#o.leaked == 1 and o.leaked[1].kind == "MemoryRegion" and o.leaked[1].ptr == mr.ptr, "rv.leaked: the MR")
  mr = nil
  collect()
  check(weak[1] ~= nil and hex(weak[1], 64) == hex(pattern(64, 0x11), 64),
    "its buffer, every reference dropped, collectgarbage(): alive and intact (the card may still reach it)")
  -- An MR closed under a posted request, deregistered when its completion
  -- is reaped, and that fails: the poll's completions returned, the MR kept.
  local posted = assert(ep.pd:reg(16))
  assert(ep:post_send({ wr_id = 9, sg = { posted }, flags = rv.IBV_SEND_SIGNALED }))
  assert(posted:close())
  fail_next.ibv_dereg_mr = rv.EBUSY
  completions[1] = { wr_id = 9, status = 0, opcode = rv.IBV_WC_SEND, qp_num = ep.qp_num }
  local got = ep.send_cq:poll()
  check(got and #got == 1 and #o.leaked == 2 and o.leaked[2].ptr == posted.ptr,
    "an MR closed under a posted send, its deregistration failing when the completion is reaped: the completion returned, the MR in rv.leaked")
  assert(ep:close())
  assert(ch:close())
  check(kinds(log, "destroy") == "QP CompletionQueue CompletionQueue CompletionChannel",
    "the endpoint closed: what the MR depends on kept too (its PD, the id the PD was made on, its channel), the rest destroyed ("
    .. kinds(log, "destroy") .. ")")
  done()
end

-- Two QPs with the same number (two devices') on different CQs: a
-- completion releases the holds of the QP whose CQ gave it, only.
do
  local o, log, _, completions, done, t = stand_in()
  t.control.qp_num = 0x42
  local ch = assert(o.event_channel())
  local one, two = assert(assert(ch:create_id()):setup()), assert(assert(ch:create_id()):setup())
  check(one.qp_num == 0x42 and two.qp_num == 0x42, "two QPs, both qp_num 0x42, on their own CQs")
  local mr1, mr2 = assert(one.pd:reg(16)), assert(two.pd:reg(16))
  assert(one:post_send({ wr_id = 5, sg = { mr1 }, flags = rv.IBV_SEND_SIGNALED }))
  assert(two:post_send({ wr_id = 5, sg = { mr2 }, flags = rv.IBV_SEND_SIGNALED }))
  assert(mr1:close())
  assert(mr2:close())
  local function deregs()
    local t = {}
    for _, e in ipairs(log) do
      if e[1] == "destroy" and e[2] == "MemoryRegion" then t[#t + 1] = e[3] end
    end
    return t
  end
  local p1, p2 = tostring(address(mr1.ptr)), tostring(address(mr2.ptr))
  local function wc(opcode)
    return { wr_id = 5, status = 0, opcode = opcode or rv.IBV_WC_SEND, qp_num = 0x42 }
  end
  completions[1] = wc()
  check(#one.send_cq:poll() == 1 and #deregs() == 1 and deregs()[1] == p1,
    "the completion on the first QP's send CQ: its MR released (deregistered), the other QP's not")
  local stranger = assert(o.completion_queue(two))
  completions[1] = wc()
  check(#stranger:poll() == 1 and #deregs() == 1, "the same completion on a CQ of neither QP: nothing released")
  completions[1] = wc(rv.IBV_WC_RECV)
  check(#two.recv_cq:poll() == 1 and #deregs() == 1,
    "a receive's completion on the second QP's receive CQ: its posted send not released")
  completions[1] = wc()
  check(#two.send_cq:poll() == 1 and #deregs() == 2 and deregs()[2] == p2,
    "the completion on the second QP's send CQ: its MR released")
  for _, x in ipairs({ stranger, one, two, ch }) do assert(x:close()) end
  ordered(log, "two QPs of one number")
  done()
end

-- rdma_cm events read for others: queued for the ids the channel knows,
-- dropped with their id; those of ids it does not know dropped at once,
-- not handed to a later id at the same address; a connection request no
-- one took has its new id destroyed.
do
  local o, log, _, _, done, t = stand_in()
  local ch = assert(o.event_channel())
  local listener, ep, other, listener2 = assert(ch:create_id()), assert(ch:create_id()), assert(ch:create_id()),
    assert(ch:create_id())
  local child, child2, child3 = t.make("Endpoint", "rdma_cm_id"), t.make("Endpoint", "rdma_cm_id"),
    t.make("Endpoint", "rdma_cm_id")   -- connection requests' new ids
  local nobody, nobody_listening = t.memory("rdma_cm_id"), t.memory("rdma_cm_id")
  local events = t.control.cm_events
  events[#events + 1] = { event = rv.RDMA_CM_EVENT_CONNECT_REQUEST, id = child, listen_id = listener.id }
  events[#events + 1] = { event = rv.RDMA_CM_EVENT_DISCONNECTED, id = nobody }
  events[#events + 1] = { event = rv.RDMA_CM_EVENT_CONNECT_REQUEST, id = child2, listen_id = nobody_listening }
  events[#events + 1] = { event = rv.RDMA_CM_EVENT_TIMEWAIT_EXIT, id = other.id }
  events[#events + 1] = { event = rv.RDMA_CM_EVENT_CONNECT_REQUEST, id = child3, listen_id = listener2.id }
  events[#events + 1] = { event = rv.RDMA_CM_EVENT_DISCONNECTED, id = child3 }
  events[#events + 1] = { event = rv.RDMA_CM_EVENT_DISCONNECTED, id = ep.id }
  check(ep:disconnected(1000) == true, "an endpoint's DISCONNECTED, read after six events of others")
  local function destroyed(p)
    local k = tostring(address(p))
    for _, e in ipairs(log) do
      if e[1] == "destroy" and e[3] == k then return true end
    end
    return false
  end
  check(destroyed(child2) and not destroyed(child) and not destroyed(child3),
    "a connection request for a listener the channel does not know: its new id destroyed at once")
  local taken = listener2:get_request(100)
  check(taken and taken.id == child3 and taken:disconnected(100) == true,
    "a request taken from the queue: its endpoint gets the event read for it before")
  assert(other:close())
  local function at(p)
    t.control.id_at = p
    return assert(ch:create_id())
  end
  local reused = at(other.id)
  check(errno_of(reused:disconnected(50)) == rv.ETIMEDOUT,
    "an id closed with an event queued (TIMEWAIT_EXIT), a new id at its address: not handed it (ETIMEDOUT)")
  local late = at(nobody)
  check(errno_of(late:disconnected(50)) == rv.ETIMEDOUT,
    "an event for an id the channel did not know, a new id at that address later: not handed it (ETIMEDOUT)")
  check(not destroyed(child), "the request queued for the listener: its id not destroyed while the listener is open")
  assert(listener:close())
  check(destroyed(child), "the listener closed with a request no one took: its new id destroyed")
  for _, x in ipairs({ ep, reused, late, taken, listener2, ch }) do assert(x:close()) end
  check(ch._cm ~= nil and next(ch._cm.known) == nil and next(ch._cm.queued) == nil,
    "every id closed: nothing known, nothing queued")
  done()
end

-- What is made on an endpoint (a PD, a completion channel, CQs: given the
-- endpoint, or by :setup()) is destroyed before its id; ep:reg()'s MRs
-- closed by the program are let go of at once.
do
  local o, log, _, _, done = stand_in()
  local ch = assert(o.event_channel())
  local ep = assert(ch:create_id())
  local pd, cc = assert(o.protection_domain(ep)), assert(o.completion_channel(ep))
  local cq = assert(o.completion_queue(ep, { channel = cc }))
  assert(ep:close())
  check(not kinds(log, "destroy"):find("Endpoint"),
    "an endpoint closed under a PD, a completion channel and a CQ made on it: its id not destroyed yet")
  for _, x in ipairs({ pd, cq, cc, ch }) do assert(x:close()) end
  endpoint_last(log, "made on an endpoint", "the")
  done()
end
do
  local o, log, _, _, done = stand_in()
  local ch = assert(o.event_channel())
  assert(assert(assert(ch:create_id()):setup()):close())
  assert(ch:close())
  endpoint_last(log, "setup()'s objects", "setup()'s")
  done()
end
do
  local o, log, _, _, done = stand_in()
  local ch = assert(o.event_channel())
  local ep = assert(assert(ch:create_id()):setup())
  local weak = setmetatable({}, { __mode = "k" })
  for i = 1, 3 do
    local mr = assert(ep:reg(4096))   -- a message's MR, registered and closed
    weak[mr] = true
    assert(mr:close())
  end
  local kept = assert(ep:reg(16))
  collect()
  check(next(weak) == nil, "MRs of ep:reg() closed by the program: collected, the endpoint open")
  assert(ep:close())
  check(kept:closed(), "an MR of ep:reg() not closed: closed with the endpoint")
  assert(ch:close())
  ordered(log, "ep:reg() per message")
  done()
end


if failures > 0 then os.exit(1) end
print("lua closing: all checks passed")
