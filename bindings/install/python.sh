# bindings/install/install.sh's steps for Python, sourced by it in the install's
# folder ($DIR): what it writes before the README's block runs, and $check,
# the commands run after the block in the same shell.
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
python artifacts.py "$CHECKOUT/bindings/python" dist'
