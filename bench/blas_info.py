"""Which NumPy and BLAS a reference row ran on, or (--posenc) which BLAS
posenc loads: one line, e.g. "NumPy 2.4.6, OpenBLAS 0.3.31 (Haswell)".

Usage: PYTHON blas_info.py [--posenc]

The BLAS is the one really loaded, not the one NumPy was built against:
after a small matrix product, the shared library whose name has "blas" in
/proc/self/maps answers its own openblas_get_config / get_corename (under
the symbol prefix and suffix of its build: scipy-openblas64 names them
scipy_openblas_..._64_).  Off Linux, or for another BLAS, the library's
file name stands in."""
import ctypes
import os
import sys

PREFIXES = ["", "scipy_"]
SUFFIXES = ["", "64_", "_64"]


def ask(lib, name):
    """The string a no-argument OpenBLAS function returns, or None."""
    for prefix in PREFIXES:
        for suffix in SUFFIXES:
            try:
                fn = getattr(lib, prefix + name + suffix)
            except AttributeError:
                continue
            fn.restype = ctypes.c_char_p
            return fn().decode(errors="replace").strip()
    return None


def describe(path):
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        return f"no BLAS ({e})"
    config = ask(lib, "openblas_get_config")
    if not config:
        return os.path.basename(path)
    words = config.split()
    version = words[1] if len(words) > 1 and words[0] == "OpenBLAS" else config
    core = ask(lib, "openblas_get_corename")
    name = "scipy-openblas" if "scipy" in os.path.basename(path) else "OpenBLAS"
    return f"{name} {version}" + (f" ({core})" if core else "")


def loaded_blas():
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "blas" in line.lower() and "/" in line}
    except OSError:
        return None
    # libblas.so.3 is an alternatives link to the real library beside it
    real = sorted(p for p in paths if "openblas" in os.path.basename(p).lower())
    return (real or sorted(paths) or [None])[0]


def main():
    if "--posenc" in sys.argv[1:]:
        # what core/gemm.c loads
        print(describe("libopenblas.so.0"))
        return
    import numpy as np
    a = np.ones((64, 64), dtype=np.float32)
    a @ a.T
    path = loaded_blas()
    print(f"NumPy {np.__version__}, " + (describe(path) if path else "BLAS unknown"))


if __name__ == "__main__":
    main()
