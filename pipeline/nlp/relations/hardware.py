"""What methods run on, outside demos: runsOn."""

from __future__ import annotations

import re

from spacy.tokens import Span

from ..discourse import canon, introduced
from ..rules import load_rules, norm
from .common import RUN_FOCUS, clause_subject, not_baselines, subject_is_anaphor
from .reader import PRONOUN, Reader, Sentence

__all__ = ["runs_on"]

_CUES = load_rules().cue_patterns["runs_on"]
_DEVICE_SERVES = re.compile(_CUES["device_serves"])
"""Between a device and a method it serves: "a single Inferentia2 chip serves 1,200 RGR queries per second"."""
_WITH_CHIP = re.compile(_CUES["with_chip"])
"""Between a device and the chip it carries: "a DJI Matrice 350 drone with an onboard Jetson Orin NX"."""
_ON_BEFORE = re.compile(_CUES["on_before"])
_MEASURE_LINE = re.compile(_CUES["measure_line"])
_FRONTED_ON = re.compile(_CUES["fronted_on"])
_EXPERIMENT_WORDS = re.compile(_CUES["experiment_words"])
"""A sentence about the paper's experiments or timings: "All experiments were run on X", "takes eight minutes on X"."""
_USING_BEFORE = re.compile(_CUES["using_before"])


def runs_on(rd: Reader, sn: Sentence) -> None:
    """"runs on X", "on X, CTP reduces latency", "a single X serves Y", "experiments were run on X"."""
    dtext, out, st, add, negated = rd.dtext, rd.out, rd.st, rd.add, rd.negated
    sent, text, s0, methods, hardware, anaphor_method, demo = sn.sent, sn.text, sn.s0, sn.methods, sn.hardware, sn.anaphor_method, sn.demo
    # ---- runsOn (outside demos)
    if hardware and not demo and not st.demo_list:
        for h in hardware:
            # "a single Inferentia2 chip serves 1,200 RGR queries per second": the device serves the method
            served = [m for m in methods if m.start_char > h.end_char and _DEVICE_SERVES.fullmatch(dtext[h.end_char:m.start_char])]
            window = dtext[max(s0, h.start_char - 60):h.start_char]
            carried = [x for x in out if x[1] == "runsOn" and x[3] is sent and x[2].end_char <= h.start_char
                       and _WITH_CHIP.fullmatch(dtext[x[2].end_char:h.start_char])]
            if carried:  # "on a DJI Matrice 350 drone with an onboard Jetson Orin NX": the same method
                add(carried[-1][0], "runsOn", h, sent, "runsOn.device_with_chip", 0.7)
                continue
            if not served and not _ON_BEFORE.search(window):
                continue
            subs = [m for m in methods if m.end_char <= h.start_char]
            subj_list = served[:1] or subs[:1]
            if not served and anaphor_method is not None and subject_is_anaphor(sent) and (
                    not subs or PRONOUN.search(dtext[subs[0].end_char:h.start_char])):
                subj_list = [anaphor_method]  # "..., and it runs entirely on X": the method in focus
            if not subj_list and anaphor_method is not None:
                subj_list = [anaphor_method]
            if not subj_list and _MEASURE_LINE.match(text):
                subj_list = methods[:1]
            if not subj_list and _FRONTED_ON.match(text):
                # "On an NVIDIA Jetson AGX Orin, CTP reduces latency": the main clause's method
                subj_list = [m for m in [clause_subject(sent, methods, introduced(st))] if m is not None] or \
                            [m for m in methods if m.start_char > h.end_char][:1]
            if not subj_list and not subs and st.cur_paper is not None and _EXPERIMENT_WORDS.search(text):
                # "All experiments were run on TPU v5e pods", "Fitting a scene takes eight minutes on X":
                # the method of the paper in focus
                subj_list = [m for m in st.paper_methods.get(norm(canon(st.cur_paper)), []) if m.label_ == "Method"][:1]
            rule = "runsOn.on_hardware"
            if not subj_list and not methods and RUN_FOCUS.match(text):
                # "Osprey-7B is a language model. Pretraining ran on 128 A100 GPUs.": the method the sentence before names
                subj_list, rule = [m for m in [_named_before(rd, sn)] if m is not None], "runsOn.run_focus"
            if subj_list:
                # "faster than Mamba-2 at prefill on an H100": not the one compared against, the one that is faster
                subj_list = not_baselines(dtext, sn, subj_list[:1], None, h.start_char)
            for s in subj_list:
                if negated(sent, s.end_char if s.end_char <= h.start_char else s0, h.start_char):
                    continue
                add(s, "runsOn", h, sent, rule, 0.7)
                if s is not subs[:1]:
                    for u in methods:
                        if _USING_BEFORE.search(dtext[max(s0, u.start_char - 8):u.start_char]):
                            add(s, "uses", u, sent, "uses.using", 0.7)


def _named_before(rd: Reader, sn: Sentence) -> Span | None:
    """The method the sentence before names, in the same paragraph: its main clause's subject, else its first."""
    prev = sn.prev_sent
    if prev is None or rd.para_of[prev.start] != sn.pidx:
        return None
    methods = [m for m in rd.by_sent[prev.start] if m.label_ == "Method"]
    return clause_subject(prev, methods, introduced(rd.st)) or (methods[0] if methods else None)
