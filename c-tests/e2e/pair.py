#!/usr/bin/env python3
"""The two-host results (pair-guest.sh's logs in OUT): a summary of every
step, checked, and the fault table as Markdown (OUT/faults.md).

A step passes when both sides did what they must; a scenario run with both
builds must give the same results in each: e2e.c's obs: lines on each side,
and wire.c's account (posted, OK, in error, lost, duplicates, bad data, and
the error statuses) on the client. Lost must be 0 everywhere.

The siw- faults ran on soft-iWARP (siw-pair.sh), the client with
--stop-on-error: it may end with fewer than N posted ("stopped=1"), never
with one lost.

Usage: pair.py OUT    (exit status 1 if anything failed)
"""
import glob
import os
import re
import sys

BUILDS = ("ours", "stock")
FAULTS = {
    "none": "no fault",
    "loss1": "1 % of packets lost each way (netem)",
    "loss5": "5 % of packets lost each way (netem)",
    "cut": "link cut mid-stream (the client's card down)",
    "kill": "server process killed mid-stream (SIGKILL)",
    "rnr": "receiver not ready (K receives in all; rnr_retry 2)",
    "siw-cut": "soft-iWARP: link cut mid-stream (the client's card down)",
    "siw-kill": "soft-iWARP: server process killed mid-stream (SIGKILL)",
    "poweroff": "server's guest powered off mid-stream",
}


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def exit_of(text):
    m = re.findall(r"^exit (\d+)$", text, re.M)
    return int(m[-1]) if m else None


def result(text, who):
    """The fields of the last 'RESULT who k=v ...' line, or None."""
    lines = [l for l in text.splitlines() if l.startswith("RESULT ")]
    if not lines:
        return None
    line = lines[-1]
    if not line.startswith(f"RESULT {who} "):
        return {"failed": line[len("RESULT "):]}
    fields = dict(re.findall(r"(\w+)=(\S+)", line))
    if who == "server" and "end=" in line:
        fields["end"] = line.split("end=", 1)[1]
    return fields


def statuses(text):
    return dict(re.findall(r"^error status (.+): (\d+)$", text, re.M))


def main():
    out = sys.argv[1]
    rows, failed = [], 0

    def row(name, build, ok, detail=""):
        nonlocal failed
        failed += not ok
        rows.append(f"{name:<22} {build:<6} {'PASS' if ok else 'FAIL'}  {detail}")

    # 1. the stock programs
    a, b = read(f"{out}/baseline.a.log"), read(f"{out}/baseline.b.log")
    row("baseline", "stock", "end 0" in a and "end 0" in b,
        "rdma_server on A, rdma_client on B")

    # 2. e2e.c across the link
    for s in ("rc", "vector", "onesided", "srq", "ud"):
        obs = {}
        for v in BUILDS:
            a, b = read(f"{out}/e2e-{s}-{v}.a.log"), read(f"{out}/e2e-{s}-{v}.b.log")
            ok = f"RESULT {s} PASS" in a and f"RESULT {s} PASS" in b
            obs[v] = (sorted(l for l in a.splitlines() if l.startswith("obs:")),
                      sorted(l for l in b.splitlines() if l.startswith("obs:")))
            m = re.search(r"msgs=(\d+) bytes=(\d+)", a)
            row(f"e2e {s}", v, ok, f"server verified {m.group(1)} messages, {m.group(2)} bytes"
                if m else "")
        row(f"e2e {s}", "same", obs["ours"] == obs["stock"], "obs: lines of both builds")

    # 3. wire.c under each fault
    table = []
    for f in FAULTS:
        accounts = {}
        for v in BUILDS:
            c, s = read(f"{out}/wire-{f}-{v}.b.log"), read(f"{out}/wire-{f}-{v}.a.log")
            cr, sr = result(c, "client"), result(s, "server")
            if not c and f == "poweroff":
                continue
            ok = bool(cr) and "failed" not in cr and cr.get("lost") == "0" and \
                cr.get("duplicate") == "0" and cr.get("bad_data") == "0" and \
                int(cr.get("posted", -1)) == int(cr.get("ok", 0)) + int(cr.get("error", 0))
            if f in ("none", "loss1", "loss5"):
                # The server saw every send (i % 3 == 0) and every RDMA write
                # (i % 3 == 1) of the N the client posted, each intact.
                n = int(cr.get("posted", 0))
                ok = ok and cr.get("error") == "0" and bool(sr) and sr.get("end") == "done" \
                    and sr.get("bad") == "0" and sr.get("received") == str(len(range(0, n, 3))) \
                    and sr.get("writes_checked") == str(len(range(1, n, 3)))
            elif f.startswith("siw-"):
                # a request in error, or the connection's end seen first
                ok = ok and (int(cr.get("error", 0)) > 0 or cr.get("stopped") == "1")
            else:
                ok = ok and int(cr.get("error", 0)) > 0
            st = statuses(c)
            accounts[v] = (cr and {k: cr.get(k) for k in ("posted", "ok", "error", "lost", "stopped")}, st)
            if not cr or "failed" in cr:
                row(f"wire {f}", v, False, (cr or {}).get("failed", "no result"))
                table.append((f, v, None, st, sr))
                continue
            row(f"wire {f}", v, ok, f"posted {cr['posted']}, ok {cr['ok']}, error "
                f"{cr['error']}, lost {cr['lost']}" + (", then stopped" if cr.get("stopped") == "1" else ""))
            table.append((f, v, cr, st, sr))
        if len(accounts) == 2:
            row(f"wire {f}", "same", accounts["ours"] == accounts["stock"],
                "the client's account of both builds")

    # 4. the hunt for the stuck stock client
    hunts = sorted(glob.glob(f"{out}/hunt-*.b.log"),
                   key=lambda p: int(re.search(r"hunt-(\d+)", p).group(1)))
    stuck = [h for h in hunts if "STUCK" in read(h)]

    print("\nTwo Soft-RoCE hosts joined by a link (A 192.0.2.1 serves, B 192.0.2.2 connects)")
    print(f"{'step':<22} {'build':<6} result  detail")
    print("\n".join(rows))
    print(f"pair: {sum('PASS' in r for r in rows)} passed, {failed} failed")

    md = ["| fault | build | posted | completed OK | completed in error | lost | "
          "the server's last wait |", "|---|---|---|---|---|---|---|"]
    for f, v, cr, st, sr in table:
        if not cr:
            md.append(f"| {FAULTS[f]} | {v} | (no result) | | | | |")
            continue
        errs = cr["error"] + (" (" + ", ".join(f"{k}: {n}" for k, n in st.items()) + ")"
                              if st else "")
        end = (sr or {}).get("end") or (sr or {}).get("failed") or \
            ("gone with its guest" if f == "poweroff" else "?")
        if "hung" in read(f"{out}/wire-{f}-{v}.a.log"):
            end = re.search(r"RESULT (hung in \S+)", read(f"{out}/wire-{f}-{v}.a.log")).group(1) + \
                " (watchdog)"
        why = re.search(r"^posting stopped: (.*)$", read(f"{out}/wire-{f}-{v}.b.log"), re.M)
        posted = cr["posted"] + (f" (then stopped: {why.group(1) if why else '?'})"
                                 if cr.get("stopped") == "1" else "")
        md.append(f"| {FAULTS[f]} | {v} | {posted} | {cr['ok']} | {errs} | "
                  f"{cr['lost']} | {end} |")
    hunt = [f"Hunt for the stock client stuck under 5 % loss each way: {len(hunts)} runs of "
            f"the stock rdma_server/rdma_client, {len(stuck)} stuck."]
    for h in stuck[:1]:
        frames = re.findall(r"^#\d+\s+.*? in (\S+) ", read(h), re.M)
        hunt.append(f"Stuck in: {' <- '.join(frames[:4])} (gdb, {os.path.basename(h)}).")
    with open(f"{out}/faults.md", "w") as fo:
        fo.write("\n".join(md) + "\n\n" + " ".join(hunt) + "\n")
    print("\n" + "\n".join(md) + "\n\n" + " ".join(hunt))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
