"""Where papers are presented and what workshops are part of: partOf and presentedAt."""

from __future__ import annotations

import re

from ..discourse import canon
from ..rules import load_rules, norm
from ..text import prefiltered
from .common import VENUE_PAPER, WILL_BE_PRESENTED, alone_in_paragraph
from .reader import Reader, Sentence

__all__ = ["part_of", "presented_in_sentence", "presented_in_focus", "venue_line", "method_for_paper"]

# the sentence patterns (cues.json), compiled once; those a sentence without their words cannot match are Prefiltered
_CUES = load_rules().cue_patterns["venue_relations"]
_PRESENT_CUE = prefiltered(re.compile(_CUES["present_cue"], re.I))
_WILL_PRESENT = prefiltered(re.compile(_CUES["will_present"]))
_OPEN_PAREN = re.compile(r"\s*\(")
_NOT_PUBLISHED = re.compile(_CUES["not_published"], re.I)
_DETERMINER_BEFORE = re.compile(_CUES["determiner_before"])
_VENUE_LINE = re.compile(_CUES["venue_line"])
_TRACK = re.compile(_CUES["track"])
_TRACK_CUE = prefiltered(re.compile(_CUES["track_cue"]))
_THIS_PAPER = re.compile(_CUES["this_paper"])
_TO_APPEAR = prefiltered(re.compile(_CUES["to_appear"]))



def part_of(rd: Reader, sn: Sentence) -> None:
    """A workshop is part of the conference before or after it, else of the document's event."""
    event_span, add = rd.event_span, rd.add
    sent, venues, confs = sn.sent, sn.venues, sn.confs
    shops = [v for v in venues if v not in confs]
    for w in shops:
        prefix = [c for c in confs if 0 <= w.start_char - c.end_char <= 2]
        after = [c for c in confs if c.start_char >= w.end_char]
        target = prefix[0] if prefix else (after[0] if after else None)
        if target is None and event_span is not None:
            target = event_span  # a workshop in a post about one conference is that conference's workshop
        if target is not None:
            add(w, "partOf", target, sent, "partOf.workshop_at_conference", 0.9)



def presented_in_sentence(rd: Reader, sn: Sentence) -> None:
    """A paper and a venue in a presentation sentence, or in parentheses after it; "our CoRL 2026 paper"."""
    dtext, para_of, event_span, st, add = rd.dtext, rd.para_of, rd.event_span, rd.st, rd.add
    sent, ms, text, s0, pidx, venues, prev_sent = sn.sent, sn.ms, sn.text, sn.s0, sn.pidx, sn.venues, sn.prev_sent
    # ---- presentedAt
    present_cue = _PRESENT_CUE.search(text)
    prev_cue = prev_sent is not None and para_of.get(prev_sent.start) == pidx and _WILL_PRESENT.search(
        dtext[prev_sent.start_char:prev_sent.end_char])
    for p in [m for m in ms if m.label_ == "Paper"]:
        paren = [v for v in venues if _OPEN_PAREN.fullmatch(dtext[p.end_char:v.start_char])
                 and not _NOT_PUBLISHED.search(dtext[v.end_char:v.end_char + 40].split(")")[0])]
        for v in paren:
            add(p, "presentedAt", v, sent, "presentedAt.parenthesised_venue", 0.8)
        if not (present_cue or prev_cue):
            continue
        if venues:
            for v in venues:
                add(p, "presentedAt", v, sent, "presentedAt.same_sentence", 0.9)
        elif event_span is not None:
            add(p, "presentedAt", event_span, sent, "presentedAt.document_event", 0.75)
    # "our CoRL 2026 paper", "This EMNLP 2026 paper tests ...": the venue of the paper in focus
    focus = [m for m in ms if m.label_ == "Paper"] or ([st.cur_paper] if st.cur_paper is not None else [])
    for v in venues:
        if focus and VENUE_PAPER.match(dtext[v.end_char:v.end_char + 12]) and _DETERMINER_BEFORE.search(
                dtext[max(s0, v.start_char - 6):v.start_char]):
            add(focus[-1], "presentedAt", v, sent, "presentedAt.venue_paper", 0.8)


def presented_in_focus(rd: Reader, sn: Sentence) -> None:
    """"The work will be presented at COLM 2026": the venue of the paper in focus."""
    st, add, negated = rd.st, rd.add, rd.negated
    sent, ms, text, s0, pidx, venues = sn.sent, sn.ms, sn.text, sn.s0, sn.pidx, sn.venues
    # "The kernel ... will be presented at MLSys 2026", "The work will be presented at COLM 2026": a sentence
    # naming no paper, in the paragraph of a paper's teaser or abstract, says where that paper is presented
    if venues and st.cur_paper is not None and pidx - st.paper_para <= 1 and not [m for m in ms if m.label_ == "Paper"] \
            and WILL_BE_PRESENTED.search(text) and not negated(sent, s0, venues[0].start_char):
        for v in venues:
            if v.start_char > s0 + WILL_BE_PRESENTED.search(text).start():
                add(st.cur_paper, "presentedAt", v, sent, "presentedAt.paper_in_focus", 0.75)


def venue_line(rd: Reader, sn: Sentence) -> None:
    """A venue line after a paper: ">> To appear at CoRL 2025", "Research Track, accepted as an oral."."""
    dtext, para_of, event_span, st, add = rd.dtext, rd.para_of, rd.event_span, rd.st, rd.add
    sent, ms, text, pidx, venues, prev_sent = sn.sent, sn.ms, sn.text, sn.pidx, sn.venues, sn.prev_sent
    # a venue line after a paper: ">> To appear at CoRL 2025", "Presented at the Workshop on ...",
    # "Research Track, accepted as an oral." (the document's event)
    venue_line = _VENUE_LINE.match(text)
    track_line = _TRACK.match(text) and _TRACK_CUE.search(text)
    line_venues = venues or ([event_span] if track_line and event_span is not None else [])
    if (venue_line or track_line) and line_venues and not [m for m in ms if m.label_ == "Paper"]:
        target = None
        if pidx in st.untitled:
            target = st.untitled[pidx]
        elif pidx - 1 in st.untitled and (prev_sent is None or para_of[prev_sent.start] != pidx) and (
                not _THIS_PAPER.match(text) or alone_in_paragraph(sent, dtext)):
            # a venue line of its own follows its abstract; "This paper was accepted at X." opening a paragraph
            # of more sentences is that paragraph's own abstract
            target = st.untitled[pidx - 1]
        elif st.last_titled is not None and pidx - st.last_titled_para <= 3:
            target = st.last_titled
        if target is not None:
            for v in line_venues:
                add(target, "presentedAt", v, sent, "presentedAt.venue_line", 0.85)


def method_for_paper(rd: Reader, sn: Sentence) -> None:
    """"Paperweight will be presented at X": a method stands for the paper that introduces it."""
    mentions, st, add = rd.mentions, rd.st, rd.add
    sent, ms, text, pidx, methods, venues = sn.sent, sn.ms, sn.text, sn.pidx, sn.methods, sn.venues
    # "Paperweight will be presented at SIGGRAPH Asia 2024": a method stands for the paper that introduces it
    if venues and not [m for m in ms if m.label_ == "Paper"] and methods and _TO_APPEAR.search(text):
        for p, intro in st.paper_methods.items():
            if any(norm(canon(m)) == norm(canon(methods[0])) for m in intro):
                paper = next((x for x in mentions if x.label_ == "Paper" and norm(canon(x)) == p), None) or \
                    next((x for x in st.untitled.values() if norm(canon(x)) == p), None)
                for v in venues:
                    add(paper, "presentedAt", v, sent, "presentedAt.method_for_paper", 0.75)
                break
    titled = [m for m in ms if m.label_ == "Paper"]
    if titled:
        st.last_titled, st.last_titled_para = titled[-1], pidx
