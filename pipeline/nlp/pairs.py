"""Pair candidates across sentences by nearness, and what a pair's features read of each end's place in the document.

A relation is often stated a sentence or a paragraph away from one of its names: "We present X. It is evaluated on A
and B.", a venue named in the paragraph under a paper's title, a device named in the sentence after the method it
runs. The layout generators of ``candidates.py`` (entries, headings, anaphors, tables, the document's topic) miss
many of them: on the readable sets, of the gold relations whose two names were both typed (by the gold, as in
training) about a fifth were never offered as a pair (1,882 of 10,343), and of those nearly all stood in different
sentences, two fifths in one paragraph up to five sentences apart and a quarter in the paragraph before.
``near_pairs`` offers each mention with the nearest mention of every class it may be related to that stands in one
of the few sentences before its own; the trained decision tells the true from the false by how far apart the two
stand, how many names of either class stand between them (``features._between_names``), whether the object's
sentence names another of the subject's class, and how many names of its class the document gives (``doc_roles``).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter

from .candidates import ALLOWED, Layout, Typed

__all__ = ["near_pairs", "lead_pairs", "doc_roles", "NEAR_SENTENCES", "NEAR_PARAGRAPHS", "LEAD_LINES", "LEAD_CLASSES"]

NEAR_SENTENCES = 5
"""How many sentences before a mention's own the nearest mention of another class is looked for. Two grouped folds
over the readable real-* sets / the selection sets, relation F1: without near pairs 0.5347 / 0.5970; 5 sentences and
1 paragraph break 0.5483 / 0.6066 (84.6k training pairs instead of 60.2k); 8 and 2 0.5483 / 0.6029 (92.9k)."""
NEAR_PARAGRAPHS = 1
"""How many paragraph breaks may stand between the two ("<Title> ... \\n\\n It was evaluated on A.")."""
_SAME_NAME_SKIPS = 3
"""How many earlier mentions of a mention's own name are stepped over to reach another name of its class."""


def _name(lay: Layout, m: Typed) -> str:
    return (m.cand.canonical or lay.text[m.cand.start_char:m.cand.end_char]).lower()


def near_pairs(lay: Layout, typed: list[Typed], found: dict) -> None:
    """Each mention and, for every class it may be paired with (either way round), the nearest mention of that
    class that starts before the mention's sentence, up to ``NEAR_SENTENCES`` sentences and ``NEAR_PARAGRAPHS``
    paragraph breaks before it (an earlier mention of its own name stepped over); only pairs of two names no other
    generator paired (their sentence together says more than two sentences apart, and a relation is kept by its
    names). One bisection per mention and class: a document of thousands of names is not quadratic."""
    by_cls: dict[str, list[int]] = {}
    for k in sorted(range(len(typed)), key=lambda k: (typed[k].cand.start, k)):
        by_cls.setdefault(typed[k].cls, []).append(k)
    starts = {c: [typed[k].cand.start for k in ks] for c, ks in by_cls.items()}
    partners = {c: [d for d in by_cls if (c, d) in ALLOWED or (d, c) in ALLOWED] for c in by_cls}
    para = [lay.para_of_line[lay.token_line[m.cand.start]] for m in typed]
    names = [_name(lay, m) for m in typed]
    paired = {(names[s], typed[s].cls, names[o], typed[o].cls) for s, o in found}
    for b, m in enumerate(typed):
        sb = lay.sent_of(m.cand.start)
        first = lay.sent_starts[sb]
        for cls in partners[m.cls]:
            j = bisect_left(starts[cls], first) - 1
            skips = 0
            while j >= 0 and skips < _SAME_NAME_SKIPS and cls == m.cls and names[by_cls[cls][j]] == names[b]:
                j, skips = j - 1, skips + 1
            if j < 0:
                continue
            a = by_cls[cls][j]
            if sb - lay.sent_of(typed[a].cand.start) > NEAR_SENTENCES or para[b] - para[a] > NEAR_PARAGRAPHS:
                continue
            for s, o in ((a, b), (b, a)):
                key = (names[s], typed[s].cls, names[o], typed[o].cls)
                if (typed[s].cls, typed[o].cls) in ALLOWED and key not in paired:
                    found[(s, o)] = {"near"}


LEAD_LINES = 2
"""How many lines above a paper's own line its entry's lead may take (an affiliation line, a heading)."""
LEAD_CLASSES = frozenset({"Organization", "Venue", "Method"})
"""The classes of name an entry's lead gives its paper: who wrote it, where it appeared and what it introduces (a
heading that names the method, "CoralSCOP (CVPR 2024)", over the sentence that names its paper). On the 25 sets of
``lead_pairs``, of the new pairs to a method the gold said 31 of 46 introduce it."""
_BOUNDS = frozenset({"heading", "item"})
"""The kinds of line that start an entry: the lines above one belong to another."""
_ENTRY_TAG = re.compile(r"[ \t]*\[[^\]\n]{1,40}\][ \t]")
"""A bracketed tag that opens a line opens an entry too ("[i6] Xin Yin [Zhejiang University]:", "[2025] Ni et al.",
"[Accepted to CVPR 2019] ...")."""


def lead_pairs(lay: Layout, typed: list[Typed], found: dict) -> None:
    """A paper and every organization, venue and method on the lines above its own that lead its entry: a heading or a
    byline, then an affiliation or venue line, then the sentence that names the paper ("[2025] Ni et al. — ZeroED" /
    "Parties: Zhejiang University; City University of Hong Kong." / "Held: <title> proposes ..."). The entry
    generator pairs a title with the lines under it, and ``near_pairs`` the nearest name of each class only, so such
    a lead went to the paper above or lost all its names but the last. Up to ``LEAD_LINES`` lines are read, and only
    when they reach the entry's start (the document's, a blank line or rule, a heading, a list item or a line that
    opens with a bracketed tag) with no other paper on the way: lines under another title may as well close its
    entry. On 25 trained sets, of the pairs no other generator gave, the gold related 43 of 53 such leads, and 16 of
    59 pairs to lines that stop at another title or at the reach (left out)."""
    by_line: dict[int, list[int]] = {}
    for k, m in enumerate(typed):
        by_line.setdefault(lay.token_line[m.cand.start], []).append(k)
    papers = {line for line, ks in by_line.items() if any(typed[k].cls == "Paper" for k in ks)}
    for j, m in enumerate(typed):
        if m.cls != "Paper" or m.cand.forced:
            continue
        for k in (k for line in _lead_lines(lay, lay.token_line[m.cand.start], papers) for k in by_line.get(line, ())):
            if typed[k].cls in LEAD_CLASSES:
                found.setdefault((j, k), set()).add("lead")


def _lead_lines(lay: Layout, line: int, papers: set[int]) -> list[int]:
    """The lines above ``line`` that lead its entry (see ``lead_pairs``); none if they do not reach its start."""
    lines: list[int] = []
    while lay.line_kind[line] not in _BOUNDS and not _ENTRY_TAG.match(lay.text, lay.line_starts[line]):
        up = lay.prev_line[line]
        if up < 0 or up != line - 1:  # the document's start, or a blank line or rule between
            return lines
        if up in papers or len(lines) == LEAD_LINES:
            return []
        lines.append(up)
        line = up
    return lines


def doc_roles(lay: Layout, typed: list[Typed]) -> list[tuple[str, ...]]:
    """For each mention, what its name is in the document: how many names of its class the document gives ("1",
    "2", "3+": the one venue of a conference's post, the one lab of a lab's page), whether it is the name of its
    class the document names most often (at least twice and more often than any other), and whether it stands on
    the document's first line or first heading (what the document is about)."""
    names: dict[str, Counter] = {}
    for m in typed:
        names.setdefault(m.cls, Counter())[_name(lay, m)] += 1
    top = {}
    for cls, c in names.items():
        best = c.most_common(2)
        if best[0][1] >= 2 and (len(best) == 1 or best[1][1] < best[0][1]):
            top[cls] = best[0][0]
    heading = next((k for k, kind in enumerate(lay.line_kind) if kind == "heading"), 0)
    title_lines = {0, heading, lay.next_line[0] if lay.line_kind[0] == "blank" and lay.next_line else 0}
    out = []
    for m in typed:
        n = len(names[m.cls])
        roles = ["names=" + ("1" if n == 1 else "2" if n == 2 else "3+")]
        if top.get(m.cls) == _name(lay, m):
            roles.append("top")
        if lay.token_line[m.cand.start] in title_lines:
            roles.append("title")
        out.append(tuple(roles))
    return out
