"""Node positions for graphs too large for the browser's physics: a force layout in numpy.

vis-network's physics needs minutes to settle a few thousand nodes, and networkx's ``spring_layout`` needs
scipy above 500 nodes and then loops over the nodes in Python. This is Fruchterman-Reingold with the
repulsion of each node estimated from a fixed-size random sample of the others (scaled up to all of them),
exact attraction along edges, and a pull to the centre that keeps components together (balancing the
repulsion at a radius of about sqrt(n)): O(n·s + m) per
step instead of O(n²). Seeded, so the same graph gets the same positions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["force_layout"]


def force_layout(n: int, edges: Sequence[tuple[int, int]], *, iterations: int = 80, samples: int = 200,
                 seed: int = 7, spacing: float = 100.0) -> list[tuple[float, float]]:
    """Positions for nodes ``0 .. n-1`` joined by ``edges``, about ``spacing`` apart between neighbours.

    Examples
    --------
    >>> pos = force_layout(4, [(0, 1), (1, 2), (2, 3)])
    >>> len(pos), pos == force_layout(4, [(0, 1), (1, 2), (2, 3)])
    (4, True)
    >>> force_layout(0, [])
    []
    """
    if n == 0:
        return []
    rng = np.random.default_rng(seed)
    side = float(np.sqrt(n))
    pos = rng.random((n, 2)) * side
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    e = e[e[:, 0] != e[:, 1]]
    src, dst = e[:, 0], e[:, 1]
    s = min(samples, n)
    temp = side / 8
    cool = (0.01 / temp) ** (1 / max(1, iterations - 1)) if temp > 0.01 else 1.0
    for _ in range(iterations):
        idx = rng.choice(n, size=s, replace=False)
        delta = pos[:, None, :] - pos[None, idx, :]
        d2 = np.einsum("ijk,ijk->ij", delta, delta) + 1e-4
        disp = np.einsum("ijk,ij->ik", delta, 1.0 / d2) * (n / s)
        if len(e):
            dv = pos[src] - pos[dst]
            f = dv * np.sqrt(np.einsum("ij,ij->i", dv, dv))[:, None]
            np.subtract.at(disp, src, f)
            np.add.at(disp, dst, f)
        disp -= pos - pos.mean(axis=0)
        length = np.sqrt(np.einsum("ij,ij->i", disp, disp)) + 1e-9
        pos += disp * (np.minimum(length, temp) / length)[:, None]
        temp *= cool
    pos -= pos.mean(axis=0)
    # nodes without edges settle where the pull to the centre meets the repulsion of everything, far outside
    # the tight core the edges make: bring them onto a ring just outside it, keeping their directions and order
    if len(e):
        linked = np.zeros(n, dtype=bool)
        linked[src] = linked[dst] = True
        r = np.sqrt(np.einsum("ij,ij->i", pos, pos))
        core = float(np.quantile(r[linked], 0.95))
        far = r > core
        if far.any() and core > 0:
            r_new = core + (r[far] - core) * (0.3 * core / max(float(r[far].max()) - core, 1e-9))
            pos[far] *= (r_new / r[far])[:, None]
    pos *= spacing
    return [(round(float(x), 1), round(float(y), 1)) for x, y in pos]
