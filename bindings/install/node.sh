# bindings/install/install.sh's steps for Node.js, sourced by it in the install's
# folder ($DIR): what it writes before the README's block runs, and $check,
# the commands run after the block in the same shell.
	# A node_modules left in the clone (by the link install of before)
	# would be what the tree's tests found koffi in: they must use the
	# installed package's (run.sh).
	rm -rf "$TREE/bindings/node/node_modules"
	# The package has the TypeScript declarations of both entries: a typed
	# program of each kind checks against them with tsc (TypeScript 5 and
	# Node's types from npm, beside the package; a line says so when npm
	# cannot give them), the ES module's through the exports map's types
	# (index.d.mts), as does one the declarations must refuse.
	cat > prog.ts <<'EOF'
import rv = require('rdmaverbs');

async function client(host: string, port: number): Promise<string | null> {
  const ep: rv.Endpoint = await rv.connect(host, port, { timeout: 5000, cap: { max_send_wr: 4 } });
  try {
    const recv: rv.MemoryRegion = ep.reg(Buffer.alloc(16));
    ep.postRecv({ wrId: 1, sg: [recv] });
    ep.postSend({ wrId: 2n, sg: [recv.sge(0, 8)], flags: rv.IBV_SEND_SIGNALED, imm: 5 });
    const [wc]: rv.Completion[] = await ep.recvCq!.next(1, { timeout: 5000 });
    return rv.ibv_wc_status_str(wc.status);
  } finally {
    ep.close();
  }
}
const wcs: Partial<rv.ibv_wc>[] = [{}, {}];
const n: number = rv.raw.ibv_poll_cq(null, 2, wcs) + rv.rdma_seterrno(0);
const e: rv.RdmaVerbsError = new rv.RdmaVerbsError('ibv_post_send', rv.EINVAL);
void client; void n; void e.errno;
EOF
	cat > prog.mts <<'EOF'
import rv, { connect, Endpoint, Completion, IBV_WC_LOC_PROT_ERR, ibv_wc_status_str, RdmaVerbsError } from 'rdmaverbs';

async function client(host: string, port: number): Promise<number> {
  const ep: Endpoint = await connect(host, port, { timeout: 5000 });
  try {
    const [wc]: Completion[] = await ep.recvCq!.next(1, { timeout: 5000 });
    return wc.byte_len;
  } finally {
    ep.close();
  }
}
const text: string | null = ibv_wc_status_str(IBV_WC_LOC_PROT_ERR) ?? rv.ibv_wc_status_str(rv.IBV_WC_SUCCESS);
const e: RdmaVerbsError = new rv.RdmaVerbsError('ibv_post_send', rv.EINVAL);
const same: typeof rv.Endpoint = Endpoint;
void client; void text; void e; void same;
EOF
	printf '%s\n' "import rv = require('rdmaverbs');" "new rv.ProtectionDomain(1n).reg('not memory');" > bad.ts
	printf '%s\n' "import { ProtectionDomain } from 'rdmaverbs';" "new ProtectionDomain(1n).reg('not memory');" > bad.mts
	# Both entries, installed from the tarball: one object, the package's
	# copy in the project, its koffi beside it; then called.
	cat > check.mjs <<'EOF'
import rv, { ibv_wc_status_str, IBV_WC_LOC_PROT_ERR, Endpoint } from 'rdmaverbs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
const require = createRequire(import.meta.url), cjs = require('rdmaverbs');
const ok = (c, what) => { if (!c) { console.error(`node: FAIL: ${what}`); process.exit(1); } };
const here = `${process.cwd()}/node_modules/`;
ok(require.resolve('rdmaverbs') === `${here}rdmaverbs/index.js`, 'require gives the installed index.js');
ok(import.meta.resolve('rdmaverbs') === pathToFileURL(`${here}rdmaverbs/index.mjs`).href, 'import gives the installed index.mjs');
ok(rv === cjs && Endpoint === cjs.Endpoint, 'one package, both ways');
ok(require.resolve('koffi', { paths: [`${here}rdmaverbs`] }).startsWith(`${here}koffi/`), 'koffi in the project');
console.log('node: import and require: the installed package, one object; koffi beside it');
ok(rv.rdma_seterrno(0) === 0 && ibv_wc_status_str(IBV_WC_LOC_PROT_ERR) === 'local protection error', 'calls');
try {
  rv.ibv_poll_cq(null, 1, [{}]);
  ok(false, 'ibv_poll_cq(NULL) returned');
} catch (e) {
  ok(e instanceof rv.RdmaVerbsError && e.code === 'EINVAL', `ibv_poll_cq(NULL): ${e}`);
}
console.log('node: installed: ok');
EOF
	# The tarball has every file of the package (bindings/node's but its lock and emit.py, the
	# generator's, and objects/ and scripts/), nothing else.
	check='want=$(cd "$CHECKOUT/bindings/node" && find . -maxdepth 1 -type f ! -name package-lock.json ! -name emit.py && find objects scripts -type f)
[ "$(tar -tzf rdmaverbs-*.tgz | sed "s|^package/||" | sort)" = "$(printf "%s\n" $want | sed "s|^\./||" | sort)" ] ||
	{ echo "node: the tarball'"'"'s files are not the package'"'"'s:"; tar -tzf rdmaverbs-*.tgz; exit 1; }
for f in LICENSE-MIT LICENSE-APACHE; do cmp "$CHECKOUT/$f" node_modules/rdmaverbs/$f; done
echo "node: $(ls rdmaverbs-*.tgz) ($(stat -c %s rdmaverbs-*.tgz) B): every file of the package, the repository'"'"'s license texts"
[ -d node_modules/rdmaverbs ] && [ ! -L node_modules/rdmaverbs ] && [ -d node_modules/koffi ]
if npm install --no-save --no-package-lock typescript@5 @types/node@20 > ts-install.log 2>&1; then
	tsc="npx --no-install tsc --noEmit --strict --target es2020 --types node"
	$tsc --module commonjs prog.ts
	echo "node: tsc --noEmit --strict --module commonjs prog.ts: no error"
	$tsc --module node16 --listFiles prog.ts prog.mts | grep -x "$PWD/node_modules/rdmaverbs/index.d.mts"
	echo "node: tsc --noEmit --strict --module node16 prog.ts prog.mts: no error, the ES module'"'"'s types index.d.mts"
	if $tsc --module node16 bad.ts bad.mts > bad.log; then echo "node: tsc accepted bad.ts and bad.mts"; exit 1; fi
	grep "^bad\.ts(.*TS2345" bad.log && grep "^bad\.mts(.*TS2345" bad.log
	echo "node: tsc refuses bad.ts and bad.mts"
else
	echo "node: TypeScript not available from npm: tsc not run"; cat ts-install.log
fi
link=$(mktemp -d /tmp/rdmaverbs-install-node-link.XXXXXX) && (cd "$link" && npm install --no-audit --no-fund "$CHECKOUT/bindings/node" > npm.log 2>&1 && [ -L node_modules/rdmaverbs ] && node -e "require(\"rdmaverbs\").rdma_seterrno(0)") ||
	{ echo "node: FAIL: npm install $CHECKOUT/bindings/node (a link; its scripts/install.js puts koffi in the clone), then require"; cat "$link/npm.log"; exit 1; }; echo "node: the folder route too: npm install of bindings/node, a link, koffi put in the clone by scripts/install.js: require works"
node check.mjs'
