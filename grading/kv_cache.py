"""A small paged KV cache: the bookkeeping a serving engine does around `paged_decode`.

The cache is two tensors of fixed-size pages, k and v: [num_pages, page_size, Hkv, D]. A sequence
owns a list of pages (its block table row); token t of the sequence sits in page
pages[t // page_size] at slot t % page_size. Pages come from a free list when a sequence grows
past its last page and go back to it when the sequence finishes, so memory is reserved one page
at a time instead of for the longest possible sequence, and after a while a sequence's pages are
scattered over the pool in no particular order. That is the layout the kernels read:

    cache = PagedKVCache(num_pages=64, page_size=16, num_kv_heads=8, head_dim=128)
    a = cache.add_sequence()
    cache.append(a, k, v)                            # k, v: [T, Hkv, D], T new tokens
    block_table, seq_lens = cache.block_table([a])   # int32 [B, max_pages], int32 [B]
    out = paged_decode(q, cache.k, cache.v, block_table, seq_lens)
    cache.free_sequence(a)                           # its pages return to the pool
"""
from __future__ import annotations

import torch


class OutOfPages(RuntimeError):
    """The pool has fewer free pages than an append needs."""


class PagedKVCache:
    def __init__(self, num_pages: int, page_size: int, num_kv_heads: int, head_dim: int, *,
                 dtype: torch.dtype = torch.bfloat16, device: torch.device | str = "cpu",
                 generator: torch.Generator | None = None):
        """`generator`: hand out the initial free list in a random order (a pool that has been in
        use for a while); without one, pages go out in order 0, 1, 2, ..."""
        for name, v in (("num_pages", num_pages), ("page_size", page_size), ("num_kv_heads", num_kv_heads),
                        ("head_dim", head_dim)):
            if not isinstance(v, int) or v < 1:
                raise ValueError(f"{name}: expected a positive integer, got {v!r}")
        self.page_size = page_size
        shape = (num_pages, page_size, num_kv_heads, head_dim)  # [P, S, Hkv, D]
        self.k = torch.zeros(shape, dtype=dtype, device=device)
        self.v = torch.zeros(shape, dtype=dtype, device=device)
        order = (torch.randperm(num_pages, generator=generator).tolist() if generator is not None
                 else list(range(num_pages)))
        # A stack: the page freed last is reused first (it is the likeliest to be in cache).
        self._free: list[int] = order[::-1]
        self._pages: dict[int, list[int]] = {}
        self._lens: dict[int, int] = {}
        self._next_id = 0

    # --- the pool ------------------------------------------------------------------------------

    @property
    def num_pages(self) -> int:
        return self.k.shape[0]

    @property
    def num_free_pages(self) -> int:
        return len(self._free)

    def pages(self, seq: int) -> list[int]:
        """The pages of sequence `seq`, in token order (a copy)."""
        return list(self._pages[self._known(seq)])

    def seq_len(self, seq: int) -> int:
        return self._lens[self._known(seq)]

    @property
    def sequences(self) -> list[int]:
        return list(self._pages)

    def _known(self, seq: int) -> int:
        if seq not in self._pages:
            raise KeyError(f"no sequence {seq} in this cache (live sequences: {sorted(self._pages)})")
        return seq

    # --- sequences -----------------------------------------------------------------------------

    def add_sequence(self) -> int:
        """A new, empty sequence; returns its id. It owns no page until its first append."""
        seq = self._next_id
        self._next_id += 1
        self._pages[seq] = []
        self._lens[seq] = 0
        return seq

    def append(self, seq: int, k: torch.Tensor, v: torch.Tensor) -> None:
        """Append T tokens, k and v of shape [T, Hkv, D] (or [Hkv, D] for one token), taking new
        pages from the free list as the sequence crosses page boundaries."""
        self._known(seq)
        _, s, hkv, d = self.k.shape
        if k.dim() == 2:
            k, v = k[None], v[None]
        for name, t in (("k", k), ("v", v)):
            if not isinstance(t, torch.Tensor) or t.dim() != 3 or tuple(t.shape[1:]) != (hkv, d):
                got = tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__
                raise ValueError(f"{name}: expected shape [T, {hkv}, {d}] (tokens, kv heads, head dim), got {got}")
        if k.shape[0] != v.shape[0]:
            raise ValueError(f"v: expected {k.shape[0]} tokens (as many as k), got {v.shape[0]}")
        n_old, n_new = self._lens[seq], k.shape[0]
        pages = self._pages[seq]
        need = -(-(n_old + n_new) // s) - len(pages)
        if need > len(self._free):
            raise OutOfPages(f"sequence {seq} needs {need} more page(s) for {n_new} token(s), but only "
                             f"{len(self._free)} of {self.num_pages} are free; free a finished sequence "
                             f"or make the pool larger")
        pages.extend(self._free.pop() for _ in range(need))
        # Copy page by page: the first chunk fills the current last page, the rest start new ones.
        t = 0
        while t < n_new:
            pos = n_old + t
            page, slot = pages[pos // s], pos % s
            n = min(s - slot, n_new - t)
            self.k[page, slot:slot + n] = k[t:t + n].to(self.k.dtype)  # [n, Hkv, D]
            self.v[page, slot:slot + n] = v[t:t + n].to(self.v.dtype)
            t += n
        self._lens[seq] = n_old + n_new

    def free_sequence(self, seq: int) -> None:
        """Forget sequence `seq`; its pages return to the free list (their contents stay, garbage
        that the next owner overwrites)."""
        self._free.extend(reversed(self._pages.pop(self._known(seq))))
        del self._lens[seq]

    # --- what the kernel reads -----------------------------------------------------------------

    def block_table(self, seqs: list[int] | None = None, width: int | None = None,
                    pad: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
        """(block_table [B, width] int32, seq_lens [B] int32) for `seqs` (default: every live
        sequence, oldest first), on the cache's device. `width` defaults to the most pages any of
        them holds; columns past a sequence's pages hold `pad`, a page the kernel never reads."""
        seqs = self.sequences if seqs is None else [self._known(s) for s in seqs]
        most = max((len(self._pages[s]) for s in seqs), default=0)
        width = max(most, 1) if width is None else width
        if width < most:
            raise ValueError(f"width: {width} columns cannot hold a sequence of {most} pages")
        rows = [self._pages[s] + [pad] * (width - len(self._pages[s])) for s in seqs]
        device = self.k.device
        table = torch.tensor(rows, dtype=torch.int32).reshape(len(seqs), width).to(device)
        lens = torch.tensor([self._lens[s] for s in seqs], dtype=torch.int32).to(device)
        return table, lens

    def gather(self, seq: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Sequence `seq`'s keys and values as contiguous [T, Hkv, D] tensors (for checking)."""
        pages = torch.tensor(self.pages(seq), dtype=torch.long, device=self.k.device)
        n = self.seq_len(seq)
        _, s, hkv, d = self.k.shape
        return self.k[pages].reshape(-1, hkv, d)[:n], self.v[pages].reshape(-1, hkv, d)[:n]
