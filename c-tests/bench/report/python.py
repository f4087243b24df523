"""BENCHMARKS.md's section of the Python ping-pong (python-guest.sh's lines:
"py-WAY ROUND latency_us 0", "readme WHO OK LINES"): each way's round trip
over the raw way's and over pyverbs' of the same round, against the
issue's targets."""
from .stats import ratios, spread, verdict

# The Python ping-pong's ways (c-tests/bench/pingpong.py, run by
# python-guest.sh in the same boot), and the target for the objects.
PY_WAYS = {
    "py-raw": "rdmaverbs' raw functions (C names, ctypes)",
    "py-objects": "rdmaverbs' object API (Endpoint, MR)",
    "py-async": "rdmaverbs' async API (asyncio: the CQ polled on up to 64 turns of the loop, then its channel's fd watched with add_reader)",
    "py-pyverbs": "pyverbs (Debian's python3-pyverbs: Cython)",
}
# The targets (issue 40): the objects at most pyverbs' time per round trip,
# the async API at most 1.30 times the raw functions'.
PY_TARGETS = {"py-objects": ("py-pyverbs", 1.00), "py-async": ("py-raw", 1.30)}


def python_section(path):
    """The Python ping-pong: per way, each round's latency over the raw
    way's and over pyverbs' of the same round (median, min–max); the
    README's client and pyverbs' equivalent, as they ran."""
    runs, readme = {}, {}
    with open(path) as f:
        for line in f:
            v, r, x, y = line.split()
            if v == "readme":
                readme[r] = (x, int(y))
            elif v in PY_WAYS:
                runs.setdefault(v, {})[int(r)] = float(x)
    if "py-raw" not in runs:
        return None

    def cell(v, base):
        return spread(ratios(runs, v, base))

    def target(v):
        if v not in PY_TARGETS:
            return "–"
        base, most = PY_TARGETS[v]
        rs = ratios(runs, v, base)
        if not rs:
            return "not judged (a way missing)"
        return f"≤ {most:.2f} × {base[3:]}: {verdict(rs, most)}"

    rows = [f"| {v[3:]}: {PY_WAYS[v]} | {cell(v, 'py-raw')} | {cell(v, 'py-pyverbs')} | {target(v)} |"
            for v in PY_WAYS if v in runs]
    said = {"readme": "the README's client (bindings/python/README.md)",
            "pyverbs": "pyverbs' equivalent (c-tests/bench/python-pyverbs-client.py)"}
    clients = "; ".join(f"{said[k]}, {n} lines: {ok}" for k, (ok, n) in readme.items())
    return ("### Python: a round trip through rdmaverbs and through pyverbs\n\n"
            "`c-tests/bench/pingpong.py`: a 64-byte message answered by the peer, as "
            "`pingpong.c`'s latency (an inline send, the send's and the reply's completions "
            "waited for, the receive posted again), both sides in Python, the same way: "
            f"{len(runs['py-raw'])} rounds in the same guest boot, the ways alternated in each "
            "round, every way on Debian's `/usr/bin/python3`. Per round trip, each round's "
            "time over the raw way's and over pyverbs' of the same round (median, min–max):\n\n"
            "| way | round trip / raw | round trip / pyverbs | target |\n|---|---|---|---|\n"
            + "\n".join(rows)
            + (f"\n\nRun once each against `pingpong.py objects server` in that boot: {clients}."
               if clients else ""))
