-- The failures: nil, a message (the C function and its errno's text), the
-- errno.
local ffi = require("ffi")

return function(ctx)

  local function failure(fn, errno)
    return nil, fn .. ": " .. ffi.string(ffi.C.strerror(errno)), errno
  end

  ctx.failure = failure
end
