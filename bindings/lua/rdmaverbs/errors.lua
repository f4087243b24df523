-- The failures: nil, a message (the C function, its errno's name and text,
-- what else is known), the errno.


return function(ctx)

  -- fn failed with errno (detail: what else is known, "the CQ is closed").
  local rv = ctx.rv
  local function failure(fn, errno, detail)
    return nil, fn .. ": " .. rv.errno_text(errno) .. (detail and ": " .. detail or ""), errno
  end

  ctx.failure = failure
end
