"""Reference implementations: one module per kernel, one function per rung (`<kernel>_<rung>`)."""
import grading  # noqa: F401  (first: picks Triton's interpreter in CPU mode before any @triton.jit)
