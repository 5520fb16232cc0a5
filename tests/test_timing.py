"""The timing protocol's pieces that run without a GPU."""
import torch

from grading.timing import flush_l2


def test_l2_flush_reads_and_never_writes():
    # A flush that writes leaves dirty lines whose write-back the timed call pays for
    # (benchmarks/l2_flush_check.py): the protocol's flush must only read its buffer.
    buf = torch.arange(4096, dtype=torch.int32)
    before = buf.clone()
    flush_l2(buf)
    assert torch.equal(buf, before)
