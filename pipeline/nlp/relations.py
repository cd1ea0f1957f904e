"""Relation rules: sentence-level cue patterns between mentions, with paragraph context for "the paper", "this work"."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

from spacy.tokens import Doc, Span

from ..vocab import RELATION_ENDS
from . import budget
from .doc import doc_text, sentence_spans
from .rules import norm

__all__ = ["find_relations"]

_PAPER_ANAPHOR = re.compile(r"\b(?:[Tt]he|[Tt]his|[Oo]ur)\s+(?:[A-Z][\w-]*\s+(?:19|20)\d{2}\s+)?(?:paper|work|study|report)\b")
_VENUE_PAPER = re.compile(r"^\s+(?:paper|work|study)\b")
"""What follows a venue named as a paper's: "our CoRL 2026 paper", "This EMNLP 2026 paper", "A UAI 2026 paper"."""
_WILL_BE_PRESENTED = re.compile(r"\b(?:will\s+be\s+presented|is\s+to\s+be\s+presented|(?:is\s+|are\s+)?to\s+appear|will\s+appear|"
                                r"(?:was|is|has\s+been|have\s+been)\s+accepted)\s+(?:as\s+(?:an?\s+)?[\w-]+\s+)?(?:at|in|to)\b")
_METHOD_ANAPHOR = re.compile(r"\b(?:[Tt]his|[Tt]he|[Oo]ur)\s+(?:[\w-]+\s+)?(?:method|approach|technique|model|framework|work|architecture|optimizer|paper|"
                             r"detector|tracker|classifier|retriever|reranker|planner|policy|kernel|compiler|vocoder|recognizer|system)\b"
                             r"|\bthis\s+work\b|\b[Ii]ts\b")
_WE = re.compile(r"\b(?:[Ww]e|[Ii]n\s+this\s+(?:paper|work))\b")
_UNTITLED_CUE = re.compile(
    r"\b(?:[Ww]e|[Tt]his\s+(?:paper|work)|[Aa]n?\s+[A-Z][\w-]*\s+(?:19|20)\d{2}\s+paper)\s+(?:\w+\s+){0,5}?(?:propose|proposes|introduce|introduces|present|presents|presenting|develop|develops|describe|describes|release|releases|call|name|term|dub|construct|constructs|curate|curates|collect|collects)\b"
)
_INTRO_CUE = re.compile(
    r"\b(?:propos\w*|introduc\w*|present\w*|describ\w*|shares?|sharing|releas\w*|develop\w*|details|unveil\w*)\b", re.I
)
_NOVEL = re.compile(r"\b(?:[Aa]n?)\s+(?:novel|new)\s+(?:[\w-]+\s+){0,1}$")
_LINE_TITLE_RULES = {"paper.labelled_title", "paper.title_line", "paper.title_line_abstract", "paper.list_item_title"}
_CLAUSE_BREAK = re.compile(r";|[,:]\s+(?:but|while|whereas|although|which|who)\b|\b(?:but|while|whereas|although)\b")
_LIST_HEAD = re.compile(r"^\s*(?:[-•*]\s*)?(.{2,90}?)(?::\s|\s+[–—]\s+)")


@dataclass
class _State:
    cur_paper: Span | None = None
    paper_para: int = -10
    cur_method: Span | None = None
    demo_method: Span | None = None
    demo_list: bool = False
    demo_para: int = -10  # the paragraph of the last demo sentence, and the venue it named
    demo_venue: Span | None = None
    paper_methods: dict = field(default_factory=dict)  # norm(paper canonical) -> [method spans]
    untitled: dict = field(default_factory=dict)  # paragraph index -> paper span
    line_title: Span | None = None  # a title on a line of its own, awaiting its abstract
    line_title_para: int = -10
    last_titled: Span | None = None  # the last paper named by its title, and its paragraph
    last_titled_para: int = -10
    introduced_memo: tuple | None = None  # (methods counted, their normalised names): see _introduced


def _canon(span: Span) -> str:
    return span._.mlkg_canonical or span.text


class _Introduced:
    """Normalised names of the methods the papers read so far introduce, and of the current method (``in`` only)."""

    __slots__ = ("names", "current")

    def __init__(self, names: frozenset[str], current: str | None) -> None:
        self.names, self.current = names, current

    def __contains__(self, name: str) -> bool:
        return name == self.current or name in self.names


def _introduced(st: _State) -> _Introduced:
    """What the papers read so far introduce, and the current method: the names are gathered again only when a
    paper has gained a method since (asked once a sentence, gathering them each time was quadratic)."""
    size = sum(len(ms) for ms in st.paper_methods.values())
    if st.introduced_memo is None or st.introduced_memo[0] != size:
        st.introduced_memo = (size, frozenset(norm(_canon(m)) for ms in st.paper_methods.values() for m in ms))
    return _Introduced(st.introduced_memo[1], norm(_canon(st.cur_method)) if st.cur_method is not None else None)


def _clause_subject(sent: Span, methods: list[Span], introduced: set) -> Span | None:
    """The method named in the subject of the sentence's main verb (by the dependency parse), preferring one a
    paper introduces: "On X, a transformer equipped with HopSketch matches ..." is about HopSketch."""
    root = sent.root
    for t in root.children:
        if t.dep_ not in {"nsubj", "nsubjpass"}:
            continue
        lo, hi = t.left_edge.idx, t.right_edge.idx + len(t.right_edge)
        found = [m for m in methods if lo <= m.start_char < hi]
        if found:
            named = [m for m in found if norm(_canon(m)) in introduced]
            return (named or found)[0]
    return None


_ANAPHOR_HEADS = {"method", "approach", "technique", "model", "framework", "system", "architecture", "network",
                  "algorithm", "optimizer", "pipeline", "student", "encoder", "decoder", "tokenizer", "agent",
                  "detector", "tracker", "classifier", "retriever", "reranker", "planner", "policy", "kernel", "compiler",
                  "vocoder", "recognizer", "segmenter", "estimator", "controller"}


def _subject_is_anaphor(sent: Span) -> bool:
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


_TRAINING = re.compile(r"\b(?:pre-?train\w*|train(?:s|ed|ing)?|fine-?tun\w*|distill\w*|learn(?:s|ed)?\s+from|mixed\s+with|noise\s+from)\b", re.I)


_STUDY = re.compile(r"\b(?:(?:[Ww]e|[Tt]hey|[Tt]he\s+(?:paper|authors|study|work)|[Tt]his\s+(?:paper|study|work))\s+(?:then\s+|also\s+)?"
                    r"(?:evaluat|benchmark|test|compar|assess)\w*\s+(?:[\w-]+\s+){0,4}?(?:models|systems|methods|agents|baselines|"
                    r"detectors|recognizers|trackers|LLMs|VLMs|approaches|algorithms)|[Bb]enchmarking\s+(?:current|existing|state-of-the-art|"
                    r"popular|leading)\s+(?:models|systems|methods)|[Bb]y\s+(?:testing|evaluating|benchmarking)\s+(?:[\w-]+\s+){0,3}?"
                    r"(?:models|systems|methods|LLMs|VLMs))\b")
_EVALUATE_VERB = re.compile(r"\b(?:evaluat\w*|test(?:s|ed|ing)?|benchmark(?:s|ed|ing)?|assess\w*)\b", re.I)


def _trained_not_evaluated(before: str, evaluated: re.Pattern) -> bool:
    """Whether the last cue before a dataset is one of training ("pretrained on X"), not one of evaluation.

    "trained and evaluated on X" ends with an evaluation cue, so X counts; "trained on X and evaluated on Y"
    gives X to training and Y to evaluation. The caller asks this only when the sentence goes on to evaluate:
    in "When training ResNet-50 on ImageNet, Driftless reaches the target loss" the training run is the test.
    """
    t = [m.end() for m in _TRAINING.finditer(before)]
    if not t:
        return False
    e = [m.end() for m in evaluated.finditer(before) if not _TRAINING.fullmatch(m.group(0))]
    return t[-1] > (e[-1] if e else -1)




def _sentence_index(m: Span, sents: list[Span], starts: list[int]) -> int | None:
    """The index in ``sents`` (whose start characters are ``starts``) of the sentence holding the mention's start."""
    k = bisect_left(starts, m.start_char + 1) - 1
    return k if k >= 0 and sents[k].start_char <= m.start_char < sents[k].end_char else None


_COMPARATIVE = re.compile(r"\b(better|worse|higher|lower|more\s+often|less\s+often)\s+((?:[\w@.%/+-]+\s+){0,4}?)than\s+(?:both\s+|the\s+|a\s+)?"
                          r"|\b(reduces|lowers|cuts|improves|raises|increases)\s+((?:[\w@.%/+-]+\s+){1,6}?)(?:compared\s+(?:to|with)|relative\s+to)\s+(?:both\s+|the\s+|a\s+)?")


def _comparison_sign(word: str, metric: str, lower_is_better: frozenset[str]) -> int:
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


def _change_sign(verb: str, metric: str, lower_is_better: frozenset[str]) -> int:
    """+1 when "S <verb> <metric> ... compared with O" says S is better: less of a bad thing, more of a good one."""
    bad = any(w.lower().strip(".,@") in lower_is_better for w in metric.split())
    down = verb.lower() in {"reduces", "lowers", "cuts"}
    return 1 if down == bad else -1


def _mention_at(token, mentions: list[Span], labels: set[str]) -> Span | None:
    """The mention of one of ``labels`` that the parse token names: the token itself, or its compound or
    appositive modifier ("the Muon optimizer" names Muon through "optimizer")."""
    for t in (token, *(c for c in token.children if c.dep_ in {"compound", "nmod", "appos", "amod"})):
        for m in mentions:
            if m.label_ in labels and m.start_char <= t.idx < m.end_char:
                return m
    return None


def _alone_in_paragraph(sent: Span, dtext: str) -> bool:
    """Whether ``sent`` is a paragraph of its own: nothing but white space before the next line break."""
    body = dtext[sent.start_char:sent.end_char]
    rest = dtext[sent.start_char + len(body.rstrip()):]
    nl = rest.find("\n")
    return not (rest[:nl] if nl >= 0 else rest).strip()


def _listed_before(dtext: str, methods: list[Span], d: Span) -> list[Span]:
    """Methods coordinated right before "on <dataset>": "we benchmarked CLIP and DINOv2 on X" gives both."""
    before = [m for m in methods if m.end_char <= d.start_char]
    if not before or not re.fullmatch(r",?\s+on\s+(?:the\s+)?", dtext[before[-1].end_char:d.start_char]):
        return []
    out = [before[-1]]
    for m in reversed(before[:-1]):
        if not re.fullmatch(r",\s*|,?\s+(?:and|or)\s+", dtext[m.end_char:out[0].start_char]):
            break
        out.insert(0, m)
    return out


def find_relations(doc: Doc, finder) -> list[tuple]:
    """All relations in ``doc`` as ``(subject, property, object, sentence, rule, confidence)``."""
    cues, negation = finder.re, finder.negation
    dtext = doc_text(doc)
    mentions = sorted(doc.spans["mlkg_mentions"], key=lambda s: (s.start_char, s.end_char))
    sents = sentence_spans(doc, dtext)
    para_of = {}
    para = 0
    prev_end = 0
    for s in sents:
        stext = dtext[s.start_char:s.end_char]  # Span.text joins its tokens on every access
        first_char = s.start_char + (len(stext) - len(stext.lstrip()))
        para += len(re.findall(r"\n[\s]*", dtext[prev_end:first_char]))
        prev_end = first_char
        para_of[s.start] = para
    starts = [m.start_char for m in mentions]  # sorted; Span offsets are computed on each access, so read once
    by_sent = {s.start: mentions[bisect_left(starts, s.start_char):bisect_left(starts, s.end_char)] for s in sents}
    event = doc._.mlkg_event
    event_span = None
    if event:
        event_span = next((m for m in mentions if m.label_ == "Venue" and _canon(m) == event), None)
    out: list[tuple] = []
    seen: set = set()

    def add(s: Span, p: str, o: Span, sent: Span, rule: str, conf: float) -> None:
        if s is None or o is None or norm(_canon(s)) == norm(_canon(o)) and s.label_ == o.label_:
            return
        allowed = RELATION_ENDS.get(p)
        if allowed is not None and (s.label_, o.label_) not in allowed:
            return  # the knowledge model's classes of the two ends: "a dataset uses GPT-4o" is a misreading
        key = (s.label_, norm(_canon(s)), p, o.label_, norm(_canon(o)))
        if key in seen:
            return
        seen.add(key)
        out.append((s, p, o, sent, rule, conf))

    def negated(sent: Span, a: int, b: int) -> bool:
        """A negation or hedge in the clause that states the relation: from the start of the clause holding
        the earlier end (``a`` or ``b``) to the later one. "not only ... but also" is no negation."""
        lo, hi = min(a, b), max(a, b)
        clause_start = sent.start_char
        for cm in _CLAUSE_BREAK.finditer(dtext, sent.start_char, lo):
            clause_start = cm.end()
        span = re.sub(r"\bnot\s+(?:only|just|merely)\b", "", dtext[clause_start:hi])
        return bool(negation.search(span))

    st = _State()
    new_spans: list[Span] = []

    rules = getattr(finder, "rules", None)
    known_names = getattr(finder, "known_names", frozenset())

    # pass 1: papers and what they introduce
    for sent in sents:
        budget.check(doc, "the relation rules (papers)")
        ms = by_sent[sent.start]
        text = dtext[sent.start_char:sent.end_char]
        papers = [m for m in ms if m.label_ == "Paper"]
        things = [m for m in ms if m.label_ in {"Method", "Dataset"}]
        pidx = para_of[sent.start]
        if papers:
            st.cur_paper, st.paper_para = papers[-1], pidx
            if papers[-1]._.mlkg_rule in _LINE_TITLE_RULES:
                st.line_title, st.line_title_para = papers[-1], pidx
        if pidx - st.paper_para > 1 or (pidx != st.paper_para and st.cur_paper is not None and st.cur_paper._.mlkg_rule == "paper.untitled_abstract"):
            st.cur_paper = None  # "the paper" refers to a paper of this paragraph or the one before
        # title prefix: "Name: Subtitle" introduces Name
        for p in papers:
            for t in things:
                if t.start_char == p.start_char and t.end_char < p.end_char:
                    add(p, "introduces", t, sent, "introduces.title_prefix", 0.9)
                    st.paper_methods.setdefault(norm(_canon(p)), []).append(t)
                    st.cur_method = t
        # untitled papers of abstracts: "In this paper, we propose X"
        m = _UNTITLED_CUE.search(text)
        if m and not papers:
            cue_end = sent.start_char + m.end()
            objs = [t for t in things if t.start_char >= cue_end and len(dtext[cue_end:t.start_char].split()) <= 6]
            if objs:
                pidx = para_of[sent.start]
                paper = st.untitled.get(pidx)
                known = st.paper_methods.get(norm(_canon(st.line_title)), []) if st.line_title is not None else []
                if paper is None and st.line_title is not None and pidx - st.line_title_para <= 3 and (
                        not known or any(norm(_canon(k)) == norm(_canon(objs[0])) for k in known)):
                    # "Title: ...\nAuthors: ...\nAbstract: We present X": the abstract of the titled entry above
                    paper = st.untitled[pidx] = st.line_title
                    st.line_title = None
                if paper is None and st.cur_paper is not None and st.paper_para == pidx and st.cur_paper._.mlkg_rule != "paper.untitled_abstract":
                    paper = st.cur_paper  # "... will share <Title>. We construct X ...": the paper named in this paragraph
                if paper is None:
                    paper = doc.char_span(sent.start_char + m.start(), cue_end, label="Paper", alignment_mode="expand")
                    paper._.mlkg_canonical = f"Paper introducing {_canon(objs[0])}"
                    paper._.mlkg_rule = "paper.untitled_abstract"
                    st.untitled[pidx] = paper
                    new_spans.append(paper)
                add(paper, "introduces", objs[0], sent, "introduces.we_propose", 0.85)
                st.paper_methods.setdefault(norm(_canon(paper)), []).append(objs[0])
                st.cur_paper, st.cur_method, st.paper_para = paper, objs[0], pidx
                continue
        # a teaser under a title line that names its method without "we propose": "PolyLoRA routes every token
        # ...", "The method, OccluAvatar, builds on ...": the first coined name the paragraph makes the subject
        # of a sentence, unless the title's paper already introduces something or the name is a known one
        lt = st.line_title
        if lt is not None and not papers and pidx - st.line_title_para == 1 and not st.paper_methods.get(norm(_canon(lt))) \
                and st.cur_paper is lt:
            lead = re.match(r"\s*(?:(?:The|This|Our)\s+(?:new\s+)?(?:method|model|approach|system|framework|technique|benchmark|dataset),\s+)?", text)
            first = [t for t in things if t.start_char == sent.start_char + lead.end() and norm(_canon(t)) not in known_names
                     and re.match(r"\s*(?:,\s*)?(?:is|was|are|uses|builds|extends|routes|learns|adds|combines|achieves|"
                                  r"reaches|runs|predicts|generates|improves|reduces|cuts|lets|turns|treats|models|maps|"
                                  r"replaces|adapts|trains|distils|distills|pairs|fuses|exploits|applies|introduces)\b",
                                  dtext[t.end_char:t.end_char + 20])]
            if first:
                add(lt, "introduces", first[0], sent, "introduces.teaser_subject", 0.7)
                st.paper_methods.setdefault(norm(_canon(lt)), []).append(first[0])
                st.cur_method = first[0]
        # "The method, OccluAvatar, builds on ...": the paper in focus names what it introduces
        am = re.match(r"\s*(?:The|This|Our)\s+(?:new\s+|proposed\s+)?(?:method|model|approach|system|framework|technique|benchmark|"
                      r"dataset|architecture|algorithm|optimizer),\s+", text)
        if am and not papers and st.cur_paper is not None and pidx - st.paper_para <= 1:
            named = [t for t in things if t.start_char == sent.start_char + am.end()]
            if named:
                add(st.cur_paper, "introduces", named[0], sent, "introduces.appositive_name", 0.75)
                st.paper_methods.setdefault(norm(_canon(st.cur_paper)), []).append(named[0])
                st.cur_method = named[0]
        # "a novel X" / "A new X" in an abstract whose paper is known
        pidx = para_of[sent.start]
        if pidx in st.untitled:
            for t in things:
                if _NOVEL.search(dtext[max(sent.start_char, t.start_char - 40):t.start_char]):
                    add(st.untitled[pidx], "introduces", t, sent, "introduces.novel", 0.75)
        # "The paper shares X", "which proposes X", "Called X, this technique"
        subj = papers[-1] if papers else (st.cur_paper if _PAPER_ANAPHOR.search(text) or re.search(r"\b(?:[Cc]alled|[Nn]amed|[Dd]ubbed)\b", text) else None)
        if subj is not None:
            for cm in _INTRO_CUE.finditer(text):
                cue_end = sent.start_char + cm.end()
                if negated(sent, subj.end_char if subj.start_char >= sent.start_char else sent.start_char, cue_end):
                    continue
                objs = [t for t in things if t.start_char >= cue_end and not (subj.start_char <= t.start_char < subj.end_char)]
                if objs:
                    add(subj, "introduces", objs[0], sent, "introduces.cue_verb", 0.8)
                    st.paper_methods.setdefault(norm(_canon(subj)), []).append(objs[0])
                    st.cur_method = objs[0]
                    break
            cm = re.search(r"\b(?:[Cc]alled|[Nn]amed|[Dd]ubbed)\s+", text)
            if cm and st.cur_paper is not None:
                objs = [t for t in things if t.start_char == sent.start_char + cm.end()]
                if objs:
                    add(st.cur_paper, "introduces", objs[0], sent, "introduces.called", 0.8)
                    st.paper_methods.setdefault(norm(_canon(st.cur_paper)), []).append(objs[0])

    # "SUBJECT <verb> OBJECT" by the dependency parse, bucketed by the sentence of the verb
    dep_by_sent: dict[int, list] = {}
    if getattr(finder, "dependency", None) is not None:
        starts = [s.start for s in sents]
        for relation, verb, subject, obj in finder.dependency(doc):
            k = bisect_left(starts, verb + 1) - 1
            if k >= 0:
                dep_by_sent.setdefault(starts[k], []).append((relation, verb, subject, obj))

    # pass 2: every other relation
    study_sents: dict[int, Span] = {}  # paragraph -> its first sentence that evaluates or benchmarks models
    st.cur_paper = st.cur_method = None
    prev_sent: Span | None = None
    for sent in sents:
        budget.check(doc, "the relation rules")
        ms = by_sent[sent.start]
        text = dtext[sent.start_char:sent.end_char]
        s0 = sent.start_char
        pidx = para_of[sent.start]
        papers = [m for m in ms if m.label_ == "Paper"] or ([st.untitled[pidx]] if pidx in st.untitled and _WE.search(text) else [])
        methods = [m for m in ms if m.label_ == "Method"]
        datasets = [m for m in ms if m.label_ == "Dataset"]
        venues = [m for m in ms if m.label_ == "Venue"]
        hardware = [m for m in ms if m.label_ == "Hardware"]
        orgs = [m for m in ms if m.label_ == "Organization"]
        if papers:
            st.cur_paper, st.paper_para = papers[-1], pidx
            intro = st.paper_methods.get(norm(_canon(papers[-1])))
            if intro:
                st.cur_method = intro[0]
        elif pidx - st.paper_para > 1 or (pidx != st.paper_para and st.cur_paper is not None
                                          and st.cur_paper._.mlkg_rule == "paper.untitled_abstract"):
            st.cur_paper = st.cur_method = None
        if pidx in st.untitled and not [m for m in ms if m.label_ == "Paper"]:
            st.cur_paper = st.untitled[pidx]
        anaphor_method = None
        if _METHOD_ANAPHOR.search(text) or re.match(r"\s*(?:It|They)\b|\s*[^,.;]{2,80},\s+(?:it|they)\s", text) or (
                (pm := re.search(r"\b(?:it|they)\b", text)) and not any(m.start_char < s0 + pm.start() for m in methods)
                and _subject_is_anaphor(sent)):  # "On X and Y it lifts accuracy": the pronoun before any method
            anaphor_method = st.cur_method
            if anaphor_method is None and st.cur_paper is not None:
                intro = st.paper_methods.get(norm(_canon(st.cur_paper)))
                # "it" stands for a method: a dataset the paper introduces is not what "it runs" or "it uses"
                anaphor_method = next((m for m in intro or [] if m.label_ == "Method"), None)

        # ---- venues: partOf
        confs = [v for v in venues if "Workshop" not in _canon(v) and not v._.mlkg_rule.startswith("venue.presented_at_list")
                 and v._.mlkg_rule in {"venue.acronym", "venue.long_name"}]
        shops = [v for v in venues if v not in confs]
        for w in shops:
            prefix = [c for c in confs if 0 <= w.start_char - c.end_char <= 2]
            after = [c for c in confs if c.start_char >= w.end_char]
            target = prefix[0] if prefix else (after[0] if after else None)
            if target is None and event_span is not None:
                target = event_span  # a workshop in a post about one conference is that conference's workshop
            if target is not None:
                add(w, "partOf", target, sent, "partOf.workshop_at_conference", 0.9)

        # ---- presentedAt
        present_cue = re.search(r"\b(?:present\w*|shar\w*|accepted|published|appear\w*|oral|spotlight|poster|highlight|selected)\b", text, re.I)
        prev_cue = prev_sent is not None and para_of.get(prev_sent.start) == pidx and re.search(
            r"\bwill\s+(?:also\s+)?(?:present|share)\b|\bpresented\s+at\b", dtext[prev_sent.start_char:prev_sent.end_char])
        for p in [m for m in ms if m.label_ == "Paper"]:
            paren = [v for v in venues if re.fullmatch(r"\s*\(", dtext[p.end_char:v.start_char])
                     and not re.search(r"\b(?:submission|submitted|under\s+review|preprint|rejected)\b",
                                       dtext[v.end_char:v.end_char + 40].split(")")[0], re.I)]
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
            if focus and _VENUE_PAPER.match(dtext[v.end_char:v.end_char + 12]) and re.search(
                    r"\b(?:[Oo]ur|[Tt]his|[Tt]he|[Aa]n?|[Ii]ts)\s+$", dtext[max(s0, v.start_char - 6):v.start_char]):
                add(focus[-1], "presentedAt", v, sent, "presentedAt.venue_paper", 0.8)
        # "The kernel ... will be presented at MLSys 2026", "The work will be presented at COLM 2026": a sentence
        # naming no paper, in the paragraph of a paper's teaser or abstract, says where that paper is presented
        if venues and st.cur_paper is not None and pidx - st.paper_para <= 1 and not [m for m in ms if m.label_ == "Paper"] \
                and _WILL_BE_PRESENTED.search(text) and not negated(sent, s0, venues[0].start_char):
            for v in venues:
                if v.start_char > s0 + _WILL_BE_PRESENTED.search(text).start():
                    add(st.cur_paper, "presentedAt", v, sent, "presentedAt.paper_in_focus", 0.75)
        # a venue line after a paper: ">> To appear at CoRL 2025", "Presented at the Workshop on ...",
        # "Research Track, accepted as an oral." (the document's event)
        venue_line = re.match(r"\s*(?:>+\s*|[-*•]\s*)?(?:(?:Comments?|Notes?|Venue)\s*:\s*(?:[^,;\n]*[,;]\s*)*)?"
                              r"(?:(?:This|The|Our)\s+(?:paper|work|study)\s+(?:was|is|will\s+be)\s+|Paper\s+)?(?i:to\s+appear|will\s+(?:be\s+presented|appear)|"
                              r"presented|accepted|published)\b|\s*Findings\s+of\b", text)
        track_line = re.match(r"\s*(?:[A-Z][\w-]*\s+){1,4}Track\b", text) and re.search(r"\b(?:accepted|oral|poster|spotlight)\b", text)
        line_venues = venues or ([event_span] if track_line and event_span is not None else [])
        if (venue_line or track_line) and line_venues and not [m for m in ms if m.label_ == "Paper"]:
            target = None
            if pidx in st.untitled:
                target = st.untitled[pidx]
            elif pidx - 1 in st.untitled and (prev_sent is None or para_of[prev_sent.start] != pidx) and (
                    not re.match(r"\s*This\s+paper\b", text) or _alone_in_paragraph(sent, dtext)):
                # a venue line of its own follows its abstract; "This paper was accepted at X." opening a paragraph
                # of more sentences is that paragraph's own abstract
                target = st.untitled[pidx - 1]
            elif st.last_titled is not None and pidx - st.last_titled_para <= 3:
                target = st.last_titled
            if target is not None:
                for v in line_venues:
                    add(target, "presentedAt", v, sent, "presentedAt.venue_line", 0.85)
        # "Paperweight will be presented at SIGGRAPH Asia 2024": a method stands for the paper that introduces it
        if venues and not [m for m in ms if m.label_ == "Paper"] and methods and re.search(
                r"\b(?:will\s+be\s+presented|is\s+(?:to\s+appear|accepted)|appears|was\s+accepted|will\s+appear)\s+(?:at|in|to)\b", text):
            for p, intro in st.paper_methods.items():
                if any(norm(_canon(m)) == norm(_canon(methods[0])) for m in intro):
                    paper = next((x for x in mentions if x.label_ == "Paper" and norm(_canon(x)) == p), None) or \
                        next((x for x in st.untitled.values() if norm(_canon(x)) == p), None)
                    for v in venues:
                        add(paper, "presentedAt", v, sent, "presentedAt.method_for_paper", 0.75)
                    break
        titled = [m for m in ms if m.label_ == "Paper"]
        if titled:
            st.last_titled, st.last_titled_para = titled[-1], pidx

        # ---- affiliatedWith
        aff_papers = [m for m in ms if m.label_ == "Paper"] or (
            [st.cur_paper] if st.cur_paper is not None and _PAPER_ANAPHOR.search(text) else [])
        joint = re.search(r"\b(?:joint\s+(?:research|work|project)|(?:a\s+)?collaboration|partnership)\s+(?:between|with)\s+", text)
        authors_line = re.match(r"\s*(?:Authors?|Affiliations?)\s*:", text)
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
                elif re.search(r"\b(?:researchers|scientists|collaborators|colleagues|authors|co-authors|teams?|partners)\s+"
                               r"(?:\w+\s+)?(?:from|at|of)\s+(?:the\s+)?$", before):
                    add(p, "affiliatedWith", o, sent, "affiliatedWith.colleagues_from", 0.7)
                elif joint and o.start_char >= s0 + joint.end():
                    add(p, "affiliatedWith", o, sent, "affiliatedWith.joint_work", 0.7)

        # ---- demos
        # (the cue words are rule data; "demonstrations" alone are also what a robot learns from: "learns 12 tasks
        # from 20 demonstrations")
        demo = cues["demo"].search(text)
        if not demo and st.demo_para == pidx and (methods or hardware) and re.match(
                r"\s*(?:The\s+(?:first|second|third|fourth|other|last|next)\b|Another\b|A\s+(?:second|third)\b|Visitors\b|Attendees\b)", text):
            demo = True  # "... two live demos at the booth. The first shows X running on a Pixel 10 Pro."
        if demo:
            venue = next((v for v in venues if v in confs), None) or event_span or (st.demo_venue if st.demo_para == pidx else None)
            st.demo_para, st.demo_venue = pidx, venue  # the demos that follow in this paragraph are at this venue
            # what a demoed method serves or runs is no demo of its own: "Kiln, which will serve Mixtral 8x22B"
            subjects = [m for m in methods if not re.search(r"\b(?:serves?|serving|runs?|running|uses|using|hosts?|hosting)\s+(?:the\s+|an?\s+)?$",
                                                            dtext[max(s0, m.start_char - 25):m.start_char])] or list(methods)
            for p in [m for m in ms if m.label_ == "Paper"]:
                subjects += st.paper_methods.get(norm(_canon(p)), [])[:1]
            if not subjects and re.search(r"\b(?:[Tt]his|[Tt]he|[Oo]ur)\s+(?:work|method|model|technique|system)\b|\bThis\s+demo\b", text):
                if anaphor_method is not None:
                    subjects = [anaphor_method]
            if not subjects and st.demo_method is not None:
                subjects = [st.demo_method]
            hedged = negated(sent, s0, sent.end_char)  # "We plan to bring the demo to ...": no demo yet
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
                    if re.search(r"(?:optimi[sz]ed|built|designed)\s+for\s+$", dtext[max(s0, h.start_char - 30):h.start_char]):
                        add(s, "runsOn", h, sent, "runsOn.built_for", 0.8)
                    elif re.search(r"\b(?:(?:pre-?)?trained|training)\s+(?:\w+\s+){0,3}?(?:on|using|with)\s+(?:an?\s+|the\s+)?(?:[\w,-]+\s+){0,3}$"
                                   r"|\bruns?\s+(?:at\s+[\w.,]+\s+(?:[\w-]+\s+){0,3})?on\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,2}$",
                                   dtext[max(s0, h.start_char - 60):h.start_char]) and not re.search(
                                       r"\b(?:demo|demos|it|visitors|attendees)\s+(?:\w+\s+){0,2}runs?\b", dtext[max(s0, h.start_char - 60):h.start_char], re.I):
                        # "The model is trained on eight A100 GPUs and runs at 24 fps on a Jetson, and attendees can
                        # try it live": what it was trained or measured on, not the demo's device ("The demo runs on X" is)
                        add(s, "runsOn", h, sent, "runsOn.on_hardware", 0.7)
                    else:
                        add(s, "demoedOn", h, sent, "demoedOn.demo_sentence", 0.75)
            if subjects:
                st.demo_method = subjects[0]
            if re.search(r"(?:including:?|:)\s*$", text):
                st.demo_list = True
        elif st.demo_list and prev_sent is not None and para_of[prev_sent.start] != pidx and not _LIST_HEAD.match(text):
            st.demo_list, st.demo_method = False, None
        elif st.demo_list:
            head = _LIST_HEAD.match(text)
            if head and pidx != para_of.get(prev_sent.start if prev_sent is not None else -1, -2) or head:
                hs = [m for m in methods if m.start_char < s0 + head.end(1) + 1] if head else []
                for p in [m for m in ms if m.label_ == "Paper" and m.start_char < s0 + (head.end(1) if head else 0)]:
                    hs += st.paper_methods.get(norm(_canon(p)), [])[:1]
                list_venue = event_span or st.demo_venue  # the document's event, else the venue the list's opening named
                if hs and list_venue is not None:
                    for s in hs:
                        add(s, "demoedAt", list_venue, sent, "demoedAt.demo_list_item", 0.75)
                    st.demo_method = hs[0]
                    for h in hardware:
                        add(hs[0], "demoedOn", h, sent, "demoedOn.demo_list_item", 0.7)
            elif not head and st.demo_method is None:
                st.demo_list = False
        if not demo and st.demo_list and st.demo_method is not None and hardware and re.search(r"\b(?:This\s+demo|demo)\b", text, re.I) is None:
            if _LIST_HEAD.match(text) is None and re.search(r"\b(?:showcase|shows?|running|viewing)\b", text):
                for h in hardware:
                    add(st.demo_method, "demoedOn", h, sent, "demoedOn.demo_list_item", 0.7)

        # ---- extends, outperforms, uses (method to method)
        for kind, pred, conf in (("extends", "extends", 0.8), ("outperforms", "outperforms", 0.8), ("uses", "uses", 0.7),
                                 ("outperformed_by", "outperforms", 0.75)):
            if not methods and not (datasets and kind == "extends"):
                continue  # every object below is one of these: without them no cue can yield a relation
            for cm in cues[kind].finditer(text):
                c_start, c_end = s0 + cm.start(), s0 + cm.end()
                objs = [m for m in methods + (datasets if kind == "extends" else []) if m.start_char >= c_end
                        and len(dtext[c_end:m.start_char].split()) <= (4 if kind != "extends" else 3)]
                if not objs:
                    continue
                obj = objs[0]
                # coordinated objects: "beats XMem and Cutie", "outperforms both PPO and ..."
                obj_list = [obj]
                for m in methods + (datasets if kind == "extends" else []):
                    if m.start_char > obj_list[-1].end_char and m.label_ == obj.label_ and re.fullmatch(
                            r",\s*|,?\s+(?:and|or)\s+(?:the\s+)?", dtext[obj_list[-1].end_char:m.start_char]):
                        obj_list.append(m)
                subs = [m for m in methods + (datasets if kind == "extends" else []) if m.end_char <= c_start]
                if kind == "extends":
                    subs = [m for m in subs if m.label_ == obj.label_]
                subj = subs[-1] if subs else None
                # the parse names the verb's own subject where one stands between: "X, which builds on Y,
                # outperforms Z" is about X, not about Y, the name nearest the cue
                parsed = [_mention_at(doc[sj], ms, {subj.label_} if subj is not None else {"Method"})
                          for rel, verb, sj, _ in dep_by_sent.get(sent.start, []) if rel == pred and c_start <= doc[verb].idx < c_end]
                if subj is not None and parsed and parsed[0] is not None and parsed[0] is not subj \
                        and parsed[0].end_char <= subj.start_char:
                    subj = parsed[0]
                clause_subj = _clause_subject(sent, methods, _introduced(st))
                if subj is not None and clause_subj is not None and clause_subj.end_char <= subj.start_char and \
                        re.search(r"\band\s+(?:\w+\s+)?$", dtext[subj.end_char:c_start]):
                    subj = clause_subj  # "MARLIN extends PPO with X and outperforms both PPO and Y": coordinated verbs
                if re.search(r"\b(?:[Ii]t|[Tt]hey|[Ii]ts\s+[\w-]+(?:\s+[\w-]+)?)\s+(?:[\w.]+\s+){0,2}$", dtext[max(s0, c_start - 40):c_start]):
                    # "..., and it outperforms X": the pronoun is the sentence's subject or the method in focus
                    subj = clause_subj or anaphor_method or subj
                if subj is None and (kind == "uses" or _subject_is_anaphor(sent)):
                    if kind == "uses" and re.match(r"\s*Using\b", text):
                        subj = st.cur_paper
                    elif anaphor_method is not None:
                        subj = anaphor_method  # "The method outperforms X"
                if subj is None:
                    continue
                if negated(sent, subj.end_char, obj.start_char):
                    continue
                for o in obj_list:
                    if kind == "outperformed_by":  # "Tansy-VL trails InternVL3-2B": the object is the better one
                        add(o, pred, subj, sent, "outperforms.outperformed_by", conf)
                    else:
                        add(subj, pred, o, sent, f"{pred}.cue", conf)

        # "S reaches a lower FID than O", "S achieves higher Recall@10 than both O1 and O2", "S agrees with people
        # more often than O": who is better depends on the metric (a lower FID is better, a lower accuracy worse)
        if methods and rules is not None:
            for cm in _COMPARATIVE.finditer(text):
                c_start, c_end = s0 + cm.start(), s0 + cm.end()
                if cm.group(1):
                    sign = _comparison_sign(cm.group(1), cm.group(2), rules.lower_is_better)
                else:  # "reduces temporal flicker by 38% compared with O", "reduces WER by 14% relative to O"
                    sign = _change_sign(cm.group(3), cm.group(4), rules.lower_is_better)
                objs = [m for m in methods if m.start_char >= c_end and len(dtext[c_end:m.start_char].split()) <= 2]
                subs = [m for m in methods if m.end_char <= c_start]
                subj = subs[-1] if subs else None
                if re.search(r"\b(?:[Ii]t|[Tt]hey)\s+(?:[\w.%@-]+\s+){0,6}$", dtext[max(s0, c_start - 60):c_start]) and anaphor_method is not None:
                    subj = anaphor_method
                if not sign or subj is None or not objs or negated(sent, subj.end_char if subj.end_char <= c_start else s0, objs[0].start_char):
                    continue
                obj_list = [objs[0]] + [m for m in methods if m.start_char > objs[0].end_char and re.fullmatch(
                    r",\s*|,?\s+(?:and|or)\s+(?:the\s+)?", dtext[objs[0].end_char:m.start_char])]
                for o in obj_list:
                    if sign > 0:
                        add(subj, "outperforms", o, sent, "outperforms.comparative", 0.7)
                    else:
                        add(o, "outperforms", subj, sent, "outperforms.comparative", 0.7)

        # the same relations read from the parse: "X, trained on far less data, clearly outperforms Y and Z"
        for relation, _verb, subject, obj in dep_by_sent.get(sent.start, []):
            labels = {"Method", "Dataset"} if relation == "extends" else {"Method"}
            subj = _mention_at(doc[subject], ms, labels)
            if subj is None and doc[subject].lower_ in {"it", "they"}:
                subj = anaphor_method
            if subj is None:
                continue
            for o_tok in (doc[obj], *doc[obj].conjuncts):
                o = _mention_at(o_tok, ms, {subj.label_} if relation == "extends" else labels)
                if o is not None and not negated(sent, min(subj.end_char, o.start_char), o.start_char):
                    add(subj, relation, o, sent, f"{relation}.dependency", 0.75)

        # "NeuralTide is a Fourier Neural Operator variant": the extended one named before the head noun
        if methods or datasets:
            for x in methods + datasets:
                before = dtext[max(s0, x.start_char - 40):x.start_char]
                after = dtext[x.end_char:x.end_char + 30]
                if not re.match(r"\s+(?:variant|extension|derivative|fork|adaptation)\b", after):
                    continue
                hm = re.search(r"(?:\s+(?:is|was|are)\s+|,\s+)(?:an?|the)\s+(?:[a-z][\w-]*\s+){0,2}$", before)
                if not hm:
                    continue
                subs = [m for m in methods + datasets if m.end_char <= x.start_char - len(before) + hm.start() + 1
                        and m.label_ == x.label_ and re.fullmatch(r"\s*", dtext[m.end_char:x.start_char - len(before) + hm.start()])]
                if subs and not negated(sent, subs[-1].end_char, x.start_char):
                    add(subs[-1], "extends", x, sent, "extends.named_variant", 0.75)

        if _STUDY.search(text):
            study_sents.setdefault(pidx, sent)

        # ---- evaluatedOn
        fronted = re.match(r"\s*(?:On|Across|Evaluated|Tested|Benchmarked|Measured|Measuring|Trained|Training|When|Applied\s+to)\b", text)
        if datasets and (cues["evaluated"].search(text) or fronted):
            clause_subj = _clause_subject(sent, methods, _introduced(st))
            study_list = False
            for d in datasets:
                if re.search(r"(?:introduc\w*|propos\w*|releas\w*|present\w*)\s+(?:\w+\s+){0,3}$", dtext[max(s0, d.start_char - 40):d.start_char]):
                    continue
                if _trained_not_evaluated(dtext[s0:d.start_char], cues["evaluated"]) and \
                        _EVALUATE_VERB.search(dtext[d.end_char:sent.end_char]):
                    continue  # "We pretrain X on LibriSpeech mixed with noise from MUSAN, and evaluate it on Y"
                subjects = []
                if fronted and clause_subj is not None and clause_subj.start_char > d.start_char:
                    subjects = [clause_subj]  # "Evaluated on X and Y, TAPO beats ...", "When training A on X, B reaches"
                elif fronted and anaphor_method is not None and _subject_is_anaphor(sent):
                    subjects = [anaphor_method]  # "Benchmarked on X and Y, it is 1.4x faster than Z"
                elif fronted and clause_subj is None:
                    # no usable parse: the main clause starts after the fronted phrase's last dataset
                    last = max(x.end_char for x in datasets)
                    after = [m for m in methods if m.start_char > last]
                    named = [m for m in after if norm(_canon(m)) in _introduced(st)]
                    subjects = (named or after)[:1]
                if not subjects:
                    subjects = _listed_before(dtext, methods, d)  # "we benchmarked CLIP and DINOv2 on X"
                if not subjects:
                    colon = [m for m in methods if m.start_char > d.end_char and re.match(r"\s*:", dtext[d.end_char:])]
                    subjects = colon  # "three encoders on X: A, B and C"
                if not subjects and anaphor_method is not None and _subject_is_anaphor(sent):
                    subjects = [anaphor_method]  # "It is benchmarked on X", "The student model is evaluated on X"
                if not subjects:
                    subs = [m for m in methods if m.end_char <= d.start_char]
                    subjects = subs[:1]
                if not subjects:
                    subjects = [m for m in methods if m.start_char > d.end_char
                                and re.fullmatch(r",?\s+(?:including|such\s+as|e\.g\.,?)\s+(?:[^.;:()]|\.(?=\d))*",
                                                 dtext[d.end_char:m.start_char])]  # "LLMs on X, including A and B"
                subj = subjects[0] if subjects else None
                if subj is None and re.match(r"\s*On\b", text):
                    after = [m for m in methods if m.start_char > d.end_char]
                    subj = after[0] if after else None
                if subj is None and re.match(r"\s*(?:It|They)\b", text):
                    subj = st.cur_method
                    if subj is None and st.cur_paper is not None and pidx - st.paper_para <= 1 \
                            and not st.paper_methods.get(norm(_canon(st.cur_paper))):
                        subj = st.cur_paper  # "It reports results on X" of a study that introduces nothing
                if subj is None:
                    ps = [m for m in ms if m.label_ == "Paper" and m.end_char <= d.start_char]
                    if ps:
                        subj = ps[-1]
                    elif _PAPER_ANAPHOR.search(text) and st.cur_paper is not None:
                        subj = st.cur_paper  # "The paper reports results on X"
                    elif (_WE.search(text) or re.search(r"\b[Tt]he\s+authors\b", text)) and pidx in st.untitled:
                        subj = st.untitled[pidx]
                    elif (_WE.search(text) or re.search(r"\b[Tt]he\s+authors\b", text)) and st.cur_paper is not None:
                        subj = st.cur_paper  # "We report J&F scores on X" in the paragraph of a titled paper
                    elif re.match(r"\s*(?:[-*•]\s*)?(?:\(\w\)\s*)?(?:[A-Z][\w&-]*\s+)?(?:Performance|Accuracy|Results|results|Experiments|Evaluations?)\b", text):
                        subj = st.cur_paper or st.cur_method  # "Experiments span X, Y and Z", "- FID results on X"
                if subj is not None and subj.label_ == "Paper":
                    # the subject is the method where one is named, else the paper
                    intro = [m for m in st.paper_methods.get(norm(_canon(subj)), []) if m.label_ == "Method"]
                    subj = intro[0] if intro else subj
                for s_ in (subjects if len(subjects) > 1 else [subj]):
                    if s_ is None or negated(sent, s_.end_char if s_.end_char <= d.start_char else s0, d.start_char):
                        continue
                    add(s_, "evaluatedOn", d, sent, "evaluatedOn.cue", 0.75)
                # a study comparing other people's models ("The authors benchmark A and B on X", "We compare A
                # and B on X") is evaluated on X itself: the paper in focus, when it introduces no method of its own
                # (a later dataset of the same list, "on A and B", counts with the first one's two subjects)
                study = st.untitled.get(pidx) or st.cur_paper
                study_list = study_list or len(subjects) >= 2
                if study_list and study is not None and study.label_ == "Paper" and (pidx - st.paper_para <= 1 or pidx in st.untitled) \
                        and not [m for m in st.paper_methods.get(norm(_canon(study)), []) if m.label_ == "Method"] \
                        and re.search(r"\b(?:[Ww]e|[Tt]he\s+authors|[Tt]his\s+(?:paper|study|work)|[Tt]he\s+(?:paper|study))\s+(?:then\s+|also\s+)?"
                                      r"(?:evaluate|benchmark|compare|test|measure|study|probe|assess|analy[sz]e)s?\b", text) \
                        and not any(norm(_canon(x)) in _introduced(st) for x in subjects) \
                        and not negated(sent, s0, d.start_char):
                    add(study, "evaluatedOn", d, sent, "evaluatedOn.study", 0.7)

        # ---- runsOn (outside demos)
        if hardware and not demo and not st.demo_list:
            for h in hardware:
                # "a single Inferentia2 chip serves 1,200 RGR queries per second": the device serves the method
                served = [m for m in methods if m.start_char > h.end_char and re.fullmatch(
                    r"(?:\s+(?:chips?|GPUs?|boards?|devices?))?\s+(?:serves|runs|processes|handles|executes)\s+(?:[\w,]+\s+){0,3}?",
                    dtext[h.end_char:m.start_char])]
                window = dtext[max(s0, h.start_char - 60):h.start_char]
                carried = [x for x in out if x[1] == "runsOn" and x[3] is sent and x[2].end_char <= h.start_char
                           and re.fullmatch(r"[\s\w-]*?\b(?:with|of|in|inside)\s+(?:an?\s+|the\s+)?(?:onboard\s+|integrated\s+|built-in\s+)?",
                                            dtext[x[2].end_char:h.start_char])]
                if carried:  # "on a DJI Matrice 350 drone with an onboard Jetson Orin NX": the same method
                    add(carried[-1][0], "runsOn", h, sent, "runsOn.device_with_chip", 0.7)
                    continue
                if not served and not re.search(r"\b(?i:on|for|using|used|with|across)\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,4}(?:(?:such\s+as|like|including)\s+(?:an?\s+|the\s+)?)?$", window):
                    continue
                subs = [m for m in methods if m.end_char <= h.start_char]
                subj_list = served[:1] or subs[:1]
                if not served and anaphor_method is not None and _subject_is_anaphor(sent) and (
                        not subs or re.search(r"\b(?:it|they)\b", dtext[subs[0].end_char:h.start_char])):
                    subj_list = [anaphor_method]  # "..., and it runs entirely on X": the method in focus
                if not subj_list and anaphor_method is not None:
                    subj_list = [anaphor_method]
                if not subj_list and re.match(r"\s*(?:\(\w\)\s*)?(?:Inference|Runtime|Latency|Training)\b", text):
                    subj_list = methods[:1]
                if not subj_list and re.match(r"\s*(?:On|Using|(?:Running|Deployed|Measured|Tested|Benchmarked|Evaluated|Pre-?trained|Trained|Fine-tuned)\s+on)\b", text):
                    # "On an NVIDIA Jetson AGX Orin, CTP reduces latency": the main clause's method
                    subj_list = [m for m in [_clause_subject(sent, methods, _introduced(st))] if m is not None] or \
                                [m for m in methods if m.start_char > h.end_char][:1]
                if not subj_list and not subs and st.cur_paper is not None and re.search(
                        r"\b(?:[Ee]xperiments|[Rr]esults|[Mm]easurements|[Bb]enchmarks|takes|took|minutes|hours|seconds|per\s+second|fps|"
                        r"[Ll]atency|[Ii]nference|[Tt]raining|trained|deployed|measured|[Pp]retraining)\b", text):
                    # "All experiments were run on TPU v5e pods", "Fitting a scene takes eight minutes on X":
                    # the method of the paper in focus
                    subj_list = [m for m in st.paper_methods.get(norm(_canon(st.cur_paper)), []) if m.label_ == "Method"][:1]
                for s in subj_list:
                    if negated(sent, s.end_char if s.end_char <= h.start_char else s0, h.start_char):
                        continue
                    add(s, "runsOn", h, sent, "runsOn.on_hardware", 0.7)
                    if s is not subs[:1]:
                        for u in methods:
                            if re.search(r"\busing\s+$", dtext[max(s0, u.start_char - 8):u.start_char]):
                                add(s, "uses", u, sent, "uses.using", 0.7)
        if methods and not demo:
            st.cur_method = st.cur_method if st.cur_method is not None else methods[0]
        prev_sent = sent

    # a post about one conference ("X at ICML 2026", the event named in its opening) presents the papers it
    # names: a titled paper that got no venue, with none named in its paragraph, is presented at the event
    if event_span is not None and event_span.start_char < 600:
        presented = {norm(_canon(x[0])) for x in out if x[1] == "presentedAt"}
        sent_chars = [x.start_char for x in sents]
        venue_paras = {para_of.get(sents[k].start) for m in mentions if m.label_ == "Venue"
                       and norm(_canon(m)) != norm(_canon(event_span)) and (k := _sentence_index(m, sents, sent_chars)) is not None}
        for p in mentions:
            if p.label_ != "Paper" or p._.mlkg_rule == "paper.untitled_abstract" or norm(_canon(p)) in presented:
                continue
            k = _sentence_index(p, sents, sent_chars)
            if k is None or para_of.get(sents[k].start) in venue_paras:
                continue
            add(p, "presentedAt", event_span, sents[k], "presentedAt.event_post", 0.6)
            presented.add(norm(_canon(p)))

    # a paper that releases a benchmark and evaluates models on it ("We release X ... and evaluate eleven
    # models", "The paper evaluates agents based on ...") is evaluated on its own benchmark
    for x in list(out):
        paper, pred, dataset, sent = x[0], x[1], x[2], x[3]
        if pred != "introduces" or dataset.label_ != "Dataset" or paper.label_ != "Paper" \
                or any(m.label_ == "Method" for m in st.paper_methods.get(norm(_canon(paper)), [])):
            continue
        pidx = para_of.get(sent.start)
        study = next((study_sents[k] for k in (pidx, pidx + 1 if pidx is not None else None) if k in study_sents), None)
        if study is not None:
            add(paper, "evaluatedOn", dataset, study, "evaluatedOn.own_benchmark", 0.65)

    if new_spans:
        group = doc.spans["mlkg_mentions"]
        for s in new_spans:
            group.append(s)
    return out
