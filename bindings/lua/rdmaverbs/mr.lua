-- Memory regions: an MR holds its buffer.
local ffi = require("ffi")

return function(ctx)
  local O = ctx.O
  local class = ctx.class
  local close = ctx.close
  local native = ctx.native
  local object = ctx.object

  local MR = class("MemoryRegion")
  local mr_native = setmetatable({}, { __mode = "k" })   -- MR -> its native
  local owner_of = setmetatable({}, { __mode = "k" })    -- MR of ep:reg -> its endpoint's set of them
  --- Deregisters the MR once no posted work request holds it (an MR of
  --- ep:reg() let go of by its endpoint): true, or nil, message, errno.
  function MR:close()
    local mrs = owner_of[self]
    if mrs then
      mrs[self], owner_of[self] = nil, nil
    end
    return close(self)
  end

  local function memory_region(ptr, buf, destroy, pd_native)
    local n = native("MemoryRegion", ptr, destroy, pd_native)
    n.keep[1] = buf
    local mr = object(MR, { n }, destroy ~= nil)
    mr_native[mr] = n
    local s = ffi.cast("struct ibv_mr *", ptr)
    mr.ptr, mr.buf, mr.length, mr.lkey, mr.rkey = ptr, ffi.cast("uint8_t *", buf), tonumber(s.length), s.lkey, s.rkey
    mr.addr = ffi.cast("uint64_t", ffi.cast("uintptr_t", s.addr))
    return mr
  end

  --- An MR made with the raw functions, over buf: held as any, not
  --- deregistered by :close().
  function O.adopt_mr(ptr, buf)
    return memory_region(ptr, buf, nil, nil)
  end

  --- An SGE of length bytes at offset (the rest of the MR by default).
  function MR:sge(offset, length)
    offset = offset or 0
    return { mr = self, offset = offset, length = length or self.length - offset }
  end

  ctx.MR = MR
  ctx.mr_native = mr_native
  ctx.owner_of = owner_of
  ctx.memory_region = memory_region
end
