-- An endpoint's QP: made (create_qp, setup), its posts, its MRs.
local ffi = require("ffi")

local EBADF, EINVAL = 9, 22

return function(ctx)
  local Endpoint = ctx.Endpoint
  local O = ctx.O
  local close = ctx.close
  local cqs_of_qp = ctx.cqs_of_qp
  local endpoint = ctx.endpoint
  local failure = ctx.failure
  local native = ctx.native
  local owner_of = ctx.owner_of
  local posted = ctx.posted
  local reaping = ctx.reaping
  local release = ctx.release
  local rv = ctx.rv
  local send_wr = ctx.send_wr

  function Endpoint:_attach(qp, pd, send_cq, recv_cq, srq, adopted)
    local id = self.id
    local n = native("QP", qp, not adopted and function() rv.rdma_destroy_qp(id) return true end or nil,
      self._id, pd and pd._natives[1], send_cq and send_cq._natives[1], recv_cq and recv_cq._natives[1],
      srq and srq._natives[1])
    local s = ffi.cast("struct ibv_qp *", qp)
    local q = { send = {}, recv = {}, srq = srq and srq._held or nil,
      send_cq = send_cq and send_cq.ptr or s.send_cq, recv_cq = recv_cq and recv_cq.ptr or s.recv_cq }
    local num = tonumber(s.qp_num)
    for k in pairs(cqs_of_qp(q)) do
      reaping[k] = reaping[k] or {}
      reaping[k][num] = q
    end
    table.insert(n.on_destroy, function()
      for k in pairs(cqs_of_qp(q)) do
        local qs = reaping[k]
        if qs and qs[num] == q then
          qs[num] = nil
          if next(qs) == nil then reaping[k] = nil end
        end
      end
      for _, h in ipairs(q.send) do release(h) end
      for _, h in ipairs(q.recv) do release(h) end
      q.send, q.recv = {}, {}
    end)
    self._qp, self._q, self.qp, self.qp_num = n, q, qp, num
    table.insert(self._natives, 1, n)
  end

  --- Makes the id's QP (rdma_create_qp) on opts.pd, send_cq, recv_cq and
  --- srq (objects); opts.cap as struct ibv_qp_cap's fields, qp_type
  --- (IBV_QPT_RC), sq_sig_all: every send is signaled unless it is false
  --- (each produces a completion, which send_cq:next() waits for; false:
  --- only the sends posted with IBV_SEND_SIGNALED complete).
  function Endpoint:create_qp(opts)
    local id, m, e = self._id:check("rdma_create_qp")
    if not id then
      return nil, m, e
    end
    if self._qp then
      return failure("rdma_create_qp", EINVAL)
    end
    for _, o in ipairs({ opts.pd, opts.send_cq, opts.recv_cq, opts.srq or false }) do
      if o and not o._natives[1]:check("rdma_create_qp") then
        return failure("rdma_create_qp", EBADF)
      end
    end
    local attr = rv.new("ibv_qp_init_attr")
    attr.send_cq, attr.recv_cq = opts.send_cq.ptr, opts.recv_cq.ptr
    attr.srq = opts.srq and opts.srq.ptr or nil
    local cap = opts.cap or {}
    local recv = opts.srq and 0 or 16
    attr.cap.max_send_wr, attr.cap.max_recv_wr = cap.max_send_wr or 16, cap.max_recv_wr or recv
    attr.cap.max_send_sge, attr.cap.max_recv_sge = cap.max_send_sge or 4, cap.max_recv_sge or (opts.srq and 0 or 4)
    attr.cap.max_inline_data = cap.max_inline_data or 0
    attr.qp_type, attr.sq_sig_all = opts.qp_type or rv.IBV_QPT_RC, opts.sq_sig_all == false and 0 or 1
    local ok
    ok, m, e = rv.rdma_create_qp(id, opts.pd.ptr, attr)
    if not ok then
      return nil, m, e
    end
    self:_attach(ffi.cast("struct rdma_cm_id *", id).qp, opts.pd, opts.send_cq, opts.recv_cq, opts.srq)
    self.pd, self.send_cq, self.recv_cq, self.srq = opts.pd, opts.send_cq, opts.recv_cq, opts.srq
    return self
  end

  --- The id's device context (id->verbs).
  function Endpoint:context()
    local id, m, e = self._id:check("context")
    if not id then
      return nil, m, e
    end
    return ffi.cast("struct rdma_cm_id *", id).verbs
  end

  --- A QP's objects, made where opts does not give them (a PD, a
  --- completion channel, a send and a receive CQ on it), then the QP: the
  --- endpoint. What it made is closed with it.
  function Endpoint:setup(opts)
    opts = opts or {}
    local made, ctx, m, e = {}, self:context()
    local function undo(...)
      for i = #made, 1, -1 do made[i]:close() end
      return ...
    end
    if not ctx then
      return nil, m, e
    end
    local pd, send_cq, recv_cq, channel = opts.pd, opts.send_cq, opts.recv_cq, nil
    local cap = opts.cap or {}
    if not pd then
      pd, m, e = O.protection_domain(self)
      if not pd then return undo(nil, m, e) end
      made[#made + 1] = pd
    end
    if not send_cq or not recv_cq then
      channel, m, e = O.completion_channel(self)
      if not channel then return undo(nil, m, e) end
      made[#made + 1] = channel
    end
    if not send_cq then
      send_cq, m, e = O.completion_queue(self, { cqe = cap.max_send_wr or 16, channel = channel })
      if not send_cq then return undo(nil, m, e) end
      made[#made + 1] = send_cq
    end
    if not recv_cq then
      recv_cq, m, e = O.completion_queue(self, { cqe = cap.max_recv_wr or 16, channel = channel })
      if not recv_cq then return undo(nil, m, e) end
      made[#made + 1] = recv_cq
    end
    local ok
    ok, m, e = self:create_qp({ pd = pd, send_cq = send_cq, recv_cq = recv_cq, srq = opts.srq, cap = cap,
      qp_type = opts.qp_type, sq_sig_all = opts.sq_sig_all })
    if not ok then return undo(nil, m, e) end
    for _, o in ipairs(made) do
      self._owned[#self._owned + 1] = o
    end
    return self
  end

  function Endpoint:_qp_of(fn)
    local ok, m, e = self._id:check(fn)
    if not ok then
      return nil, m, e
    end
    if not self._qp then
      return failure(fn, EINVAL)
    end
    return self._qp:check(fn)
  end

  --- ibv_post_send of a work request or a list of them, each { wr_id, sg =
  --- { SGE, ... }, opcode (IBV_WR_SEND), flags, imm (host order), rdma =
  --- { remote_addr, rkey }, atomic = { remote_addr, rkey, compare_add, swap },
  --- ud = { ah, remote_qpn, remote_qkey } }; an SGE is an MR or
  --- mr:sge(offset, length). Their MRs are held until their completions are
  --- reaped. A failure: nil, message, errno, the index of the first not posted.
  function Endpoint:post_send(wrs)
    local qp, m, e = self:_qp_of("ibv_post_send")
    if not qp then
      return nil, m, e
    end
    local q = self._q
    return posted("ibv_post_send", wrs, "ibv_send_wr", send_wr, function(first, bad)
      return rv.raw.ibv_post_send(qp, first, bad)
    end, function(h) q.send[#q.send + 1] = h end)
  end

  --- ibv_post_recv of { wr_id, sg } or a list (the QP's own receive queue).
  function Endpoint:post_recv(wrs)
    local qp, m, e = self:_qp_of("ibv_post_recv")
    if not qp then
      return nil, m, e
    end
    local q = self._q
    return posted("ibv_post_recv", wrs, "ibv_recv_wr", function() end, function(first, bad)
      return rv.raw.ibv_post_recv(qp, first, bad)
    end, function(h) q.recv[#q.recv + 1] = h end)
  end

  --- An MR on the endpoint's PD (pd:reg's arguments), closed with the
  --- endpoint unless closed before (the endpoint then lets go of it).
  function Endpoint:reg(buf, len, access)
    local ok, m, e = self._id:check("ibv_reg_mr_iova2")
    if not ok then
      return nil, m, e
    end
    if not self.pd then
      return failure("ibv_reg_mr_iova2", EINVAL)   -- no QP (no PD) yet
    end
    local mr
    mr, m, e = self.pd:reg(buf, len, access)
    if not mr then
      return nil, m, e
    end
    self._mrs[mr] = true
    owner_of[mr] = self._mrs
    return mr
  end

  --- The QP, the id, and what the endpoint made itself (setup, connect,
  --- listen, reg), each once nothing depends on it.
  Endpoint.close = close

  --- An id made with the raw functions (and its QP): its posts held as
  --- any; not destroyed by :close().
  function O.adopt_endpoint(id)
    local ep = endpoint(nil, id, true)
    local qp = ffi.cast("struct rdma_cm_id *", id).qp
    if qp ~= nil then
      ep:_attach(qp, nil, nil, nil, nil, true)
    end
    return ep
  end

end
