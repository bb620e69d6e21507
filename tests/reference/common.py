"""What the reference checks (tests/reference/ref_*.py) share: running posenc,
reading what it wrote, comparing float32 tables, and the report lines.

Every check runs the built posenc as a user would, reads its npy or
safetensors output back with numpy / safetensors, and compares it with what
a library's own function or module computes, under one of two rules:

  bit-identical   the float32 (or int) bit patterns are equal, NaNs too;
  within B        |posenc - library| <= B for every element, where the check
                  derives B from the library's pipeline (float32 or float64
                  steps) and says how; the values that differ at all are
                  counted in the report line.

A check prints one line, `ok   GROUP/NAME: detail` or `FAIL GROUP/NAME:
detail`; a group ends with `GROUP: N passed, M failed`.  A posenc error, a
missing library feature or an exception is a failure, never a skip.
"""

import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback

import numpy as np

U = 2.0 ** -24  # half an ulp of 1 in float32: the unit roundoff


class PosencError(Exception):
    pass


# posenc finds the environment's MKL (pip's mkl wheel puts libmkl_rt.so.2 in
# its lib/), for --torch-vml mkl: the library path is set for posenc alone,
# not for the Python that runs torch
POSENC_ENV = dict(os.environ)
POSENC_ENV["LD_LIBRARY_PATH"] = os.pathsep.join(
    p for p in (os.path.join(sys.prefix, "lib"), os.environ.get("LD_LIBRARY_PATH")) if p)


def posenc(*args):
    """Run posenc with ARGS; its stdout, or PosencError naming the command
    and the first line of its stderr."""
    cmd = [os.environ["POSENC"], *map(str, args)]
    p = subprocess.run(cmd, capture_output=True, env=POSENC_ENV)
    if p.returncode != 0:
        err = p.stderr.decode(errors="replace").strip().splitlines()
        # the temporary directory's name says nothing
        short = re.compile(re.escape(tempfile.gettempdir()) + r"/posenc-ref-[^/]+/")
        raise PosencError(short.sub("", "%s: exit %d: %s" % (" ".join(cmd[1:]), p.returncode,
                                                             err[0] if err else "(no message)")))
    return p.stdout


class Group:
    """One group of checks with its own temporary directory."""

    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0
        self.tmp = tempfile.mkdtemp(prefix="posenc-ref-")
        self.serial = 0

    def path(self, name):
        self.serial += 1
        return os.path.join(self.tmp, "%d-%s" % (self.serial, name))

    def check(self, name, fn, *args):
        """Run fn(*args) -> (ok, detail) and print its line."""
        try:
            ok, detail = fn(*args)
        except PosencError as e:
            ok, detail = False, "posenc failed: %s" % e
        except Exception as e:  # a library that lacks what the check needs
            tb = traceback.extract_tb(e.__traceback__)[-1]
            ok, detail = False, "%s: %s (%s:%d)" % (type(e).__name__, e,
                                                   os.path.basename(tb.filename), tb.lineno)
        print("%s %s/%s: %s" % ("ok  " if ok else "FAIL", self.name, name, detail), flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok

    def done(self):
        shutil.rmtree(self.tmp, ignore_errors=True)
        print("%s: %d passed, %d failed" % (self.name, self.passed, self.failed), flush=True)
        return 0 if self.failed == 0 else 1

    # posenc's outputs, read back with the libraries users read them with

    def tensors(self, *args):
        """posenc ARGS -o x.safetensors: ({name: array}, metadata)."""
        from safetensors import safe_open
        out = self.path("out.safetensors")
        posenc(*args, "-o", out)
        with safe_open(out, "np") as f:
            meta = f.metadata() or {}
            data = {k: f.get_tensor(k) for k in f.keys()}
        os.unlink(out)
        return data, meta

    def torch_tensors(self, *args):
        """posenc ARGS -o x.safetensors read as torch tensors ({name:
        tensor}): bfloat16, which NumPy lacks, included."""
        from safetensors import safe_open
        out = self.path("out.safetensors")
        posenc(*args, "-o", out)
        with safe_open(out, "pt") as f:
            data = {k: f.get_tensor(k) for k in f.keys()}
        os.unlink(out)
        return data

    def npy(self, *args):
        """posenc ARGS -o x.npy, read with numpy.load."""
        out = self.path("out.npy")
        posenc(*args, "-o", out)
        a = np.load(out)
        os.unlink(out)
        return a


def both(*results):
    """Combine several (ok, detail) results into one."""
    return all(r[0] for r in results), "; ".join(r[1] for r in results)


def np32(t):
    """A torch tensor or array as a float32 numpy array (no rounding: it
    must already be float32)."""
    a = t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)
    assert a.dtype == np.float32, "expected float32, got %s" % a.dtype
    return a


def ulps(a, b):
    """Distance in float32 ulps between a and b (same sign side ordering)."""
    def ordered(x):
        i = np.ascontiguousarray(x, dtype=np.float32).view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)
    return np.abs(ordered(a) - ordered(b))


def _where(shape, flat):
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()


def same_bits(what, got, want):
    """Rule bit-identical: float32 (or integer) arrays of one shape whose
    elements have the same bit patterns."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return False, "%s: shape %s, library %s" % (what, got.shape, want.shape)
    if got.dtype != want.dtype:
        return False, "%s: dtype %s, library %s" % (what, got.dtype, want.dtype)
    if got.dtype.kind == "f":
        gb = np.ascontiguousarray(got).view("u%d" % got.itemsize)
        wb = np.ascontiguousarray(want).view("u%d" % want.itemsize)
    else:
        gb, wb = got, want
    diff = (gb != wb).ravel()
    n = int(diff.sum())
    if n == 0:
        return True, "%s bit-identical (%d values)" % (what, got.size)
    i = int(np.flatnonzero(diff)[0])
    more = ""
    if got.dtype == np.float32:
        more = ", up to %d ulp" % int(ulps(got, want).max())
    return False, "%s: %d of %d values differ (%.3g%%)%s; first at %s: posenc %r, library %r" % (
        what, n, got.size, 100.0 * n / got.size, more, _where(got.shape, i),
        got.ravel()[i].item(), want.ravel()[i].item())


def within(what, got, want, bound, rule):
    """Rule within B: |got - want| <= bound elementwise (bound broadcast),
    NaN only where the library has NaN.  RULE names the bound in the line."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return False, "%s: shape %s, library %s" % (what, got.shape, want.shape)
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    bound = np.broadcast_to(np.asarray(bound, dtype=np.float64), g.shape)
    nan_ok = np.isnan(g) == np.isnan(w)
    err = np.where(np.isnan(g) | np.isnan(w), 0.0, np.abs(g - w))
    bad = (err > bound) | ~nan_ok
    differ = int(((got.astype(np.float64) != want.astype(np.float64)) & ~(np.isnan(g) & np.isnan(w))).sum())
    ratio = float(np.max(np.where(bound > 0, err / np.where(bound > 0, bound, 1), np.where(err > 0, np.inf, 0))))
    if not bad.any():
        return True, "%s within %s (%d values, %d not identical, worst %.3g of the bound)" % (
            what, rule, got.size, differ, ratio)
    i = int(np.flatnonzero(bad.ravel())[0])
    return False, "%s: %d of %d values beyond %s (worst %.3g x the bound); first at %s: posenc %r, library %r, bound %.3g" % (
        what, int(bad.sum()), got.size, rule, ratio, _where(got.shape, i),
        got.ravel()[i].item(), want.ravel()[i].item(), bound.ravel()[i])


def round32(x):
    """The float32 nearest to the mpmath number x (ties to even)."""
    import mpmath
    c = np.float32(float(x))
    best = c
    for cand in (np.nextafter(c, np.float32(-np.inf)), np.nextafter(c, np.float32(np.inf))):
        dc, db = abs(mpmath.mpf(float(cand)) - x), abs(mpmath.mpf(float(best)) - x)
        if dc < db or (dc == db and int(np.float32(cand).view(np.uint32)) % 2 == 0):
            best = cand
    return np.float32(best)


def float64_pipeline(what, got, lib, truth, eps, limit=2000):
    """Rule for a library that computes in float64 and casts to float32:
    identical, except where its float64 result and the true value straddle a
    float32 rounding boundary.  For every value that differs, truth(index)
    (an mpmath number: the published formula at 60 digits) must round to
    posenc's value and lie within half a float32 ulp of the library's plus
    eps(index), the float64 pipeline's error; the line counts them."""
    import mpmath
    got = np.asarray(got)
    lib = np.asarray(lib)
    if got.shape != lib.shape:
        return False, "%s: shape %s, library %s" % (what, got.shape, lib.shape)
    diff = np.flatnonzero(got.view(np.uint32).ravel() != lib.view(np.uint32).ravel())
    if diff.size > limit:
        return False, "%s: %d of %d values differ, more than a float64 pipeline explains" % (
            what, diff.size, got.size)
    mpmath.mp.dps = 60
    worst = 0
    for flat in diff:
        idx = tuple(int(i) for i in np.unravel_index(flat, got.shape))
        v = truth(idx)
        g, w = got[idx], lib[idx]
        half = mpmath.mpf(float(np.spacing(np.abs(w)))) / 2
        off = abs(mpmath.mpf(float(w)) - v)
        if round32(v) != g or off > half + eps(idx):
            return False, "%s: at %s posenc %r, library %r, true value %s: %s" % (
                what, idx, g.item(), w.item(), mpmath.nstr(v, 12),
                "posenc is not the correctly rounded value" if round32(v) != g
                else "the library is further from it than its float64 pipeline explains")
        worst = max(worst, int(ulps(g, w).max()))
    if diff.size == 0:
        return True, "%s bit-identical (%d values)" % (what, got.size)
    return True, ("%s identical except %d of %d values, each a float64 rounding-boundary case "
                  "confirmed at 60 digits (up to %d ulp)" % (what, diff.size, got.size, worst))


def narrow_bits(d, dtype):
    """The float16 or bfloat16 (dtype "float16", "bfloat16") nearest to each
    double of d, ties to even, as int16 bit patterns: torch's .to() of the
    float64 tensor, which rounds through float32, corrected where that
    double rounding matters -- where the float32 lies exactly halfway
    between two values of the type and the double does not -- by exact
    rational arithmetic.  Returns (bits, how many torch had wrong)."""
    import fractions
    import torch
    tdt = torch.float16 if dtype == "float16" else torch.bfloat16
    d = np.ascontiguousarray(d, dtype=np.float64)
    bits = torch.from_numpy(d).to(tdt).view(torch.int16).numpy().copy()
    f32 = d.astype(np.float32)
    # a float32 halfway between two values of the type: its neighbours
    # round apart
    up = torch.from_numpy(np.nextafter(f32, np.float32(np.inf))).to(tdt).view(torch.int16).numpy()
    dn = torch.from_numpy(np.nextafter(f32, np.float32(-np.inf))).to(tdt).view(torch.int16).numpy()
    for i in np.flatnonzero((up != dn) & (f32.astype(np.float64) != d) & np.isfinite(d)):
        h = int(bits.flat[i])
        here = torch.tensor([h], dtype=torch.int16).view(tdt).double().item()
        if here == 0 or not math.isfinite(here):
            continue
        up = torch.tensor([h + 1], dtype=torch.int16).view(tdt).double().item()
        down = torch.tensor([h - 1], dtype=torch.int16).view(tdt).double().item()
        x = fractions.Fraction(float(d.flat[i]))
        for cand, hc in ((up, h + 1), (down, h - 1)):
            if not math.isfinite(cand):
                continue
            c, v = fractions.Fraction(cand), fractions.Fraction(here)
            if abs(x - c) < abs(x - v) or (abs(x - c) == abs(x - v) and hc % 2 == 0 and h % 2 == 1):
                bits.flat[i] = hc
                break
    fixed = int((bits != torch.from_numpy(d).to(tdt).view(torch.int16).numpy()).sum())
    return bits, fixed


def equal(what, got, want):
    """Plain equality of two Python values (numbers compared as doubles)."""
    if got == want:
        text = repr(got)
        return True, "%s %s" % (what, "== %s" % text if len(text) < 80 else "equal")
    if isinstance(got, list) and isinstance(want, list):
        extra = sorted(set(got) - set(want))[:3]
        missing = sorted(set(want) - set(got))[:3]
        return False, "%s: posenc has %r, the library %r (first differences)" % (what, extra, missing)
    return False, "%s: posenc %r, library %r" % (what, got, want)


def save_config(cfg, dirname):
    """cfg.save_pretrained(dirname): the config.json transformers writes."""
    cfg.save_pretrained(dirname)
    return os.path.join(dirname, "config.json")


def main(run):
    """A group module's entry point: run(group) adds the checks."""
    g = Group(sys.argv[1] if len(sys.argv) > 1 else "group")
    run(g)
    sys.exit(g.done())
