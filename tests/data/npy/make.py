#!/usr/bin/env python3
"""Write the npy fixtures of tests/unit/test_readers.c with NumPy itself.

Run from anywhere:  /usr/bin/python3 tests/data/npy/make.py
Every float table is T = np.arange(12).reshape(3, 4) * 0.25 - 1, whose
values (-1, -0.75, ..., 1.75) are exact in float16, float32 and float64,
so the test knows them without reading any file.  See tests/data/README.md.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
T = np.arange(12).reshape(3, 4) * 0.25 - 1


def save(name, a, version=None, allow_pickle=False):
    with open(os.path.join(HERE, name), "wb") as f:
        np.lib.format.write_array(f, a, version=version, allow_pickle=allow_pickle)


for descr in ("<f4", ">f4", "<f8", ">f8", "<f2", ">f2"):
    order = "le" if descr[0] == "<" else "be"
    save("t_%s%s.npy" % (descr[1:], order), T.astype(descr))
save("t_fortran_f4le.npy", np.asfortranarray(T.astype("<f4")))
save("t_fortran_f8be.npy", np.asfortranarray(T.astype(">f8")))
save("t_v2.npy", T.astype("<f4"), version=(2, 0))
save("t_v3.npy", T.astype("<f4"), version=(3, 0))
save("t_1x3x4.npy", T.astype("<f4").reshape(1, 3, 4))
save("t_2x3x2.npy", T.astype("<f4").reshape(2, 3, 2))
save("vec5.npy", (np.arange(5) * 0.5).astype("<f4"))
save("scalar.npy", np.array(2.5, dtype="<f4"))
save("int32.npy", np.arange(12, dtype="<i4").reshape(3, 4))
save("object.npy", np.array([1, "a", None], dtype=object), allow_pickle=True)
save("structured.npy", np.zeros(3, dtype=[("x", "<f4"), ("y", "<i4")]))
