"""The mention pipeline: each rule family in order of priority, overlaps resolved, spans written to the Doc."""

from __future__ import annotations

import re
from dataclasses import replace

from spacy.tokens import Doc

from . import budget
from .collector import fewer_collections
from .acronyms import acronym_pairs, organization_acronyms
from .doc import MENTIONS_KEY, doc_text, sentence_spans, set_mention_values
from .hardware import hardware_mentions
from .lexicon import lexicon_hits, lexicon_matcher
from .names import name_candidates
from .organizations import organization_mentions
from .overlaps import resolve_overlaps, without_overlaps
from .rules import load_rules, norm
from .titles import paper_titles
from .venues import conference_mentions, fill_years, main_event, venue_lists, workshop_mentions

__all__ = ["MentionFinder"]


class MentionFinder:
    """Find mentions of the six classes of the knowledge model with rules over text and parse."""

    def __init__(self, tokenizer=None) -> None:
        self.rules = load_rules()
        self.lexicon = lexicon_matcher(tokenizer, self.rules) if tokenizer is not None else None

    def __call__(self, doc: Doc) -> Doc:
        with fewer_collections():
            return self._find(doc)

    def _find(self, doc: Doc) -> Doc:
        text = doc_text(doc)
        budget.start(doc, text)
        sentences = [(s.start_char, s.end_char) for s in sentence_spans(doc, text)]
        lexicon = lexicon_hits(self.lexicon, doc, text) if self.lexicon is not None else None
        rules = self.rules
        confs = conference_mentions(text, rules)
        # a long name and the acronym inside it are one mention: keep the longest
        confs.sort(key=lambda f: (f.start, -(f.end - f.start)))
        confs = resolve_overlaps(sorted(confs, key=lambda f: -(f.end - f.start)))
        workshops = workshop_mentions(text, rules, confs)
        # a conference prefix before a workshop name ("ICML 2019 Workshop on ...") stays a conference
        venues = resolve_overlaps(confs + sorted(workshops, key=lambda f: -(f.end - f.start)))
        venues += venue_lists(text, sentences, rules, venues)
        venues = fill_years(venues, doc)
        budget.check(doc, "the venue rules")
        hardware = resolve_overlaps(hardware_mentions(text, rules))
        orgs = organization_mentions(text, rules, lexicon)
        budget.check(doc, "the hardware and organization rules")
        orgs_affinity, org_acronyms = organization_acronyms(
            text, [f for f in orgs if f.rule in {"org.affinity_group", "org.institution"}])
        orgs_affinity.sort(key=lambda f: -(f.end - f.start))  # the longest name of an organization wins
        # a company named as the maker of a device is no research actor: "NVIDIA H100", "Google's TPU v5e"
        orgs_lex = [f for f in orgs if f.rule == "org.lexicon"
                    and not any(0 <= h.start - f.end <= 3 and re.fullmatch(r"(?:'s|’s)?\s*", text[f.end:h.start])
                                or h.start <= f.start < h.end for h in hardware)]
        titles = resolve_overlaps(sorted(paper_titles(text, sentences, rules), key=lambda f: -(f.end - f.start)))
        budget.check(doc, "the title rules")
        first = resolve_overlaps(venues + hardware + orgs_affinity)
        titles = without_overlaps(titles, first)
        pairs = acronym_pairs(text, rules)
        base = resolve_overlaps(first + titles)
        pairs = without_overlaps(pairs, base)
        budget.check(doc, "the acronym rules")
        names = name_candidates(doc, text, sentences, rules, base + pairs, titles, lexicon)
        budget.check(doc, "the name rules")
        # a long form the name rules show as a dataset is one, with its acronym: "the Free Music Archive (FMA)" in a
        # table's dataset column (an acronym pair is a method unless a dataset's head noun is in or after it)
        datasets = {norm(n.canonical) for n in names if n.cls == "Dataset"}
        pairs = [replace(p, cls="Dataset") if p.cls == "Method" and p.rule == "name.acronym_pair" and norm(p.canonical) in datasets
                 else p for p in pairs]  # (the long form first: "ARC (Adversarial Relative Contrast)" says what ARC is)
        # acronyms defined in this document name their long form wherever they occur alone
        acr_map = {norm(acr): f for acr, f in org_acronyms.items()}
        for p in pairs:
            if not p.generic:
                acr_map[norm(p.aliases[0])] = p
        names = [
            replace(n, cls=acr_map[norm(n.canonical)].cls, canonical=acr_map[norm(n.canonical)].canonical,
                    aliases=acr_map[norm(n.canonical)].aliases)
            if norm(n.canonical) in acr_map else n
            for n in names
        ]
        generic_keys = {norm(p.aliases[0]) for p in pairs if p.generic}
        names = [n for n in names if norm(n.canonical) not in generic_keys]
        # names derived from a title prefix nest inside the title
        nested = [n for n in names if any(t.start <= n.start and n.end <= t.end for t in titles)]
        mates = [f for f in orgs if f.rule == "org.list_mate"]  # "NTV, Rossiya and Nankai University": the others first
        allm = resolve_overlaps(base + sorted(pairs, key=lambda f: -(f.end - f.start)) + sorted(names, key=lambda f: -(f.end - f.start))
                                + orgs_lex + mates)
        allm += [n for n in nested if n.start == next(t.start for t in titles if t.start <= n.start and n.end <= t.end)]
        spans = []
        for f in sorted(allm, key=lambda f: (f.start, f.end, f.cls)):
            if f.generic:
                continue
            span = doc.char_span(f.start, f.end, label=f.cls, alignment_mode="expand")
            if span is None:
                continue
            surface = text[span.start_char:span.end_char]  # span.text, without joining its tokens
            key = norm(f.canonical)
            set_mention_values(span, f.canonical, tuple(a for a in f.aliases if a and norm(a) != key)
                               + ((surface,) if norm(surface) != key else ()), f.rule)
            spans.append(span)
        doc.spans[MENTIONS_KEY] = spans
        doc._.mlkg_event = main_event(venues)
        return doc
