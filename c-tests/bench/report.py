#!/usr/bin/env python3
"""make bench: run the benchmark, count instructions with callgrind, print
the table, and write BENCHMARKS.md and BENCHMARKS.svg (the chart).

Usage: report.py BENCH SHIM_SO SHIM_ASSERT_SO RDMAVERBS_SO NOPROBES_SO OPS PRELOAD_SO OUT_DIR
                 [SOFTROCE_TXT]

OPS (ops.c) is counted with callgrind, not preloaded and under PRELOAD_SO.

SOFTROCE_TXT holds the Soft-RoCE runs (softroce-guest.sh): one line per run,
"VARIANT ROUND latency_us throughput_msgs_s"; reported as ratios to "stock".
"""
import os
import platform
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bindings"))
import report_bindings as bindings  # noqa: E402  (c-tests/bench/bindings/report_bindings.py)

# The variants, as bench.c names them.
VARIANTS_FAKE = {
    "a": "inline original",
    "b": "C shim, -DNDEBUG",
    "k": "C shim, asserts kept",
    "c": "librdmaverbs",
    "n": "librdmaverbs without probes",
}
COUNT = 100000  # calls per loop under callgrind
# Targets of the benchmark issue, per function.
MAX_INSN_OVER_SHIM = 10
MAX_TIME_OVER_SHIM = 1.15
MAX_INSN_OVER_INLINE = 14
# The data path of verbs.h (RDMAVERBS_1.3): instructions over b only.
MAX_VERBS_INSN_OVER_SHIM = 3


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def timings(bench, libs):
    cmd = [bench] + libs
    if shutil.which("taskset"):
        cmd = ["taskset", "-c", "1"] + cmd  # one core: less noise
    out = {}
    for line in run(cmd).splitlines():
        _, fn, v, med, lo, hi = line.split()
        out[fn, v] = (float(med), float(lo), float(hi))
    return out


def instructions(bench, libs, tmp):
    cg = os.path.join(tmp, "callgrind.out")
    run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}",
         bench] + libs + ["--count", str(COUNT)])
    ann = run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", cg])
    out = {}
    for m in re.finditer(r"^\s*([\d,]+) .*?:bench_([abkcn])_(\w+) \[", ann, re.M):
        out[m.group(3), m.group(2)] = int(m.group(1).replace(",", "")) / COUNT
    return out


# ops.c's loops, and how the preload library watches them.
OPS = {
    "send": "`ibv_post_send`, one signalled 2-byte SEND",
    "recv": "`ibv_post_recv`, one 2-byte receive",
    "empty": "`ibv_poll_cq` that finds nothing",
    "poll": "`ibv_poll_cq` that finds one completion",
}
OPS_N = (1000, 21000)  # two loop lengths: their difference has no start-up


def op_instructions(ops, preload, tmp):
    """Instructions per op of each loop of ops.c, not preloaded and under
    the preload library (nothing set, counting, tracing to a file)."""
    trace = os.path.join(tmp, "ops.trace")
    modes = {
        "none": {},
        "nothing": {"LD_PRELOAD": preload},
        "stats": {"LD_PRELOAD": preload, "RDMAVERBS_STATS": "1"},
        "trace": {"LD_PRELOAD": preload, "RDMAVERBS_TRACE": trace},
    }
    cg = os.path.join(tmp, "ops.callgrind")
    out = {}
    for kind in OPS:
        for mode, env in modes.items():
            total = []
            for n in OPS_N:
                if os.path.exists(trace):
                    os.remove(trace)
                e = {k: v for k, v in os.environ.items() if not k.startswith("RDMAVERBS_")}
                e.pop("LD_PRELOAD", None)
                e.update(env)
                err = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}",
                                      ops, kind, str(n)], env=e, check=True,
                                     capture_output=True, text=True).stderr
                total.append(int(re.search(r"Collected : (\d+)", err).group(1)))
            out[kind, mode] = (total[1] - total[0]) / (OPS_N[1] - OPS_N[0])
    for f in (trace, cg):
        if os.path.exists(f):
            os.remove(f)
    return out


THREADS_N = 5_000_000  # sends per thread
THREADS_RUNS = 5


def thread_scaling(ops, preload):
    """Nanoseconds of the slowest thread, 1 and 2 threads each posting
    THREADS_N sends on its own QP, unwatched and counting (the fastest of
    THREADS_RUNS runs, alternated); as ratios only."""
    best = {}
    for _ in range(THREADS_RUNS):
        for mode, env in (("none", {}), ("stats", {"LD_PRELOAD": preload, "RDMAVERBS_STATS": "1"})):
            for threads in (1, 2):
                e = {k: v for k, v in os.environ.items() if not k.startswith("RDMAVERBS_")}
                e.pop("LD_PRELOAD", None)
                e.update(env)
                out = subprocess.run([ops, "send", str(THREADS_N), str(threads)], env=e, check=True,
                                     capture_output=True, text=True).stdout
                ns = int(re.search(r"ns (\d+)", out).group(1))
                best[mode, threads] = min(best.get((mode, threads), ns), ns)
    return best


def threads_table(b):
    rows = []
    for mode, what in (("none", "unwatched"), ("stats", "counting (`RDMAVERBS_STATS=1`)")):
        rows.append(f"| {what} | {b[mode, 2] / b[mode, 1]:.2f} |")
    rows.append(f"| counting over unwatched, 1 thread | {b['stats', 1] / b['none', 1]:.2f} |")
    rows.append(f"| counting over unwatched, 2 threads | {b['stats', 2] / b['none', 2]:.2f} |")
    return ("| preloaded | time of 2 threads over 1 (each thread its own QP, the same "
            "sends) |\n|---|---|\n" + "\n".join(rows))


def ops_table(n):
    rows = []
    for kind, what in OPS.items():
        base = n[kind, "none"]
        rows.append(f"| {what} | {base:.0f} | {n[kind, 'nothing'] - base:+.0f} "
                    f"| {n[kind, 'stats'] - base:+.0f} | {n[kind, 'trace'] - base:+.0f} |")
    return ("| op (called as a program calls it) | instructions, not preloaded "
            "| preloaded, nothing set | counting (`RDMAVERBS_STATS=1`) "
            "| tracing (`RDMAVERBS_TRACE=FILE`) |\n|---|---|---|---|---|\n" + "\n".join(rows))


def verbs_table(t, n, verbs):
    """The table of verbs.h's data path: instructions against the shim."""
    rows, misses = [], []
    for f in verbs:
        b, c = t[f, "b"][0], t[f, "c"][0]
        ia, ib, ic, inp = (n[f, v] for v in "abcn")
        met = ic - ib <= MAX_VERBS_INSN_OVER_SHIM + 0.01
        if not met:
            misses.append(f)
        rows.append(f"| `{f}` | {c / b:.2f} | {ia:.0f} | {ib:.0f} | {ic:.0f} "
                    f"| **{ic - ib:+.0f}** | {inp:.0f} | {'yes' if met else '**no**'} |")
    return ("| function | c/b time | a insn | b insn | c insn | c−b insn "
            f"| c insn without probes | within +{MAX_VERBS_INSN_OVER_SHIM} |\n"
            "|---|---|---|---|---|---|---|---|\n" + "\n".join(rows)), misses


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = re.search(r"model name\s*:\s*(.*)", f.read()).group(1)
    except (OSError, AttributeError):
        pass
    cc = run(["cc", "--version"]).splitlines()[0]
    rustc = run(["rustc", "--version"]).strip()
    return (f"{cpu}, {os.cpu_count()} cores; Linux {platform.release()}; "
            f"{cc}; {rustc}")


def svg(t, funcs, path):
    """Grouped horizontal bars: the time per call of a, b, c for each
    function, relative to b (the -DNDEBUG shim) of the same function."""
    colors = {"a": "#9e9e9e", "b": "#4c72b0", "c": "#dd8452"}
    names = {v: VARIANTS_FAKE[v] for v in "abc"}
    FUNCS = funcs
    rel = {(f, v): t[f, v][0] / t[f, "b"][0] for f in FUNCS for v in "abc"}
    top = max(rel.values())
    row, bar, left, width = 42, 11, 170, 460
    h = 40 + row * len(FUNCS) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 60}" '
           f'height="{h}" font-family="sans-serif" font-size="12">',
           f'<text x="{left}" y="18" font-weight="bold">time per call relative to '
           'the C shim (b = 1), fake provider</text>']
    for i, v in enumerate("abc"):
        x = left + i * 170
        out.append(f'<rect x="{x}" y="{h - 22}" width="12" height="12" fill="{colors[v]}"/>'
                   f'<text x="{x + 16}" y="{h - 12}">{v}: {names[v]}</text>')
    for i, f in enumerate(FUNCS):
        y = 32 + i * row
        out.append(f'<text x="{left - 6}" y="{y + 20}" text-anchor="end">{f}</text>')
        for j, v in enumerate("abc"):
            ns = rel[f, v]
            w = width * ns / top
            out.append(f'<rect x="{left}" y="{y + j * bar}" width="{w:.1f}" '
                       f'height="{bar - 1}" fill="{colors[v]}"/>'
                       f'<text x="{left + w + 4:.1f}" y="{y + j * bar + 9}" '
                       f'font-size="9">{ns:.2f}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# What each Soft-RoCE variant is (softroce-guest.sh runs them).
VARIANTS = {
    "stock": "the program built against the stock header (inline original)",
    "ours": "the same program built against our header, librdmaverbs",
    "spin": "ours, with RDMAVERBS_POLL_SPIN=100000",
}
# perftest under LD_PRELOAD (latency only; ratios to "perftest").
PERFTEST = {
    "perftest": "ib_send_lat, stock, no preload",
    "perftest-preload": "librdmaverbs preloaded, nothing set (nothing wrapped)",
    "perftest-stats": "preloaded, RDMAVERBS_STATS=1 (ops wrapped, counted)",
    "perftest-trace": "preloaded, RDMAVERBS_TRACE=FILE (a line per post and completion)",
}
# The watching issue's targets, on the typical latency in the emulated
# machine's fast mode (see fast_runs), over the unwatched program's.
PERFTEST_TARGETS = {"perftest-stats": 1.03, "perftest-trace": 1.30}
# A run is in the fast mode when within this factor of its variant's
# fastest run: the fast mode's runs spread by under 1.2x, the slow mode's
# start at about 1.4x the fast mode's fastest or more.
FAST_MODE = 1.2
# A variant with fewer fast-mode runs than this is not judged.
FAST_RUNS = 3


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def fast_runs(lats):
    """The runs of one variant in the fast mode."""
    return [x for x in lats if x <= FAST_MODE * min(lats)]


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

    def ratios(v, base):
        return [runs[v][r] / runs[base][r] for r in sorted(runs.get(v, {})) if r in runs.get(base, {})]

    def cell(v, base):
        rs = ratios(v, base)
        return f"{median(rs):.2f} ({min(rs):.2f}–{max(rs):.2f})" if rs else "–"

    def target(v):
        if v not in PY_TARGETS:
            return "–"
        base, most = PY_TARGETS[v]
        rs = ratios(v, base)
        if not rs:
            return "not judged (a way missing)"
        return f"≤ {most:.2f} × {base[3:]}: {'yes' if median(rs) <= most else '**no**'}"

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


def softroce(path):
    """The Soft-RoCE section: per variant, median latency and throughput,
    and each round's ratio to the stock run of the same round; perftest's
    variants compared in the fast mode."""
    runs = {}
    with open(path) as f:
        for line in f:
            v, r, lat, thr = line.split()
            if v in PY_WAYS or v == "readme" or bindings.ours(v):   # the other sections'
                continue
            runs.setdefault((v, int(r)), []).append((float(lat), float(thr)))
    rounds = sorted({r for _, r in runs})

    def ratios(v, base, i):
        return [runs[v, r][0][i] / runs[base, r][0][i] for r in rounds]

    def ratio(v, base, i):
        """The per-round ratio of field i to `base`: median (min–max)."""
        rs = ratios(v, base, i)
        return f"{median(rs):.2f} ({min(rs):.2f}–{max(rs):.2f})"

    rows = [f"| {v}: {VARIANTS[v]} | {ratio(v, 'stock', 0)} | {ratio(v, 'stock', 1)} |"
            for v in VARIANTS if any(k[0] == v for k in runs)]

    def lats(v):
        return [lat for r in rounds for lat, _ in runs.get((v, r), [])]

    def fast_ratio(v):
        """The median fast-mode run of v over the unwatched program's."""
        return median(fast_runs(lats(v))) / median(fast_runs(lats("perftest")))

    def target(v):
        if v not in PERFTEST_TARGETS:
            return "–"
        if min(len(fast_runs(lats(u))) for u in (v, "perftest")) < FAST_RUNS:
            return f"≤ {PERFTEST_TARGETS[v]:.2f}: not judged (under {FAST_RUNS} fast-mode runs)"
        met = fast_ratio(v) <= PERFTEST_TARGETS[v]
        return f"≤ {PERFTEST_TARGETS[v]:.2f}: {'yes' if met else '**no**'}"

    def prow(v):
        all_, fast = lats(v), fast_runs(lats(v))
        return (f"| {v}: {PERFTEST[v]} | {len(fast)} of {len(all_)} "
                f"({min(fast):.1f}–{max(fast):.1f} µs) | {fast_ratio(v):.2f} "
                f"| {min(all_) / min(lats('perftest')):.2f} | {target(v)} |")

    prows = [prow(v) for v in PERFTEST if lats(v)] if lats("perftest") else []
    n = len(lats("perftest")) // max(len(rounds), 1)
    ptable = ("\n\nThe cost of watching a program that was never rebuilt: perftest's "
              "`ib_send_lat -R --use_old_post_send -n 5000` (2-byte ping-pong, busy "
              f"polling), typical latency (t_typical), {n} runs of each variant per "
              "round, interleaved. A whole run is either about 20 µs or 30–60 µs, "
              "whatever is preloaded: the emulated machine's two modes (the µs "
              "ranges below show which runs fell in the fast one). A run is "
              f"counted in the fast mode when within {FAST_MODE}x of its variant's "
              "fastest run; the targets are judged there, where the library's cost is "
              "least diluted, on the median fast-mode run of each variant over the "
              f"unwatched program's, when both have at least {FAST_RUNS} such runs. "
              "(The fastest run over the fastest unwatched run, "
              "the previous measure, is shown beside it: it favours the variant with "
              "more runs in the fast mode.)\n\n"
              "| variant | runs in the fast mode | fast-mode median / unwatched "
              "| fastest run / fastest unwatched | target (fast-mode median) |\n"
              "|---|---|---|---|---|\n"
              + "\n".join(prows)) if prows else ""
    return (f"{len(rounds)} rounds in one guest boot, the variants alternated in each "
            "round; the ratios are per round, to the stock run of the same round "
            "(median, min–max in brackets).\n\n"
            "| variant | latency / stock | throughput / stock |\n|---|---|---|\n" + "\n".join(rows) + ptable)


def main():
    if sys.argv[1:2] == ["--python"]:   # make bench-python: that section alone
        print(python_section(sys.argv[2]) or "report.py: no Python runs")
        return
    if sys.argv[1:2] == ["--bindings"]:   # make bench-bindings: that section alone
        print(bindings.section(sys.argv[2]) or "report.py: no runs of the bindings")
        return
    bench, shim, shim_assert, lib, noprobes, ops, preload, outdir = sys.argv[1:9]
    roce = softroce(sys.argv[9]) if len(sys.argv) > 9 else None
    pysec = python_section(sys.argv[9]) if len(sys.argv) > 9 else None
    bindsec = bindings.section(sys.argv[9]) if len(sys.argv) > 9 else None
    pytext = "".join("\n" + x + "\n" for x in (pysec, bindsec) if x)
    libs = [shim, shim_assert, lib, noprobes]
    tmp = os.path.dirname(os.path.abspath(bench))
    t = timings(bench, libs)
    n = instructions(bench, libs, tmp)
    opt = ops_table(op_instructions(ops, preload, tmp))
    thr = threads_table(thread_scaling(ops, preload))
    order = list(dict.fromkeys(f for f, _ in t))  # bench.c's order: the table's
    funcs = [f for f in order if not f.startswith("ibv_")]
    verbs = [f for f in order if f.startswith("ibv_")]
    vtable, vmisses = verbs_table(t, n, verbs)
    rows, misses = [], []
    for f in funcs:
        a, b, c = (t[f, v][0] for v in "abc")
        ia, ib, ik, ic, inp = (n[f, v] for v in "abkcn")
        checks = {
            "insn vs b": ic - ib <= MAX_INSN_OVER_SHIM + 0.01,
            "time vs b": c <= MAX_TIME_OVER_SHIM * b,
            "insn vs a": ic - ia <= MAX_INSN_OVER_INLINE + 0.01,
        }
        # A target a real symbol cannot meet: the shim, "whose cost is only
        # the call", already uses all of it.
        beyond_call = not checks["insn vs a"] and round(ib - ia) >= MAX_INSN_OVER_INLINE
        missed = [k for k, v in checks.items() if not v]
        if missed and not (missed == ["insn vs a"] and beyond_call):
            misses.append(f)
        verdict = ("yes" if not missed else
                   f"yes, but c−a (the call alone, b−a, is {ib - ia:+.0f})"
                   if missed == ["insn vs a"] and beyond_call else
                   "**no**: " + ", ".join(missed))
        rows.append(f"| `{f}` | {a / b:.2f} | **{c / b:.2f}** | {c / a:.2f} "
                    f"| {ia:.0f} | {ib:.0f} | {ik:.0f} | {ic:.0f} | {ib - ia:+.0f} "
                    f"| **{ic - ib:+.0f}** | {ic - ik:+.0f} | {inp:.0f} | {ic - inp:+.0f} "
                    f"| {verdict} |")
    header = ("| function | a/b time | c/b time | c/a time "
              "| a insn | b insn | b′ insn (asserts kept) | c insn | b−a insn "
              "| c−b insn | c−b′ insn | c insn without probes | probes (c − that) "
              "| targets met |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    table = header + "\n" + "\n".join(rows)
    print(table)
    print("\n" + vtable)
    print("\n" + opt)
    if roce:
        print("\n" + roce)
    for sec in (pysec, bindsec):
        if sec:
            print("\n" + sec)
    print(f"\nbench: {len(funcs) - len(misses)} of {len(funcs)} functions meet every target "
          "a real symbol can meet"
          + (f"; missed: {', '.join(misses)}" if misses else ""))
    print(f"bench: verbs.h's data path: {len(verbs) - len(vmisses)} of {len(verbs)} within "
          f"+{MAX_VERBS_INSN_OVER_SHIM} instructions of the shim"
          + (f"; over: {', '.join(vmisses)}" if vmisses else ""))

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "findings.md")) as f:
        findings = f.read()
    svg(t, funcs, os.path.join(outdir, "BENCHMARKS.svg"))
    with open(os.path.join(outdir, "BENCHMARKS.md"), "w") as f:
        f.write(f"""# Benchmarks

Generated by `make bench` (`c-tests/bench/`); do not edit by hand, except
`c-tests/bench/findings.md`, which is included below.

What it measures: each function's main path, in one process, on a fake
provider whose ops do trivial work (post ops return 0; `poll_cq` returns one
completion at once; `ibv_reg_mr` returns a static MR):

- **a**: the inline original, compiled from the system header into the loop;
- **b**: a plain C shim library (`c-tests/common/original.c`, `-O2 -DNDEBUG`, as a
  release build would be) that wraps the inline originals as real
  functions, what a user would write by hand;
- **b′**: the same shim with the original's `assert`s kept (no `-DNDEBUG`),
  for comparison only;
- **c**: librdmaverbs, with every input check of the robustness issue and
  its USDT probes compiled in (as built by default and packaged);
- for the instruction counts only, the same library built without the probes
  (`cargo rustc --no-default-features`): the column "probes" is what
  compiling them in costs a call while no tracer is attached.

b, b′ and c are loaded with `dlopen` and called through the same kind of
function pointer, so all pay the same call. A time ratio is that of the
medians of 9 runs of 2,000,000 calls, the variants in turn in each run, on
one core. Instructions per call are counted with callgrind ({COUNT:,}
calls, inclusive of the loop and the fake op, which are the same for every
variant), so they are exact and do not depend on the machine's load; all
come from the same run.

Targets, per function: c at most {MAX_INSN_OVER_SHIM} instructions and
{round((MAX_TIME_OVER_SHIM - 1) * 100)}% time over b (the `-DNDEBUG` shim),
and at most {MAX_INSN_OVER_INLINE} instructions over a. Times are shown only
as ratios of the same run (a/b, c/b, c/a), never as absolute times: the
machine is shared, and an absolute time says more about it than about the
library.

Machine: {machine()}.

{table}

{len(funcs) - len(misses)} of {len(funcs)} functions meet every target that a real
symbol can meet. "yes, but c−a" marks a function whose C shim (b), whose cost
is only the call, is already {MAX_INSN_OVER_INLINE} or more instructions over
the inline original (b−a): no exported function can meet that target there;
see the findings.

![time per call relative to the shim](BENCHMARKS.svg)

## The data path of `<infiniband/verbs.h>` (RDMAVERBS_1.3)

The same variants and the same run, for the static inline functions of
verbs.h that a program calls per work request or completion: the posts,
`ibv_poll_cq` and `ibv_req_notify_cq`, the extended QP's `ibv_wr_*`, the
extended CQ's poll and `ibv_wc_read_*` (ours found with `dlvsym` at
`RDMAVERBS_1.3`; the fake's ops and calls return at once). Target: c at
most {MAX_VERBS_INSN_OVER_SHIM} instructions over b, unwatched (callgrind).

{vtable}

{len(verbs) - len(vmisses)} of {len(verbs)} within the target{": over it, " + ", ".join(f"`{f}`" for f in vmisses) + " (see the findings)" if vmisses else ""}.

## Watching a program that was never rebuilt

What the preload library adds to each provider op it wraps, in
instructions (callgrind; exact, whatever the machine's load):
`c-tests/bench/ops.c` calls each op in a loop, as a program does (through
libibverbs' inline `ibv_post_send`, `ibv_post_recv`, `ibv_poll_cq`), on the
fake libibverbs of the preload tests, whose ops answer at once. The first
column is the whole op unwatched (the inline call and the fake op); the
others what the preload library adds: with nothing set it wraps nothing;
counting adds the wrapper (finding the provider's op of the context) and
the counters; tracing adds a whole trace line per work request and per
completion, written in place in the thread's buffer (an empty poll is only
counted). The file's `write(2)`, once per 16 KiB of lines, is in the
tracing figures.

{opt}

## On Soft-RoCE

`c-tests/e2e/rdma/pingpong.c` in the Soft-RoCE guest of the end-to-end tests
(QEMU without KVM, `rdma_rxe`): ping-pong latency (a 64-byte inline
`rdma_post_send` answered by the peer; completions through the blocking
`rdma_get_send_comp` / `rdma_get_recv_comp`) and small-message throughput
(64-byte sends, 32 in flight). Emulated and noisy: the time is the
kernel's software RDMA under an emulated CPU, not the library; read only
the ratios, which say whether a real symbol changes anything there.

{roce or "(not measured in this run)"}
{pytext}
{findings}
## Reproduce

    make bench
""")


if __name__ == "__main__":
    main()
