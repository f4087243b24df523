"""The bench's measurements (make bench, through ../report.py): bench.c's
times and callgrind's instructions per call of each variant, ops.c's
instructions per op under the preload library, its thread scaling, and the
machine they ran on."""
import os
import platform
import re
import shutil
import subprocess

COUNT = 100000  # calls per loop under callgrind


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
