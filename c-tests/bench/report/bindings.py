"""BENCHMARKS.md's section of the bindings beside their peers (guest.sh's
lines: "rs-WAY|js-WAY ROUND latency_us 0", "rate-LANG ROUND 0 msgs_s"):
Rust's and Node.js's ping-pong per way, each round's time over its raw
layer's (and the peer crate's) of the same round, and each language's
message rate over C's of the same round."""
from .stats import median, ratios, spread, verdict

# The ways and what they are; the targets (issue 40): the way's median
# ratio to another way of the same round at most so much.
WAYS = {
    "rs-raw": "Rust, the raw layer (`rdmaverbs::raw`: C names, `unsafe`)",
    "rs-safe": "Rust, the safe crate (`Endpoint`, `Listener`, `Buf`, `SendWr`, `Cq::poll`)",
    "rs-peer": "Rust, a peer crate of crates.io (c-tests/bench/bindings/peer)",
    "js-raw": "Node.js, the raw functions (koffi; the blocking `rdma_get_*_comp`)",
    "js-promises": "Node.js, the objects' Promises (`sendCq.next(1)`, `recvCq.next(1)`: polled on up to 64 turns of the loop, then the channel's fd watched)",
}
BASE = {"rs": "rs-raw", "js": "js-raw"}
TARGETS = {"rs-safe": [("rs-raw", 1.05), ("rs-peer", 1.00)], "js-promises": [("js-raw", 1.30)]}
RATES = {
    "rate-c": "C (msgrate.c, through librdmaverbs)",
    "rate-python": "Python, the raw functions (ctypes)",
    "rate-node": "Node.js, the raw functions (koffi)",
    "rate-rust": "Rust, the raw layer",
}


def ours(v):
    """Whether a line of that name is this section's."""
    return v in WAYS or v in RATES or v.startswith(("alloc-", "turn-"))


# What one turn of each event loop costs on the machine the report runs on
# (guest.sh measures the same in the guest): the command printing the
# microseconds of one of 2000 turns.
TURNS = {
    "node": ["node", "-e", "let n = 0; const t = process.hrtime.bigint(); const f = () => (++n < 2000 ? "
             "setImmediate(f) : console.log((Number(process.hrtime.bigint() - t) / 2e6).toFixed(2))); f();"],
    "python": ["python3", "-c", "import asyncio, time\nasync def turns():\n    t = time.perf_counter()\n"
               "    for _ in range(2000):\n        await asyncio.sleep(0)\n"
               "    print(f'{(time.perf_counter() - t) / 2000 * 1e6:.2f}')\nasyncio.run(turns())"],
}


def here(lang):
    """A turn's microseconds on this machine, or None."""
    import subprocess
    try:
        return float(subprocess.run(TURNS[lang], capture_output=True, text=True, timeout=60).stdout)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def section(path):
    """The section's text, or None when the file has none of its lines."""
    runs, allocs, turns = {}, {}, {}
    with open(path) as f:
        for line in f:
            v, r, lat, rate = line.split()
            if v.startswith("alloc-"):
                allocs.setdefault(v[6:], []).append(float(lat))
            elif v.startswith("turn-"):
                turns.setdefault(v[5:], []).append(float(lat))
            elif v in WAYS:
                runs.setdefault(v, {})[int(r)] = float(lat)
            elif v in RATES:
                runs.setdefault(v, {})[int(r)] = float(rate)
    if not runs:
        return None

    def cell(v, base):
        return spread(ratios(runs, v, base))

    def target(v):
        said = []
        for base, most in TARGETS.get(v, []):
            rs = ratios(runs, v, base)
            said.append(f"≤ {most:.2f} × {base[3:]}: "
                        + (verdict(rs, most) if rs else "not judged (no such runs)"))
        return "; ".join(said) or "–"

    rows = [f"| {WAYS[v]} | {cell(v, BASE[v[:2]])} "
            f"| {cell(v, 'rs-peer') if v.startswith('rs') else '–'} "
            f"| {f'{median(allocs[v]):.1f}' if v in allocs else '–'} | {target(v)} |"
            for v in WAYS if v in runs]
    rates = [f"| {RATES[v]} | {cell(v, 'rate-c')} |" for v in RATES if v in runs]
    said = []
    for lang, us in sorted(turns.items()):
        native = here(lang)
        said.append(f"{'Node.js' if lang == 'node' else 'Python (asyncio)'}: {median(us):.0f} µs a turn in the guest"
                    + (f", {median(us) / native:.0f} times this machine's ({native:.1f} µs)" if native else ""))
    turn_text = ("\n\nWhat one turn of the event loop costs (2000 turns with nothing else to do; "
                 "an awaited completion costs at least one, a wait armed on the channel a few more): "
                 + "; ".join(said) + "." if said else "")
    n = max(len(x) for x in runs.values())
    return ("### The bindings beside what a user would pick instead\n\n"
            "`c-tests/bench/bindings/` in the same guest boot, "
            f"{n} rounds, the ways alternated in each round, both sides of each run the same way. "
            "The ping-pong is `pingpong.py`'s (64 bytes answered by the peer, the send's and the "
            "reply's completions taken, the receive posted again); Rust's ways send from "
            "registered memory (the safe crate has no inline send) and busy-poll one completion "
            "at a time, as the peer crate does; Node.js's send inline and wait as its users "
            "would (the raw functions block, the Promises let the event loop run). Per round "
            "trip, each round's time over its language's raw layer's and over the peer crate's "
            "of the same round (median, min–max):\n\n"
            "| way | round trip / raw | round trip / peer | heap allocations a round trip "
            "(the client's, counted by the Rust program's global allocator) | target |\n"
            "|---|---|---|---|---|\n"
            + "\n".join(rows) + turn_text
            + "\n\nThe message rate: `msgrate.c`'s exchange (64-byte inline sends, 32 in flight, "
            "completions taken up to 16 at a time by a busy `ibv_poll_cq`; the server's receives, "
            "one a message, posted before it accepts, so that no RNR retry times a run), each "
            "language through its raw layer: "
            "each round's messages a second over C's of the same round (median, min–max):\n\n"
            "| language | message rate / C |\n|---|---|\n" + "\n".join(rates))
