"""The fake provider's tables of BENCHMARKS.md: per function, the variants'
time ratios and instructions against the issue's targets (rdma_verbs.h's
functions and verbs.h's data path), and what the preload library adds to
each op (ops.c) and to two threads."""
from .measure import OPS

# The variants, as bench.c names them.
VARIANTS_FAKE = {
    "a": "inline original",
    "b": "C shim, -DNDEBUG",
    "k": "C shim, asserts kept",
    "c": "librdmaverbs",
    "n": "librdmaverbs without probes",
}
# Targets of the benchmark issue, per function.
MAX_INSN_OVER_SHIM = 10
MAX_TIME_OVER_SHIM = 1.15
MAX_INSN_OVER_INLINE = 14
# The data path of verbs.h (RDMAVERBS_1.3): instructions over b only.
MAX_VERBS_INSN_OVER_SHIM = 3


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


def functions_table(t, n, funcs):
    """The table of rdma_verbs.h's functions: each variant's time ratio and
    instructions, and which targets c meets; and the functions missing one
    that a real symbol can meet."""
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
    return header + "\n" + "\n".join(rows), misses
