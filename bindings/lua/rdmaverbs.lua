-- rdmaverbs: the static inline functions of librdmacm's <rdma/rdma_verbs.h>
-- and of <infiniband/verbs.h> (ibv_post_send, ibv_poll_cq,
-- ibv_req_notify_cq, ...) from LuaJIT, through librdmaverbs.so.1, with
-- LuaJIT's ffi; and the real librdmacm and libibverbs calls a program makes
-- with them (event channels and ids, completion channels, PDs, CQs, SRQs,
-- address handles, MRs).
--
--   local rv = require("rdmaverbs")
--   local n, err, errno = rv.rdma_post_send(id, ctx, buf, 64, mr, 0)
--
-- Every function has its C name and C types; a failure returns nil, a
-- message and its errno: the errno the call left (ffi.errno(), read right
-- after it) for -1 (rdma_*) or NULL, the value itself for the functions
-- that return an errno value (ibv_post_send, ibv_dealloc_pd, ...), minus a
-- negative value (ibv_query_gid_table). rv.raw has the ffi functions
-- themselves. The structs and unions (struct ibv_sge, struct ibv_wc,
-- struct ibv_send_wr, union ibv_send_wr_wr, ...) are declared to the ffi,
-- each unless the program has declared it already; rv.new("ibv_wc") makes
-- one. The constants are fields (rv.IBV_WC_SUCCESS). The declarations are
-- generated (rdmaverbs/api.lua) from the library's table and checked against the system
-- headers (luajit -e 'for _, l in ipairs(require("rdmaverbs").layout()) do print(l) end').
--
-- The arrays of structs (the vectored posts' SGEs, ibv_poll_cq's
-- completions) are a table (of tables {addr =, length =, lkey =} or
-- {addr, length, lkey}, or of struct cdata), copied into one C array (and,
-- for ibv_poll_cq, copied back into the table's elements), or a cdata
-- array of the struct; a count larger than the array raises an error.
-- rv.rdma_get_src_port and rv.rdma_get_dst_port return the port in network
-- byte order, as C does; rv.src_port and rv.dst_port return it in host
-- order. rv.ibv_wc_status_str and rv.rdma_event_str return a Lua string.
--
-- The libraries: librdmaverbs.so.1, librdmacm.so.1 and libibverbs.so.1,
-- found by the dynamic loader; RDMAVERBS_LIBRARY names another copy of
-- librdmaverbs, whose functions are each found by its symbol version
-- (dlvsym: ibv_post_send@RDMAVERBS_1.3), never a same-named symbol of
-- another library.
local ffi = require("ffi")
local bit = require("bit")

-- The structs, the functions and the constants, generated
-- (rdmaverbs/api.lua, by bindings/generate.py).
local api = require("rdmaverbs.api")
local STRUCTS, FUNCTIONS, HOST_ORDER, CONSTANTS = api.STRUCTS, api.FUNCTIONS, api.HOST_ORDER, api.CONSTANTS

for _, s in ipairs(STRUCTS) do
  if not pcall(ffi.sizeof, s[2] .. " " .. s[1]) then
    ffi.cdef(s[3])
  end
end
ffi.cdef([[
char *strerror(int errnum);
void *dlopen(const char *file, int mode);
void *dlvsym(void *handle, const char *name, const char *version);
char *dlerror(void);
void *dlsym(void *handle, const char *name);
]])

local M = { ffi = ffi, raw = {} }
local env = os.getenv("RDMAVERBS_LIBRARY")
M.library = env ~= nil and env ~= "" and env or "librdmaverbs.so.1"

-- "ECONNREFUSED (Connection refused)": an errno's name (glibc's
-- strerrorname_np, where it has one) and text.
local errno_name = ffi.C.dlsym(nil, "strerrorname_np")
errno_name = errno_name ~= nil and ffi.cast("const char *(*)(int)", errno_name) or nil
function M.errno_text(errno)
  local name = errno_name and errno_name(errno)
  return (name ~= nil and name and ffi.string(name) or "errno " .. tostring(errno)) .. " (" ..
    ffi.string(ffi.C.strerror(errno)) .. ")"
end

-- The library name, loaded; else an error saying which library was looked
-- for, where, and what provides it (package).
local function load(name, package)
  local ok, lib = pcall(ffi.load, name)
  if ok then
    return lib
  end
  local where, fix
  if name:find("/") then
    where = name == env and "at the path RDMAVERBS_LIBRARY names" or "at that path"
    fix = "set RDMAVERBS_LIBRARY to the path of a librdmaverbs.so.1 (a clone's build/lib, after make), or unset " ..
      "it to use the installed one (the package " .. package .. ")"
  else
    where = "by the dynamic loader, in LD_LIBRARY_PATH (" .. (os.getenv("LD_LIBRARY_PATH") or "unset") ..
      "), /etc/ld.so.cache and the system's library folders"
    fix = "install the package " .. package
    if package == "librdmaverbs1" then
      fix = fix .. ", or set RDMAVERBS_LIBRARY to the path of one (a clone's build/lib/librdmaverbs.so.1, after make)"
    end
  end
  error("rdmaverbs: cannot load " .. name .. ", looked for " .. where .. " (" .. tostring(lib) .. "): " .. fix, 0)
end
local libs = {
  rdmaverbs = load(M.library, "librdmaverbs1"),
  rdmacm = load("librdmacm.so.1", "librdmacm1"),
  ibverbs = load("libibverbs.so.1", "libibverbs1"),
}
-- Kept as long as the module is: a library namespace collected is
-- dlclose()d, and the functions taken from it (rv.raw's) would then call
-- into unmapped memory.
M._libs = libs
-- librdmaverbs' functions by their symbol version: dlvsym on its handle.
local RTLD_NOW = 2
local handle = ffi.C.dlopen(M.library, RTLD_NOW)
if handle == nil then
  error("rdmaverbs: " .. ffi.string(ffi.C.dlerror()))
end
-- The address each of ours is called at, by name.
M.addresses = {}

for _, c in ipairs(CONSTANTS) do
  M[c[1]] = c[2]
end

local FIELDS = {}
for _, s in ipairs(STRUCTS) do
  FIELDS[s[1]] = s[4]
end

-- An array argument as contiguous C memory of at least n structs: a cdata
-- array of the struct as it is (one struct: an array of one); a table of
-- tables (by field name or in field order) or of struct cdata copied into
-- a new one (a field a table lacks is zero where C writes the array, an
-- error where it reads it); nil stays NULL. Anything else, or an n larger
-- than the array, raises an error (C would read or write past the array).
local function array(name, struct, value, n, written)
  if value == nil then
    return nil
  end
  local ct, len = "struct " .. struct, nil
  if type(value) == "table" then
    len = #value
    local copy, fields = ffi.new(ct .. "[?]", math.max(len, 1)), FIELDS[struct]
    for i = 1, len do
      local e = value[i]
      for k, field in ipairs(fields) do
        local v = e[field]
        if v == nil and type(e) == "table" then v = e[k] end
        if v == nil and not written then
          error(name .. ": element " .. i .. " has no " .. field, 3)
        end
        if v ~= nil then
          copy[i - 1][field] = v
        end
      end
    end
    value = copy
  elseif type(value) == "cdata" and not tostring(ffi.typeof(value)):find("%*>$") then
    if tostring(ffi.typeof(value)):find("%[[%d?]*%]>$") then
      len = ffi.sizeof(value) / ffi.sizeof(ct)
    elseif ffi.istype(ct, value) then
      len = 1
    end
  end
  if len == nil then
    error(name .. ": a table or a cdata array of " .. ct .. ", not " .. tostring(value) ..
      " (rv.raw." .. name .. " takes a pointer)", 3)
  end
  if n > len then
    error(name .. ": the count (" .. n .. ") is more than the array's " .. len .. " elements", 3)
  end
  return value
end

-- What C wrote into copy, the C array made of the table value, copied
-- back into the table's elements (a table's fields, or a struct cdata).
local function copy_back(struct, value, copy)
  if type(value) ~= "table" then
    return
  end
  local fields, size = FIELDS[struct], ffi.sizeof("struct " .. struct)
  for i = 1, #value do
    local e = value[i]
    if type(e) == "table" then
      for _, field in ipairs(fields) do
        e[field] = copy[i - 1][field]
      end
    else
      ffi.copy(e, copy[i - 1], size)
    end
  end
end

-- The errno of a failed call, or nil: a negative value or NULL (the errno
-- left), an errno value returned, a negative value (minus the errno).
local function failed(fails, r)
  if (fails == "int" and r < 0) or (fails == "ptr" and r == nil) then
    return ffi.errno()
  elseif fails == "errno" and r ~= 0 then
    return r
  elseif fails == "neg" and r < 0 then
    return tonumber(-r)
  end
  return nil
end

-- The function as the binding gives it: its arrays laid out (and copied
-- back); a failure returning nil, "NAME: strerror", errno; a C string
-- returned as a Lua one.
local function wrapped(name, fn, fails, arrays, text)
  local function result(r)
    local errno = failed(fails, r)
    if errno then
      return nil, name .. ": " .. M.errno_text(errno), errno
    end
    if text then
      return r ~= nil and ffi.string(r) or nil
    end
    return r
  end
  if #arrays == 0 then
    return function(...)
      return result(fn(...))
    end
  end
  return function(...)
    local args = { n = select("#", ...), ... }
    local given = { ... }
    for _, a in ipairs(arrays) do
      args[a[1]] = array(name, a[3], args[a[1]], args[a[2]], a[4])
    end
    local r = fn(unpack(args, 1, args.n))
    local value, message, errno = result(r)   -- errno read before anything else runs
    for _, a in ipairs(arrays) do
      if a[4] then
        copy_back(a[3], given[a[1]], args[a[1]])
      end
    end
    return value, message, errno
  end
end

for _, f in ipairs(FUNCTIONS) do
  local lib, name, decl, fails, arrays, text, version, pointer, since = unpack(f, 1, 9)
  local address = version and ffi.C.dlvsym(handle, name, version)
  if version and address == nil and since then
    -- One that a later rdma-core release brought is missing from a library
    -- built against an older one's headers: its call raises an error
    -- saying so (loading does not fail for it).
    local message = name .. " is not in " .. M.library .. ": it came with rdma-core " .. since
      .. ", and this build of rdmaverbs was made against an older rdma-core's headers"
      .. " (rebuild it against rdma-core " .. since .. " or later)"
    M.raw[name] = function() error(message, 2) end
  elseif version then
    if address == nil then
      error("rdmaverbs: " .. M.library .. " has no " .. name .. "@" .. version .. ": it is older than this module; " ..
        "install the package librdmaverbs1 of this version, or set RDMAVERBS_LIBRARY to a newer build", 0)
    end
    M.addresses[name] = address
    M.raw[name] = ffi.cast(pointer, address)
  else
    ffi.cdef(decl)
    M.raw[name] = libs[lib][name]
  end
  if fails or text or #arrays > 0 then
    M[name] = wrapped(name, M.raw[name], fails, arrays, text)
  else
    M[name] = M.raw[name]
  end
end

-- The host-order forms of the functions that return a network-order value.
for name, c_name in pairs(HOST_ORDER) do
  local fn = M.raw[c_name]
  M[name] = function(...)
    local r = fn(...)
    if ffi.abi("le") then
      return bit.bor(bit.lshift(bit.band(r, 0xff), 8), bit.rshift(r, 8))
    end
    return r
  end
end

local KEYWORD = {}
for _, s in ipairs(STRUCTS) do
  KEYWORD[s[1]] = s[2]
end

--- A new zeroed struct or union NAME (ibv_wc, ibv_send_wr, ibv_gid ...);
--- with n, an array of n.
function M.new(name, n)
  local t = (KEYWORD[name] or "struct") .. " " .. name
  if n then
    return ffi.new(t .. "[?]", n)
  end
  return ffi.new(t)
end

--- This binding's layout lines, as the C layout program prints the system
--- headers': "STRUCT sizeof N", "STRUCT.FIELD offset N", "NAME value N".
function M.layout()
  local out = {}
  for _, s in ipairs(STRUCTS) do
    local t = s[2] .. " " .. s[1]
    out[#out + 1] = s[1] .. " sizeof " .. ffi.sizeof(t)
    for _, field in ipairs(s[4]) do
      out[#out + 1] = s[1] .. "." .. field .. " offset " .. ffi.offsetof(t, field)
    end
  end
  for _, c in ipairs(CONSTANTS) do
    out[#out + 1] = c[1] .. " value " .. c[2]
  end
  return out
end

-- ---- Objects: rv.event_channel(), an endpoint (an rdma_cm id with its
-- QP), rv.protection_domain(), MRs, rv.completion_channel(),
-- rv.completion_queue(), rv.shared_receive_queue(), rv.connect(),
-- rv.listen() ----
--
-- Each closes with :close() or, collected unclosed, by its ffi.gc
-- finalizer (also at the state's end, lua_close); either way the C objects
-- go in the order they depend on each other, whatever the program does: an
-- object others depend on (a PD under its MRs and QPs, a CQ under its QPs,
-- a channel under its CQs or ids) is destroyed once the last of them is,
-- and an MR once no posted work request uses it. An MR holds its buffer; a
-- posted work request holds the MRs of its SGEs until its completion is
-- reaped by a CQ's :poll() or :next(), or its QP (its SRQ) is destroyed. A
-- failure returns nil, message, errno, as the functions do (a destroy
-- that fails leaves its C object, and so what it holds and depends on,
-- kept for the life of the state: rv.leaked); a closed
-- object's methods EBADF; a wait's bound (milliseconds; nil: none),
-- ETIMEDOUT. The channels' fds are made non-blocking; a wait is poll() on
-- the fd, then the non-blocking read.
--
-- One module an object under rdmaverbs/ (errors, async, mr, pd, channel,
-- cq, srq, endpoint, qp, connect: the short ways) and, in
-- rdmaverbs/shared/, what the objects share (native: the C objects' ends,
-- work: the posts and their holds), each a function of ctx, the
-- names the modules before it defined (a name of a later one is looked up
-- in ctx when called: ctx.endpoint).
local MODULES = { "errors", "async", "shared.native", "mr", "shared.work", "pd", "channel", "cq", "srq", "endpoint", "qp",
  "connect" }
local function objects(rv)
  local ctx = { rv = rv, O = {} }
  for _, m in ipairs(MODULES) do
    require("rdmaverbs." .. m)(ctx)
  end
  return ctx.O
end

M._objects = objects
M._MODULES = MODULES
for name, value in pairs(objects(M)) do
  M[name] = value
end

M.FUNCTIONS = FUNCTIONS
return M
