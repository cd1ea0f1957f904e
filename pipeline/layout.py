"""Node positions for graphs too large for the browser's physics: each connected component laid out on its own,
then the components packed around the largest.

vis-network's physics needs minutes to settle a few thousand nodes. Here a component's positions are a function
of that component alone (its nodes in a canonical order and its edges): igraph's Fruchterman-Reingold (C, a grid
for the repulsion above a thousand nodes) from seeded start positions, scaled so that neighbours are about
``spacing`` apart. The packing depends only on the components' sizes and extents: the largest at the centre,
the others on rings around it, largest first. The same graph gets the same positions, and a change in one
component moves no node of another except by the packing.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import numpy as np

__all__ = ["component_layout", "pack", "ITERATIONS", "GRID_ITERATIONS"]

ITERATIONS = 100
"""Fruchterman-Reingold steps per component."""
GRID_ABOVE = 1000
"""Components of more nodes than this (igraph's own threshold) reckon the repulsion on a grid: only between nodes
in neighbouring cells."""
GRID_ITERATIONS = 50
"""Fruchterman-Reingold steps per component laid out on the grid: half the time, and no worse a picture. On the
4,553-node component of 1,000 generated documents the mean edge length over the mean distance of two nodes
taken at random is 0.390 after 100 steps and 0.396 after 50 (0.404 after 30, which leaves a few nodes of one
or two links far out); the layout is recomputed whenever a patch changes that component, 0.063 s -> 0.031 s of
CPU time."""


def component_layout(n: int, edges: Sequence[tuple[int, int]], *, seed: int = 7, spacing: float = 100.0) -> np.ndarray:
    """Positions (an ``n`` x 2 array, centred on 0) of one connected component's nodes ``0 .. n-1``.

    Examples
    --------
    >>> pos = component_layout(4, [(0, 1), (1, 2), (2, 3)])
    >>> pos.shape, bool((pos == component_layout(4, [(0, 1), (1, 2), (2, 3)])).all())
    ((4, 2), True)
    >>> component_layout(1, []).tolist()
    [[0.0, 0.0]]
    """
    if n <= 2:
        return np.array([[0.0, 0.0]] if n == 1 else [[-spacing / 2, 0.0], [spacing / 2, 0.0]])
    import igraph as ig

    g = ig.Graph(n=n, edges=[(a, b) for a, b in edges if a != b])
    start = np.random.default_rng(seed).random((n, 2)) * math.sqrt(n)
    grid = n > GRID_ABOVE
    steps = GRID_ITERATIONS if grid else ITERATIONS
    if grid:  # igraph's grid is a square of side sqrt(n) centred on 0: nodes outside it crowd its border cells,
        start -= math.sqrt(n) / 2  # whose repulsion is reckoned pair by pair (5 times the time at 4,500 nodes)
    ig.set_random_number_generator(random.Random(seed))
    try:
        pos = np.array(g.layout_fruchterman_reingold(seed=start.tolist(), niter=steps, grid=grid).coords)
    finally:
        ig.set_random_number_generator(random)
    pos -= pos.mean(axis=0)
    # scaled to a disc of about one node per spacing² (the root mean square radius of a uniform disc of area
    # n·spacing²), so that the page's first view, zoomed to fit its hubs, has room between them
    rms = math.sqrt(float((pos ** 2).sum(axis=1).mean()))
    return pos * (spacing * math.sqrt(n / (2 * math.pi)) / max(rms, 1e-9))


def pack(parts: Sequence[np.ndarray], *, gap: float = 100.0) -> list[np.ndarray]:
    """``parts`` (each a component's positions centred on 0, largest first) moved to their places: the first
    at the centre, each next one on a ring around it, a new ring when one is full."""
    out = [parts[0]] if parts else []
    radius = lambda p: max(float(np.sqrt((p ** 2).sum(axis=1)).max()), gap / 2)  # noqa: E731
    ring = radius(parts[0]) + gap if parts else 0.0
    used, widest = 0.0, 0.0
    for p in parts[1:]:
        r = radius(p)
        if used + 2 * r > 2 * math.pi * (ring + r):  # this ring is full: the next one, outside the widest
            ring += widest + gap
            used, widest = 0.0, 0.0
        centre = ring + r
        angle = (used + r) / centre
        out.append(p + np.array([centre * math.cos(angle), centre * math.sin(angle)]))
        used += 2 * r + gap / 4
        widest = max(widest, 2 * r)
    return out
