"""polymul from Python: products of NumPy arrays on the GPU if there is one,
else the CPU backend; RNS words; big integers modulo a 300-bit Q; CuPy
arrays without host copies where CuPy and a GPU are present.

    python3 crates/python/examples/polymul_demo.py
"""

import random

import numpy as np

import polymul

# The five lines of the README.
plan = polymul.NttPlan(1024, bits=62)  # GPU if present, else the CPU backend
a = np.random.randint(0, plan.q, (8, 1024), dtype=np.uint64)
b = np.random.randint(0, plan.q, (8, 1024), dtype=np.uint64)
c = plan.polymul(a, b)  # a·b mod (X^N + 1, q), row by row
print(f"{plan.backend}: {c.shape} products modulo q = {plan.q}")

# Checked against the pure-Python schoolbook product.
assert c[0].tolist() == polymul.negacyclic_reference(a[0].tolist(), b[0].tolist(), plan.q)
assert (plan.inverse(plan.forward(a)) == a).all()

# NTT-friendly primes and their roots.
for p in polymul.params(4096, 50, 2):
    print(f"q = {p['q']} ({p['bits']} bits), psi = {p['psi']}")

# RNS: five 62-bit towers, tower-major words, and big integers modulo Q.
rns = polymul.RnsPlan(256, bits=62, towers=5)
Q = rns.modulus
x = [random.randrange(Q) for _ in range(256)]
y = [random.randrange(Q) for _ in range(256)]
z = rns.polymul_big(x, y)  # object array of Python ints, modulo Q
assert z.tolist() == polymul.negacyclic_reference(x, y, Q)
print(f"RNS: {rns.towers} towers, Q has {Q.bit_length()} bits; big-integer product checked")

# The planner's choice for a batch, on 32-bit words, with the wisdom
# `polymul tune` left on this machine (if any: nothing read is not an error).
loaded = polymul.load_wisdom()
m = polymul.Multiplier(1 << 12, bits=30, dtype=np.uint32, batch=16)
why = "wisdom" if m.from_wisdom else "rule"
print(f"planner: {m.decision} ({why}; {loaded} wisdom entries loaded) on {m.backend}, device {m.device}")

# CUDA arrays in, CUDA arrays out (zero copies), where CuPy and a GPU are here.
try:
    import cupy
except ImportError:
    cupy = None
if cupy is not None and plan.on_gpu:
    da, db = cupy.asarray(a), cupy.asarray(b)
    dc = plan.polymul(da, db)  # a CuPy array on the same device
    assert (cupy.asnumpy(dc) == c).all()
    plan.forward(da, inplace=True)  # in place on the caller's stream
    print("CuPy: device product equals the host one")
print("polymul demo: ok")
