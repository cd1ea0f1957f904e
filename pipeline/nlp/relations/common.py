"""Cue patterns and parse helpers the relation families share."""

from __future__ import annotations

import re
from bisect import bisect_left

from spacy.tokens import Span

from ..discourse import canon
from ..rules import load_rules, norm
from ..text import prefiltered

_CUES = load_rules().cue_patterns["relations"]

__all__ = ["clause_subject", "subject_is_anaphor", "mention_at", "listed_before", "alone_in_paragraph", "ends_in_word",
           "NEGATION", "negated_clause"]

PAPER_ANAPHOR = prefiltered(re.compile(_CUES["paper_anaphor"]))
VENUE_PAPER = prefiltered(re.compile(_CUES["venue_paper"]))
"""What follows a venue named as a paper's: "our CoRL 2026 paper", "This EMNLP 2026 paper", "A UAI 2026 paper"."""
WILL_BE_PRESENTED = prefiltered(re.compile(_CUES["will_be_presented"]))
METHOD_ANAPHOR = prefiltered(re.compile(_CUES["method_anaphor"]))
WE = prefiltered(re.compile(_CUES["we"]))
UNTITLED_CUE = prefiltered(re.compile(_CUES["untitled_cue"]))
INTRO_CUE = prefiltered(re.compile(_CUES["intro_cue"], re.I))
NOVEL = prefiltered(re.compile(_CUES["novel"]))
LINE_TITLE_RULES = {"paper.labelled_title", "paper.title_line", "paper.title_line_abstract", "paper.list_item_title"}
CLAUSE_BREAK = prefiltered(re.compile(_CUES["clause_break"]))
NEGATION = prefiltered(re.compile(load_rules().cues["negation"], re.I))
"""A negation or hedge ("not", "fails to", "may", "plan to"): a relation stated under one is not asserted."""
NOT_ONLY = re.compile(_CUES["not_only"])
_LIST_LINK = re.compile(_CUES["list_link"])
"""Between the names of a list: ", ", " and ", ", or "."""
_ON_BEFORE_DATASET = re.compile(_CUES["on_before_dataset"])
LIST_HEAD = re.compile(r"^\s*(?:[-•*]\s*)?(.{2,90}?)(?::\s|\s+[–—]\s+)")


def clause_subject(sent: Span, methods: list[Span], introduced: set) -> Span | None:
    """The method named in the subject of the sentence's main verb (by the dependency parse), preferring one a
    paper introduces: "On X, a transformer equipped with HopSketch matches ..." is about HopSketch."""
    root = sent.root
    for t in root.children:
        if t.dep_ not in {"nsubj", "nsubjpass"}:
            continue
        lo, hi = t.left_edge.idx, t.right_edge.idx + len(t.right_edge)
        found = [m for m in methods if lo <= m.start_char < hi]
        if found:
            named = [m for m in found if norm(canon(m)) in introduced]
            return (named or found)[0]
    return None


_ANAPHOR_HEADS = {"method", "approach", "technique", "model", "framework", "system", "architecture", "network",
                  "algorithm", "optimizer", "pipeline", "student", "encoder", "decoder", "tokenizer", "agent",
                  "detector", "tracker", "classifier", "retriever", "reranker", "planner", "policy", "kernel", "compiler",
                  "vocoder", "recognizer", "segmenter", "estimator", "controller"}


def subject_is_anaphor(sent: Span) -> bool:
    """The main clause's subject is "it"/"they" or "the (student) model", "this method": a method named before.

    The first subject of the sentence counts too: the parser sometimes roots a sentence in an aside ("... more
    accurately than X (see Figure 2)" rooted in "see"), leaving the real main clause below it.
    """
    first = next((t for t in sent if t.dep_ in {"nsubj", "nsubjpass"}), None)
    if first is not None and first.lower_ in {"it", "they"}:
        return True
    for t in sent.root.children:
        if t.dep_ in {"nsubj", "nsubjpass"}:
            if t.lower_ in {"it", "they"}:
                return True
            if t.lower_ in _ANAPHOR_HEADS and any(c.dep_ == "det" and c.lower_ in {"the", "this", "our"} for c in t.children):
                return True
    return False


TRAINING = prefiltered(re.compile(_CUES["training"], re.I))
RUN_FOCUS = re.compile(_CUES["run_focus"])
"""A sentence that opens on a run of the method in focus and names none: "Pretraining ran on 128 A100 GPUs"."""


STUDY = prefiltered(re.compile(_CUES["study"]))
EVALUATE_VERB = prefiltered(re.compile(_CUES["evaluate_verb"], re.I))


_WORD_CHAR = re.compile(r"\w")


def ends_in_word(text: str, end: int) -> bool:
    """Whether the character before ``end`` is a word character (``\\w``).

    Only then can a pattern without lookarounds whose every match ends in ``\\b`` match a prefix ``text[a:end]``
    of a longer text ``text[a:b]`` where it does not match ``text[a:b]`` itself: a match in the prefix that does
    not reach its end reads the same characters in the longer text. So one search of a whole sentence or clause
    answers for every prefix cut after a non-word character (a search of each prefix is quadratic in a long list).
    """
    return end > 0 and _WORD_CHAR.match(text, end - 1) is not None


def trained_not_evaluated(before: str, evaluated: re.Pattern) -> bool:
    """Whether the last cue before a dataset is one of training ("pretrained on X"), not one of evaluation.

    "trained and evaluated on X" ends with an evaluation cue, so X counts; "trained on X and evaluated on Y"
    gives X to training and Y to evaluation. The caller asks this only when the sentence goes on to evaluate:
    in "When training ResNet-50 on ImageNet, Driftless reaches the target loss" the training run is the test.
    """
    t = [m.end() for m in TRAINING.finditer(before)]
    if not t:
        return False
    e = [m.end() for m in evaluated.finditer(before) if not TRAINING.fullmatch(m.group(0))]
    return t[-1] > (e[-1] if e else -1)




def sentence_index(m: Span, sents: list[Span], starts: list[int]) -> int | None:
    """The index in ``sents`` (whose start characters are ``starts``) of the sentence holding the mention's start."""
    k = bisect_left(starts, m.start_char + 1) - 1
    return k if k >= 0 and sents[k].start_char <= m.start_char < sents[k].end_char else None


COMPARATIVE = prefiltered(re.compile(_CUES["comparative"]))
BASELINE_BEFORE = re.compile(_CUES["baseline_before"])
"""What stands right before a method named as the one compared against: "faster than X", "gains over X", "beats X"."""


def compared_against(text: str, floor: int, start: int) -> bool:
    """Whether the name that starts at ``start`` of ``text`` is named as what something is compared against: a cue
    of ``baseline_before`` ends right before it (read back 40 characters at most, never before ``floor``). The one
    test the rules (:func:`is_baseline`) and the pair features (``s_compared``) share."""
    return BASELINE_BEFORE.search(text, max(floor, start - 40), start) is not None


def is_baseline(dtext: str, s0: int, m: Span, methods: list[Span]) -> bool:
    """Whether ``m`` (in a sentence starting at ``s0``) is named as what something is compared against, itself or
    as a later member of a list ("3.5x faster than CMT, EfficientNet and ConvNeXt")."""
    first = m
    for x in reversed([y for y in methods if y.end_char <= m.start_char]):
        if not _LIST_LINK.fullmatch(dtext[x.end_char:first.start_char]):
            break
        first = x
    return compared_against(dtext, s0, first.start_char)


def not_baselines(dtext: str, sn, subjects: list, clause_subj: Span | None, before: int) -> list:
    """The ``subjects`` of a sentence ``sn`` (a :class:`~.reader.Sentence`) but the methods named as what is
    compared against ("YOLOv10 reaches a higher mAP than YOLOv9 and YOLOv8 on COCO": not YOLOv9 nor YOLOv8); when
    none is left, the one the sentence says is better: its clause's subject, else the first method named before
    ``before`` that is not compared against, else the method in focus for "it" ("On X it is 13.9x faster than Y").
    The one fallback of evaluatedOn, runsOn and the comparisons."""
    s0, methods = sn.s0, sn.methods
    if not any(x is not None and x.label_ == "Method" and is_baseline(dtext, s0, x, methods) for x in subjects):
        return subjects
    kept = [x for x in subjects if x is not None and not is_baseline(dtext, s0, x, methods)]
    if kept:
        return kept
    if clause_subj is not None and not is_baseline(dtext, s0, clause_subj, methods):
        return [clause_subj]
    first = next((m for m in methods if m.end_char <= before and not is_baseline(dtext, s0, m, methods)), None)
    if first is not None:
        return [first]
    return [sn.anaphor_method] if sn.anaphor_method is not None and subject_is_anaphor(sn.sent) else []


def comparison_sign(word: str, metric: str, lower_is_better: frozenset[str]) -> int:
    """+1 when "S <word> <metric> than O" says S is better, -1 when it says O is, 0 when it says neither."""
    word = word.lower()
    if word in {"better", "more often"}:
        return 1
    if word in {"worse", "less often"}:
        return -1
    lower_better = any(w.lower().strip(".,@") in lower_is_better for w in metric.split()) or \
        any(term in metric.lower() for term in lower_is_better if " " in term)
    if not metric.strip():
        return 0  # "higher than O" with no metric: a price, a count, anything
    return (1 if word == "higher" else -1) * (-1 if lower_better else 1)


def change_sign(verb: str, metric: str, lower_is_better: frozenset[str]) -> int:
    """+1 when "S <verb> <metric> ... compared with O" says S is better: less of a bad thing, more of a good one."""
    bad = any(w.lower().strip(".,@") in lower_is_better for w in metric.split())
    down = verb.lower() in {"reduces", "lowers", "cuts"}
    return 1 if down == bad else -1


def mention_at(token, mentions: list[Span], labels: set[str]) -> Span | None:
    """The mention of one of ``labels`` that the parse token names: the token itself, or its compound or
    appositive modifier ("the Muon optimizer" names Muon through "optimizer")."""
    for t in (token, *(c for c in token.children if c.dep_ in {"compound", "nmod", "appos", "amod"})):
        for m in mentions:
            if m.label_ in labels and m.start_char <= t.idx < m.end_char:
                return m
    return None


def alone_in_paragraph(sent: Span, dtext: str) -> bool:
    """Whether ``sent`` is a paragraph of its own: nothing but white space before the next line break."""
    body = dtext[sent.start_char:sent.end_char]
    rest = dtext[sent.start_char + len(body.rstrip()):]
    nl = rest.find("\n")
    return not (rest[:nl] if nl >= 0 else rest).strip()


def listed_before(dtext: str, methods: list[Span], d: Span) -> list[Span]:
    """Methods coordinated right before "on <dataset>": "we benchmarked CLIP and DINOv2 on X" gives both."""
    before = [m for m in methods if m.end_char <= d.start_char]
    if not before or not _ON_BEFORE_DATASET.fullmatch(dtext[before[-1].end_char:d.start_char]):
        return []
    out = [before[-1]]
    for m in reversed(before[:-1]):
        if not _LIST_LINK.fullmatch(dtext[m.end_char:out[0].start_char]):
            break
        out.insert(0, m)
    return out


def negated_clause(text: str, sent_start: int, sent_end: int, a: int, b: int, hedged=None) -> bool:
    """A negation or hedge (``NEGATION``) in the clause that states a relation between the offsets ``a`` and ``b`` of
    the sentence ``text[sent_start:sent_end]``: from the start of the clause holding the earlier to the later. "not
    only ... but also" is no negation. ``hedged(start, end)``, when given, tells (memoised) whether a stretch holds
    any such word at all; the rules' reader and the model's decision both ask this ("It does not run on X", "X does
    not outperform Y")."""
    lo, hi = min(a, b), max(a, b)
    clause_start = sent_start
    for cm in CLAUSE_BREAK.finditer(text, sent_start, lo):
        clause_start = cm.end()
    if hi <= sent_end and not ends_in_word(text, hi):
        rest = text[clause_start:sent_end]
        if not (hedged(clause_start, sent_end) if hedged else NOT_ONLY.search(rest) or NEGATION.search(rest)):
            return False  # nothing to find up to the sentence's end, so nothing up to ``hi`` (``ends_in_word``)
    return bool(NEGATION.search(NOT_ONLY.sub("", text[clause_start:hi])))
