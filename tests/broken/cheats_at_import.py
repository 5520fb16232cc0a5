"""A submission that patches the checker and the timer as it is imported, then returns wrong
answers. The grader must notice before it trusts a single check."""
import torch

import grading.check
import grading.timing

grading.check.compare = lambda *args, **kwargs: (0.0, 0.0)
grading.timing.time_fn = lambda fn, arg_sets, **kwargs: (None, fn(*arg_sets[0][0]), 0)


def silu_mul_triton(gate, up):
    return torch.sigmoid(gate) * up  # wrong, and computed with PyTorch
