#!/usr/bin/env bash
# make bindings: each binding installed as its README says, from a fresh folder
# outside the tree (a new /tmp/rdmaverbs-install-LANGUAGE.XXXXXX, which
# BUILD_DIR/bindings/install/LANGUAGE links to, for run.sh), and a program that uses it.
#
#   install.sh BUILD_DIR LANGUAGE
#   install.sh --block LANGUAGE     prints the README's install block
#
# The commands are the README's own: the ```sh block that follows the line
# '<!-- install: ... -->' in bindings/LANGUAGE/README.md, run as written in
# one bash, but for its first line, 'CHECKOUT=...' (where the reader cloned
# rdmaverbs), which becomes this tree. The library is this tree's
# (RDMAVERBS_LIBRARY; Rust: the README's PKG_CONFIG_PATH and LD_LIBRARY_PATH
# lines). The program, written into the folder first (Prog.java, Prog.cs,
# prog.lua) or run after the block (Python, Node.js, Rust), checks that the
# package it loaded is the installed one and that it calls librdmaverbs and
# libibverbs. Its output is in BUILD_DIR/bindings/install/LANGUAGE.log. Outside the
# tree as a reader's folder is: no Cargo workspace, package.json or node_modules
# above it (npm would take that folder for the project), nothing of the checkout's.
set -euo pipefail
[ $# = 2 ] || { echo "usage: install.sh BUILD_DIR|--block LANGUAGE" >&2; exit 2; }
cd "$(dirname "$0")/.."
lang=$2
block=$(awk '/^<!-- install:/ { armed = 1; next }
	armed && /^```sh$/ { inside = 1; next }
	inside && /^```$/ { exit }
	inside { print }' "bindings/$lang/README.md")
case $block in
CHECKOUT=*) ;;
*) echo "install.sh: bindings/$lang/README.md: no install block starting with CHECKOUT=" >&2; exit 1 ;;
esac
if [ "$1" = --block ]; then
	printf '%s\n' "$block"
	exit 0
fi
TREE=$PWD B=$(realpath "$1")
LINK=$B/bindings/install/$lang LOG=$B/bindings/install/$lang.log
export RDMAVERBS_LIBRARY=$B/lib/librdmaverbs.so.1
script="CHECKOUT=$TREE
$(printf '%s\n' "$block" | tail -n +2)"

# The last install's folder goes with its link.
if [ -L "$LINK" ]; then rm -rf "$(readlink "$LINK")"; fi
rm -rf "$LINK" && mkdir -p "$(dirname "$LINK")"
DIR=$(mktemp -d "/tmp/rdmaverbs-install-$lang.XXXXXX")
ln -s "$DIR" "$LINK"
cd "$DIR"
case $lang in
python)
	# python3 -m build is Debian's python3's (python3-build, .ci/deps): a
	# python3 before it on the PATH (pyenv's, here) may have no build module.
	python3 -c 'import build' 2> /dev/null || export PATH=/usr/bin:$PATH
	# The package has py.typed: mypy (Debian's) checks a typed program
	# against the installed package, and must refuse one that passes a
	# str where an MR's buffer goes (a line says so when mypy is missing).
	cat > prog.py <<'EOF'
import rdmaverbs as rv


def client(addr: str, port: int) -> bytes:
    with rv.Endpoint.create(addr, port) as ep:
        reply: rv.MR = ep.reg_msgs(64)
        ep.post_recv(reply)
        ep.connect()
        ep.post_send(ep.reg_msgs(bytearray(64)))
        ep.get_send_comp(timeout=5)
        wc: rv.ibv_wc = ep.get_recv_comp(timeout=5)
        return bytes(reply.buf[: wc.byte_len])


status: str = rv.ibv_wc_status_str(rv.IBV_WC_SUCCESS)
EOF
	printf '%s\n' "import rdmaverbs as rv" "rv.Endpoint.create('h', 1).reg_msgs('not memory')" > bad.py
	# What the README built (dist/: the sdist and the wheel) against this
	# tree: each has every file of the package (and the sdist the examples,
	# the tests and the license files), nothing else; the metadata PyPI
	# shows; then the package installed from the wheel, in the venv, called.
	cat > artifacts.py <<'EOF'
import glob, os, sys, tarfile, zipfile
from importlib import metadata
src, dist = sys.argv[1], sys.argv[2]
(wheel,), (sdist,) = glob.glob(f"{dist}/rdmaverbs-*.whl"), glob.glob(f"{dist}/rdmaverbs-*.tar.gz")
def tree(*parts):
    return {os.path.relpath(os.path.join(d, f), src) for part in parts for d, _, fs in os.walk(os.path.join(src, part))
            if "__pycache__" not in d for f in fs}
package, licenses = tree("rdmaverbs"), {"LICENSE-MIT", "LICENSE-APACHE"}
version = metadata.version("rdmaverbs")
info = f"rdmaverbs-{version}.dist-info/"
have = {n for n in zipfile.ZipFile(wheel).namelist()}
want = package | {info + n for n in ("METADATA", "WHEEL", "RECORD")} | {info + "licenses/" + n for n in licenses}
assert have == want, f"{wheel}: missing {sorted(want - have)}, extra {sorted(have - want)}"
have = {m.name.split("/", 1)[1] for m in tarfile.open(sdist).getmembers() if m.isfile()}
want = package | tree("examples", "tests") | licenses | {"README.md", "pyproject.toml", "PKG-INFO"}
assert have == want, f"{sdist}: missing {sorted(want - have)}, extra {sorted(have - want)}"
for n in licenses:
    assert open(f"{src}/{n}").read() == open(f"{src}/../../{n}").read(), f"{n} is not the repository's"
print(f"python: {os.path.basename(wheel)} ({os.path.getsize(wheel)} B), {os.path.basename(sdist)} ({os.path.getsize(sdist)} B): every file")
m = metadata.metadata("rdmaverbs")
assert m["License-Expression"] == "MIT OR Apache-2.0" and m["Requires-Python"] == ">=3.8", m
urls = dict(u.split(", ", 1) for u in m.get_all("Project-URL"))
assert set(urls) >= {"Homepage", "Source", "Issues"} and "Typing :: Typed" in m.get_all("Classifier"), m
print(f"python: its metadata: {version}, {m['License-Expression']}, Python {m['Requires-Python']}, "
      f"{len(m.get_all('Classifier'))} classifiers, URLs {' '.join(sorted(urls))}")
import errno, rdmaverbs as rv
assert rv.__file__.startswith(os.path.join(os.getcwd(), "venv")), rv.__file__
assert rv.rdma_seterrno(0) == 0
assert rv.ibv_wc_status_str(rv.IBV_WC_LOC_PROT_ERR) == "local protection error"
try:
    rv.ibv_poll_cq(None, 1, [rv.ibv_wc()])
    raise AssertionError("ibv_poll_cq(NULL) returned")
except OSError as e:
    assert e.errno == errno.EINVAL, e
print("python: installed: ok")
EOF
	check='if command -v mypy > /dev/null; then
	mypy --strict --python-executable venv/bin/python prog.py
	echo "python: mypy --strict prog.py: no error"
	if mypy --strict --python-executable venv/bin/python bad.py > bad.log; then echo "python: mypy accepted bad.py"; exit 1; fi
	grep "arg-type" bad.log
	echo "python: mypy refuses bad.py"
else
	echo "python: no mypy (apt-get install mypy): the types not checked"
fi
python artifacts.py "$CHECKOUT/bindings/python" dist' ;;
node)
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
	# generator's, and objects/), nothing else.
	check='want=$(cd "$CHECKOUT/bindings/node" && find . -maxdepth 1 -type f ! -name package-lock.json ! -name emit.py && find objects -type f)
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
	{ echo "node: FAIL: npm install $CHECKOUT/bindings/node (a link; its install.js puts koffi in the clone), then require"; cat "$link/npm.log"; exit 1; }; echo "node: the folder route too: npm install of bindings/node, a link, koffi put in the clone by install.js: require works"
node check.mjs' ;;
rust)
	# Offline, with a cargo home of its own (no registry cache): the crates are
	# the packaged ones, unpacked in the project, and libc is vendor/'s.
	export CARGO_HOME=$DIR/cargo-home
	check='tree=$(cargo tree -e normal --prefix none)
printf "%s\n" "$tree"
for c in rdmaverbs rdmaverbs-sys; do
	grep -qx "$c v[0-9.]* ($PWD/crates/$c-[0-9.]*)" <<< "$tree"
done
echo "rust: rdmaverbs and rdmaverbs-sys from the .crate files, unpacked in crates/"
if PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=/nonexistent CARGO_TARGET_DIR=target/no-pc cargo build -q > no-pc.log 2>&1; then
	echo "rust: built with no rdmaverbs.pc to be found"; exit 1
fi
grep -F "Install librdmaverbs-dev" no-pc.log
echo "rust: with no rdmaverbs.pc, the build stops and says what to install"
cat > src/main.rs <<EOF
use rdmaverbs as rv;
fn main() {
    assert_eq!(unsafe { rv::raw::rdma_seterrno(0) }.unwrap(), 0);
    assert_eq!(rv::WcStatus(rv::raw::IBV_WC_LOC_PROT_ERR as u32).to_string(), "local protection error");
    println!("rust: installed: ok");
}
EOF
cargo run -q' ;;
java)
	# A Maven project: its pom depends on the installed jar (JNA with it,
	# from Debian's repository) and runs Prog with exec:java; Prog checks
	# that both jars are the project's repository's (m2).
	mkdir -p src/main/java
	cat > pom.xml <<'EOF'
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>app</artifactId>
  <version>1</version>
  <properties><maven.compiler.release>17</maven.compiler.release></properties>
  <dependencies>
    <dependency>
      <groupId>org.rdmaverbs</groupId>
      <artifactId>rdmaverbs</artifactId>
      <version>1.4.0</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.codehaus.mojo</groupId>
        <artifactId>exec-maven-plugin</artifactId>
        <version>3.1.0</version>
        <configuration><mainClass>Prog</mainClass></configuration>
      </plugin>
    </plugins>
  </build>
</project>
EOF
	cat > src/main/java/Prog.java <<'EOF'
import org.rdmaverbs.RdmaVerbs;

public class Prog {
    static String jar(Class<?> c) {
        return c.getProtectionDomain().getCodeSource().getLocation().getPath();
    }

    public static void main(String[] args) throws java.io.IOException {
        String m2 = System.getProperty("user.dir") + "/m2/";
        String ours = jar(RdmaVerbs.class), jna = jar(com.sun.jna.Native.class);
        System.out.println("java: " + ours + ", " + jna);
        if (!ours.equals(m2 + "org/rdmaverbs/rdmaverbs/1.4.0/rdmaverbs-1.4.0.jar")
            || !jna.startsWith(m2 + "net/java/dev/jna/jna/")) {
            System.exit(1);
        }
        System.out.println("java: the jar and JNA from the project's repository, m2");
        if (RdmaVerbs.rdma_seterrno(0) != 0
            || !RdmaVerbs.ibv_wc_status_str(RdmaVerbs.IBV_WC_LOC_PROT_ERR).equals("local protection error")) {
            System.exit(1);
        }
        System.out.println("java: Prog ran with the installed jar");
    }
}
EOF
	# Prog's System.exit(1) is exec:java's, so the block's, failure; the
	# last line is this one (Maven ends its output with a colour reset).
	check='printf '"'"'\njava: installed: ok\n'"'"'' ;;
csharp)
	# A project as NuGet 2.8 and xbuild know it: packages.config, app.csproj
	# referencing the restored package's .dll, Prog.cs; Prog checks that it
	# runs the copy xbuild put beside it, and the check below that this copy
	# and the restored package are the ones make built.
	cat > packages.config <<'EOF'
<packages>
  <package id="RdmaVerbs" version="1.4.0" targetFramework="net45" />
</packages>
EOF
	cat > app.csproj <<'EOF'
<?xml version="1.0" encoding="utf-8"?>
<Project ToolsVersion="4.0" DefaultTargets="Build" xmlns="http://schemas.microsoft.com/developer/msbuild/2003">
  <PropertyGroup>
    <OutputType>Exe</OutputType>
    <AssemblyName>Prog</AssemblyName>
    <TargetFrameworkVersion>v4.5</TargetFrameworkVersion>
    <OutputPath>bin</OutputPath>
  </PropertyGroup>
  <ItemGroup>
    <Reference Include="System" />
    <Reference Include="RdmaVerbs">
      <HintPath>packages/RdmaVerbs.1.4.0/lib/net45/RdmaVerbs.dll</HintPath>
    </Reference>
  </ItemGroup>
  <ItemGroup>
    <Compile Include="Prog.cs" />
  </ItemGroup>
  <Import Project="$(MSBuildToolsPath)/Microsoft.CSharp.targets" />
</Project>
EOF
	cat > Prog.cs <<'EOF'
using System;
using System.IO;
using RdmaVerbs;

static class Prog
{
    static int Main()
    {
        string dll = typeof(Rdma).Assembly.Location;
        Console.WriteLine("csharp: " + dll);
        if (dll != Path.Combine(Environment.CurrentDirectory, "bin", "RdmaVerbs.dll"))
            return 1;
        if (Rdma.rdma_seterrno(0) != 0 || Rdma.ibv_wc_status_str(Rdma.IBV_WC_LOC_PROT_ERR) != "local protection error")
            return 1;
        Console.WriteLine("csharp: Prog ran with the package's RdmaVerbs.dll");
        return 0;
    }
}
EOF
	check='cmp packages/RdmaVerbs.1.4.0/RdmaVerbs.1.4.0.nupkg "$CHECKOUT/build/bindings/nuget/RdmaVerbs.1.4.0.nupkg"
cmp bin/RdmaVerbs.dll "$CHECKOUT/build/bindings/RdmaVerbs.dll"
echo "csharp: restored: the .nupkg make built; bin/RdmaVerbs.dll its .dll"
echo "csharp: installed: ok"' ;;
lua)
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
echo "lua: installed: ok"' ;;
*) echo "install.sh: no language '$lang'" >&2; exit 2 ;;
esac

printf '%s\n' "$script" "$check" > install-steps.sh
# Rust, Java and C# install offline (their READMEs say from what): with
# no network at all when unshare can take it away.
nonet=
case $lang in rust | java | csharp) if unshare -n true 2> /dev/null; then nonet="unshare -n"; fi ;; esac
if $nonet bash -e -o pipefail install-steps.sh > "$LOG" 2>&1; then
	grep ': installed: ok$' "$LOG"
else
	echo "install.sh: $lang: the install of bindings/$lang/README.md failed, from $DIR:"
	sed 's/^/    /' "$LOG"
	exit 1
fi
