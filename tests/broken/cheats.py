"""silu_mul implementations that try to fool the grader rather than compute the answer. Each
patch happens at call time (tests/broken/cheats_at_import.py patches at import), so one file can
hold them all: the grader imports it once per graded function, each in its own process.

The GPU-only cheats (a side stream, the host, a deferred result) are graded by
tests/test_gpu_integrity.py; the others by tests/test_cheats.py on any machine.
"""
import threading
import time

import torch
import torch.nn.functional as F

import grading.check
import grading.specs


def _wrong(gate, up):
    return torch.sigmoid(gate) * up  # the factor gate is missing: fails every case


# --- patching the checker ---------------------------------------------------------------------------

def patches_compare(gate, up):
    grading.check.compare = lambda *args, **kwargs: (0.0, 0.0)
    return _wrong(gate, up)


def patches_run_case(gate, up):
    def always_passes(fn, spec, case, seed, device, impl_path=None):
        return grading.check.CaseResult(case.describe(), grading.check.PASS, "rel L2 0", seed, 0.0, 0.0)
    grading.check.run_case = always_passes
    return _wrong(gate, up)


def relabels_failures(gate, up):
    grading.check.FAIL = grading.check.PASS  # every failed case would be reported as "pass"
    return _wrong(gate, up)


def swaps_mismatch(gate, up):
    # The checker raises Mismatch for a wrong answer; as a NotImplementedError the case would read
    # "not implemented" and the rest would never run.
    grading.check.Mismatch = type("Mismatch", (NotImplementedError,), {})
    return _wrong(gate, up)


def patches_reference(gate, up):
    grading.specs.get_spec("silu_mul").reference = lambda g, u: torch.sigmoid(g.double()) * u.double()
    return _wrong(gate, up)


def patches_timer(gate, up):
    torch.cuda.Event.elapsed_time = lambda self, end: 1e-6  # every kernel would take 1 ns
    return F.silu(gate) * up


def patches_torch_abs(gate, up):
    # Nothing of the grader's is touched: compare() measures |out - ref| with Tensor.abs, which now
    # says 0. Only a check outside this process sees through it.
    torch.Tensor.abs = lambda self: torch.zeros_like(self)
    return _wrong(gate, up)


# --- outputs that are not what they seem -------------------------------------------------------

class _Lazy(torch.Tensor):
    """A tensor subclass that could compute on first access (here it only pretends to)."""


def lazy_subclass(gate, up):
    return (F.silu(gate) * up).as_subclass(_Lazy)


def finishes_later(gate, up):
    # Returns at once; a thread writes the answer 0.2 s later, after the caller has read it.
    out = torch.empty_like(gate).fill_(float("nan"))

    def work():
        time.sleep(0.2)
        out.copy_(F.silu(gate) * up)
    threading.Thread(target=work, daemon=True).start()
    return out


_pending = []


def lazy_next_call(gate, up):
    # Each call finishes the previous call's output and returns an unwritten one: the work is
    # always one call late, which a timer that stops at return would never see.
    for out, g, u in _pending:
        out.copy_(F.silu(g) * u)
    _pending.clear()
    out = torch.empty_like(gate)
    _pending.append((out, gate, up))
    return out


# --- a Triton or CUDA rung that is PyTorch inside ---------------------------------------------------

def uses_torch(gate, up):
    return F.silu(gate) * up


@torch.compile
def _fused(gate, up):
    return F.silu(gate) * up


def uses_torch_compile(gate, up):
    return _fused(gate, up)  # Inductor's kernel, not the student's


@torch.library.custom_op("kl_cheats::silu_mul", mutates_args=())
def _silu_mul_op(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    return F.silu(gate) * up


@_silu_mul_op.register_fake
def _(gate, up):
    return torch.empty_like(gate)


def hides_torch_in_a_custom_op(gate, up):
    return _silu_mul_op(gate, up)


def allocates_and_copies(gate, up):
    # Allowed in a Triton rung (but wrong: it never computes anything): allocation, views, copies.
    out = torch.zeros(gate.shape, dtype=gate.dtype, device=gate.device)
    out.view(-1, gate.shape[-1]).copy_(gate.contiguous().view(-1, gate.shape[-1]))
    return out


# --- GPU only ---------------------------------------------------------------------------------------

_side = {}


def side_stream(gate, up):
    # Correct, but on a stream the caller's events do not see: the timer stops before the work does.
    if gate.device not in _side:
        _side[gate.device] = torch.cuda.Stream(gate.device)
    s = _side[gate.device]
    s.wait_stream(torch.cuda.current_stream(gate.device))
    with torch.cuda.stream(s):
        out = F.silu(gate) * up
    return out


def on_the_host(gate, up):
    # A "Triton" rung that does the math in numpy on the host.
    g, u = gate.float().cpu().numpy(), up.float().cpu().numpy()
    y = g / (1.0 + __import__("numpy").exp(-g)) * u
    return torch.from_numpy(y).to(device=gate.device, dtype=gate.dtype)
