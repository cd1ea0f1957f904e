"""Mentions that overlap: kept in rule-priority order, found by bisection over the spans already claimed."""

from __future__ import annotations

from bisect import bisect_left

from .rules import Found

__all__ = ["resolve_overlaps", "without_overlaps"]


class _Claimed:
    """Character spans that do not overlap, kept sorted: whether a new span overlaps one of them, by bisection."""

    __slots__ = ("starts", "ends")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlaps(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` overlaps a claimed span (``a < end and start < b``)."""
        k = bisect_left(self.starts, end) - 1  # the claimed span starting last before ``end`` ends last
        return k >= 0 and self.ends[k] > start

    def add(self, start: int, end: int) -> None:
        k = bisect_left(self.starts, start)
        self.starts.insert(k, start)
        self.ends.insert(k, end)


def resolve_overlaps(found: list[Found]) -> list[Found]:
    """Keep mentions in rule-priority order; a later mention overlapping a kept one is dropped."""
    kept: list[Found] = []
    claimed = _Claimed()
    empty: list[Found] = []  # kept spans of no length (the bisection assumes spans with one)
    for f in found:
        if f.end <= f.start:
            if any(k.start < f.end and f.start < k.end for k in kept):
                continue
            empty.append(f)
        elif claimed.overlaps(f.start, f.end) or any(k.start < f.end and f.start < k.end for k in empty):
            continue
        else:
            claimed.add(f.start, f.end)
        kept.append(f)
    return kept


def without_overlaps(found: list[Found], claimed: list[Found]) -> list[Found]:
    """The mentions of ``found`` overlapping none of ``claimed`` (which may overlap each other)."""
    if not claimed:
        return list(found)
    spans = sorted((c.start, c.end) for c in claimed)
    starts = [a for a, _ in spans]
    reach, best = [], -1  # the furthest end among the spans starting at or before each one
    for _, b in spans:
        best = max(best, b)
        reach.append(best)
    out = []
    for f in found:
        k = bisect_left(starts, f.end) - 1
        if k >= 0 and reach[k] > f.start and f.start < f.end:
            continue
        if f.start >= f.end and any(c.start < f.end and f.start < c.end for c in claimed):
            continue
        out.append(f)
    return out
