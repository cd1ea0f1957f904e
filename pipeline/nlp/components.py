"""The mlkg spaCy components: paragraph boundaries, entity mentions, and relations between them.

Mentions go to ``doc.spans["mlkg_mentions"]`` with span labels equal to the ontology's class local
names and the canonical name in ``span._.mlkg_canonical``; relations go to ``doc._.mlkg_relations`` as
``(subject span, property local name, object span, sentence span, rule, confidence)`` tuples.

The rules themselves are one module per family: ``venues``, ``hardware``, ``organizations``, ``titles``,
``acronyms``, ``names`` (mentions, in that order of priority, by ``mentions``) and the ``relations`` package.
"""

from __future__ import annotations

import re

import numpy
from spacy.attrs import IDX, ORTH, SENT_START
from spacy.language import Language
from spacy.strings import get_string_id
from spacy.tokens import Doc

from . import budget
from .collector import fewer_collections
from .doc import MENTIONS_KEY, TEXT_KEY, doc_text, sentence_spans, sentence_starts
from .mentions import MentionFinder
from .occurrences import name_occurrences
from .rules import load_rules, norm
from .softwraps import soft_breaks
from .text import prefiltered
from .verbs import VerbFrames

__all__ = ["MENTIONS_KEY", "MentionFinder", "RelationFinder", "mark_paragraphs", "doc_text", "TEXT_KEY", "sentence_spans",
           "sentence_starts", "name_occurrences", "VerbFrames"]


_JOINS_NEXT = numpy.array(sorted(get_string_id(s) for s in (":", ",", ";", "(", "-", "–", "—")), dtype="uint64")
_LINE_BREAK = re.compile("\n")
_JOINS_PREVIOUS = numpy.array(sorted(get_string_id(s) for s in ("–", "—", ":")), dtype="uint64")


@Language.component("mlkg_paragraphs", assigns=["token.is_sent_start"])
def mark_paragraphs(doc: Doc) -> Doc:
    """Start a sentence after every line break, so no sentence crosses a paragraph or list item, but for the breaks
    of prose wrapped at a width (``softwraps``): the sentence goes on over them.

    A token followed by ":", "–" or "—", or itself one of ":,;(-–—", is not followed by a sentence start:
    "Title: Subtitle" and "Name – what it does" are one sentence. Read from arrays, since this runs in the
    parse's process, before the parser, on every token.
    """
    if len(doc) < 2:
        return doc
    text = doc_text(doc)
    arr = doc.to_array([IDX, ORTH])
    starts = arr[:, 0].astype("int64")
    soft = soft_breaks(text)
    lines = _crossed(starts, sorted(set(m.start() for m in _LINE_BREAK.finditer(text)) - set(soft)))
    wraps = _crossed(starts, soft)
    joins = numpy.isin(arr[:-1, 1], _JOINS_NEXT) | numpy.isin(arr[1:, 1], _JOINS_PREVIOUS)
    # set in one call: ``Token.is_sent_start`` checks the whole Doc's annotation on every assignment
    flags = doc.to_array([SENT_START]).astype("int32")
    flags[1:][(joins | wraps) & ~lines] = -1
    flags[1:][lines] = 1
    doc.from_array([SENT_START], flags.astype("int64").astype("uint64").reshape(-1, 1))
    return doc


def _crossed(starts: numpy.ndarray, breaks: list[int]) -> numpy.ndarray:
    """For each token but the first, whether one of the line ``breaks`` (offsets) stands in the token before it or
    the space after that one: the text from the token's start to the next token's."""
    if not breaks:
        return numpy.zeros(len(starts) - 1, dtype=bool)
    at = numpy.array(breaks, dtype="int64")
    return numpy.searchsorted(at, starts[1:]) > numpy.searchsorted(at, starts[:-1])


@Language.factory("mlkg_mentions", assigns=["doc.spans"], requires=["token.is_sent_start"])
def make_mention_finder(nlp: Language, name: str) -> "MentionFinder":
    return MentionFinder(nlp.tokenizer)

@Language.factory("mlkg_relations", assigns=["doc._.mlkg_relations"], requires=["doc.spans"])
def make_relation_finder(nlp: Language, name: str) -> "RelationFinder":
    return RelationFinder(nlp.vocab)


class RelationFinder:
    """Find relations between mentions from sentence-level cue patterns, the dependency parse and paragraph context."""

    def __init__(self, vocab=None) -> None:
        self.rules = load_rules()
        c = self.rules.cues
        # most sentences hold none of a cue's words: those are not scanned (the same matches, in less time)
        self.re = {k: prefiltered(re.compile(r"\b(?:" + v + r")\b", re.I)) for k, v in c.items() if k != "negation"}
        self.dependency = VerbFrames(vocab, self.rules.dependency_verbs) if vocab is not None else None
        self.known_names = frozenset(norm(n) for n in (*self.rules.known_methods, *self.rules.known_datasets))

    def __call__(self, doc: Doc) -> Doc:
        from .relations import find_relations

        budget.start(doc, doc_text(doc))
        with fewer_collections():
            doc._.mlkg_relations = find_relations(doc, self)
        return doc
