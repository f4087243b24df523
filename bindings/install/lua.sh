# bindings/install/install.sh's steps for LuaJIT, sourced by it in the install's
# folder ($DIR): what it writes before the README's block runs, and $check,
# the commands run after the block in the same shell.
	# The modules from the rocks tree luarocks made (./lua_modules), called.
	cat > prog.lua <<'EOF'
local rv = require("rdmaverbs")
local tree = os.getenv("PWD") .. "/lua_modules/share/lua/5.1/"
assert(package.searchpath("rdmaverbs", package.path) == tree .. "rdmaverbs.lua")
assert(package.loaded["rdmaverbs.endpoint"] and package.searchpath("rdmaverbs.endpoint", package.path) == tree .. "rdmaverbs/endpoint.lua")
assert(rv.rdma_seterrno(0) == 0)
assert(rv.ibv_wc_status_str(rv.IBV_WC_LOC_PROT_ERR) == "local protection error")
local n, err, errno = rv.ibv_poll_cq(nil, 1, { {} })
assert(n == nil and errno == rv.EINVAL and err:find("^ibv_poll_cq: EINVAL"), err)
print("lua: prog.lua: the tree's modules, called: ok")
EOF
	# The tree has every module of bindings/lua (which the rockspec's
	# build.modules must list), the same bytes, nothing else; so has the
	# .rock luarocks packs of it, installed into a second tree.
	check='want=$(cd "$CHECKOUT/bindings/lua" && find rdmaverbs.lua rdmaverbs -name "*.lua" | sort)
modules() { (cd "$1/share/lua/5.1" && find . -type f | sed "s|^\./||" | sort); }
for tree in lua_modules rocks; do
	[ "$(modules $tree)" = "$want" ] || { echo "lua: $tree has not the modules of bindings/lua:"; modules $tree; exit 1; }
	for f in $want; do cmp "$CHECKOUT/bindings/lua/$f" "$tree/share/lua/5.1/$f"; done
	[ $tree = rocks ] && break
	echo "lua: luarocks make: the tree has every module"
	luarocks --tree lua_modules pack rdmaverbs
	luarocks --tree rocks install rdmaverbs-*.all.rock
done
luarocks --tree rocks list --porcelain | grep -x "rdmaverbs	[^	]*	installed	$PWD/rocks/lib/luarocks/rocks-5.1"
echo "lua: $(ls rdmaverbs-*.all.rock) ($(stat -c %s rdmaverbs-*.all.rock) B), installed into a second tree: every module"
echo "lua: installed: ok"'
