#!/usr/bin/env python3
"""Benchmark posenc against the NumPy script a user would otherwise write.

Usage: bench.py PATH/TO/posenc [--runs K] [--only SUBSTRING] [--python PATH]...

Every bench/case_*.py module defines CASES, a list of dicts:
  name     what is measured (shown in the table)
  posenc   posenc arguments; "{out}" is replaced by an output path
  ref      the reference command (argv, python scripts run with each of the
           peers' interpreters, below); "{out}" likewise
  compare  optional function(posenc_out, ref_out) -> str, a one-line check
           of the two outputs (e.g. the largest ulp difference)
  setup    optional function(tmp) run once before the case, e.g. to write
           an input file both commands read; "{tmp}" in either command is
           replaced by that directory
  goal     optional: the largest posenc / reference time ratio the
           performance issue asks for (shown, and "met" or "NOT met")
  peak_goal optional: the same for the ratio of peak memory
  peak_base optional: the name of the case whose reference's peak the
           peak goal is measured against (default: this case's own)
  exit_ok  optional: posenc's exit statuses that are success (default
           (0,); diff's 1 means "different", not a failure)

Peers: a reference script runs under every interpreter given with --python;
by default the one running this script (make bench: Debian's python3 and
NumPy) and, when it exists, build/venv/bin/python (make venv: NumPy 2.x),
one row each.  A script whose modules an interpreter lacks is left out of
that interpreter's rows, saying so.  Each row names the NumPy and BLAS its
reference ran on (bench/blas_info.py: the library really loaded).

Each case runs K times (default 5), posenc and each reference alternating,
each as a child process; wall time, user and system CPU time and peak RSS
(GNU time) are recorded and the medians reported, with the time ratio
posenc / reference (below 1: posenc is faster) and, where the case has one,
its goal.  Prints a Markdown table.

Every run writes a new file (its output of the run before is removed
first), as a first run does.  Otherwise the two sides would not do the
same work: a script's open(..., "wb") truncates the old file and its new
pages take the ones just freed, while posenc replaces a file atomically,
writing beside the old one, so it needs fresh page cache; on the
development VM that was 2 s of system time per GiB against 0.25 s
(dd of 1 GiB beside an old file, or truncating it).
"""
import ast
import glob
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VENV_PYTHON = os.path.join(HERE, "..", "build", "venv", "bin", "python")
GNU_TIME = "/usr/bin/time"


class Failed(Exception):
    pass


def run(argv, tmp, out=None, ok=(0,)):
    """Wall time (s), user and system CPU (s) and peak RSS (MiB) of one run;
    out, the file it writes, is removed first.

    The peak RSS and CPU times come from GNU time (Debian package 'time'): a
    child forked straight from Python would report Python's own ~30 MiB as
    its peak (ru_maxrss keeps the high-water mark of the pre-exec copy)."""
    stats_file = os.path.join(tmp, "rss")
    if out and os.path.exists(out):
        os.remove(out)
    timed = ([GNU_TIME, "-f", "%M %U %S", "-o", stats_file] + argv
             if os.path.exists(GNU_TIME) else argv)
    start = time.perf_counter()
    proc = subprocess.Popen(timed, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        raise Failed(f"command failed ({code}): {' '.join(argv)}\n{err}")
    if timed is argv:
        return elapsed, usage.ru_utime, usage.ru_stime, usage.ru_maxrss / 1024.0
    with open(stats_file) as f:
        rss, user, sys_ = f.read().split()[-3:]
    return elapsed, float(user), float(sys_), int(rss) / 1024.0


def verdict(ratio, goal, peak_ratio, peak_goal):
    """The goal column: "<= 0.3: met", and the memory goal if any."""
    parts = []
    if goal is not None:
        parts.append(f"time <= {goal}: {'met' if ratio <= goal else 'NOT met'}")
    if peak_goal is not None:
        if peak_ratio is None:
            parts.append(f"peak <= {peak_goal}: its base case did not run")
        else:
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


def script_modules(script):
    """The top-level modules a bench script imports, its neighbours in
    bench/ and the standard library's left out."""
    with open(os.path.join(HERE, script)) as f:
        tree = ast.parse(f.read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return sorted(n for n in names if n not in sys.stdlib_module_names
                  and not os.path.exists(os.path.join(HERE, n + ".py")))


class Peer:
    """A Python interpreter that runs the reference scripts."""

    def __init__(self, python):
        self.python = python
        self.has = {}
        out = subprocess.run([python, os.path.join(HERE, "blas_info.py")],
                             capture_output=True, text=True)
        self.info = out.stdout.strip() if out.returncode == 0 else "NumPy missing"

    def missing(self, modules):
        for m in modules:
            if m not in self.has:
                self.has[m] = subprocess.run([self.python, "-c", f"import {m}"],
                                             capture_output=True).returncode == 0
        return [m for m in modules if not self.has[m]]


def option_values(args, name):
    return [args[i + 1] for i, a in enumerate(args[:-1]) if a == name]


def main():
    args = sys.argv[1:]
    if not args:
        raise SystemExit(__doc__)
    posenc = os.path.abspath(args[0])
    runs = int((option_values(args, "--runs") or [5])[0])
    only = (option_values(args, "--only") or [None])[0]
    pythons = option_values(args, "--python")
    if not pythons:
        pythons = [sys.executable] + ([os.path.abspath(VENV_PYTHON)]
                                      if os.path.exists(VENV_PYTHON) else [])
    peers = [Peer(p) for p in pythons]
    posenc_blas = subprocess.run([sys.executable, os.path.join(HERE, "blas_info.py"), "--posenc"],
                                 capture_output=True, text=True).stdout.strip()
    rows, base_peaks = [], {}
    with tempfile.TemporaryDirectory(prefix="posenc-bench-") as tmp:
        for case in load_cases():
            if only and only not in case["name"]:
                continue
            pout = os.path.join(tmp, "posenc.out")
            if "setup" in case:
                case["setup"](tmp)
            pargv = [posenc] + [a.replace("{out}", pout).replace("{tmp}", tmp)
                                for a in case["posenc"]]
            # one reference per peer for a script, one for a command
            refs = []
            script = case["ref"][0] if case["ref"][0].endswith(".py") else None
            for k, peer in enumerate(peers if script else [None]):
                rout = os.path.join(tmp, f"ref{k}.out")
                rargv = [a.replace("{out}", rout).replace("{tmp}", tmp) for a in case["ref"]]
                if script:
                    lack = peer.missing(script_modules(script))
                    if lack:
                        print(f"# {case['name']}: not under {peer.python} (no {', '.join(lack)})",
                              file=sys.stderr)
                        continue
                    rargv = [peer.python, os.path.join(HERE, script)] + rargv[1:]
                refs.append((peer, rargv, rout, []))
            pm = []
            try:
                for _ in range(runs):
                    pm.append(run(pargv, tmp, pout, case.get("exit_ok", (0,))))
                    for _, rargv, rout, rm in refs:
                        rm.append(run(rargv, tmp, rout))
            except Failed as e:
                raise SystemExit(str(e))
            p = statistics.median(m[0] for m in pm)
            pu = statistics.median(m[1] for m in pm)
            ps = statistics.median(m[2] for m in pm)
            ppeak = max(m[3] for m in pm)
            for peer, rargv, rout, rm in refs:
                r = statistics.median(m[0] for m in rm)
                ru = statistics.median(m[1] for m in rm)
                rs = statistics.median(m[2] for m in rm)
                rpeak = max(m[3] for m in rm)
                where = peer.info if peer else "-"
                base_peaks[(case["name"], where)] = rpeak
                base = base_peaks.get((case.get("peak_base", case["name"]), where))
                goal = verdict(p / r, case.get("goal"), ppeak / base if base else None,
                               case.get("peak_goal"))
                check = case["compare"](pout, rout) if "compare" in case else ""
                rows.append((case["name"], where, p, r, p / r, pu, ps, ru, rs, ppeak, rpeak,
                             goal, check))
                print(f"# {case['name']} [{where}]: posenc {p:.3f} s (user {pu:.2f}, sys {ps:.2f}), "
                      f"reference {r:.3f} s (user {ru:.2f}, sys {rs:.2f}), posenc/reference "
                      f"{p / r:.3f}, peak RSS {ppeak:.1f} / {rpeak:.1f} MiB {goal} {check}",
                      file=sys.stderr, flush=True)
    print(f"median of {runs} runs each, {os.cpu_count()} CPUs, "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')} for both; "
          f"posenc: {posenc_blas}\n")
    print("| case | reference runs on | posenc (s) | reference (s) | posenc / reference "
          "| posenc CPU user / sys (s) | reference CPU user / sys (s) "
          "| posenc peak RSS (MiB) | reference peak RSS (MiB) | goal | check |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for (name, where, p, r, ratio, pu, ps, ru, rs, pm, rm, goal, check) in rows:
        print(f"| {name} | {where} | {p:.3f} | {r:.3f} | {ratio:.3f} | {pu:.2f} / {ps:.2f} "
              f"| {ru:.2f} / {rs:.2f} | {pm:.1f} | {rm:.1f} | {goal} | {check} |")


if __name__ == "__main__":
    main()
