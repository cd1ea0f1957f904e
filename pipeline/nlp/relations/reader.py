"""The document and sentence records the relation families read and write."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

from spacy.tokens import Doc, Span

from ...vocab import RELATION_ENDS
from ..discourse import canon, State, paragraph_numbers
from ..doc import doc_text, sentence_spans, span_value
from ..rules import load_rules, norm
from .common import NOT_ONLY, METHOD_ANAPHOR, NEGATION, WE, negated_clause, subject_is_anaphor

_CUES = load_rules().cue_patterns["reader"]
_PRONOUN_SUBJECT = re.compile(_CUES["pronoun_subject"])
PRONOUN = re.compile(_CUES["pronoun"])
"""The pronoun of a method named before: "it", "they"."""

__all__ = ["PRONOUN", "Reader", "Sentence", "first_pass_sentence", "second_pass_sentence"]


@dataclass
class Sentence:
    """One sentence as the relation rules read it: its mentions by class, its paragraph, the method an anaphor
    ("it", "the model") stands for, and what earlier rules of the same sentence found (``demo``)."""

    sent: Span
    ms: list
    text: str
    s0: int
    pidx: int
    papers: list = field(default_factory=list)
    things: list = field(default_factory=list)
    methods: list = field(default_factory=list)
    datasets: list = field(default_factory=list)
    venues: list = field(default_factory=list)
    hardware: list = field(default_factory=list)
    orgs: list = field(default_factory=list)
    confs: list = field(default_factory=list)
    anaphor_method: Span | None = None
    demo: object = None
    prev_sent: Span | None = None


class Reader:
    """One document as the relation rules read it: its text, sentences, paragraphs and mentions by sentence, the
    document's event, the discourse state, the relations found so far (``add``) and the cue patterns."""

    def __init__(self, doc: Doc, finder) -> None:
        self.doc, self.finder = doc, finder
        self.cues = finder.re
        self.dtext = dtext = doc_text(doc)
        self.mentions = mentions = sorted(doc.spans["mlkg_mentions"], key=lambda s: (s.start_char, s.end_char))
        self.sents = sents = sentence_spans(doc, dtext)
        self.para_of = paragraph_numbers(sents, dtext)
        starts = [m.start_char for m in mentions]  # sorted; Span offsets are computed on each access, so read once
        self.by_sent = {s.start: mentions[bisect_left(starts, s.start_char):bisect_left(starts, s.end_char)] for s in sents}
        event = doc._.mlkg_event
        self.event_span = None
        if event:
            self.event_span = next((m for m in mentions if m.label_ == "Venue" and canon(m) == event), None)
        self.out: list[tuple] = []
        self.seen: set = set()
        self.st = State()
        self.new_spans: list[Span] = []
        self.rules = getattr(finder, "rules", None)
        self.known_names = getattr(finder, "known_names", frozenset())
        self.dep_by_sent = self._dependency_frames()
        self.study_sents: dict[int, Span] = {}  # paragraph -> its first sentence that evaluates or benchmarks models
        self._hedged_memo: dict[tuple[int, int], bool] = {}

    def add(self, s: Span, p: str, o: Span, sent: Span, rule: str, conf: float) -> None:
        """Keep the relation ``s p o`` read in ``sent`` (once, and only between the classes the model allows)."""
        seen, out = self.seen, self.out
        if s is None or o is None or norm(canon(s)) == norm(canon(o)) and s.label_ == o.label_:
            return
        allowed = RELATION_ENDS.get(p)
        if allowed is not None and (s.label_, o.label_) not in allowed:
            return  # the knowledge model's classes of the two ends: "a dataset uses GPT-4o" is a misreading
        key = (s.label_, norm(canon(s)), p, o.label_, norm(canon(o)))
        if key in seen:
            return
        seen.add(key)
        out.append((s, p, o, sent, rule, conf))

    def negated(self, sent: Span, a: int, b: int) -> bool:
        """A negation or hedge in the clause that states the relation between ``a`` and ``b`` (``negated_clause``)."""
        return negated_clause(self.dtext, sent.start_char, sent.end_char, a, b, self._hedged)

    def _hedged(self, a: int, b: int) -> bool:
        """Whether ``dtext[a:b]`` holds "not only" or a negation or hedge at all (once per clause)."""
        found = self._hedged_memo.get((a, b))
        if found is None:
            text = self.dtext[a:b]
            found = self._hedged_memo[(a, b)] = bool(NOT_ONLY.search(text) or NEGATION.search(text))
        return found

    def _dependency_frames(self) -> dict[int, list]:
        """"SUBJECT <verb> OBJECT" by the dependency parse, bucketed by the sentence of the verb."""
        finder, sents, doc = self.finder, self.sents, self.doc
        dep_by_sent: dict[int, list] = {}
        if getattr(finder, "dependency", None) is not None:
            starts = [s.start for s in sents]
            for relation, verb, subject, obj in finder.dependency(doc):
                k = bisect_left(starts, verb + 1) - 1
                if k >= 0:
                    dep_by_sent.setdefault(starts[k], []).append((relation, verb, subject, obj))
        return dep_by_sent


def first_pass_sentence(rd: Reader, sent: Span) -> Sentence:
    """A sentence as the paper rules read it: its titled papers and the methods and datasets it names."""
    ms = rd.by_sent[sent.start]
    return Sentence(sent=sent, ms=ms, text=rd.dtext[sent.start_char:sent.end_char], s0=sent.start_char,
                    pidx=rd.para_of[sent.start], papers=[m for m in ms if m.label_ == "Paper"],
                    things=[m for m in ms if m.label_ in {"Method", "Dataset"}])


def second_pass_sentence(rd: Reader, sent: Span, prev_sent: Span | None) -> Sentence:
    """A sentence as the other relation rules read it, the discourse state moved on to it: the paper and method
    in focus, and what an anaphor in it stands for."""
    dtext, para_of, st = rd.dtext, rd.para_of, rd.st
    ms = rd.by_sent[sent.start]
    text = dtext[sent.start_char:sent.end_char]
    s0 = sent.start_char
    pidx = para_of[sent.start]
    by_label: dict[str, list] = {}  # the sentence's mentions by class, in order (each label read once)
    for m in ms:
        by_label.setdefault(m.label_, []).append(m)
    titled = by_label.get("Paper", [])
    papers = list(titled) or ([st.untitled[pidx]] if pidx in st.untitled and WE.search(text) else [])
    methods, datasets = by_label.get("Method", []), by_label.get("Dataset", [])
    venues, hardware, orgs = by_label.get("Venue", []), by_label.get("Hardware", []), by_label.get("Organization", [])
    if papers:
        st.cur_paper, st.paper_para = papers[-1], pidx
        intro = st.paper_methods.get(norm(canon(papers[-1])))
        if intro:
            st.cur_method = intro[0]
    elif pidx - st.paper_para > 1 or (pidx != st.paper_para and st.cur_paper is not None
                                      and span_value(st.cur_paper, "mlkg_rule", "") == "paper.untitled_abstract"):
        st.cur_paper = st.cur_method = None
    if pidx in st.untitled and not titled:
        st.cur_paper = st.untitled[pidx]
    anaphor_method = None
    if METHOD_ANAPHOR.search(text) or _PRONOUN_SUBJECT.match(text) or (
            (pm := PRONOUN.search(text)) and not any(m.start_char < s0 + pm.start() for m in methods)
            and subject_is_anaphor(sent)):  # "On X and Y it lifts accuracy": the pronoun before any method
        anaphor_method = st.cur_method
        if anaphor_method is None and st.cur_paper is not None:
            intro = st.paper_methods.get(norm(canon(st.cur_paper)))
            # "it" stands for a method: a dataset the paper introduces is not what "it runs" or "it uses"
            anaphor_method = next((m for m in intro or [] if m.label_ == "Method"), None)
    confs = [v for v in venues if "Workshop" not in canon(v) and not span_value(v, "mlkg_rule", "").startswith("venue.presented_at_list")
             and span_value(v, "mlkg_rule", "") in {"venue.acronym", "venue.long_name"}]
    return Sentence(sent=sent, ms=ms, text=text, s0=s0, pidx=pidx, papers=papers, methods=methods, datasets=datasets,
                    venues=venues, hardware=hardware, orgs=orgs, confs=confs, anaphor_method=anaphor_method,
                    prev_sent=prev_sent)
