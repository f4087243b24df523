#!/usr/bin/env python3
"""Writes MUTANTS.md from a cargo-mutants run (make mutants):

    mutants.py OUTPUT_DIR/mutants.out > MUTANTS.md

Counts per crate (the exports' and the preload library's folders of the
top crate apart: src/api, src/preload; observe; abi) (tried, caught, missed,
timed out, unviable, and
the share of viable mutants the tests caught, a time-out counting as
caught: the tests did not pass), then every survivor with why it is left:
c-tests/mutants/mutants-survivors.txt explains each by its name without the
line and column ("PATH: replace X with Y in FUNCTION"), since lines
move. A survivor without an explanation is listed as unexplained.

After `make mutants MUTANTS_ARGS=--iterate`, the mutants caught (or found
unviable) by an earlier run are not run again: cargo-mutants lists them in
previously_caught.txt, and they are counted here as caught earlier, but
those named in an unviable.txt of this run or the one before (mutants.out.old,
where cargo-mutants moves it) or in mutants.unviable beside OUTPUT_DIR (make
mutants adds each run's list to it until the next full run), which are
counted as unviable.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def key(name):
    """A mutant's name without its line and column."""
    return re.sub(r"^([^:]+\.rs):\d+:\d+: ", r"\1: ", name)


def group(path):
    """Where a mutant's file counts: its crate (observe, abi), or its folder
    of the top crate (src/api, src/preload)."""
    top = path.split("/")[0]
    return top if top in ("observe", "abi") else os.path.dirname(path)


def explanations():
    out, current = {}, None
    with open(os.path.join(HERE, "mutants-survivors.txt")) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            if re.match(r"^[\w./-]+\.rs: ", line):
                current = line
                out[current] = ""
            elif current:
                out[current] = (out[current] + " " + line.strip()).strip()
    return out


def names(path):
    try:
        with open(path) as f:
            return [line.strip() for line in f if line.strip()]
    except OSError:
        return []


def carried(out_dir):
    """(name, "caught" or "unviable") of the mutants an --iterate run skipped,
    and how many of its names are no longer mutants of the tree (their lines
    moved, so this run tested them again under their new names): those are
    not counted, when the tree's list (mutants.list beside OUTPUT_DIR, from
    `cargo mutants --list`) is there."""
    unviable = set(names(os.path.join(out_dir, "unviable.txt")))
    unviable |= set(names(os.path.join(out_dir + ".old", "unviable.txt")))
    unviable |= set(names(os.path.join(os.path.dirname(out_dir), "mutants.unviable")))
    listed = set(names(os.path.join(os.path.dirname(out_dir), "mutants.list")))
    earlier = names(os.path.join(out_dir, "previously_caught.txt"))
    kept = [n for n in earlier if not listed or n in listed]
    return [(n, "unviable" if n in unviable else "caught") for n in kept], len(earlier) - len(kept)


def minutes(data):
    """", N minutes from start to end" of a run's outcomes, or ""."""
    try:
        from datetime import datetime
        t0, t1 = (datetime.fromisoformat(re.sub(r"(\.\d{6})\d*", r"\1", data[k]).replace("Z", "+00:00"))
                  for k in ("start_time", "end_time"))
        return f", {(t1 - t0).total_seconds() / 60:.0f} minutes from start to end"
    except (KeyError, ValueError, TypeError, AttributeError):
        return ""


def main():
    out_dir = sys.argv[1]
    data = json.load(open(os.path.join(out_dir, "outcomes.json")))
    why = explanations()
    folders = {}
    survivors = []
    seconds = 0.0
    for o in data["outcomes"]:
        seconds += sum(p.get("duration", 0) for p in o.get("phase_results", []))
        m = o["scenario"].get("Mutant") if isinstance(o["scenario"], dict) else None
        if not m:
            continue
        folder = group(m["file"])
        c = folders.setdefault(folder, {"tried": 0, "caught": 0, "missed": 0, "timeout": 0, "unviable": 0})
        c["tried"] += 1
        kind = {"CaughtMutant": "caught", "MissedMutant": "missed", "Timeout": "timeout",
                "Unviable": "unviable"}[o["summary"]]
        c[kind] += 1
        if kind == "missed":
            survivors.append(m["name"])
    earlier, moved = carried(out_dir)
    for name, kind in earlier:
        folder = group(name.split(":")[0])
        c = folders.setdefault(folder, {"tried": 0, "caught": 0, "missed": 0, "timeout": 0, "unviable": 0})
        c["tried"] += 1
        c[kind] += 1
    total = {k: sum(c[k] for c in folders.values()) for k in ("tried", "caught", "missed", "timeout", "unviable")}
    p = print
    p("# Mutation testing")
    p()
    p("`make mutants` (cargo-mutants over the library's three crates, `src/`, `observe/` and")
    p("`abi/`, each mutant tested by `cargo test --features rdmaverbs-lib/c-tests` of the three: their")
    p("Rust unit tests, then the C tests on the fake provider against the library cargo built")
    p("of the mutant, `make test-mutant`); this file is written by")
    p("`c-tests/mutants/mutants.py` from its last run. A mutant is caught when the tests fail")
    p("(or hang past the time-out); unviable ones do not compile. cargo-mutants leaves `unsafe`")
    p("functions and blocks alone, so the exports themselves (`unsafe extern \"C\"`) are")
    p("covered by the differential test rather than mutated here.")
    p()
    wall = minutes(data)
    p(f"cargo-mutants {data.get('cargo_mutants_version', '?')}; {total['tried']} mutants; "
      f"{seconds / 60:.0f} minutes of build and test in all{wall} (on this 2-core machine, "
      "`make mutants`' two jobs at once).")
    if earlier:
        n_caught = sum(1 for _, k in earlier if k == "caught")
        p()
        p(f"This run was `--iterate`: {len(earlier)} mutants caught ({n_caught}) or unviable "
          f"({len(earlier) - n_caught}) in an earlier run, against fewer tests, were not run again "
          "and are counted here as they were then; the times above are this run's.")
        if moved:
            p(f"Names carried from earlier runs that are no longer mutants of the tree (their lines "
              f"moved), not counted: {moved}; this run tested them under their new names.")
        try:
            old = json.load(open(os.path.join(out_dir + ".old", "outcomes.json")))
            n_old = sum(1 for o in old["outcomes"] if isinstance(o["scenario"], dict))
            p(f"The run before it (`mutants.out.old`) tried {n_old} mutants{minutes(old)}.")
        except (OSError, ValueError, KeyError, TypeError):
            pass
    p()
    # Survivors explained as equivalent (no test can tell them apart).
    same = {}
    for name in survivors:
        if why.get(key(name), "").startswith("Equivalent"):
            folder = group(name.split(":")[0])
            same[folder] = same.get(folder, 0) + 1
    same["all"] = sum(same.values())
    p("| crate or folder | tried | caught | timed out | missed | of them equivalent | unviable "
      "| caught of viable | caught of viable, equivalents aside |")
    p("|---|---|---|---|---|---|---|---|---|")
    for folder in sorted(folders) + ["all"]:
        c = total if folder == "all" else folders[folder]
        viable = c["caught"] + c["timeout"] + c["missed"]
        got = c["caught"] + c["timeout"]
        share = f"{100 * got / viable:.1f} %" if viable else "-"
        eq = same.get(folder, 0)
        aside = f"{100 * got / (viable - eq):.1f} %" if viable > eq else "-"
        name = "**all**" if folder == "all" else f"`{folder}`"
        p(f"| {name} | {c['tried']} | {c['caught']} | {c['timeout']} | {c['missed']} | {eq} "
          f"| {c['unviable']} | {share} | {aside} |")
    p()
    p("An equivalent mutant is one whose explanation below starts with \"Equivalent\": it")
    p("changes no output any program can see (at most speed or memory), so no test can")
    p("catch it. The others left are \"not seen\": a race or a condition the tests do not")
    p("make, each said.")
    p()
    p("## Survivors, and why each is left")
    p()
    if not survivors:
        p("None.")
    unexplained = 0
    for name in sorted(survivors):
        text = why.get(key(name))
        if text is None:
            unexplained += 1
            text = "**not explained**"
        p(f"- `{name}`: {text}")
    if unexplained:
        print(f"mutants.py: {unexplained} survivors not explained in mutants-survivors.txt",
              file=sys.stderr)


if __name__ == "__main__":
    main()
