#!/usr/bin/env python3
"""Regenerates the .npy fixtures of crates/host/tests/npy.rs with NumPy.

    python3 make_fixtures.py        # writes the *.npy files beside this script

The committed files were written by NumPy 2.4.6; NumPy 1.26.4 writes the same
bytes for every one of them (checked when they were made).
"""
import os

import numpy as np
from numpy.lib import format as npf

here = os.path.dirname(os.path.abspath(__file__))


def save(name, arr, version=None):
    with open(os.path.join(here, name), "wb") as f:
        npf.write_array(f, arr, version=version, allow_pickle=False)


m = np.arange(12, dtype=np.uint64).reshape(3, 4) * np.uint64(0x0102030405060708)
# Readable as they are.
save("u64_3x4.npy", m)
save("u32_5.npy", np.array([0, 1, 2**31, 2**32 - 1, 7], dtype=np.uint32))
save("u64_be_2x3.npy", np.arange(6, dtype=">u8").reshape(2, 3) + np.uint64(2**63))
save("u32_be_4.npy", np.array([1, 2, 3, 2**32 - 2], dtype=">u4"))
save("i64_6.npy", np.array([0, 1, 2, 3, 2**62, 2**63 - 1], dtype=np.int64))
save("i32_2x2.npy", np.array([[0, 1], [2, 2**31 - 1]], dtype=np.int32))
save("u64_3x4_v2.npy", m, version=(2, 0))
save("u64_3x4_v3.npy", m, version=(3, 0))
save("u64_0.npy", np.zeros(0, dtype=np.uint64))
save("u64_0x4.npy", np.zeros((0, 4), dtype=np.uint64))
# Refused.
save("i64_negative.npy", np.array([5, -3, 7], dtype=np.int64))
save("f64_3.npy", np.array([1.0, 2.0, 3.0]))
save("u64_fortran_3x4.npy", np.asfortranarray(m))
save("u64_2x2x2.npy", np.arange(8, dtype=np.uint64).reshape(2, 2, 2))
save("u64_scalar.npy", np.array(5, dtype=np.uint64))
save("structured.npy", np.zeros(2, dtype=[("a", "<u8"), ("b", "<f4")]))
save("u16_3.npy", np.array([1, 2, 3], dtype=np.uint16))
