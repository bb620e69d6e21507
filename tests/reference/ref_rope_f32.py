"""RoPE float32 tables, bit for bit: the rotary modules' float32 forward (cos,
sin) under one CPU dispatch of PyTorch against `posenc generate rope
--from-config ... --precision float32 --torch-cpu VARIANT`.

run.py starts this group twice: with ATEN_CPU_CAPABILITY=avx2 (variant
avx2) and with PyTorch's own choice (variant avx512; on a CPU without
AVX-512 every check of that run fails, naming what PyTorch picked).  The
default run also checks `--torch-cpu auto` (what posenc picks for this CPU)
against the same tables.  Rule: bit-identical, for every case of
rope_cases.py (the float32 inv_freq is ref_rope.py's).

Where PyTorch is built with MKL (pip's x86-64 wheels) its float32 cos and
sin are MKL's vmsCos/vmsSin, not SLEEF's, whatever the capability (measured:
the same bits under avx2, avx512 and default): posenc then runs with
--torch-vml mkl and loads the environment's libmkl_rt.so.2 (the mkl wheel
of requirements.txt; common.posenc puts its lib/ on posenc's library path).
run.py runs torch with one thread (OMP_NUM_THREADS=1), posenc's default
--torch-threads.
"""

import os

import common
from common import both, np32, same_bits
from rope_cases import library, posenc_args, run_cases


def run(g):
    import torch
    torch.set_grad_enabled(False)
    variant = os.environ.get("REF_TORCH_CPU", "avx512")
    got = torch.backends.cpu.get_cpu_capability()

    dispatch = (got == variant.upper(), "PyTorch %s runs its %s kernels" % (torch.__version__, got))
    # cos and sin: MKL's vmsCos/vmsSin where PyTorch is built with MKL (pip's
    # x86-64 wheels), else SLEEF's vector functions (ATen/cpu/vml.h)
    vml = "mkl" if torch.backends.mkl.is_available() else "sleef"
    variants = [variant] + (["auto"] if "ATEN_CPU_CAPABILITY" not in os.environ else [])

    def body(name, case, cfg, cj, offset, n):
        lib = {}
        for v in variants:
            def check(v=v):
                t, _ = g.tensors(*posenc_args(cj, offset, n), "--precision", "float32", "--torch-cpu", v,
                                 "--torch-vml", vml)
                if not lib:
                    lib.update(library(case, cfg, offset, n))
                return both(dispatch,
                            same_bits("cos", t.get("rope_cos"), np32(lib["cos"])),
                            same_bits("sin", t.get("rope_sin"), np32(lib["sin"])))
            g.check("%s --torch-cpu %s --torch-vml %s" % (name, v, vml), check)

    run_cases(g, body)


if __name__ == "__main__":
    common.main(run)
