"""Who a paper's authors are with: affiliatedWith."""

from __future__ import annotations

import re

from ..text import prefiltered
from .common import PAPER_ANAPHOR
from .reader import Reader, Sentence

__all__ = ["affiliated_with"]

_JOINT = prefiltered(re.compile(
    r"\b(?:joint\s+(?:research|work|project)|(?:a\s+)?collaboration|partnership)\s+(?:between|with)\s+"))
_AUTHORS_LINE = re.compile(r"\s*(?:Authors?|Affiliations?)\s*:")
_COLLEAGUES_FROM = re.compile(r"\b(?:researchers|scientists|collaborators|colleagues|authors|co-authors|teams?|partners)\s+"
                              r"(?:\w+\s+)?(?:from|at|of)\s+(?:the\s+)?$")


def affiliated_with(rd: Reader, sn: Sentence) -> None:
    """Author lines, "X researchers", "colleagues from X", "joint work with X"."""
    dtext, st, add = rd.dtext, rd.st, rd.add
    sent, ms, text, s0, pidx, orgs = sn.sent, sn.ms, sn.text, sn.s0, sn.pidx, sn.orgs
    # ---- affiliatedWith
    aff_papers = [m for m in ms if m.label_ == "Paper"] or (
        [st.cur_paper] if st.cur_paper is not None and PAPER_ANAPHOR.search(text) else [])
    joint = _JOINT.search(text)
    authors_line = _AUTHORS_LINE.match(text)
    if authors_line and not aff_papers and st.cur_paper is not None and pidx - st.paper_para <= 1:
        aff_papers = [st.cur_paper]  # "1. Title\n   Authors: A (Org); B (Org)"
    for p in aff_papers:
        for o in orgs:
            if authors_line:
                add(p, "affiliatedWith", o, sent, "affiliatedWith.authors_line", 0.8)
                continue
            before = dtext[max(s0, o.start_char - 40):o.start_char]
            if re.search(re.escape(dtext[o.start_char:o.end_char]) + r"\s+(?:\w+\s+){0,2}(?:researchers|scientists|paper|authors)", text):
                add(p, "affiliatedWith", o, sent, "affiliatedWith.org_researchers", 0.7)
            elif _COLLEAGUES_FROM.search(before):
                add(p, "affiliatedWith", o, sent, "affiliatedWith.colleagues_from", 0.7)
            elif joint and o.start_char >= s0 + joint.end():
                add(p, "affiliatedWith", o, sent, "affiliatedWith.joint_work", 0.7)
