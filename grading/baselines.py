"""Helpers for the baselines `bench` times beside the rungs: what a user would pick instead."""
from __future__ import annotations

import functools
from typing import Callable

import torch


def compile_static(fn: Callable) -> Callable:
    """torch.compile with every shape static: the best kernel Inductor makes for each shape, at
    the price of a recompile per new token count (the rungs avoid that; this baseline shows what
    it costs them). The recompile limit is raised so a sweep of shapes never falls back to eager;
    baselines run in their own worker process, so the setting stays there.

    Compiled at the first call, not here: the specs define these baselines at import, and
    torch.compile imports the compiler (seconds), which `check` and `info` rarely need."""
    compiled = None

    @functools.wraps(fn)
    def call(*args, **kwargs):
        nonlocal compiled
        if compiled is None:
            cfg = torch._dynamo.config
            for name in ("recompile_limit", "cache_size_limit"):
                if hasattr(cfg, name):
                    setattr(cfg, name, max(getattr(cfg, name), 64))
            compiled = torch.compile(fn, dynamic=False)
        return compiled(*args, **kwargs)

    return call
