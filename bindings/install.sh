#!/usr/bin/env bash
# make bindings: each binding installed as its README says, from a fresh
# folder outside the tree (a new /tmp/rdmaverbs-install-LANGUAGE.XXXXXX,
# which BUILD_DIR/bindings/install/LANGUAGE links to, for run.sh), and a
# small program that uses it run there.
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
# libibverbs. Its output is in BUILD_DIR/bindings/install/LANGUAGE.log.
# Outside the tree as a reader's folder is: no Cargo workspace, no
# package.json or node_modules above it (npm would take that folder for the
# project), nothing of the checkout's on the way.
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
	check='if command -v mypy > /dev/null; then
	mypy --strict --python-executable venv/bin/python prog.py
	echo "python: mypy --strict prog.py: no error"
	if mypy --strict --python-executable venv/bin/python bad.py > bad.log; then echo "python: mypy accepted bad.py"; exit 1; fi
	grep "arg-type" bad.log
	echo "python: mypy refuses bad.py"
else
	echo "python: no mypy (apt-get install mypy): the types not checked"
fi
python -c "import os, rdmaverbs as rv
assert rv.__file__.startswith(os.path.join(os.getcwd(), \"venv\")), rv.__file__
assert rv.rdma_seterrno(0) == 0
assert rv.ibv_wc_status_str(rv.IBV_WC_LOC_PROT_ERR) == \"local protection error\"
print(\"python: installed: ok\")"' ;;
node)
	# The clone as a reader's is, with no node_modules of its own: the
	# package's install script (install.js) must put koffi there, and the
	# check below can then tell.
	rm -rf "$TREE/bindings/node/node_modules"
	# The linked package has the TypeScript declarations, and a typed program
	# checks against them with tsc (TypeScript 5 and Node's types from npm,
	# beside the package; a line says so when npm cannot give them), as
	# does one the declarations must refuse.
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
	printf '%s\n' "import rv = require('rdmaverbs');" "new rv.ProtectionDomain(1n).reg('not memory');" > bad.ts
	types='[ "$(readlink -f node_modules/rdmaverbs)" = "$CHECKOUT/bindings/node" ] && [ ! -e node_modules/koffi ]
echo "node: installed as a link to the clone'"'"'s bindings/node, koffi not in the project"
[ -f node_modules/rdmaverbs/index.d.ts ] && [ -f node_modules/rdmaverbs/api.d.ts ]
echo "node: the package has index.d.ts and api.d.ts"
if npm install --no-save --no-package-lock typescript@5 @types/node@20 > ts-install.log 2>&1; then
	tsc="npx --no-install tsc --noEmit --strict --module commonjs --target es2020 --types node"
	$tsc prog.ts
	echo "node: tsc --noEmit --strict prog.ts: no error"
	if $tsc bad.ts > bad.log; then echo "node: tsc accepted bad.ts"; exit 1; fi
	grep "TS2345" bad.log
	echo "node: tsc refuses bad.ts"
else
	echo "node: TypeScript not available from npm: tsc not run"; cat ts-install.log
fi'
	# The package, through the project'"'"'s link, is the clone'"'"'s; its koffi the
	# one its install script put there.
	check=$types'
CHECKOUT=$CHECKOUT node -e "const rv = require(\"rdmaverbs\");
const clone = process.env.CHECKOUT + \"/bindings/node/\";
if (require.resolve(\"rdmaverbs\") !== clone + \"index.js\") process.exit(1);
const koffi = require.resolve(\"koffi\", { paths: [clone] });
if (!koffi.startsWith(clone + \"node_modules/koffi/\")) process.exit(1);
console.log(\"node: koffi from the clone, \" + koffi);
if (rv.rdma_seterrno(0) !== 0) process.exit(1);
if (rv.ibv_wc_status_str(rv.IBV_WC_LOC_PROT_ERR) !== \"local protection error\") process.exit(1);
console.log(\"node: installed: ok\");"' ;;
rust)
	# Offline, and with a cargo home of its own (no registry cache): the
	# crates are the packaged ones, unpacked in the project, and libc is
	# vendor/'s.
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
	cat > prog.lua <<'EOF'
local rv = require("rdmaverbs")
assert(package.searchpath("rdmaverbs", package.path) == "./rdmaverbs.lua")
assert(package.loaded["rdmaverbs.endpoint"] and package.searchpath("rdmaverbs.endpoint", package.path) == "./rdmaverbs/endpoint.lua")
assert(rv.rdma_seterrno(0) == 0)
assert(rv.ibv_wc_status_str(rv.IBV_WC_LOC_PROT_ERR) == "local protection error")
print("lua: installed: ok")
EOF
	check=: ;;
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
