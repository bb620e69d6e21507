#!/usr/bin/env python3
"""Benchmark posenc against the NumPy script a user would otherwise write.

Usage: bench.py PATH/TO/posenc [--runs K] [--only SUBSTRING]

Every bench/case_*.py module defines CASES, a list of dicts:
  name     what is measured (shown in the table)
  posenc   posenc arguments; "{out}" is replaced by an output path
  ref      the reference command (argv, python scripts run with this
           interpreter); "{out}" likewise
  compare  optional function(posenc_out, ref_out) -> str, a one-line check
           of the two outputs (e.g. the largest ulp difference)
  setup    optional function(tmp) run once before the case, e.g. to write
           an input file both commands read; "{tmp}" in either command is
           replaced by that directory
  goal     optional: the largest posenc / reference time ratio the
           performance issue asks for (shown, and "met" or "NOT met")
  peak_goal optional: the same for the ratio of peak memory

Each case runs K times (default 5), posenc and the reference alternating,
each as a child process; wall time and peak RSS (GNU time) are recorded
and the medians reported, with the time ratio posenc / reference (below 1:
posenc is faster) and, where the case has one, its goal.  Prints a
Markdown table.
"""
import glob
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


GNU_TIME = "/usr/bin/time"


def run(argv, tmp):
    """Wall time (s) and peak RSS (MiB) of one run of argv.

    The peak RSS comes from GNU time (Debian package 'time'): a child forked
    straight from Python would report Python's own ~30 MiB as its peak
    (ru_maxrss keeps the high-water mark of the pre-exec copy)."""
    rss_file = os.path.join(tmp, "rss")
    timed = [GNU_TIME, "-f", "%M", "-o", rss_file] + argv if os.path.exists(GNU_TIME) else argv
    start = time.perf_counter()
    proc = subprocess.Popen(timed, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"command failed ({code}): {' '.join(argv)}\n{err}")
    if timed is argv:
        return elapsed, usage.ru_maxrss / 1024.0
    with open(rss_file) as f:
        return elapsed, int(f.read().split()[-1]) / 1024.0


def verdict(ratio, goal, peak_ratio, peak_goal):
    """The goal column: "<= 0.3: met", and the memory goal if any."""
    parts = []
    if goal is not None:
        parts.append(f"time <= {goal}: {'met' if ratio <= goal else 'NOT met'}")
    if peak_goal is not None:
        parts.append(f"peak {peak_ratio:.2f} <= {peak_goal}: "
                     f"{'met' if peak_ratio <= peak_goal else 'NOT met'}")
    return "; ".join(parts)


def load_cases():
    cases = []
    for path in sorted(glob.glob(os.path.join(HERE, "case_*.py"))):
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        cases.extend(mod.CASES)
    return cases


def main():
    args = sys.argv[1:]
    if not args:
        raise SystemExit(__doc__)
    posenc = os.path.abspath(args[0])
    runs, only = 5, None
    if "--runs" in args:
        runs = int(args[args.index("--runs") + 1])
    if "--only" in args:
        only = args[args.index("--only") + 1]
    rows = []
    with tempfile.TemporaryDirectory(prefix="posenc-bench-") as tmp:
        for case in load_cases():
            if only and only not in case["name"]:
                continue
            pout = os.path.join(tmp, "posenc.out")
            rout = os.path.join(tmp, "ref.out")
            if "setup" in case:
                case["setup"](tmp)
            pargv = [posenc] + [a.replace("{out}", pout).replace("{tmp}", tmp)
                                for a in case["posenc"]]
            rargv = [a.replace("{out}", rout).replace("{tmp}", tmp) for a in case["ref"]]
            if rargv[0].endswith(".py"):
                rargv = [sys.executable, os.path.join(HERE, rargv[0])] + rargv[1:]
            pt, pm, rt, rm = [], [], [], []
            for _ in range(runs):
                t, m = run(pargv, tmp)
                pt.append(t)
                pm.append(m)
                t, m = run(rargv, tmp)
                rt.append(t)
                rm.append(m)
            check = case["compare"](pout, rout) if "compare" in case else ""
            p, r = statistics.median(pt), statistics.median(rt)
            goal = verdict(p / r, case.get("goal"), max(pm) / max(rm), case.get("peak_goal"))
            rows.append((case["name"], p, r, p / r, max(pm), max(rm), goal, check))
            print(f"# {case['name']}: posenc {p:.3f} s, reference {r:.3f} s, "
                  f"posenc/reference {p / r:.3f}, peak RSS {max(pm):.1f} / {max(rm):.1f} MiB "
                  f"{goal} {check}", file=sys.stderr, flush=True)
    print(f"median of {runs} runs each, {os.cpu_count()} CPUs, "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')} for both\n")
    print("| case | posenc (s) | reference (s) | posenc / reference | posenc peak RSS (MiB) | reference peak RSS (MiB) | goal | check |")
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for name, p, r, ratio, pm, rm, goal, check in rows:
        print(f"| {name} | {p:.3f} | {r:.3f} | {ratio:.3f} | {pm:.1f} | {rm:.1f} | {goal} | {check} |")


if __name__ == "__main__":
    main()
