-- The LuaJIT binding as a rock. `luarocks make` in this folder installs
-- its modules into a rocks tree (README.md, "Install"; make bindings runs
-- that into a fresh tree, and checks that the tree has every module of this
-- folder, which build.modules must list, and nothing else). The source is
-- where `luarocks build` of this rockspec would fetch the release from: no
-- rocks server has it.
rockspec_format = "3.0"
package = "rdmaverbs"
version = "1.4.0-1"
source = {
  url = "git+https://github.com/rdmaverbs/rdmaverbs.git",
  tag = "v1.4.0",
  dir = "rdmaverbs/bindings/lua",
}
description = {
  summary = "librdmaverbs.so.1 from LuaJIT (ffi): the static inline functions of rdma_verbs.h and verbs.h",
  detailed = [[
The static inline functions of librdmacm's <rdma/rdma_verbs.h> and of
<infiniband/verbs.h> (ibv_post_send, ibv_poll_cq, ...) through
librdmaverbs.so.1, with LuaJIT's ffi, and the librdmacm and libibverbs
calls around them; raw, and as objects that close themselves in order,
hold what is posted, and wait with a bound, yielding inside a coroutine.
LuaJIT only: PUC Lua has no ffi. Needs librdmaverbs.so.1 (the package
librdmaverbs1) at run time.
]],
  homepage = "https://github.com/rdmaverbs/rdmaverbs/tree/main/bindings/lua",
  issues_url = "https://github.com/rdmaverbs/rdmaverbs/issues",
  license = "MIT OR Apache-2.0",
  maintainer = "rdmaverbs developers <rdmaverbs@example.org>",
  labels = { "rdma", "infiniband", "ffi", "luajit" },
}
supported_platforms = { "linux" }
dependencies = { "lua ~> 5.1" }
build = {
  type = "builtin",
  modules = {
    rdmaverbs = "rdmaverbs.lua",
    ["rdmaverbs.api"] = "rdmaverbs/api.lua",
    ["rdmaverbs.async"] = "rdmaverbs/async.lua",
    ["rdmaverbs.channel"] = "rdmaverbs/channel.lua",
    ["rdmaverbs.connect"] = "rdmaverbs/connect.lua",
    ["rdmaverbs.cq"] = "rdmaverbs/cq.lua",
    ["rdmaverbs.endpoint"] = "rdmaverbs/endpoint.lua",
    ["rdmaverbs.errors"] = "rdmaverbs/errors.lua",
    ["rdmaverbs.mr"] = "rdmaverbs/mr.lua",
    ["rdmaverbs.pd"] = "rdmaverbs/pd.lua",
    ["rdmaverbs.qp"] = "rdmaverbs/qp.lua",
    ["rdmaverbs.shared.native"] = "rdmaverbs/shared/native.lua",
    ["rdmaverbs.shared.work"] = "rdmaverbs/shared/work.lua",
    ["rdmaverbs.srq"] = "rdmaverbs/srq.lua",
  },
}
