"""Demos: demoedAt and demoedOn, in demo sentences and demo lists."""

from __future__ import annotations

import re

from ..discourse import canon
from ..rules import load_rules, norm
from .common import LIST_HEAD
from .reader import Reader, Sentence

__all__ = ["demos"]

_CUES = load_rules().cue_patterns["demos"]
_NEXT_DEMO = re.compile(_CUES["next_demo"])
"""A sentence that goes on through a paragraph's demos: "The second shows X on Y", "Visitors can try ..."."""
_SERVES_BEFORE = re.compile(_CUES["serves_before"])
"""What a demoed method serves or runs is no demo of its own: "Kiln, which will serve Mixtral 8x22B"."""
_THIS_WORK = re.compile(_CUES["this_work"])
_BUILT_FOR_BEFORE = re.compile(_CUES["built_for_before"])
_TRAINED_OR_RUN_BEFORE = re.compile(_CUES["trained_or_run_before"])
_DEMO_RUNS_BEFORE = re.compile(_CUES["demo_runs_before"], re.I)
_LIST_OPENER_END = re.compile(_CUES["list_opener_end"])
_DEMO_WORD = re.compile(_CUES["demo_word"], re.I)
_SHOWS_WORD = re.compile(_CUES["shows_word"])
_RECORDED = re.compile(_CUES["recorded"], re.I)
"""A demo that is a recording or a sample, not a showing at the document's event: "the project page links a demo video"."""
_NO_DEMO = re.compile(_CUES["no_demo"], re.I)
"""A demo said not to have happened: "there is no booth demo", "describe no live demo"."""


def _demo_venue(sn: Sentence, demo: object, event_span, carried):
    """Where a demo sentence's demo was: the venue it names nearest its demo cue (a conference's name before other
    venues), else the document's event, else the venue the paragraph's demos named (``carried``); a recording's
    demo ("a demo video") is at a venue only when the sentence names one."""
    at = sn.s0 + demo.start() if isinstance(demo, re.Match) else sn.s0
    named = [v for v in sn.venues if "Workshop" not in v.text]
    if named:
        return min(named, key=lambda v: (v not in sn.confs, abs(v.start_char - at)))
    if isinstance(demo, re.Match) and _RECORDED.search(sn.text):
        return None
    return event_span or carried


def demos(rd: Reader, sn: Sentence) -> object:
    """The demos of a sentence or of the demo list being read; returns the sentence's demo cue."""
    doc, dtext, para_of, event_span, cues, st, add, negated = rd.doc, rd.dtext, rd.para_of, rd.event_span, rd.cues, rd.st, rd.add, rd.negated
    sent, ms, text, s0, pidx, methods, hardware, anaphor_method, prev_sent = sn.sent, sn.ms, sn.text, sn.s0, sn.pidx, sn.methods, sn.hardware, sn.anaphor_method, sn.prev_sent
    # ---- demos
    # (the cue words are rule data; "demonstrations" alone are also what a robot learns from: "learns 12 tasks
    # from 20 demonstrations")
    demo = cues["demo"].search(text)
    if not demo and st.demo_para == pidx and (methods or hardware) and _NEXT_DEMO.match(text):
        demo = True  # "... two live demos at the booth. The first shows X running on a Pixel 10 Pro."
    if demo:
        venue = _demo_venue(sn, demo, event_span, st.demo_venue if st.demo_para == pidx else None)
        st.demo_para, st.demo_venue = pidx, venue  # the demos that follow in this paragraph are at this venue
        # what a demoed method serves or runs is no demo of its own: "Kiln, which will serve Mixtral 8x22B"
        subjects = [m for m in methods if not _SERVES_BEFORE.search(dtext[max(s0, m.start_char - 25):m.start_char])] or list(methods)
        for p in [m for m in ms if m.label_ == "Paper"]:
            subjects += st.paper_methods.get(norm(canon(p)), [])[:1]
        if not subjects and _THIS_WORK.search(text):
            if anaphor_method is not None:
                subjects = [anaphor_method]
        if not subjects and st.demo_method is not None:
            subjects = [st.demo_method]
        # "We plan to bring the demo to ...": no demo yet; "there is no booth demo"
        hedged = negated(sent, s0, sent.end_char) or _NO_DEMO.search(text) is not None
        for s in subjects:
            if venue is not None and not hedged:
                add(s, "demoedAt", venue, sent, "demoedAt.demo_sentence", 0.8)
            for h in hardware if not hedged else []:
                # with several demoed methods, a device belongs to the one named last before it, else the nearest
                before = [x for x in subjects if x.doc is doc and x.end_char <= h.start_char]
                nearest = max(before, key=lambda x: x.start_char) if before else \
                    min(subjects, key=lambda x: abs(x.start_char - h.start_char) if x.doc is doc else 10**9)
                if len(subjects) > 1 and nearest is not s:
                    continue
                if _BUILT_FOR_BEFORE.search(dtext[max(s0, h.start_char - 30):h.start_char]):
                    add(s, "runsOn", h, sent, "runsOn.built_for", 0.8)
                elif _TRAINED_OR_RUN_BEFORE.search(dtext[max(s0, h.start_char - 60):h.start_char]) \
                        and not _DEMO_RUNS_BEFORE.search(dtext[max(s0, h.start_char - 60):h.start_char]):
                    # "The model is trained on eight A100 GPUs and runs at 24 fps on a Jetson, and attendees can
                    # try it live": what it was trained or measured on, not the demo's device ("The demo runs on X" is)
                    add(s, "runsOn", h, sent, "runsOn.on_hardware", 0.7)
                else:
                    add(s, "demoedOn", h, sent, "demoedOn.demo_sentence", 0.75)
        if subjects:
            st.demo_method = subjects[0]
        if _LIST_OPENER_END.search(text):
            st.demo_list = True
    elif st.demo_list and prev_sent is not None and para_of[prev_sent.start] != pidx and not LIST_HEAD.match(text):
        st.demo_list, st.demo_method = False, None
    elif st.demo_list:
        head = LIST_HEAD.match(text)
        if head and pidx != para_of.get(prev_sent.start if prev_sent is not None else -1, -2) or head:
            hs = [m for m in methods if m.start_char < s0 + head.end(1) + 1] if head else []
            for p in [m for m in ms if m.label_ == "Paper" and m.start_char < s0 + (head.end(1) if head else 0)]:
                hs += st.paper_methods.get(norm(canon(p)), [])[:1]
            list_venue = event_span or st.demo_venue  # the document's event, else the venue the list's opening named
            if hs and list_venue is not None:
                for s in hs:
                    add(s, "demoedAt", list_venue, sent, "demoedAt.demo_list_item", 0.75)
                st.demo_method = hs[0]
                for h in hardware:
                    add(hs[0], "demoedOn", h, sent, "demoedOn.demo_list_item", 0.7)
        elif not head and st.demo_method is None:
            st.demo_list = False
    if not demo and st.demo_list and st.demo_method is not None and hardware and _DEMO_WORD.search(text) is None:
        if LIST_HEAD.match(text) is None and _SHOWS_WORD.search(text):
            for h in hardware:
                add(st.demo_method, "demoedOn", h, sent, "demoedOn.demo_list_item", 0.7)
    return demo
