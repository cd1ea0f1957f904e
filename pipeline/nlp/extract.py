"""The spaCy boundary: a parsed Doc in, a plain Extraction out; nothing after this imports spaCy."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator

import numpy
from spacy.attrs import DEP, HEAD, SENT_START
from spacy.language import Language
from spacy.tokens import Doc, Span

from .. import config
from ..model import Document, Evidence, Extraction, Mention, RelationMention
from ..vocab import MLKG
from . import budget
from .components import MENTIONS_KEY, TEXT_KEY, doc_text, sentence_starts
from .doc import span_value

__all__ = ["extract", "extract_all", "RULE_COMPONENTS"]

RULE_COMPONENTS = ("mlkg_mentions", "mlkg_relations", "mlkg_learned")
"""The components that read the parse (a long document's pieces are parsed without them, and they run on the
joined Doc)."""

RUNAWAY_CHARS = 5_000
"""A stretch of text this long with no full stop, "!", "?" or line break is no sentence (the longest in the
bundled and test documents is 601 characters): a "sentence" of nested parentheses, hyphen chains or words alone.
The parser is not run on it (it would spend on each of its many tokens what it spends on a word of prose, for a
tree that means nothing); it is cut into sentences of :data:`RUNAWAY_SENTENCE` tokens, each a flat tree."""
RUNAWAY_SENTENCE = 12
"""About the length of the sentences the parser makes of a run of words with no punctuation (11 on average):
longer ones give the relation candidates, paired within a sentence, quadratically more pairs."""
_SENTENCE_END = re.compile(r"[.!?\n]")


def _evidence(doc_id: str, sent: Span, text: str, memo: dict) -> Evidence:
    key = (sent.start, sent.end)
    ev = memo.get(key)
    if ev is None:  # one Evidence per sentence, shared by its mentions and relations
        s0, s1 = sent.start_char, sent.end_char
        raw = text[s0:s1]
        start = s0 + (len(raw) - len(raw.lstrip()))
        end = s0 + len(raw.rstrip())
        ev = memo[key] = Evidence(doc_id=doc_id, sentence=text[start:end], start_char=start, end_char=end)
    return ev


def _sentence_of(span: Span, starts: list[int]) -> Span:
    """``span.sent`` (the sentence holding the span's first token), found by bisection in ``starts``."""
    k = bisect_right(starts, span.start) - 1
    doc = span.doc
    return doc[starts[k]:starts[k + 1] if k + 1 < len(starts) else len(doc)]


def _mention(doc_id: str, span: Span, text: str, memo: dict) -> Mention:
    """The Mention of ``span``: one per span (offsets and label) of the document, a relation's ends being
    mentions listed already."""
    start, end, label = span.start_char, span.end_char, span.label
    key = ("mention", start, end, label)
    found = memo.get(key)
    if found is not None:
        return found
    surface = text[start:end]  # Span.text, without joining the tokens again
    found = memo[key] = Mention(
        doc_id=doc_id,
        text=surface,
        cls=MLKG[span.label_],
        start_char=start,
        end_char=end,
        evidence=_evidence(doc_id, _sentence_of(span, memo["starts"]), text, memo),
        canonical=span_value(span, "mlkg_canonical", "") or surface,
        aliases=tuple(span_value(span, "mlkg_aliases", ())),
    )
    return found


def extract(document: Document, doc: Doc) -> Extraction:
    """Turn the annotations of a parsed document into an :class:`Extraction`."""
    text = doc_text(doc)
    memo: dict = {"starts": sentence_starts(doc)}
    mentions = tuple(sorted((_mention(document.id, s, text, memo) for s in doc.spans[MENTIONS_KEY]),
                            key=lambda m: (m.start_char, m.end_char, str(m.cls))))
    relations = tuple(
        RelationMention(
            subject=_mention(document.id, s, text, memo),
            predicate=MLKG[p],
            object=_mention(document.id, o, text, memo),
            evidence=_evidence(document.id, sent, text, memo),
            rule=rule,
            confidence=conf,
        )
        for s, p, o, sent, rule, conf in (doc._.mlkg_relations or [])
    )
    return Extraction(document=document, mentions=mentions, relations=relations)


def doc_of(nlp: Language, text: str, doc_id: str | None = None) -> Doc:
    """The tokenised Doc of ``text``, carrying the string itself so no component joins it from the tokens (and
    the document's id, so that a budget error names it)."""
    doc = nlp.make_doc(text)
    doc.user_data[TEXT_KEY] = text
    if doc_id is not None:
        doc.user_data[budget.DOC_ID_KEY] = doc_id
    return doc


def _pieces(text: str, size: int) -> list[str]:
    """``text`` cut into pieces of at most ``size`` characters, each ending after a paragraph break where there is
    one (else a line break, else a space; a piece with none of them is cut where it reaches ``size``)."""
    out, start, n = [], 0, len(text)
    while n - start > size:
        window = text[start:start + size]
        cut = next((k + len(sep) for sep in ("\n\n", "\n", " ") if (k := window.rfind(sep)) > 0), size)
        out.append(text[start:start + cut])
        start += cut
    out.append(text[start:])
    return out


def _runaways(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of the stretches of ``text`` longer than :data:`RUNAWAY_CHARS` with no sentence
    end; each starts after one (or at the text's start) and ends after the next one (or at the text's end)."""
    if len(text) <= RUNAWAY_CHARS:
        return []
    ends = [0, *(m.end() for m in _SENTENCE_END.finditer(text)), len(text)]
    return [(a, b) for a, b in zip(ends, ends[1:]) if b - a > RUNAWAY_CHARS]


def _flat(doc: Doc) -> Doc:
    """``doc`` (tokens only) cut into sentences of :data:`RUNAWAY_SENTENCE` tokens, each token's head the first
    token of its sentence: a parse made without the parser, in time linear in the tokens."""
    i = numpy.arange(len(doc), dtype="int64")
    first = i - i % RUNAWAY_SENTENCE
    root, dep = doc.vocab.strings.add("ROOT"), doc.vocab.strings.add("dep")
    parse = numpy.stack([first - i, numpy.where(i == first, root, dep).astype("int64"),
                         numpy.where(i == first, 1, -1)], axis=1)
    doc.from_array([HEAD, DEP, SENT_START], parse.astype("uint64"))
    return doc


def _parse_in_pieces(nlp: Language, document: Document, disable: list[str]) -> Doc:
    """The Doc of a long document, or of one holding runaway stretches (:func:`_runaways`): its pieces parsed
    apart (spaCy's ``max_length`` applies to each), a runaway stretch given a flat parse (:func:`_flat`), joined
    into one Doc whose offsets are the document's, then given to the rule components ``disable`` does not name."""
    rules = [n for n in RULE_COMPONENTS if n in nlp.pipe_names]
    text, cut, parts = document.text, 0, []
    for a, b in [*_runaways(text), (len(text), len(text))]:
        parts += [(doc_of(nlp, p), False) for p in _pieces(text[cut:a], config.PARSE_CHUNK_CHARS) if p]
        # spaCy's max_length holds for a flat stretch too: one longer than it is flattened in pieces
        parts += [(_flat(doc_of(nlp, p)), True) for p in _pieces(text[a:b], nlp.max_length) if p]
        cut = b
    parsed = iter(nlp.pipe([d for d, flat in parts if not flat], disable=[*disable, *rules]))
    docs = [d if flat else next(parsed) for d, flat in parts]
    width = max((d.tensor.shape[1] for d in docs if d.tensor.ndim == 2), default=0)
    for d, flat in zip(docs, (flat for _, flat in parts)):
        d.user_data.pop(TEXT_KEY, None)  # the joined Doc gets the whole text below; from_docs would warn with it
        if flat and width:  # from_docs joins the parser's token vectors too: zeros where there was no parser
            d.tensor = numpy.zeros((len(d), width), dtype="float32")
    doc = Doc.from_docs(docs, ensure_whitespace=False)
    doc.user_data[TEXT_KEY] = document.text
    doc.user_data[budget.DOC_ID_KEY] = document.id
    for name in rules:
        if name not in disable:
            doc = nlp.get_pipe(name)(doc)
    return doc


def _docs(nlp: Language, documents: list[Document], batch_size: int, disable: list[str]) -> Iterator[Doc]:
    """The parsed Doc of each of ``documents``, in order: ``nlp.pipe`` in batches, a long document in pieces."""
    run: list[Document] = []
    for document in [*documents, None]:
        if document is not None and len(document.text) <= config.PARSE_CHUNK_CHARS and not _runaways(document.text):
            run.append(document)
            continue
        if run:
            yield from nlp.pipe((doc_of(nlp, d.text, d.id) for d in run), batch_size=batch_size, disable=list(disable))
            run = []
        if document is not None:
            yield _parse_in_pieces(nlp, document, list(disable))


def _parse_one(nlp: Language, document: Document, disable: list[str]) -> Doc:
    if len(document.text) > config.PARSE_CHUNK_CHARS or _runaways(document.text):
        return _parse_in_pieces(nlp, document, list(disable))
    return nlp(doc_of(nlp, document.text, document.id), disable=list(disable))


def extract_all(nlp: Language, documents: Iterable[Document], batch_size: int = 16,
                on_error=None) -> Iterator[Extraction]:
    """Parse documents in batches with ``nlp.pipe`` and yield one Extraction each.

    A document whose parse raises is reported through ``on_error(document, exc)`` and skipped.
    """
    return _each_parsed(nlp, documents, batch_size, on_error, extract)


def _each_parsed(nlp: Language, documents: Iterable[Document], batch_size: int, on_error, finish,
                 disable: list[str] = ()) -> Iterator:
    """``finish(document, doc)`` for each document parsed by ``nlp.pipe`` (without the components ``disable``
    names) in batches; after a batch whose parse raises, the rest one by one, each failure told to ``on_error``."""
    docs = list(documents)
    done: set[str] = set()
    while True:
        rest = [d for d in docs if d.id not in done]
        try:
            for document, doc in zip(rest, _docs(nlp, rest, batch_size, list(disable))):
                result = finish(document, doc)
                done.add(document.id)
                yield result
            return
        except budget.BudgetExceeded as exc:  # that document is skipped, the others parsed in batches again
            if on_error is None or exc.doc_id not in {d.id for d in rest}:
                raise
            over = next(d for d in rest if d.id == exc.doc_id)
            on_error(over, exc)
            done.add(over.id)
        except Exception:  # one bad document must not stop the others: redo the rest one by one
            if on_error is None:
                raise
            break
    for document in docs:
        if document.id in done:
            continue
        try:
            result = finish(document, _parse_one(nlp, document, list(disable)))
        except Exception as exc:  # noqa: BLE001
            on_error(document, exc)
            continue
        yield result
