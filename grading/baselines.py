"""Helpers for the baselines `bench` times beside the rungs: what a user would pick instead."""
from __future__ import annotations

from typing import Callable

import torch


def compile_static(fn: Callable) -> Callable:
    """torch.compile with every shape static: the best kernel Inductor makes for each shape, at
    the price of a recompile per new token count (the rungs avoid that; this baseline shows what
    it costs them). The recompile limit is raised so a sweep of shapes never falls back to eager;
    baselines run in their own worker process, so the setting stays there."""
    cfg = torch._dynamo.config
    for name in ("recompile_limit", "cache_size_limit"):
        if hasattr(cfg, name):
            setattr(cfg, name, max(getattr(cfg, name), 64))
    return torch.compile(fn, dynamic=False)
