"""Wisdom (what `polymul tune` measured) from Python: load, merge, save and
load again with the same decisions; the errors of files that are not
wisdom; plans on a GPU that use it (gpu_check.sh runs those on the GPU
machine). The files are written here in the format `polymul tune` writes
(crates/host/src/planner/wisdom.rs)."""

import json

import numpy as np
import pytest
from conftest import HAS_GPU, rand_words, reference_rows

import polymul

FAKE = "Test GPU (not this machine's)"
DGT_1024 = {"stages1": 5, "log_cluster1": 2, "log_cluster2": 2}  # valid for N = 2^10 (M = 2^9)


def entry(device, log_n, word, towers, bucket, winner, us=1.25, candidates=9):
    key = {"device": device, "log_n": log_n, "word_bits": word, "towers": towers, "batch_bucket": bucket}
    return {"key": key, "winner": winner, "us_per_poly": us, "candidates": candidates}


def ntt(kernel, radix):
    return {"transform": "ntt", "kernel": kernel, "radix": radix}


def dgt(config):
    return {"transform": "dgt", "config": dict(config)}


def write(path, entries, version=1):
    path.write_text(json.dumps({"version": version, "entries": entries}, indent=2))
    return path


def sample(device=FAKE):
    return [
        entry(device, 10, 64, 1, 0, ntt("tiled", 8), us=2.5),
        entry(device, 10, 64, 1, 6, dgt(DGT_1024), us=0.5),
        entry(device, 12, 32, 4, 0, ntt("two-d", 16), us=3.0),
        entry(device, 14, 64, 2, 3, ntt("lazy", None), us=1.0),
    ]


@pytest.fixture(autouse=True)
def clean_wisdom(monkeypatch):
    """Each test starts and ends with no wisdom, and never reads or writes
    the user's own wisdom file."""
    monkeypatch.delenv("POLYMUL_WISDOM", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/nonexistent/polymul-test-cache")
    polymul.clear_wisdom()
    yield
    polymul.clear_wisdom()


# every (transform, n, word, towers, batch) the decisions are compared at
KEYS = [
    (t, n, w, k, b)
    for t in ("auto", "ntt", "dgt")
    for (n, w, k) in [(1024, 64, 1), (4096, 32, 4), (1 << 14, 64, 2), (2048, 64, 1)]
    for b in (1, 4, 64, 1000)
]


def decisions(device_name=FAKE):
    out = {}
    for t, n, w, k, b in KEYS:
        bits = 30 if w == 32 else 50
        out[(t, n, w, k, b)] = polymul.decide(
            n, bits=bits, towers=k, batch=b, word=w, transform=t, device_name=device_name
        )
    return out


def test_decisions_follow_the_loaded_wisdom(tmp_path):
    rule = decisions()
    assert all(not d["from_wisdom"] for d in rule.values())
    assert polymul.load_wisdom(write(tmp_path / "w.json", sample())) == 4
    d = decisions()
    # the exact key, and the nearest batch bucket of the same device/N/word/towers
    assert d[("auto", 1024, 64, 1, 1)] == {"decision": "NTT tiled radix 8", "from_wisdom": True, "measured_us": 2.5}
    assert d[("auto", 1024, 64, 1, 4)]["decision"] == "NTT tiled radix 8"  # bucket 2: nearer 0 than 6
    assert d[("auto", 1024, 64, 1, 64)] == {"decision": "DGT k1=5 λ1=4 λ2=4", "from_wisdom": True, "measured_us": 0.5}
    assert d[("auto", 1024, 64, 1, 1000)]["decision"] == "DGT k1=5 λ1=4 λ2=4"
    assert d[("auto", 4096, 32, 4, 1)]["decision"] == "NTT 2d radix 16"
    assert d[("auto", 1 << 14, 64, 2, 1)]["decision"] == "NTT lazy"
    # NttPlan keeps an NTT entry and gives way to its default for a DGT one;
    # DgtPlan the other way round
    assert d[("ntt", 1024, 64, 1, 1)]["decision"] == "NTT tiled radix 8"
    assert d[("ntt", 1024, 64, 1, 64)] == rule[("ntt", 1024, 64, 1, 64)] == {
        "decision": "NTT auto",
        "from_wisdom": False,
        "measured_us": None,
    }
    assert d[("dgt", 1024, 64, 1, 64)]["decision"] == "DGT k1=5 λ1=4 λ2=4"
    assert d[("dgt", 1024, 64, 1, 1)] == rule[("dgt", 1024, 64, 1, 1)]
    assert not d[("dgt", 1024, 64, 1, 1)]["from_wisdom"]
    # no entry for N = 2048: the rule
    for t in ("auto", "ntt", "dgt"):
        assert d[(t, 2048, 64, 1, 1)] == rule[(t, 2048, 64, 1, 1)]
    # another device's name: the rule everywhere
    assert decisions("Another GPU") == rule


def test_save_load_round_trip(tmp_path):
    polymul.load_wisdom(write(tmp_path / "a.json", sample()))
    entries = polymul.wisdom_entries()
    before = decisions()
    saved = tmp_path / "sub" / "dir" / "saved.json"  # folders are made
    polymul.save_wisdom(saved)
    polymul.clear_wisdom()
    assert polymul.wisdom_entries() == []
    assert decisions() != before
    assert polymul.load_wisdom(str(saved)) == 4
    assert polymul.wisdom_entries() == entries
    assert decisions() == before
    # the file is the format polymul tune writes: the same entries as the source
    data = json.loads(saved.read_text())
    assert data["version"] == 1
    assert sorted(json.dumps(e, sort_keys=True) for e in data["entries"]) == sorted(json.dumps(e, sort_keys=True) for e in sample())
    # and a second round trip changes nothing
    polymul.save_wisdom(tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text()) == data


def test_loads_merge_by_key(tmp_path):
    polymul.load_wisdom(write(tmp_path / "a.json", sample()[:2]))
    replaced = entry(FAKE, 10, 64, 1, 0, ntt("two-d", 4), us=9.0)
    added = entry(FAKE, 11, 64, 1, 0, ntt("tiled", 16))
    assert polymul.load_wisdom(write(tmp_path / "b.json", [replaced, added])) == 2
    keys = {json.dumps(e["key"], sort_keys=True): e for e in polymul.wisdom_entries()}
    assert len(keys) == 3
    assert keys[json.dumps(replaced["key"], sort_keys=True)]["winner"] == ntt("two-d", 4)
    assert polymul.decide(1024, bits=50, device_name=FAKE)["decision"] == "NTT 2d radix 4"
    assert polymul.decide(2048, bits=50, device_name=FAKE)["decision"] == "NTT tiled radix 16"


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("{ not json", "w.json"),
        ("", "w.json"),
        ('{"version": 1}', "entries"),
        ('{"version": 0, "entries": []}', "version"),
        ('{"version": 2, "entries": []}', "version"),
        ('[1, 2, 3]', "w.json"),
        ('{"version": 1, "entries": [{"key": {"device": "x"}}]}', "w.json"),
        (json.dumps({"version": 1, "entries": [entry(FAKE, 10, 64, 1, 0, {"transform": "fft"})]}), "w.json"),
        (json.dumps({"version": 1, "entries": [entry(FAKE, 10, 64, 1, 0, ntt("warp-speed", 8))]}), "w.json"),
    ],
)
def test_bad_files_are_value_errors_and_load_nothing(tmp_path, text, fragment):
    polymul.load_wisdom(write(tmp_path / "good.json", sample()[:1]))
    before = polymul.wisdom_entries()
    bad = tmp_path / "w.json"
    bad.write_text(text)
    with pytest.raises(ValueError) as e:
        polymul.load_wisdom(bad)
    assert fragment in str(e.value), str(e.value)
    assert polymul.wisdom_entries() == before


def test_missing_and_default_files(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="polymul tune"):
        polymul.load_wisdom(tmp_path / "absent.json")
    # the default path (where polymul tune writes): absent is not an error
    monkeypatch.setenv("POLYMUL_WISDOM", str(tmp_path / "default.json"))
    assert polymul.wisdom_path() == str(tmp_path / "default.json")
    assert polymul.load_wisdom() == 0
    write(tmp_path / "default.json", sample())
    assert polymul.load_wisdom() == 4
    assert len(polymul.wisdom_entries()) == 4
    monkeypatch.delenv("POLYMUL_WISDOM")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert polymul.wisdom_path() == str(tmp_path / "cache" / "polymul" / "wisdom.json")
    # a directory is not a wisdom file
    with pytest.raises(ValueError):
        polymul.load_wisdom(tmp_path)


def test_save_errors(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError):
        polymul.save_wisdom(blocker / "w.json")  # a folder that is a file
    for bad in (None, 3, ["w.json"]):
        with pytest.raises(ValueError, match="path"):
            polymul.save_wisdom(bad)
    with pytest.raises(ValueError, match="path"):
        polymul.load_wisdom(3)


def test_decide_arguments():
    with pytest.raises(ValueError, match="transform"):
        polymul.decide(1024, transform="fft")
    with pytest.raises(ValueError, match="device_name"):
        polymul.decide(1024, device_name=3)
    with pytest.raises(ValueError, match="power of two"):
        polymul.decide(1000, device_name=FAKE)
    with pytest.raises(ValueError):
        polymul.decide(1024, towers=0, device_name=FAKE)
    # primes only the DGT takes: the planner's DGT, with or without a device
    p = polymul.params(1024, 40, dgt=True)[0]["q"]
    assert polymul.decide(1024, q=p, device="cpu")["decision"].startswith("DGT")
    assert polymul.decide(1024, q=p, device_name=FAKE)["decision"].startswith("DGT")


def test_cpu_plans_never_use_wisdom(tmp_path, rng):
    """The CPU backend has no wisdom key: loaded wisdom changes nothing
    there, and the products stay exact."""
    polymul.load_wisdom(write(tmp_path / "w.json", sample()))
    n = 1024
    m = polymul.Multiplier(n, bits=50, batch=64, device="cpu")
    assert m.decision == "NTT auto" and not m.from_wisdom
    assert polymul.decide(n, bits=50, batch=64, device="cpu") == {
        "decision": "NTT auto",
        "from_wisdom": False,
        "measured_us": None,
    }
    a = rand_words(rng, (2, n), m.primes, np.uint64)
    np.testing.assert_array_equal(m.polymul(a, a), reference_rows(a, a, m.primes))


# --- on a GPU: plans use the entries of this GPU's name ---------------------


def _gpu_name():
    return polymul.backend()[len("GPU ") :]


@pytest.mark.skipif(not HAS_GPU, reason="no GPU")
@pytest.mark.parametrize("dev", ["cuda:0", 0])
def test_gpu_plans_use_wisdom(tmp_path, rng, dev):
    name = _gpu_name()
    n = 1024
    write(
        tmp_path / "w.json",
        [
            entry(name, 10, 64, 1, 0, ntt("tiled", 4)),
            entry(name, 10, 64, 1, 6, dgt(DGT_1024)),
            entry(name, 10, 32, 3, 0, ntt("two-d", 8)),
        ],
    )
    polymul.load_wisdom(tmp_path / "w.json")
    cases = [
        (polymul.Multiplier(n, bits=62, batch=1, device=dev), "NTT tiled radix 4", True),
        (polymul.NttPlan(n, bits=62, device=dev), "NTT tiled radix 4", True),
        (polymul.Multiplier(n, bits=62, batch=64, device=dev), "DGT k1=5 λ1=4 λ2=4", True),
        (polymul.DgtPlan(n, bits=62, device=dev), "DGT k1=5 λ1=4 λ2=4", False),  # bucket 0: the NTT entry
        (polymul.RnsPlan(n, bits=30, towers=3, dtype=np.uint32, device=dev), "NTT 2d radix 8", True),
        (polymul.NttPlan(n, bits=30, dtype=np.uint32, device=dev), "NTT auto", False),  # no u32 entry
    ]
    for plan, want, from_wisdom in cases:
        assert plan.on_gpu and plan.device == "cuda:0"
        if from_wisdom:
            assert plan.decision == want and plan.from_wisdom, (plan, plan.decision)
        else:
            assert not plan.from_wisdom, (plan, plan.decision)
        k = plan.towers
        a = rand_words(rng, (k, 3, n), plan.primes, plan.dtype)
        b = rand_words(rng, (k, 3, n), plan.primes, plan.dtype)
        np.testing.assert_array_equal(plan.polymul(a, b), reference_rows(a, b, plan.primes))
    # decide() on the device agrees with the plans
    assert polymul.decide(n, bits=62, batch=64, device=dev)["decision"] == "DGT k1=5 λ1=4 λ2=4"
    polymul.clear_wisdom()
    assert not polymul.Multiplier(n, bits=62, device=dev).from_wisdom


@pytest.mark.skipif(not HAS_GPU, reason="no GPU")
def test_gpu_unusable_wisdom_entry_says_so(tmp_path):
    bad = {"stages1": 20, "log_cluster1": 0, "log_cluster2": 0}  # more stages than N = 2^10 has
    polymul.load_wisdom(write(tmp_path / "w.json", [entry(_gpu_name(), 10, 64, 1, 0, dgt(bad))]))
    with pytest.raises(ValueError, match="wisdom"):
        polymul.Multiplier(1024, bits=62, device="cuda:0")
