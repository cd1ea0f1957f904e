"""Relations read from the whole document once its sentences are read."""

from __future__ import annotations

from ..discourse import canon
from ..doc import span_value
from ..rules import norm
from .common import sentence_index
from .reader import Reader

__all__ = ["event_post", "own_benchmark"]


def event_post(rd: Reader) -> None:
    """A post about one conference presents the titled papers it names that got no venue."""
    mentions, sents, para_of, event_span, out, add = rd.mentions, rd.sents, rd.para_of, rd.event_span, rd.out, rd.add
    # a post about one conference ("X at ICML 2026", the event named in its opening) presents the papers it
    # names: a titled paper that got no venue, with none named in its paragraph, is presented at the event
    if event_span is not None and event_span.start_char < 600:
        presented = {norm(canon(x[0])) for x in out if x[1] == "presentedAt"}
        sent_chars = [x.start_char for x in sents]
        venue_paras = {para_of.get(sents[k].start) for m in mentions if m.label_ == "Venue"
                       and norm(canon(m)) != norm(canon(event_span)) and (k := sentence_index(m, sents, sent_chars)) is not None}
        for p in mentions:
            if p.label_ != "Paper" or span_value(p, "mlkg_rule", "") == "paper.untitled_abstract" or norm(canon(p)) in presented:
                continue
            k = sentence_index(p, sents, sent_chars)
            if k is None or para_of.get(sents[k].start) in venue_paras:
                continue
            add(p, "presentedAt", event_span, sents[k], "presentedAt.event_post", 0.6)
            presented.add(norm(canon(p)))



def own_benchmark(rd: Reader) -> None:
    """A paper that releases a benchmark and evaluates models is evaluated on its own benchmark."""
    para_of, out, st, study_sents, add = rd.para_of, rd.out, rd.st, rd.study_sents, rd.add
    # a paper that releases a benchmark and evaluates models on it ("We release X ... and evaluate eleven
    # models", "The paper evaluates agents based on ...") is evaluated on its own benchmark
    for x in list(out):
        paper, pred, dataset, sent = x[0], x[1], x[2], x[3]
        if pred != "introduces" or dataset.label_ != "Dataset" or paper.label_ != "Paper" \
                or any(m.label_ == "Method" for m in st.paper_methods.get(norm(canon(paper)), [])):
            continue
        pidx = para_of.get(sent.start)
        study = next((study_sents[k] for k in (pidx, pidx + 1 if pidx is not None else None) if k in study_sents), None)
        if study is not None:
            add(paper, "evaluatedOn", dataset, study, "evaluatedOn.own_benchmark", 0.65)
