"""grading.hardware: the GPU table, device-name matching, ceilings storage and roof selection.
All of it runs without a GPU."""
import json

import pytest

from grading import env, hardware
from grading.hardware import GPUS, MATH_DTYPES, lookup, roofs


@pytest.mark.parametrize("device_name, key", [
    ("NVIDIA H100 80GB HBM3", "H100-SXM"),
    ("NVIDIA H100 PCIe", "H100-PCIe"),
    ("NVIDIA H100 NVL", "H100-NVL"),
    ("NVIDIA H200", "H200"),
    ("NVIDIA H200 NVL", "H200-NVL"),
    ("NVIDIA A100-SXM4-40GB", "A100-40GB"),
    ("NVIDIA A100-PCIE-40GB", "A100-40GB"),
    ("NVIDIA A100-SXM4-80GB", "A100-80GB"),
    ("NVIDIA A100 80GB PCIe", "A100-80GB-PCIe"),
    ("NVIDIA L4", "L4"),
    ("NVIDIA L40", "L40"),
    ("NVIDIA L40S", "L40S"),
    ("NVIDIA A10G", "A10G"),
    ("Tesla T4", "T4"),
    ("NVIDIA GeForce RTX 4090", "RTX-4090"),
    ("NVIDIA B200", "B200"),
])
def test_lookup_by_device_name(device_name, key):
    assert lookup(device_name).key == key, f"{device_name!r} matched {lookup(device_name).key}"


@pytest.mark.parametrize("key", list(GPUS))
def test_lookup_by_key_any_case(key):
    assert lookup(key) is GPUS[key]
    assert lookup(key.lower()) is GPUS[key]
    assert lookup(f"  {key.upper()} ") is GPUS[key]


@pytest.mark.parametrize("name", ["NVIDIA GB200", "NVIDIA A10", "NVIDIA GeForce RTX 3090", "H1000",
                                  "Tesla V100-SXM2-16GB", ""])
def test_unknown_gpu_error_lists_valid_keys(name):
    with pytest.raises(KeyError) as info:
        lookup(name)
    message = str(info.value)
    assert all(key in message for key in GPUS), message


@pytest.mark.parametrize("spec", list(GPUS.values()), ids=list(GPUS))
def test_every_entry_is_complete(spec):
    assert spec.source.strip(), f"{spec.key}: no source"
    assert spec.hbm_gbps and spec.hbm_gbps > 0, f"{spec.key}: bandwidth {spec.hbm_gbps}"
    assert set(spec.peak_tflops) == set(MATH_DTYPES), f"{spec.key}: keys {sorted(spec.peak_tflops)}"
    assert spec.peak_tflops["fp32"] and spec.peak_tflops["fp32"] > 0
    assert spec.match, f"{spec.key}: no device-name patterns"
    assert all(p == p.lower() for p in spec.match), f"{spec.key}: patterns must be lowercase"
    for dt, v in spec.peak_tflops.items():
        assert v is None or v > 0, f"{spec.key} {dt}: {v}"
    # Tensor cores run bf16/fp16 at least as fast as tf32, fp8 twice bf16 where both exist (2%:
    # the L40S datasheet itself prints 362.05 bf16 next to 733 fp8).
    p = spec.peak_tflops
    if p["bf16"] and p["tf32"]:
        assert p["bf16"] >= p["tf32"], f"{spec.key}: bf16 {p['bf16']} < tf32 {p['tf32']}"
    if p["fp8"] and p["bf16"]:
        assert p["fp8"] == pytest.approx(2 * p["bf16"], rel=0.02), f"{spec.key}: fp8 {p['fp8']}"


@pytest.mark.parametrize("spec", list(GPUS.values()), ids=list(GPUS))
def test_fp8_only_from_sm89(spec):
    has_fp8 = spec.peak_tflops["fp8"] is not None
    assert has_fp8 == (spec.capability >= (8, 9)), f"{spec.key} sm_{spec.capability}: fp8 {has_fp8}"


def test_table_figures_that_matter():
    assert GPUS["H100-SXM"].hbm_gbps == 3350 and GPUS["H100-SXM"].peak_tflops["bf16"] == 989.5
    assert GPUS["H200"].hbm_gbps == 4800
    assert GPUS["H200"].peak_tflops == GPUS["H100-SXM"].peak_tflops, "H200 has the H100 SXM's compute"
    assert GPUS["A100-80GB"].hbm_gbps == 2039 and GPUS["A100-80GB-PCIe"].hbm_gbps == 1935
    assert GPUS["T4"].peak_tflops["bf16"] is None and GPUS["T4"].peak_tflops["fp16"] == 65


def test_current_is_none_in_cpu_mode(monkeypatch):
    monkeypatch.setattr(env, "CPU_MODE", True)
    assert hardware.current() is None


def test_measure_ceilings_needs_a_gpu(monkeypatch):
    monkeypatch.setattr(env, "CPU_MODE", True)
    with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
        hardware.measure_ceilings()


MEASURED = {"gpu_name": "NVIDIA H200", "gpu_key": "H200", "capability": [9, 0],
            "date": "2026-11-29T10:00:00+00:00", "copy_gbps": 4270.0, "read_gbps": 4190.0,
            "bf16_tflops": 740.0, "fp8_tflops": 1261.0, "fp32_tflops": 51.0, "notes": {}}


def test_ceilings_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("KL_CACHE_DIR", str(tmp_path))
    assert hardware.load_ceilings("NVIDIA H200") is None
    path = hardware.save_ceilings(MEASURED)
    assert path == tmp_path / "ceilings.json"
    hardware.save_ceilings({**MEASURED, "gpu_name": "NVIDIA L4", "gpu_key": "L4", "copy_gbps": 250.0})
    loaded = hardware.load_ceilings("NVIDIA H200")
    assert {k: loaded[k] for k in MEASURED} == MEASURED
    assert "measured" in loaded["origin"]
    assert hardware.load_ceilings("NVIDIA L4")["copy_gbps"] == 250.0
    # By table key: any entry of that kind.
    assert hardware.load_ceilings("h200")["copy_gbps"] == 4270.0
    assert hardware.load_ceilings("H100-SXM") is None
    assert set(json.loads(path.read_text())) == {"NVIDIA H200", "NVIDIA L4"}


def test_load_ceilings_survives_a_corrupt_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KL_CACHE_DIR", str(tmp_path))
    (tmp_path / "ceilings.json").write_text("{not json")
    assert hardware.load_ceilings("NVIDIA H200") is None
    hardware.save_ceilings(MEASURED)
    assert hardware.load_ceilings("NVIDIA H200")["bf16_tflops"] == 740.0


def test_committed_ceilings_read_from_the_repo(tmp_path, monkeypatch):
    monkeypatch.setattr(hardware, "_repo_root", lambda: tmp_path)
    assert hardware.committed_ceilings("H200") is None
    (tmp_path / "benchmarks" / "ceilings").mkdir(parents=True)
    (tmp_path / "benchmarks" / "ceilings" / "H200.json").write_text(json.dumps(MEASURED))
    committed = hardware.committed_ceilings("H200")
    assert committed["copy_gbps"] == 4270.0 and "committed" in committed["origin"]


def test_ceilings_for_prefers_this_machine_over_committed(tmp_path, monkeypatch):
    monkeypatch.setenv("KL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(hardware, "_repo_root", lambda: tmp_path)
    (tmp_path / "benchmarks" / "ceilings").mkdir(parents=True)
    (tmp_path / "benchmarks" / "ceilings" / "H200.json").write_text(json.dumps(MEASURED))
    assert hardware.ceilings_for(GPUS["H200"])["origin"].startswith("committed")
    hardware.save_ceilings({**MEASURED, "copy_gbps": 4300.0})
    mine = hardware.ceilings_for(GPUS["H200"])
    assert mine["copy_gbps"] == 4300.0 and mine["origin"].startswith("measured")


def test_roofs_prefer_measured():
    r = roofs(GPUS["H200"], MEASURED)
    assert r.bandwidth_gbps == 4270.0 and r.bandwidth_source == "measured copy"
    assert r.datasheet_gbps == 4800.0 and r.measured_read_gbps == 4190.0
    assert r.peak_tflops("bf16") == 740.0 and r.peak_source("bf16") == "measured"
    assert r.peak_tflops("fp16") == 740.0, "fp16 falls back to the measured bf16 rate"
    assert r.peak_tflops("fp8") == 1261.0
    assert r.peak_tflops("fp32") == 51.0
    assert r.peak_tflops("tf32") == 494.5 and r.peak_source("tf32") == "datasheet"
    assert r.datasheet_tflops["bf16"] == 989.5


def test_roofs_without_measurements_use_the_datasheet():
    r = roofs(GPUS["A100-80GB"], None)
    assert r.bandwidth_gbps == 2039.0 and r.bandwidth_source == "datasheet"
    assert r.measured_copy_gbps is None
    assert r.peak_tflops("bf16") == 312.0 and r.peak_source("bf16") == "datasheet"
    assert r.peak_tflops("fp8") is None and r.peak_source("fp8") == "none"


def test_roofs_partial_measurement_mixes_sources():
    # fp8 could not be measured (notes says why): the datasheet figure stays the roof.
    r = roofs(GPUS["L4"], {"copy_gbps": 240.0, "bf16_tflops": 100.0, "fp8_tflops": None})
    assert r.bandwidth_gbps == 240.0
    assert r.peak_tflops("fp8") == 242.5 and r.peak_source("fp8") == "datasheet"


def test_roofs_reject_unknown_math_dtype():
    with pytest.raises(ValueError, match="fp32, tf32, bf16, fp16, fp8"):
        roofs(GPUS["H100-SXM"], None).peak_tflops("int8")


@pytest.mark.parametrize("device_name, key", [("NVIDIA H100 80GB HBM3", "H100-SXM"),
                                              ("NVIDIA RTX PRO 6000 Blackwell", "unknown")])
def test_current_on_a_gpu(monkeypatch, device_name, key):
    from types import SimpleNamespace

    props = SimpleNamespace(name=device_name, major=12, minor=0, L2_cache_size=128 * 2**20)
    monkeypatch.setattr(env, "CPU_MODE", False)
    monkeypatch.setattr(hardware.torch.cuda, "get_device_properties", lambda _i: props)
    spec = hardware.current()
    assert spec.key == key
    if key == "unknown":
        assert spec.name == device_name and spec.capability == (12, 0)
        assert spec.hbm_gbps is None and set(spec.peak_tflops.values()) == {None}
        # Measured ceilings still give roofs for a GPU the table does not know.
        r = roofs(spec, {"copy_gbps": 1500.0, "bf16_tflops": 400.0})
        assert r.bandwidth_gbps == 1500.0 and r.peak_tflops("bf16") == 400.0
        assert r.peak_tflops("fp8") is None
