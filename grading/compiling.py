"""torch.compile, deferred to the first call.

Calling `torch.compile(fn)` imports the compiler (torch._dynamo and Inductor: about 5 s of CPU).
A module that defines its compiled rung with `@torch.compile` pays that at import, in every
process that imports it, also in those that only run its other rungs: each graded rung runs in a
worker process of its own. `compile_on_first_call(fn, **options)` returns a function that calls
`torch.compile(fn, **options)` the first time it is called and from then on is that compiled
function: the same graphs, guards and recompilations, the import paid only where it is used.
"""
from __future__ import annotations

import functools
import threading
from typing import Callable

import torch


def compile_on_first_call(fn: Callable | None = None, **options) -> Callable:
    """`torch.compile(fn, **options)`, made at the first call. Also a decorator, bare or with
    options: ``@compile_on_first_call`` or ``@compile_on_first_call(dynamic=False)``."""
    if fn is None:
        return functools.partial(compile_on_first_call, **options)
    compiled = None
    lock = threading.Lock()

    @functools.wraps(fn)
    def call(*args, **kwargs):
        nonlocal compiled
        if compiled is None:
            with lock:
                if compiled is None:
                    compiled = torch.compile(fn, **options)
        return compiled(*args, **kwargs)

    return call
