"""Kernel Ladder's grading toolkit: kernel specs, correctness and timing protocols, roofline.

Importing this package decides the execution mode once: with no CUDA GPU visible it switches to
CPU mode, where Triton kernels run in Triton's interpreter. The interpreter is chosen when a
kernel is decorated, so ``import grading`` must come before any module that defines a
``@triton.jit`` kernel (solutions/ and the chapters' exercises.py do this first thing).
"""
from grading.env import CPU_MODE, DEVICE, announce, device_summary

__all__ = ["CPU_MODE", "DEVICE", "announce", "device_summary"]
__version__ = "0.1.0"
