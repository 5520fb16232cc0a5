"""grading.roofline: SOL arithmetic, the one-line description and the plot, on a named GPU
without one (and with made-up measurements standing in for a real run)."""
import pytest

from grading.hardware import GPUS, roofs
from grading.roofline import (Point, achieved, describe, intensity, pct_of_sol, plot_roofline,
                              ridge_point, sol_time_s)

H100 = roofs(GPUS["H100-SXM"], None)
H200_MEASURED = roofs(GPUS["H200"], {"copy_gbps": 4270.0, "read_gbps": 4190.0,
                                     "bf16_tflops": 740.0, "fp8_tflops": 1261.0})


def rmsnorm_point(m, n, time_s, label="triton"):
    # bf16 in and out plus the weight; ~4 FLOPs per element.
    return Point(label, flops=4.0 * m * n, bytes=2.0 * (2 * m * n + n), time_s=time_s,
                 math_dtype="fp32", group=f"{m}x{n}")


def gemm_point(m, n, k, time_s, label="torch._scaled_mm"):
    # fp8 a and b read once, bf16 out written once.
    return Point(label, flops=2.0 * m * n * k, bytes=float(m * k + n * k + 2 * m * n),
                 time_s=time_s, math_dtype="fp8", group=f"{m}x{n}x{k}")


def test_sol_time_takes_the_memory_term_when_memory_bound():
    # 1 GB at 3.35 TB/s = 298.5 µs; 1 GFLOP at 989.5 TFLOP/s = 1 µs.
    assert sol_time_s(1e9, 1e9, H100, "bf16") == pytest.approx(1e9 / 3350e9)


def test_sol_time_takes_the_compute_term_when_compute_bound():
    # 8192^3 bf16 GEMM: 1.1 TFLOP at 989.5 TFLOP/s = 1.11 ms; 384 MiB at 3.35 TB/s = 0.12 ms.
    flops, bytes_ = 2.0 * 8192**3, 3 * 2.0 * 8192**2
    assert sol_time_s(flops, bytes_, H100, "bf16") == pytest.approx(flops / 989.5e12)


def test_sol_time_ignores_a_missing_compute_roof():
    a100 = roofs(GPUS["A100-80GB"], None)
    assert sol_time_s(1e15, 1e6, a100, "fp8") == pytest.approx(1e6 / 2039e9)


def test_sol_time_uses_measured_roofs():
    assert sol_time_s(0.0, 4.27e9, H200_MEASURED, "bf16") == pytest.approx(1e-3)
    assert sol_time_s(1.261e15, 1.0, H200_MEASURED, "fp8") == pytest.approx(1.0)


@pytest.mark.parametrize("time_s, sol_s, pct", [(2e-6, 1e-6, 50.0), (1e-6, 1e-6, 100.0),
                                                (1e-6, 1.04e-6, 104.0)])
def test_pct_of_sol(time_s, sol_s, pct):
    assert pct_of_sol(time_s, sol_s) == pytest.approx(pct)


def test_pct_of_sol_rejects_zero_time():
    with pytest.raises(ValueError):
        pct_of_sol(0.0, 1e-6)


def test_achieved_and_intensity():
    tflops, gbps = achieved(2e12, 4e9, 1e-3)
    assert tflops == pytest.approx(2000.0) and gbps == pytest.approx(4000.0)
    assert intensity(2e12, 4e9) == pytest.approx(500.0)
    with pytest.raises(ValueError):
        intensity(1.0, 0.0)


@pytest.mark.parametrize("key, dtype, ridge", [
    ("H100-SXM", "bf16", 989.5 / 3.35),   # 295 FLOP/B
    ("H200", "bf16", 989.5 / 4.8),        # 206: same compute, more bandwidth
    ("H100-SXM", "fp8", 1979 / 3.35),     # 591
    ("A100-80GB", "bf16", 312 / 2.039),   # 153
])
def test_ridge_point(key, dtype, ridge):
    assert ridge_point(roofs(GPUS[key], None), dtype) == pytest.approx(ridge, rel=1e-9)


def test_ridge_points_of_the_hopper_parts():
    assert ridge_point(H100, "bf16") == pytest.approx(295, abs=1)
    assert ridge_point(roofs(GPUS["H200"], None), "bf16") == pytest.approx(206, abs=1)
    assert ridge_point(roofs(GPUS["A100-40GB"], None), "fp8") is None


def test_describe_memory_bound():
    # 4096x4096 RMSNorm at 74% of the H200's measured copy roof (ANCHORS-style numbers).
    p = rmsnorm_point(4096, 4096, time_s=None)
    p.time_s = p.bytes / (0.74 * 4270e9)
    text = describe(p, H200_MEASURED)
    assert "74% of the measured copy roof" in text and text.endswith("memory-bound"), text
    assert "TB/s" in text and "µs" in text, text


def test_describe_compute_bound_and_predicted():
    p = gemm_point(8192, 8192, 8192, time_s=2.0 * 8192**3 / 1257e12)
    text = describe(p, H200_MEASURED)
    assert "1257.0 TFLOP/s (100% of the measured fp8 roof)" in text, text
    assert text.endswith("compute-bound"), text
    predicted = describe(gemm_point(8192, 8192, 8192, time_s=None), H100)
    assert predicted.startswith("predicted") and "compute-bound" in predicted, predicted


def test_unknown_gpu_without_bandwidth_says_what_to_do():
    from grading.hardware import MATH_DTYPES, GPUSpec
    spec = GPUSpec("unknown", "Some GPU", (), (9, 0), None, {k: None for k in MATH_DTYPES}, None,
                   "device properties only")
    with pytest.raises(ValueError, match="grading ceilings"):
        sol_time_s(1.0, 1.0, roofs(spec, None), "bf16")


def _points(measured: bool):
    """Points at plausible fractions of the H200's measured SOL (or predictions, time None)."""
    pts = [rmsnorm_point(m, 4096, None, label) for m in (1, 64, 4096) for label in ("eager", "triton")]
    pts += [gemm_point(m, 8192, 8192, None) for m in (16, 4096)]
    if measured:
        for p, fraction in zip(pts, (0.01, 0.05, 0.02, 0.1, 0.06, 0.74, 0.2, 0.95)):
            p.time_s = sol_time_s(p.flops, p.bytes, H200_MEASURED, p.math_dtype) / fraction
    return pts


@pytest.mark.parametrize("measured", [True, False], ids=["measured", "predicted"])
def test_plot_roofline_writes_a_png(tmp_path, measured):
    path = tmp_path / "roofline.png"
    r = H200_MEASURED if measured else roofs(GPUS["H200"], None)
    fig = plot_roofline(_points(measured), GPUS["H200"], r, path=path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    # Roofs: a dashed datasheet memory line always; solid measured ones only with measurements.
    styles = {line.get_linestyle() for line in ax.get_lines() if len(line.get_xdata()) == 2}
    assert "--" in styles and (("-" in styles) == measured), styles


def test_plot_roofline_on_a_given_axes_without_saving():
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.add_subplot()
    out = plot_roofline([], GPUS["L4"], roofs(GPUS["L4"], None), ax=ax, title="empty")
    assert out is fig and ax.get_title() == "empty"


def test_plot_roofline_keeps_a_long_sweep_out_of_the_legend():
    # 40 cases: one marker for all and one legend line for them, not a legend taller than the plot.
    pts = [gemm_point(m, n, 4096, None) for m in (1, 16, 64, 128, 512, 1024, 2048, 4096)
           for n in (1024, 2048, 4096, 8192, 14336)]
    for p in pts:
        p.time_s = sol_time_s(p.flops, p.bytes, H200_MEASURED, p.math_dtype) / 0.8
    fig = plot_roofline(pts, GPUS["H200"], H200_MEASURED)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "one point per case (40 cases)" in labels and len(labels) < 10, labels
    few = plot_roofline(pts[:3], GPUS["H200"], H200_MEASURED)  # few cases: each has its marker
    labels = [t.get_text() for t in few.axes[0].get_legend().get_texts()]
    assert {"1x1024x4096", "1x2048x4096", "1x4096x4096"} <= set(labels), labels
