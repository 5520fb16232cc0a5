"""grading.lessons: chapter 00's measured lessons. CPU mode: each function measures its CPU-side
counterpart or says in one line why there is none. GPU: each trap shows up in the numbers."""
import json
import time
from pathlib import Path

import pytest
import torch

from grading import env, hardware, lessons
from grading.roofline import intensity

cpu_only = pytest.mark.skipif(not env.CPU_MODE, reason="checks CPU-mode behaviour; this machine has a GPU")
gpu = pytest.mark.skipif(env.CPU_MODE, reason="needs a CUDA GPU (CPU mode)")


# --- CPU mode: skipped lessons say why in one line ---------------------------------------------------

@cpu_only
@pytest.mark.parametrize("lesson", [lessons.no_sync_trap, lessons.graph_vs_eager, lessons.run_bench])
def test_gpu_only_lessons_say_why_in_one_line(lesson, capsys):
    assert lesson() is None
    out = capsys.readouterr().out
    assert out.startswith("CPU mode: ") and out.count("\n") == 1


def test_measurement_reads_as_a_table():
    m = lessons.Measurement("title", {"slow": 2e-3, "fast": 5e-6}, note="a note")
    assert str(m).splitlines() == ["title", "  slow    2.00 ms", "  fast     5.0 µs", "  a note"]
    assert m.ratio("slow", "fast") == pytest.approx(400)


# --- lessons that measure in both modes ----------------------------------------------------------

def test_cold_vs_warm_sees_the_first_call():
    calls = []

    def fn():
        if not calls:
            time.sleep(0.05)  # what a first call's compilation looks like from outside
        calls.append(1)

    m = lessons.cold_vs_warm(fn, warm_reps=3)
    first, warm = m.times_s.values()
    assert len(calls) == 4
    assert first >= 0.05 > warm
    assert "first call" in str(m) and "warm calls" in m.note


@cpu_only
def test_launch_overhead_on_the_cpu_shows_a_fixed_cost_per_call():
    m = lessons.launch_overhead(calls=200)
    tiny, big = m.times_s.values()
    assert 0 < tiny < big
    assert big < 1000 * tiny  # 1000x the elements, far less than 1000x the time


@cpu_only
def test_launch_overhead_times_a_given_function():
    x = torch.randn(8)
    m = lessons.launch_overhead(lambda t: t + 1, (x,), calls=50)
    assert list(m.times_s) == ["Python loop, per call"] and m.times_s["Python loop, per call"] > 0


@cpu_only
def test_l2_lesson_on_the_cpu_caches_restores_the_thread_count():
    threads = torch.get_num_threads()
    m = lessons.l2_warm_vs_flushed(2e6)
    assert torch.get_num_threads() == threads
    warm, cold = m.times_s.values()
    assert warm > 0 and cold > 0
    assert any("DRAM" in k for k in m.times_s)


@cpu_only
def test_noise_reports_every_run_and_the_ratio():
    x = torch.randn(4096)
    n = lessons.noise({"add": lambda t: t + 1, "exp": lambda t: t.exp().sin()}, (x,), runs=3, reps=5)
    assert n.names == ["add", "exp"]
    assert all(len(v) == 3 for v in n.medians.values())
    assert all(lo <= m <= hi for lo, m, hi in zip(n.p20["add"], n.medians["add"], n.p80["add"]))
    assert len(n.ratios("add", "exp")) == 3
    text = str(n)
    assert "drift of the ratio add / exp" in text and text.count("\n") == 6


def test_noise_drift():
    assert lessons.Noise.drift([1.0, 1.1, 1.05]) == pytest.approx(0.1)


# --- the roofline helpers ----------------------------------------------------------------------

def test_linear_cost_llama_up_projection():
    # Llama-3 8B up projection, bf16: M=1 reads the whole 117 MB weight for 117 MFLOP.
    flops, nbytes = lessons.linear_cost(1, 4096, 14336)
    assert flops == 2 * 4096 * 14336
    assert nbytes == 2 * (4096 + 14336 * 4096 + 14336)
    flops, nbytes = lessons.linear_cost(4096, 4096, 14336)
    assert flops / nbytes == pytest.approx(1792, rel=1e-3)


@cpu_only
def test_roofline_examples_are_predictions_in_cpu_mode():
    points = lessons.roofline_examples()
    assert [p.time_s for p in points] == [None, None, None]
    scale, decode, prefill = (intensity(p.flops, p.bytes) for p in points)
    assert scale == pytest.approx(0.25)
    assert decode == pytest.approx(1.0, rel=1e-3)
    ridge = 989.5e12 / 3350e9  # H100 SXM bf16
    assert decode < ridge < prefill


# --- what the compiler and the profiler say -----------------------------------------------------------

@cpu_only
def test_launched_kernels_counts_eager_silu_mul_as_two_passes():
    g, u = torch.randn(4, 64), torch.randn(4, 64)
    assert lessons.launched_kernels(lambda g, u: torch.nn.functional.silu(g) * u, g, u) == ["aten::silu", "aten::mul"]


TRITON_MODULE = """
triton_poi_fused_mul_silu_0 = async_compile.triton('triton_poi_fused_mul_silu_0', '''
import triton
import triton.language as tl

@triton_heuristics.pointwise(
    size_hints={'x': 131072},
    triton_meta={'signature': {'in_ptr0': '*bf16', 'out_ptr0': '*bf16', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0), 'constants': {}, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]]}]},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_mul_silu_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:]
    tl.store(out_ptr0 + xindex, tl.load(in_ptr0 + xindex), xindex < xnumel)
''', device_str='cuda')
"""

CPP_MODULE = """
cpp_fused_mul_silu_0 = async_compile.cpp_pybinding(['const float*', 'float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const float* in_ptr0, float* out_ptr0)
{
    out_ptr0[0] = in_ptr0[0];
}
''')
"""


def test_kernel_source_extracts_a_triton_kernel_with_its_hints():
    (k,) = lessons.kernel_source("import torch\n" + TRITON_MODULE + "\ndef call(args): pass\n")
    lines = k.splitlines()
    assert lines[0] == "# signature: {'in_ptr0': '*bf16', 'out_ptr0': '*bf16', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}"
    assert lines[1] == "# configs: [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]]}]"
    assert lines[2] == "@triton.jit" and "tl.store" in lines[-1]


def test_kernel_source_extracts_a_cpp_kernel():
    (k,) = lessons.kernel_source(CPP_MODULE)
    assert k.startswith('extern "C"') and k.endswith("}")


def test_kernel_source_finds_every_kernel():
    assert len(lessons.kernel_source(TRITON_MODULE + CPP_MODULE)) == 2
    assert lessons.kernel_source("def call(args): pass") == []


def test_generated_kernels_picks_the_kernel_out_of_inductors_code():
    # A real compile (seconds): catches a change in the layout of Inductor's output code.
    def scale_add(x, y):
        return x * 2 + y

    x = torch.randn(64, 32, device=env.DEVICE)
    (k,) = lessons.generated_kernels(torch.compile(scale_add), x, x)
    assert k.startswith('extern "C"') if env.CPU_MODE else "@triton.jit" in k


def test_head_says_how_much_it_left_out():
    assert lessons.head("a\nb\nc", 2) == "a\nb\n... (1 more lines)"
    assert lessons.head("a\nb", 2) == "a\nb"


def test_excerpt_between_markers_and_fallback(tmp_path):
    f = tmp_path / "k.cu"
    f.write_text("a\nstart here\nmiddle\nend here\nafter\n")
    assert lessons.excerpt(f, "start", "end") == "   2  start here\n   3  middle\n   4  end here"
    assert lessons.excerpt(f, "missing", "end").splitlines()[0] == "   1  a"


def test_excerpt_of_the_reference_kernel_shows_its_vector_loads():
    text = lessons.excerpt(lessons.REPO / "csrc" / "silu_mul.cu", "Pack gv[kUnroll]", "store_stream(o + p, ov)")
    assert "Pack gv[kUnroll]" in text and "store_stream(o + p, ov)" in text


# --- the scoreboard ------------------------------------------------------------------------------

def bench_result(bandwidth_source="measured copy"):
    """A bench JSON as `python -m grading bench --json` writes it, two cases, two rungs."""
    def case(m):
        n = m * 14336
        return {"case": f"llama8b [shape=[{m}, 14336], bfloat16]", "params": {"shape": [m, 14336]},
                "dtype": "bfloat16", "flops": 5.0 * n, "bytes": 6.0 * n, "sol_us": 6.0 * n / 4.25e12 * 1e6,
                "impls": {"eager": {"status": "pass", "time_us": 2 * 6.0 * n / 4.25e12 * 1e6, "pct_sol": 50.0},
                          "cuda": {"status": "not implemented", "message": "stub"}}}
    return {"kernel": "silu_mul", "gpu": "NVIDIA H200 SXM 141GB", "device": "NVIDIA H200",
            "date": "2026-11-29T12:05:34+00:00",
            "versions": {"torch": "2.11.0+cu130", "triton": "3.6.0", "python": "3.12.3", "cuda": "13.0"},
            "roofs": {"bandwidth_gbps": 4250.0, "bandwidth_source": bandwidth_source},
            "cases": [case(1), case(8192)]}


def test_bench_markdown_rows_show_time_bandwidth_and_pct_sol():
    lines = lessons.bench_markdown(bench_result()).splitlines()
    assert lines[0] == "| case | SOL | eager | cuda |"
    assert lines[3].startswith("| 8192×14336 | 165.80 µs | 331.6 µs · 2.13 TB/s · 50% | not implemented |")
    assert "NVIDIA H200" in lines[-1] and "4.25 TB/s (measured copy)" in lines[-1]


def test_bench_points_one_per_timed_implementation_and_case():
    points = lessons.bench_points(bench_result())
    assert [(p.label, p.group) for p in points] == [("eager", "1×14336"), ("eager", "8192×14336")]
    assert points[1].time_s == pytest.approx(331.6e-6, rel=1e-3)
    assert [p.group for p in lessons.bench_points(bench_result(), rows=(8192,))] == ["8192×14336"]


@pytest.mark.parametrize("source, expected", [("measured copy", 4250.0), ("datasheet", None)])
def test_bench_roofs_use_the_bandwidth_the_result_was_scored_against(source, expected):
    gpu_spec, roofs = lessons.bench_roofs(bench_result(source))
    assert gpu_spec.key == "H200"
    if expected is None:  # datasheet: whatever measured ceilings exist, else the 4.8 TB/s sheet
        measured = hardware.ceilings_for(gpu_spec)
        assert roofs.bandwidth_gbps == (measured["copy_gbps"] if measured else 4800.0)
    else:
        assert roofs.bandwidth_gbps == expected


def test_load_json_missing_file_says_so(tmp_path, capsys):
    assert lessons.load_json(tmp_path / "nope.json") is None
    assert "not present" in capsys.readouterr().out
    (tmp_path / "r.json").write_text(json.dumps({"a": 1}))
    assert lessons.load_json(tmp_path / "r.json") == {"a": 1}


def test_variants_markdown_selects_rows_and_columns():
    data = {"device": "NVIDIA H200", "rows": [
        {"impl": "compile static", "shape": [8192, 14336], "layout": "contiguous", "us": 166.3, "gbps": 4237.0},
        {"impl": "compile dynamic=True", "shape": [8192, 14336], "layout": "contiguous", "us": 232.6, "gbps": 3030.0},
        {"impl": "compile dynamic=True", "shape": [8192, 14336], "layout": "chunked", "us": 351.6, "gbps": 2004.0},
        {"impl": "eager", "shape": [8192, 14336], "layout": "contiguous", "us": 285.3, "gbps": 2470.0}]}
    lines = lessons.variants_markdown(data, "compile", copy_gbps=4248.0).splitlines()
    assert lines[0] == "| variant | 8192×14336 contiguous | 8192×14336 chunked |"
    assert lines[2] == "| compile static | 166.3 µs · 4.24 TB/s · 100% | - |"
    assert lines[3] == "| compile dynamic=True | 232.6 µs · 3.03 TB/s · 71% | 351.6 µs · 2.00 TB/s · 47% |"
    assert len(lines) == 4


# --- GPU: each trap shows up in the numbers ------------------------------------------------------------

@gpu
def test_no_sync_measures_the_launch_not_the_matmul():
    m = lessons.no_sync_trap()
    no_sync, with_sync, events = m.times_s.values()
    assert no_sync < 0.2 * events  # the launch returns long before 1.1 TFLOP is done
    assert with_sync >= 0.9 * events


@gpu
def test_launch_overhead_on_the_gpu():
    m = lessons.launch_overhead(calls=300)
    loop, host, device = m.times_s.values()
    assert device < 20e-6 and loop > 0 and host > 0


@gpu
def test_l2_warm_is_faster_than_hbm():
    m = lessons.l2_warm_vs_flushed(16e6)
    times = list(m.times_s.values())
    assert len(times) == 3 and times[0] < times[1]


@gpu
def test_graph_replay_beats_eager_launches_of_a_chain():
    m = lessons.graph_vs_eager(n_kernels=20)
    assert m.times_s["CUDA graph replay"] < m.times_s["eager, Python loop (wall time)"]


@gpu
def test_noise_on_the_gpu():
    x = torch.randn(2**24, device="cuda")
    n = lessons.noise({"a": lambda t: t * 2, "b": lambda t: t.exp()}, (x,), runs=2)
    assert all(len(v) == 2 and min(v) > 0 for v in n.medians.values())


@gpu
def test_roofline_examples_are_measured_on_a_gpu():
    points = lessons.roofline_examples()
    assert all(p.time_s and p.time_s > 0 for p in points)


@gpu
def test_launched_kernels_counts_gpu_kernels():
    g, u = torch.randn(64, 1024, device="cuda"), torch.randn(64, 1024, device="cuda")
    assert len(lessons.launched_kernels(lambda g, u: torch.nn.functional.silu(g) * u, g, u)) == 2


# --- chapter 01: what eager ops move, how often torch.compile compiles ---------------------------

def test_op_traffic_counts_each_pass_of_eager_rmsnorm():
    from solutions.rmsnorm import rmsnorm_eager
    x = torch.randn(4, 256, dtype=torch.bfloat16, device=env.DEVICE)
    w = torch.randn(256, dtype=torch.bfloat16, device=env.DEVICE)
    ops = lessons.op_traffic(rmsnorm_eager, x, w)
    assert [o.op for o in ops] == ["aten._to_copy", "aten.pow", "aten.mean", "aten.add", "aten.rsqrt",
                                   "aten.mul", "aten._to_copy", "aten.mul"]
    n = x.numel()
    assert (ops[0].read_bytes, ops[0].write_bytes) == (2 * n, 4 * n)  # bf16 in, fp32 temporary out
    assert (ops[-1].read_bytes, ops[-1].write_bytes) == (2 * n + 2 * 256, 2 * n)  # x·rstd times weight
    table = lessons.traffic_table(ops, n, 4 * n)
    assert table.splitlines()[-2].startswith("8 ops:") and "at most" in table.splitlines()[-1]


def test_op_traffic_leaves_out_views():
    x = torch.randn(4, 8)
    assert [o.op for o in lessons.op_traffic(lambda t: t.view(-1).t().mul(2), x)] == ["aten.mul"]


def _norm(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


def test_compile_sweep_counts_graphs_and_says_why():
    def args(m):
        return torch.randn(m, 32, device=env.DEVICE), torch.randn(32, device=env.DEVICE)

    static = lessons.compile_sweep(torch.compile(_norm, dynamic=False), args, (3, 5, 3), "static")
    assert static.new_graphs == [1, 1, 0] and static.graphs == 2
    assert static.reasons[0] == "" and "size mismatch" in static.reasons[1] and static.reasons[2] == ""
    marked_fn = torch.compile(_norm)

    def marked(x, w):
        torch._dynamo.mark_dynamic(x, 0)
        return marked_fn(x, w)

    dynamic = lessons.compile_sweep(marked, args, (3, 5, 7), "marked")
    assert dynamic.new_graphs == [1, 0, 0]
    assert "reused a graph" in str(dynamic).splitlines()[2]
    table = lessons.sweep_table([static, lessons.CompileSweep("marked", [3, 5, 3], [1, 0, 0], [0.1] * 3, [""] * 3)])
    assert table.splitlines()[1].split() == ["static", "1", "1", ".", "2"]
    assert table.splitlines()[2].split() == ["marked", "1", ".", ".", "1"]


# --- chapter 01: Triton launch plans and generated code --------------------------------------------

def test_triton_launches_records_without_running_and_restores():
    import types

    class Kernel:
        def __getitem__(self, grid):
            raise AssertionError("the real kernel must not run")

    kernel = Kernel()
    mod = types.SimpleNamespace(kernel=kernel, sms=lambda: 1)

    def launcher(x):
        mod.kernel[(x.shape[0] // mod.sms(),)](x, BLOCK=16, num_warps=4)

    (launch,) = lessons.triton_launches(mod, "kernel", launcher, torch.empty(264, 8, device="meta"),
                                        patch={"sms": lambda: 132})
    assert launch.grid == (2,) and launch.kwargs == {"BLOCK": 16, "num_warps": 4}
    assert mod.kernel is kernel and mod.sms() == 1


def test_triton_launches_of_the_reference_rmsnorm_on_an_h200():
    from solutions import rmsnorm as sol

    def plan(m, n):
        x = torch.empty(m, n, dtype=torch.bfloat16, device="meta")
        w = torch.empty(n, dtype=torch.bfloat16, device="meta")
        (launch,) = lessons.triton_launches(sol, "_rmsnorm_kernel", sol.rmsnorm_triton, x, w,
                                            patch={"_num_sms": lambda index: 132})
        k = launch.kwargs
        return launch.grid, k["BLOCK_M"], k["num_warps"], k["ONE_PASS"], k["BLOCK_N"], k["ROW_EVICT"], k["FIRST_EVICT"]

    # many rows of 16 KB: two passes of two chunks, the first read evict-last
    assert plan(16384, 8192) == ((16384,), 1, 16, False, 4096, "", "evict_last")
    assert plan(16384, 128) == ((512,), 32, 8, True, 128, "", "")  # short rows: 32 per program
    assert plan(64, 128) == ((64,), 1, 1, True, 128, "evict_first", "")  # few rows: one each, over the SMs
    # many rows of 8 KB: one pass, a warp per KB of row, x read evict-last
    assert plan(4096, 4096) == ((4096,), 1, 8, True, 4096, "evict_last", "")
    # few rows: a warp per 512 B, shorter round trips, evict-first loads
    assert plan(256, 4096) == ((256,), 1, 16, True, 4096, "evict_first", "")


def test_ptx_global_accesses_by_width():
    ptx = """
    @%p1 ld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];
    ld.global.L1::evict_last.v4.b32 { %r5, %r6, %r7, %r8 }, [ %rd2 + 0 ];
    @%p2 st.global.v4.b32 [ %rd3 + 0 ], { %r9, %r10, %r11, %r12 };
    ld.global.b16 %rs1, [%rd4];
    ld.global.nc.f32 %f1, [%rd5];
    ld.shared.f32 %f2, [%r13];
    """
    assert lessons.ptx_global_accesses(ptx) == {"load 16 B": 2, "load 2 B": 1, "load 4 B": 1, "store 16 B": 1}


@cpu_only
def test_time_side_by_side_says_why_in_one_line(capsys):
    assert lessons.time_side_by_side({"a": torch.neg}, lambda s: (torch.randn(s),), [(4,)], lambda s: 8.0) is None
    out = capsys.readouterr().out
    assert out.startswith("CPU mode: ") and out.count("\n") == 1


def test_side_by_side_markdown():
    sbs = lessons.SideBySide("t", [(16, 8192), (4096, 8192)], ["a", "b"], {"a": [5e-6, 40e-6], "b": [4e-6, 80e-6]},
                             [524288.0, 134217728.0], 4250.0, "measured copy")
    lines = sbs.markdown().splitlines()
    assert lines[0] == "| shape | min. bytes | a | b |"
    assert lines[3] == "| 4096×8192 | 134.2 MB | 40.0 µs · 3.36 TB/s · 79% | 80.0 µs · 1.68 TB/s · 39% |"
    assert sbs.ratio("a", "b") == pytest.approx([1.25, 0.5])


@gpu
def test_time_side_by_side_on_the_gpu():
    sbs = lessons.time_side_by_side({"neg": torch.neg, "abs": torch.abs},
                                    lambda s: (torch.randn(*s, device="cuda"),), [(1024, 1024)], lambda s: 8.0 * 2**20)
    assert all(t[0] > 0 for t in sbs.times_s.values()) and sbs.bandwidth_gbps


# --- chapter 01, going further: RMSNorm fused with per-token FP8 quantization --------------------------

@pytest.mark.parametrize("shape, dtype, layout", [
    ((37, 1000), torch.float32, "contiguous"),
    ((5, 4096), torch.bfloat16, "contiguous"),
    ((2, 3, 96), torch.float16, "contiguous"),
    ((7, 130), torch.bfloat16, "strided"),
])
def test_rmsnorm_fp8_triton_against_float64(shape, dtype, layout):
    gen = torch.Generator().manual_seed(0)
    *lead, n = shape
    x = 3 * torch.randn(*lead, n + (8 if layout == "strided" else 0), generator=gen)
    x = x[..., :n].to(env.DEVICE, dtype)  # strided: row stride n + 8
    x.view(-1, n)[::3] = 0.0  # zero rows must come out as zeros, not NaN
    w = (1 + 0.25 * torch.randn(n, generator=gen)).to(env.DEVICE, dtype)
    q, scale = lessons.rmsnorm_fp8_triton(x, w)
    assert q.dtype == torch.float8_e4m3fn and q.shape == x.shape
    assert scale.dtype == torch.float32 and scale.shape == (*lead, 1)
    assert q.float().view(-1, n)[::3].abs().max() == 0
    check = lessons.fp8_check(q, scale, x, w)
    assert check.ok, str(check)
    # Every row uses the grid's full range: its largest |q| is 448.
    assert torch.all(q.float().abs().amax(-1).view(-1)[1::3] == lessons.E4M3_MAX)


def test_fp8_cast_probe_reports_disagreements_with_torch():
    for value, triton_q, torch_q in lessons.fp8_cast_mismatches():
        assert value in lessons.FP8_PROBE and triton_q != torch_q
        assert torch.tensor([value]).to(torch.float8_e4m3fn).float().item() == torch_q


def test_rmsnorm_fp8_triton_rejects_rows_past_registers():
    with pytest.raises(ValueError, match="registers"):
        lessons.rmsnorm_fp8_triton(torch.empty(1, 65536, dtype=torch.bfloat16, device="meta"),
                                   torch.empty(65536, dtype=torch.bfloat16, device="meta"))


def test_per_token_fp8_maps_each_row_max_to_448():
    y = torch.tensor([[1.0, -2.0, 0.5], [0.0, 0.0, 0.0]])
    q, scale = lessons.per_token_fp8(y)
    assert q.float()[0].tolist() == [224.0, -448.0, 112.0]
    assert q.float()[1].tolist() == [0.0, 0.0, 0.0]
    assert scale.view(-1).tolist() == pytest.approx([2.0 / 448, lessons.FP8_MIN_AMAX / 448])


def test_fp8_check_catches_a_wrong_scale_and_a_wrong_rounding():
    from solutions.rmsnorm import rmsnorm_eager
    x, w = torch.randn(8, 256), torch.ones(256)
    q, scale = lessons.per_token_fp8(rmsnorm_eager(x, w))
    assert lessons.fp8_check(q, scale, x, w).ok
    assert not lessons.fp8_check(q, 2 * scale, x, w).ok  # dequantizes to twice the value
    halved = (q.float() / 2).to(torch.float8_e4m3fn)     # amax mapped to 224: scale no longer amax/448
    assert not lessons.fp8_check(halved, 2 * scale, x, w).ok
    truncated = torch.where(q.float().abs() > 64, q.float() * 0.9, q.float()).to(torch.float8_e4m3fn)
    bad = lessons.fp8_check(truncated, scale, x, w)
    assert not bad.ok and bad.worst > 1 and str(bad).endswith("FAIL")


# --- the chapters' saved source excerpts ---------------------------------------------------------

def _excerpt_cells():
    import importlib.util
    spec = importlib.util.spec_from_file_location("refresh_bench_cells", lessons.REPO / "benchmarks" / "refresh_bench_cells.py")
    refresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(refresh)
    for path in sorted((lessons.REPO / "chapters").glob("*/*.ipynb")):
        nb = json.loads(path.read_text())
        for i, cell in enumerate(nb["cells"]):
            source = "".join(cell["source"])
            if (cell["cell_type"] == "code" and "lessons.excerpt" in source
                    and not any(s in source for s in refresh.SCOREBOARD) and refresh._re_renderable(source)):
                yield refresh, path, i, cell


class _MarkerCheckingLessons:
    """`lessons` for the excerpt cells, noting each excerpt whose markers are not both in its file:
    `lessons.excerpt` then shows the file's first lines instead, which no saved output reveals."""

    def __init__(self, where: str, missing: list[str]):
        self.where, self.missing = where, missing

    def __getattr__(self, name):
        return getattr(lessons, name)

    def excerpt(self, path, first, last):
        lines = Path(path).read_text().splitlines()
        start = next((i for i, line in enumerate(lines) if first in line), None)
        if start is None or not any(last in line for line in lines[start:]):
            self.missing.append(f"{self.where}: {Path(path).name} from {first!r} to {last!r}")
        return lessons.excerpt(path, first, last)


def test_saved_source_excerpts_match_the_files():
    # A chapter's excerpt cells print lines of repository files with their line numbers; the
    # notebook is committed with a GPU run's outputs, so an edit to an excerpted file leaves the
    # saved text stale until `benchmarks/refresh_bench_cells.py NOTEBOOK CELL` re-renders it, and
    # an edit that removes a marker makes the excerpt show the file's start instead.
    stale, missing, seen, namespaces = [], [], 0, {}
    for refresh, path, i, cell in _excerpt_cells():
        seen += 1
        where = f"{path.relative_to(lessons.REPO)} cell {i}"
        # One namespace a notebook, cells in order: a later cell may use a path an earlier one named.
        namespace = namespaces.setdefault(path, {"ROOT": lessons.REPO})
        namespace["lessons"] = _MarkerCheckingLessons(where, missing)
        now = refresh.run_cell("".join(cell["source"]), namespace)
        saved = [{"name": o.get("name"), "text": o.get("text")} for o in cell["outputs"]]
        if [{"name": o.get("name"), "text": o.get("text")} for o in now] != saved:
            stale.append(where)
    assert seen >= 10, f"found only {seen} excerpt cells: has the cell format changed?"
    assert not missing, "excerpt markers not found (the cell shows the file's start): " + "; ".join(missing)
    assert not stale, ("saved excerpts differ from the files: " + ", ".join(stale)
                       + " (re-render with benchmarks/refresh_bench_cells.py NOTEBOOK CELL)")
