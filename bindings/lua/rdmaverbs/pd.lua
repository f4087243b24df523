-- Protection domains.
local ffi = require("ffi")

return function(ctx)
  local O = ctx.O
  local class = ctx.class
  local context_of = ctx.context_of
  local memory_region = ctx.memory_region
  local native = ctx.native
  local object = ctx.object
  local rv = ctx.rv

  local PD = class("ProtectionDomain")

  --- ibv_alloc_pd on a context (or an endpoint's: its id then destroyed
  --- after the PD).
  function O.protection_domain(context)
    local ctx, m, e = context_of(context)
    if not ctx then
      return nil, m, e
    end
    local id = m
    local ptr
    ptr, m, e = rv.ibv_alloc_pd(ctx)
    if not ptr then
      return nil, m, e
    end
    local pd = object(PD, { native("ProtectionDomain", ptr, rv.ibv_dealloc_pd, id) }, true)
    pd.ptr = ptr
    return pd
  end

  --- Registers buf (cdata) of len bytes with ibv_reg_mr_iova2 (iova its
  --- address), or len new zeroed bytes when buf is a number (pd:reg(64)):
  --- an MR that holds it (mr.buf: its bytes, uint8_t *).
  function PD:reg(buf, len, access)
    if type(buf) == "number" then
      buf, len, access = ffi.new("uint8_t[?]", buf), buf, len
    end
    local pd, m, e = self._natives[1]:check("ibv_reg_mr_iova2")
    if not pd then
      return nil, m, e
    end
    local address = ffi.cast("uint64_t", ffi.cast("uintptr_t", buf))
    local ptr
    ptr, m, e = rv.ibv_reg_mr_iova2(pd, buf, len, address, access or rv.IBV_ACCESS_LOCAL_WRITE)
    if not ptr then
      return nil, m, e
    end
    return memory_region(ptr, buf, rv.ibv_dereg_mr, self._natives[1])
  end

  ctx.PD = PD
end
