"""Relation rules: sentence-level cue patterns between mentions, with paragraph context for "the paper", "this work"."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

from spacy.tokens import Doc, Span

from .rules import norm

__all__ = ["find_relations"]

_PAPER_ANAPHOR = re.compile(r"\b(?:[Tt]he|[Tt]his|[Oo]ur)\s+(?:paper|work|study|report)\b")
_METHOD_ANAPHOR = re.compile(r"\b(?:[Tt]his|[Tt]he|[Oo]ur)\s+(?:new\s+)?(?:method|approach|technique|model|framework|work|architecture|optimizer|paper)\b|\bthis\s+work\b")
_WE = re.compile(r"\b(?:[Ww]e|[Ii]n\s+this\s+(?:paper|work))\b")
_UNTITLED_CUE = re.compile(
    r"\b(?:[Ww]e|[Tt]his\s+(?:paper|work))\s+(?:\w+\s+){0,5}?(?:propose|proposes|introduce|introduces|present|presents|presenting|develop|develops|describe|describes|release|releases)\b"
)
_INTRO_CUE = re.compile(
    r"\b(?:propos\w*|introduc\w*|present\w*|describ\w*|shares?|sharing|releas\w*|develop\w*|details|unveil\w*)\b"
)
_NOVEL = re.compile(r"\b(?:[Aa]n?)\s+(?:novel|new)\s+(?:[\w-]+\s+){0,1}$")
_LIST_HEAD = re.compile(r"^\s*(?:[-•*]\s*)?(.{2,90}?)(?::\s|\s+[–—]\s+)")


@dataclass
class _State:
    cur_paper: Span | None = None
    paper_para: int = -10
    cur_method: Span | None = None
    demo_method: Span | None = None
    demo_list: bool = False
    paper_methods: dict = field(default_factory=dict)  # norm(paper canonical) -> [method spans]
    untitled: dict = field(default_factory=dict)  # paragraph index -> paper span


def _canon(span: Span) -> str:
    return span._.mlkg_canonical or span.text


def _between(dtext: str, a: int, b: int) -> str:
    return dtext[min(a, b):max(a, b)]


def find_relations(doc: Doc, finder) -> list[tuple]:
    """All relations in ``doc`` as ``(subject, property, object, sentence, rule, confidence)``."""
    cues, negation = finder.re, finder.negation
    dtext = doc.text  # Doc.text rebuilds the string on every access: read it once
    mentions = sorted(doc.spans["mlkg_mentions"], key=lambda s: (s.start_char, s.end_char))
    sents = [s for s in doc.sents if s.text.strip()]
    para_of = {}
    para = 0
    prev_end = 0
    for s in sents:
        first_char = s.start_char + (len(s.text) - len(s.text.lstrip()))
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
        key = (s.label_, norm(_canon(s)), p, o.label_, norm(_canon(o)))
        if key in seen:
            return
        seen.add(key)
        out.append((s, p, o, sent, rule, conf))

    def negated(sent: Span, a: int, b: int) -> bool:
        return bool(negation.search(_between(dtext, a, b)))

    st = _State()
    new_spans: list[Span] = []

    # pass 1: papers and what they introduce
    for sent in sents:
        ms = by_sent[sent.start]
        text = sent.text
        papers = [m for m in ms if m.label_ == "Paper"]
        things = [m for m in ms if m.label_ in {"Method", "Dataset"}]
        pidx = para_of[sent.start]
        if papers:
            st.cur_paper, st.paper_para = papers[-1], pidx
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

    # pass 2: every other relation
    st.cur_paper = st.cur_method = None
    prev_sent: Span | None = None
    for sent in sents:
        ms = by_sent[sent.start]
        text = sent.text
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
        if _METHOD_ANAPHOR.search(text) or re.match(r"\s*(?:It|They)\b", text):
            anaphor_method = st.cur_method
            if anaphor_method is None and st.cur_paper is not None:
                intro = st.paper_methods.get(norm(_canon(st.cur_paper)))
                anaphor_method = intro[0] if intro else None

        # ---- venues: partOf
        confs = [v for v in venues if "Workshop" not in _canon(v) and not v._.mlkg_rule.startswith("venue.presented_at_list")
                 and v._.mlkg_rule in {"venue.acronym", "venue.long_name"}]
        shops = [v for v in venues if v not in confs]
        for w in shops:
            prefix = [c for c in confs if 0 <= w.start_char - c.end_char <= 2]
            after = [c for c in confs if c.start_char >= w.end_char]
            target = prefix[0] if prefix else (after[0] if after else None)
            if target is None and event_span is not None and re.search(r"\bat\s+(?:the\s+)?(?:main\s+)?conference\b", text):
                target = event_span
            if target is not None:
                add(w, "partOf", target, sent, "partOf.workshop_at_conference", 0.9)

        # ---- presentedAt
        present_cue = re.search(r"\b(?:present\w*|shar\w*|accepted|published|appear\w*|oral|spotlight|poster)\b", text, re.I)
        prev_cue = prev_sent is not None and para_of.get(prev_sent.start) == pidx and re.search(
            r"\bwill\s+(?:also\s+)?(?:present|share)\b|\bpresented\s+at\b", prev_sent.text)
        for p in [m for m in ms if m.label_ == "Paper"]:
            if not (present_cue or prev_cue):
                continue
            if venues:
                for v in venues:
                    add(p, "presentedAt", v, sent, "presentedAt.same_sentence", 0.9)
            elif event_span is not None:
                add(p, "presentedAt", event_span, sent, "presentedAt.document_event", 0.75)
        if venues and re.match(r"\s*(?:This\s+paper\s+was\s+)?(?:Presented|Accepted|Published|presented|accepted|published)\b", text):
            target = None
            if pidx in st.untitled:
                target = st.untitled[pidx]
            elif pidx - 1 in st.untitled and not re.match(r"\s*This\s+paper\b", text):
                target = st.untitled[pidx - 1]
            if target is not None:
                for v in venues:
                    add(target, "presentedAt", v, sent, "presentedAt.venue_line", 0.85)

        # ---- affiliatedWith
        for p in [m for m in ms if m.label_ == "Paper"]:
            for o in orgs:
                if re.search(re.escape(o.text) + r"\s+(?:\w+\s+){0,2}(?:researchers|scientists|paper|authors)", text):
                    add(p, "affiliatedWith", o, sent, "affiliatedWith.org_researchers", 0.7)

        # ---- demos
        demo = re.search(r"\b(?:demo|demos|demonstrations?|booth|showcase)\b", text, re.I)
        if demo:
            venue = next((v for v in venues if v in confs), None) or event_span
            subjects = list(methods)
            for p in [m for m in ms if m.label_ == "Paper"]:
                subjects += st.paper_methods.get(norm(_canon(p)), [])[:1]
            if not subjects and re.search(r"\bthis\s+(?:work|method|model|technique)\b|\bThis\s+demo\b", text):
                if anaphor_method is not None:
                    subjects = [anaphor_method]
            if not subjects and st.demo_method is not None:
                subjects = [st.demo_method]
            for s in subjects:
                if venue is not None and not negated(sent, s0, sent.end_char):
                    add(s, "demoedAt", venue, sent, "demoedAt.demo_sentence", 0.8)
                for h in hardware:
                    # with several demoed methods, a device belongs to the one named nearest to it
                    nearest = min(subjects, key=lambda x: abs(x.start_char - h.start_char) if x.doc is doc else 10**9)
                    if len(subjects) > 1 and nearest is not s:
                        continue
                    if re.search(r"(?:optimi[sz]ed|built|designed)\s+for\s+$", dtext[max(s0, h.start_char - 30):h.start_char]):
                        add(s, "runsOn", h, sent, "runsOn.built_for", 0.8)
                    else:
                        add(s, "demoedOn", h, sent, "demoedOn.demo_sentence", 0.75)
            if subjects:
                st.demo_method = subjects[0]
            if re.search(r"including:?\s*$", text):
                st.demo_list = True
        elif st.demo_list and prev_sent is not None and para_of[prev_sent.start] != pidx and not _LIST_HEAD.match(text):
            st.demo_list, st.demo_method = False, None
        elif st.demo_list:
            head = _LIST_HEAD.match(text)
            if head and pidx != para_of.get(prev_sent.start if prev_sent is not None else -1, -2) or head:
                hs = [m for m in methods if m.start_char < s0 + head.end(1) + 1] if head else []
                for p in [m for m in ms if m.label_ == "Paper" and m.start_char < s0 + (head.end(1) if head else 0)]:
                    hs += st.paper_methods.get(norm(_canon(p)), [])[:1]
                if hs and event_span is not None:
                    for s in hs:
                        add(s, "demoedAt", event_span, sent, "demoedAt.demo_list_item", 0.75)
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
        for kind, pred, conf in (("extends", "extends", 0.8), ("outperforms", "outperforms", 0.8), ("uses", "uses", 0.7)):
            for cm in cues[kind].finditer(text):
                c_start, c_end = s0 + cm.start(), s0 + cm.end()
                objs = [m for m in methods + (datasets if kind == "extends" else []) if m.start_char >= c_end
                        and len(dtext[c_end:m.start_char].split()) <= (4 if kind != "extends" else 3)]
                if not objs:
                    continue
                obj = objs[0]
                subs = [m for m in methods + (datasets if kind == "extends" else []) if m.end_char <= c_start]
                if kind == "extends":
                    subs = [m for m in subs if m.label_ == obj.label_]
                subj = subs[-1] if subs else None
                if subj is None and kind == "uses":
                    if re.match(r"\s*Using\b", text):
                        subj = st.cur_paper
                    elif anaphor_method is not None:
                        subj = anaphor_method
                if subj is None:
                    continue
                if negated(sent, subj.end_char, obj.start_char):
                    continue
                add(subj, pred, obj, sent, f"{pred}.cue", conf)

        # ---- evaluatedOn
        if datasets and cues["evaluated"].search(text):
            for d in datasets:
                if re.search(r"(?:introduc\w*|propos\w*|releas\w*|present\w*)\s+(?:\w+\s+){0,3}$", dtext[max(s0, d.start_char - 40):d.start_char]):
                    continue
                subs = [m for m in methods if m.end_char <= d.start_char]
                subj = subs[0] if subs else None
                if subj is None and re.match(r"\s*On\b", text):
                    after = [m for m in methods if m.start_char > d.end_char]
                    subj = after[0] if after else None
                if subj is None and re.match(r"\s*(?:It|They)\b", text):
                    subj = st.cur_method
                if subj is None:
                    ps = [m for m in ms if m.label_ == "Paper" and m.end_char <= d.start_char]
                    if ps:
                        subj = ps[-1]
                    elif _WE.search(text) and pidx in st.untitled:
                        subj = st.untitled[pidx]
                    elif re.match(r"\s*(?:\(\w\)\s*)?(?:Performance|Accuracy|Results)\b", text) and st.cur_method is not None:
                        subj = st.cur_method
                if subj is None or negated(sent, subj.end_char if subj.end_char <= d.start_char else s0, d.start_char):
                    continue
                add(subj, "evaluatedOn", d, sent, "evaluatedOn.cue", 0.75)

        # ---- runsOn (outside demos)
        if hardware and not demo and not st.demo_list:
            for h in hardware:
                window = dtext[max(s0, h.start_char - 60):h.start_char]
                if not re.search(r"\b(?:on|for)\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,3}$", window):
                    continue
                subs = [m for m in methods if m.end_char <= h.start_char]
                subj_list = subs[:1]
                if not subj_list and anaphor_method is not None:
                    subj_list = [anaphor_method]
                if not subj_list and re.match(r"\s*(?:\(\w\)\s*)?(?:Inference|Runtime|Latency|Training)\b", text):
                    subj_list = methods[:1]
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

    if new_spans:
        group = doc.spans["mlkg_mentions"]
        for s in new_spans:
            group.append(s)
    return out
