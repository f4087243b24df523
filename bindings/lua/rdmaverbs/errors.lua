-- The failures: nil, a message (the C function and its errno's text), the
-- errno.
local ffi = require("ffi")

return function(ctx)

  -- fn failed with errno (detail: what else is known, "the CQ is closed").
  local function failure(fn, errno, detail)
    return nil, fn .. ": " .. ffi.string(ffi.C.strerror(errno)) .. (detail and " (" .. detail .. ")" or ""), errno
  end

  ctx.failure = failure
end
