-- The simple path on the recording stand-in of the C calls (stand-in.lua):
-- every send signaled by default, whichever way the QP is made;
-- rv.endpoint (resolved and set up, not connected) so that receives are
-- posted before rdma_connect; one MR with an access mask on the endpoint's
-- PD; a listener's requests iterated, each set up and not accepted until
-- its receives are posted, the loop ending when the listener is closed
-- (from another coroutine); a rejected connect's ECONNREFUSED. Exits 1 on
-- a failure. (On Soft-RoCE: make e2e-host's rows lua hello and lua echo.)
local rv = require("rdmaverbs")
local ffi = rv.ffi
local stand_in = dofile((debug.getinfo(1, "S").source:sub(2):gsub("simple%.lua$", "stand-in.lua")))

local failures = 0
local function check(ok, what)
  print("lua simple: " .. (ok and "ok" or "FAIL") .. ": " .. what)
  if not ok then failures = failures + 1 end
end
local ALL = bit.bor(rv.IBV_ACCESS_LOCAL_WRITE, rv.IBV_ACCESS_REMOTE_READ, rv.IBV_ACCESS_REMOTE_WRITE,
  rv.IBV_ACCESS_REMOTE_ATOMIC)
-- The calls of control.calls, by name (and, given ids, the index of each id).
local function names(control, ids)
  local t = {}
  for _, c in ipairs(control.calls) do
    local n = c[1]
    if ids then
      for i, id in ipairs(ids) do
        if c[2] == id then n = n .. i end
      end
    end
    t[#t + 1] = n
  end
  return table.concat(t, " ")
end

do
  local o, _, _, _, done, x = stand_in()
  local ch = assert(o.event_channel())
  local a, b, c = assert(ch:create_id()), assert(ch:create_id()), assert(ch:create_id())
  assert(a:setup())
  assert(b:create_qp({ pd = a.pd, send_cq = a.send_cq, recv_cq = a.recv_cq }))
  assert(c:setup({ sq_sig_all = false }))
  local attrs = table.concat(x.control.qp_attrs, " ")
  check(attrs == "1 1 0", "every send signaled by default (setup, create_qp), not with sq_sig_all = false (" .. attrs .. ")")
  b:close()
  a:close()
  c:close()
  ch:close()
  done()
end

do
  local o, _, _, _, done, x = stand_in()
  local at = x.memory("rdma_cm_id")
  x.control.id_at = at
  table.insert(x.control.cm_events, { id = at, event = rv.RDMA_CM_EVENT_ADDR_RESOLVED })
  table.insert(x.control.cm_events, { id = at, event = rv.RDMA_CM_EVENT_ROUTE_RESOLVED })
  local ep = assert(o.endpoint("192.0.2.1", 7471, { timeout = 1000 }))
  check(ep.id == at and ep.qp ~= nil and names(x.control) == "rdma_resolve_addr rdma_resolve_route",
    "rv.endpoint: resolved, its QP made, not connected (" .. names(x.control) .. ")")
  local mr = assert(ep:reg(4096, ALL))
  check(mr.length == 4096 and ffi.cast("struct ibv_mr *", mr.ptr).pd == ep.pd.ptr,
    "ep:reg(n, access): one MR on the endpoint's PD")
  assert(ep:post_recv({ wr_id = 1, sg = { mr } }))
  table.insert(x.control.cm_events, { id = at, event = rv.RDMA_CM_EVENT_ESTABLISHED })
  assert(ep:connect({}, 1000))
  check(names(x.control) == "rdma_resolve_addr rdma_resolve_route ibv_post_recv rdma_connect",
    "its receive posted before rdma_connect (" .. names(x.control) .. ")")
  ep:close()
  done()
end

do
  local o, _, _, _, done, x = stand_in()
  local listener = assert(o.listen("192.0.2.1", 7471))
  local requests = { x.memory("rdma_cm_id"), x.memory("rdma_cm_id") }
  for _, id in ipairs(requests) do
    ffi.cast("struct rdma_cm_id *", id).verbs = ffi.cast("void *", 0xc0)
    table.insert(x.control.cm_events, { id = id, listen_id = listener.id, event = rv.RDMA_CM_EVENT_CONNECT_REQUEST })
  end
  local s = o.scheduler()
  local served, ended = 0, false
  s:spawn(function()
    for ep in listener:requests() do
      served = served + 1
      check(ep.qp ~= nil, "a request from the listener: its QP made, not accepted yet")
      assert(ep:post_recv({ sg = { assert(ep:reg(64)) } }))
      table.insert(x.control.cm_events, { id = ep.id, event = rv.RDMA_CM_EVENT_ESTABLISHED })
      assert(ep:accept({}, 1000))
      ep:close()
    end
    ended = true
  end)
  s:spawn(function()
    s:sleep(50)
    listener:close()
  end)
  local ok, err = s:run()
  local order = names(x.control, { listener.id, requests[1], requests[2] })
  check(ok and served == 2 and ended and order == "rdma_bind_addr1 rdma_listen1 ibv_post_recv rdma_accept2 " ..
    "ibv_post_recv rdma_accept3", "listener:requests(): each request's receive posted, then accepted; closing " ..
    "the listener ends the loop (" .. order .. ") " .. tostring(err or ""))
  done()
end

do
  local o, _, _, _, done, x = stand_in()
  local ch = assert(o.event_channel())
  local ep = assert(ch:create_id())
  table.insert(x.control.cm_events, { id = ep.id, event = rv.RDMA_CM_EVENT_REJECTED, status = 28 })
  local r, m, e = ep:connect({}, 1000)
  check(r == nil and e == 111 and m:find("^rdma_connect: ") and m:find("RDMA_CM_EVENT_REJECTED", 1, true),
    "a rejected connect: nil, '" .. tostring(m) .. "', ECONNREFUSED (" .. tostring(e) .. ")")
  ep:close()
  ch:close()
  done()
end

if failures > 0 then os.exit(1) end
print("lua simple: all checks passed")
