"""Who a paper's authors are with: affiliatedWith."""

from __future__ import annotations

import re

from ..people import opens_with_people
from ..rules import load_rules
from ..text import prefiltered
from .common import PAPER_ANAPHOR
from .reader import Reader, Sentence

__all__ = ["affiliated_with"]

_CUES = load_rules().cue_patterns["affiliations"]
_JOINT = prefiltered(re.compile(_CUES["joint"]))
_AUTHORS_LINE = re.compile(_CUES["authors_line"])
_FIELD_BREAK = re.compile(_CUES["field_break"])
_COLLEAGUES_FROM = re.compile(_CUES["colleagues_from"])
_LIST_LINK = re.compile(_CUES["list_link"])
_PEOPLE_LINE = re.compile(_CUES["people_line"])
_PEOPLE_SEP = re.compile(_CUES["people_sep"])


def _authors_span(text: str) -> tuple[int, int] | None:
    """Where a sentence that is an authors line holds its organizations (offsets in ``text``): after its label up to
    the next labelled line that labels no authors ("Affil.: A; B", "affil = {A; B},\n  abstract = ..."), or after the dash of a line of people
    ("<author> Ann Lee; Bo Chan — Org") up to the line's end. None if it is no such line."""
    label = _AUTHORS_LINE.match(text)
    if label:
        stop = _FIELD_BREAK.search(text, label.end())
        while stop and _AUTHORS_LINE.match(text, stop.start() + 1):  # "Authors: A (Org)\nAffiliations: B" goes on
            stop = _FIELD_BREAK.search(text, stop.end())
        return label.end(), stop.start() if stop else len(text)
    line = text.split("\n", 1)[0]
    lead = _PEOPLE_LINE.match(line).end()
    sep = _PEOPLE_SEP.search(line, lead)
    if sep and opens_with_people(line[lead:sep.start()]):
        return sep.end(), len(line)
    return None


def affiliated_with(rd: Reader, sn: Sentence) -> None:
    """Author lines, "X researchers", "colleagues from X" (and the rest of its list), "joint work with X"."""
    dtext, st, add = rd.dtext, rd.st, rd.add
    sent, ms, text, s0, pidx, orgs = sn.sent, sn.ms, sn.text, sn.s0, sn.pidx, sn.orgs
    aff_papers = [m for m in ms if m.label_ == "Paper"] or (
        [st.cur_paper] if st.cur_paper is not None and PAPER_ANAPHOR.search(text) else [])
    joint = _JOINT.search(text)
    authors_line = _authors_span(text)
    if authors_line and not aff_papers and st.cur_paper is not None and pidx - st.paper_para <= 1:
        aff_papers = [st.cur_paper]  # "1. Title\n   Authors: A (Org); B (Org)"
    for p in aff_papers:
        cued = None  # the organization before, if words before it (or before its list) said the people are with it
        for o in sorted(orgs, key=lambda o: o.start_char):
            if authors_line:
                if s0 + authors_line[0] <= o.start_char < s0 + authors_line[1]:
                    add(p, "affiliatedWith", o, sent, "affiliatedWith.authors_line", 0.8)
                continue
            before = dtext[max(s0, o.start_char - 40):o.start_char]
            listed = cued is not None and o.start_char - cued.end_char <= 80 \
                and _LIST_LINK.fullmatch(dtext, cued.end_char, o.start_char)
            cued = None
            if re.search(re.escape(dtext[o.start_char:o.end_char]) + _CUES["people_after_org"], text):
                add(p, "affiliatedWith", o, sent, "affiliatedWith.org_researchers", 0.7)
            elif _COLLEAGUES_FROM.search(before) or listed:
                add(p, "affiliatedWith", o, sent, "affiliatedWith.colleagues_from", 0.7)
                cued = o
            elif joint and o.start_char >= s0 + joint.end():
                add(p, "affiliatedWith", o, sent, "affiliatedWith.joint_work", 0.7)
