"""The cycle collector's pace while the rule components read a document.

The rules make and drop a great many small lists, tuples and dicts per document (candidates, feature rows, memos),
almost none of them in a cycle: refcounting frees them. At CPython's default pace (a young collection every 700
allocations net of frees, an older one every tenth) the collector walked the rows and memos still alive again and
again, some twelve young collections a document: about a ninth of the rules' CPU time on the bench sample
(350 documents). While a component runs, a young collection waits for :data:`RULES_GEN0` allocations instead;
the pace is restored when it returns, so what the document left is collected as before, once.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from collections.abc import Iterator

__all__ = ["fewer_collections", "RULES_GEN0"]

RULES_GEN0 = 20_000
"""The young generation's threshold while a rule component runs (CPython's default: 700)."""


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the body with the young generation's threshold at :data:`RULES_GEN0` (left as it is when the collector
    is off, threshold 0, or slower already), then restore the thresholds."""
    thresholds = gc.get_threshold()
    if not 0 < thresholds[0] < RULES_GEN0:
        yield
        return
    gc.set_threshold(RULES_GEN0, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
