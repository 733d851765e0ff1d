#!/usr/bin/env python3
"""Writes the checked-in seed inputs of the fuzz targets (fuzz/seeds/<target>/).

    python3 fuzz/seeds/make_seeds.py

npy_read: the small NumPy-written fixtures of crates/npy/tests/data/npy
(accepted and refused ones). wisdom_read: three wisdom files. params,
cpu_polymul and cli_limbs: hand-made structured inputs in the layouts
documented in fuzz/src/params.rs, fuzz/src/cpu_polymul.rs and
fuzz/src/cli_limbs.rs. Deterministic: rerunning
it rewrites the same bytes.
"""
import json
import pathlib
import random
import shutil
import struct

HERE = pathlib.Path(__file__).resolve().parent
NPY = HERE.parents[1] / "crates/npy/tests/data/npy"


def is_prime(n):
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def largest(bits, step, residue):
    c = (1 << bits) - 1
    c -= (c - residue) % step
    while not is_prime(c):
        c -= step
    return c


def write(target, name, data):
    d = HERE / target
    d.mkdir(exist_ok=True)
    (d / name).write_bytes(data)


def wisdom_seeds():
    def entry(log_n, winner, bucket=0, towers=1):
        key = {"device": "NVIDIA H100 80GB HBM3", "log_n": log_n, "word_bits": 64,
               "towers": towers, "batch_bucket": bucket}
        return {"key": key, "winner": winner, "us_per_poly": 1.5, "candidates": 3}
    ntt = {"transform": "ntt", "kernel": "2d", "radix": 8}
    auto = {"transform": "ntt", "kernel": "auto", "radix": None}
    dgt = {"transform": "dgt", "config": {"stages1": 6, "log_cluster1": 2, "log_cluster2": 1}}
    full = {"version": 1, "entries": [entry(10, ntt), entry(11, auto, 3), entry(12, dgt, 0, 2)]}
    write("wisdom_read", "three_entries.json", json.dumps(full, indent=2).encode())
    write("wisdom_read", "empty.json", b'{"version": 1, "entries": []}')
    write("wisdom_read", "old_version.json", json.dumps({**full, "version": 0}).encode())


def params_seed(flags, n_raw, q_raw, bits, count, cfg, log_m, batch, pick, towers):
    out = struct.pack("<BQQBB", flags, n_raw, q_raw, bits, count)
    out += struct.pack("<4I", *cfg, log_m) + struct.pack("<QB", batch, pick)
    for sel, raw in towers:
        out += struct.pack("<BQ", sel, raw)
    return out


def params_seeds():
    n = 1024
    q = largest(62, 2 * n, 1)
    # N = 2^10 (mode 2), an NTT prime, 62 bits, 3 primes, a small DGT config, 2 towers.
    write("params", "ntt_prime_n1024", params_seed(
        2 | 32, 10, q, 62, 3, (5, 2, 1), 9, 7, 0x20 | 1, [(0, 1), (1, 0)]))
    p = largest(30, 16, 15)
    # N = 2^4, a DGT prime, 30 bits.
    write("params", "dgt_prime_n16", params_seed(
        2 | 32, 4, p, 30, 2, (3, 0, 0), 3, 1, 0x10 | 5, [(2, p)]))
    # N = 2^17 (mode 0), 20 bits: a short prime search, asked for a huge count.
    write("params", "huge_count", params_seed(
        16, 17, 97, 20, 0, (0, 0, 0), 0, 1 << 40, 2, []))
    # Composite q, N = 3 (not a power of two), 30 bits.
    write("params", "bad_n_and_q", params_seed(
        1, 3, 1 << 40 | 1, 30, 1, (11, 7, 3), 15, 0, 0x40 | 3, [(3, 0), (3, 0)]))


def cpu_seeds():
    rng = random.Random(20261122)

    def seed(shape, width, choice, tile, threads, dgt, words):
        return bytes([shape, width, choice, tile, threads, dgt]) + b"".join(
            struct.pack("<Q", rng.getrandbits(64)) for _ in range(words))
    # u64, N = 64, batch 1, 62-bit prime, Barrett4, tile 2^4 radix 4, default DGT.
    write("cpu_polymul", "u64_n64", seed(1 | 5 << 1, 42, 0, 3 | 2 << 3, 31, 0, 2 * 64))
    # u32, N = 16, batch 3, 30-bit prime, 2D tiles, a two-kernel DGT configuration.
    write("cpu_polymul", "u32_n16_batch3", seed(0 | 3 << 1 | 2 << 4, 10, 1 | 2 << 2, 2 | 1 << 3 | 0x80, 3,
                                                1 | 1 << 3, 2 * 3 * 16))
    # u64, N = 2, the smallest.
    write("cpu_polymul", "u64_n2", seed(1, 0, 5 << 2, 0, 0, 0, 4))


def npy_u8(shape, words):
    """A .npy file (format 1.0, '<u8') of `shape` holding `words`."""
    header = "{'descr': '<u8', 'fortran_order': False, 'shape': (%s), }" % (
        "".join(f"{d}, " for d in shape) if len(shape) == 1 else ", ".join(map(str, shape)))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + b"".join(
        struct.pack("<Q", w) for w in words)


def cli_limbs_seeds():
    rng = random.Random(20261126)

    def words(count):
        # top bits 0xx: limbs reduced mod Q by the target
        return b"".join(struct.pack("<Q", rng.getrandbits(61)) for _ in range(count))
    # --modulus-bits 200 (four 62-bit primes, L = 4), N = 8, (N, L).
    write("cli_limbs", "modulus_bits_200_n8", bytes([0, 3]) + struct.pack("<HB", 200, 0) + bytes([0])
          + words(2 * 8 * 4))
    # --word 32 --modulus-bits 100 (four 30-bit primes, L = 2), N = 4, batch 2.
    write("cli_limbs", "word32_modulus_bits_100_batch2", bytes([2 | 2 << 6, 2]) + struct.pack("<HB", 100, 0)
          + bytes([0]) + words(2 * 2 * 4 * 2))
    # --q of the three largest 40-bit NTT primes for N = 16, batch 3, b = a.
    write("cli_limbs", "q_three_40_bit_primes_batch3_same", bytes([1 << 2 | 0x20 | 3 << 6, 4, 20, 3, 0, 1, 2, 0])
          + words(3 * 16 * 2))
    # --q one raw 50-bit NTT prime for N = 4; two .npy files of shape (4, 1).
    q = largest(50, 8, 1)
    fa = npy_u8([4, 1], [rng.randrange(q) for _ in range(4)])
    fb = npy_u8([4, 1], [rng.randrange(q) for _ in range(4)])
    write("cli_limbs", "raw_npy_q50_n4", bytes([2 << 2 | 0x10, 2, 1]) + struct.pack("<Q", q) + bytes([0])
          + struct.pack("<H", len(fa)) + fa + fb)
    # --modulus-bits 64 with 20-bit primes (L = 2), N = 2, a coefficient Q + 5 (tag 100): refused.
    write("cli_limbs", "unreduced_n2", bytes([0, 1]) + struct.pack("<HB", 64, 20) + bytes([0])
          + struct.pack("<Q", 0b100 << 61 | 5) + words(2 * 2 * 2 - 1))


if __name__ == "__main__":
    (HERE / "npy_read").mkdir(exist_ok=True)
    for f in sorted(NPY.glob("*.npy")):
        shutil.copy(f, HERE / "npy_read" / f.name)
    wisdom_seeds()
    params_seeds()
    cpu_seeds()
    cli_limbs_seeds()
