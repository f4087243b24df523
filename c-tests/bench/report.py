#!/usr/bin/env python3
"""make bench: run the benchmark, count instructions with callgrind, print
the table, and write BENCHMARKS.md and BENCHMARKS.svg (the chart).

Usage: report.py BENCH SHIM_SO SHIM_ASSERT_SO RDMAVERBS_SO NOPROBES_SO OPS PRELOAD_SO OUT_DIR
                 [SOFTROCE_TXT]
       report.py --python PYTHON_TXT      (make bench-python: that section alone)
       report.py --bindings BINDINGS_TXT  (make bench-bindings: that section alone)

OPS (ops.c) is counted with callgrind, not preloaded and under PRELOAD_SO.

SOFTROCE_TXT holds the Soft-RoCE runs (softroce-guest.sh): one line per run,
"VARIANT ROUND latency_us throughput_msgs_s"; reported as ratios to "stock".

This file runs the parts of report/ in turn and prints what it found:
report/measure.py runs the programs, fake.py and chart.py make the fake
provider's tables and BENCHMARKS.svg, softroce.py, python.py and
bindings.py the Soft-RoCE guest's sections, page.py BENCHMARKS.md.
"""
import os
import sys

from report import bindings, chart, fake, measure, page, python, softroce


def main():
    if sys.argv[1:2] == ["--python"]:   # make bench-python: that section alone
        print(python.python_section(sys.argv[2]) or "report.py: no Python runs")
        return
    if sys.argv[1:2] == ["--bindings"]:   # make bench-bindings: that section alone
        print(bindings.section(sys.argv[2]) or "report.py: no runs of the bindings")
        return
    bench, shim, shim_assert, lib, noprobes, ops, preload, outdir = sys.argv[1:9]
    roce = softroce.softroce(sys.argv[9]) if len(sys.argv) > 9 else None
    pysec = python.python_section(sys.argv[9]) if len(sys.argv) > 9 else None
    bindsec = bindings.section(sys.argv[9]) if len(sys.argv) > 9 else None
    pytext = "".join("\n" + x + "\n" for x in (pysec, bindsec) if x)
    libs = [shim, shim_assert, lib, noprobes]
    tmp = os.path.dirname(os.path.abspath(bench))
    t = measure.timings(bench, libs)
    n = measure.instructions(bench, libs, tmp)
    opt = fake.ops_table(measure.op_instructions(ops, preload, tmp))
    # Measured, and its table made, but not (yet) in BENCHMARKS.md.
    fake.threads_table(measure.thread_scaling(ops, preload))
    order = list(dict.fromkeys(f for f, _ in t))  # bench.c's order: the table's
    funcs = [f for f in order if not f.startswith("ibv_")]
    verbs = [f for f in order if f.startswith("ibv_")]
    vtable, vmisses = fake.verbs_table(t, n, verbs)
    table, misses = fake.functions_table(t, n, funcs)
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
          f"+{fake.MAX_VERBS_INSN_OVER_SHIM} instructions of the shim"
          + (f"; over: {', '.join(vmisses)}" if vmisses else ""))

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "findings.md")) as f:
        findings = f.read()
    chart.svg(t, funcs, os.path.join(outdir, "BENCHMARKS.svg"))
    page.write(outdir, table, funcs, misses, vtable, verbs, vmisses, opt, roce, pytext, findings)


if __name__ == "__main__":
    main()
