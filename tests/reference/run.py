#!/usr/bin/env python3
"""make check-reference: posenc against the libraries' own code.

    build/venv/bin/python tests/reference/run.py [POSENC] [-k WORD] [-j N]

Runs each group of checks (tests/reference/ref_*.py) in its own Python
process -- two at a time -- in the environment of tests/reference/
requirements.txt (transformers, diffusers, PyTorch, safetensors, NumPy),
offline (nothing is downloaded; models are built from small configs with
random weights), then prints every check's line and the last line
`reference: N passed, M failed`; exits 1 if any failed.  POSENC (else the
POSENC environment variable, else ./posenc) is the binary under test: any
posenc can be checked, e.g. another branch's.  -k WORD runs the groups
whose name contains WORD.

The rope float32 checks run twice, in processes where PyTorch's CPU
dispatch is set with ATEN_CPU_CAPABILITY (avx2, and the default, avx512 on
an AVX-512 machine), against posenc's --torch-cpu of the same name.

Then every group runs again against /bin/false, a posenc that does
nothing: each of its checks must fail there (as make check does for the CLI
tests), one test case per group (--no-vacuous leaves this out).
"""

import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))

# (group name, script, extra environment)
GROUPS = [
    ("rope", "ref_rope.py", {}),
    ("rope-f32-avx2", "ref_rope_f32.py", {"ATEN_CPU_CAPABILITY": "avx2", "REF_TORCH_CPU": "avx2"}),
    ("rope-f32-avx512", "ref_rope_f32.py", {"REF_TORCH_CPU": "avx512"}),
    ("sinusoidal", "ref_sinusoidal.py", {}),
    ("alibi", "ref_alibi.py", {}),
    ("buckets", "ref_buckets.py", {}),
    ("sincos2d", "ref_sincos2d.py", {}),
    ("files", "ref_files.py", {}),
    ("families", "ref_families.py", {}),
    ("mrope", "ref_mrope.py", {}),
    ("mrope-f32-avx2", "ref_mrope.py", {"ATEN_CPU_CAPABILITY": "avx2", "REF_TORCH_CPU": "avx2"}),
    ("explain", "ref_explain.py", {}),
    ("axial", "ref_axial.py", {}),
    ("axial-avx2", "ref_axial.py", {"ATEN_CPU_CAPABILITY": "avx2"}),
    ("diagnosis", "ref_diagnosis.py", {}),
    ("timestep", "ref_timestep.py", {}),
    ("resample", "ref_resample.py", {}),
    ("resample-avx2", "ref_resample.py", {"ATEN_CPU_CAPABILITY": "avx2"}),
]


def run_group(name, script, extra, posenc):
    env = dict(os.environ)
    env.pop("ATEN_CPU_CAPABILITY", None)
    env.update({
        "POSENC": posenc,
        # nothing from the network or a local cache of the Hub
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "TRANSFORMERS_VERBOSITY": "error",
        "DIFFUSERS_VERBOSITY": "error",
        "PYTHONWARNINGS": "ignore",
        # two groups run at once on the two CPUs
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "POSENC_THREADS": "1",
    })
    env.update(extra)
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, os.path.join(HERE, script), name], env=env,
                       capture_output=True, text=True)
    return p, time.monotonic() - t0


def count(name, p):
    """(passed, failed) from the group's last line; a crash is a failure."""
    for line in reversed(p.stdout.splitlines()):
        head = name + ": "
        if line.startswith(head) and line.endswith(" failed"):
            try:
                a, b = line[len(head):].split(", ")
                passed, failed = int(a.split()[0]), int(b.split()[0])
            except ValueError:
                break
            if p.returncode != 0 and failed == 0:
                failed = 1
            return passed, failed
    return 0, 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("posenc", nargs="?", default=os.environ.get("POSENC", "./posenc"))
    ap.add_argument("-k", dest="word", default="")
    ap.add_argument("-j", dest="jobs", type=int, default=2)
    ap.add_argument("--no-vacuous", action="store_true")
    a = ap.parse_args()
    posenc = os.path.abspath(a.posenc)
    if not os.access(posenc, os.X_OK):
        print("reference: %s is not an executable posenc" % posenc)
        print("reference: 0 passed, 1 failed")
        return 1
    groups = [g for g in GROUPS if a.word in g[0]]
    print("reference: %s against torch, transformers, diffusers, safetensors, numpy of %s"
          % (posenc, os.path.relpath(sys.prefix)), flush=True)
    passed = failed = 0
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futures = [(g[0], ex.submit(run_group, *g, posenc)) for g in groups]
        vacuous = [] if a.no_vacuous else [(g[0], ex.submit(run_group, *g, "/bin/false")) for g in groups]
        for name, fut in futures:
            p, secs = fut.result()
            sys.stdout.write(p.stdout)
            if p.returncode != 0 and p.stderr.strip():
                sys.stdout.write("".join("  %s stderr: %s\n" % (name, l)
                                         for l in p.stderr.strip().splitlines()[-15:]))
            ps, fs = count(name, p)
            if (ps, fs) == (0, 1) and not p.stdout.rstrip().endswith(" failed"):
                print("FAIL %s: the group ended without its summary line (exit %d)" % (name, p.returncode))
            print("  (%s: %.1f s)" % (name, secs), flush=True)
            passed += ps
            failed += fs
        # no check may pass against a binary that does nothing
        vp = vf = 0
        for name, fut in vacuous:
            p, secs = fut.result()
            ps, fs = count(name, p)
            if ps == 0 and fs > 0:
                vp += 1
            else:
                vf += 1
                print("FAIL vacuous: %d checks of %s pass against /bin/false (want 0):" % (ps, name))
                sys.stdout.write("".join(l + "\n" for l in p.stdout.splitlines() if l.startswith("ok ")))
        if vacuous:
            print("vacuous: %d passed, %d failed" % (vp, vf))
            passed += vp
            failed += vf
    print("  (all groups: %.1f s)" % (time.monotonic() - t0))
    print("reference: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
