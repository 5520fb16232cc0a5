"""The pytest face of the grader: `pytest grading [--kernel K] [--rung R] [--solutions] [--seed N]`.

One test per (kernel, rung, case), and per (kernel, rung) a speed test on a GPU. Each
implementation still runs in its own worker process (once per session); the tests read its results.
"""
from __future__ import annotations

import random

import pytest

from grading import env
from grading.spec import RUNGS


def pytest_addoption(parser):
    g = parser.getgroup("kernel-ladder grading")
    g.addoption("--kernel", action="append", help="kernel(s) to grade (default: all)")
    g.addoption("--rung", action="append", choices=RUNGS, help="rung(s) to grade (default: all)")
    g.addoption("--solutions", action="store_true", help="grade the reference solutions, not exercises.py")
    g.addoption("--seed", type=int, default=None, help="seed for the random inputs")


def pytest_report_header(config):
    return [env.device_summary(), f"grading seed: {_seed(config)} (rerun with --seed)"]


def _seed(config) -> int:
    if getattr(config, "_kl_seed", None) is None:
        s = config.getoption("--seed")
        config._kl_seed = s if s is not None else random.randrange(2**31)
    return config._kl_seed


def pytest_generate_tests(metafunc):
    from grading.specs import SPECS, get_spec
    cfg = metafunc.config
    kernels = cfg.getoption("--kernel") or sorted(SPECS)
    rungs = cfg.getoption("--rung") or list(RUNGS)
    try:
        specs = [get_spec(k) for k in kernels]
    except KeyError as e:
        raise pytest.UsageError(e.args[0]) from None
    if "case_index" in metafunc.fixturenames:
        params = []
        for s in specs:
            for r in rungs:
                names = [c.describe() for c in s.cases(env.CPU_MODE)]
                if r in s.extra_checks:  # reported after the cases, as one more result
                    names.append(s.extra_checks[r].__name__.replace("_", " "))
                params += [pytest.param(s.name, r, i, id=f"{s.name}-{r}-{i}-{n.replace(' ', '')}")
                           for i, n in enumerate(names)]
        metafunc.parametrize("kernel,rung,case_index", params)
    elif "rung" in metafunc.fixturenames:
        metafunc.parametrize("kernel,rung", [pytest.param(s.name, r, id=f"{s.name}-{r}") for s in specs for r in rungs])


@pytest.fixture(scope="session")
def graded(request):
    """(kernel, rung, timed) -> ImplReport, each implementation graded once per session."""
    from grading import impls
    from grading.grade import current_roofs, grade_impl
    from grading.specs import get_spec
    cache = {}
    cfg = request.config

    def get(kernel: str, rung: str, timed: bool = False):
        key = (kernel, rung, timed)
        if key not in cache:
            spec = get_spec(kernel)
            ref = impls.rung_refs(spec, [rung], cfg.getoption("--solutions"))[0]
            cache[key] = grade_impl(spec, ref, seed=_seed(cfg), check_correctness=not timed,
                                    time="speed" if timed else None, roofs=current_roofs() if timed else None)
        return cache[key]
    return get
