"""What every rule reads of a Doc: its text (kept once), its sentences (read from one array), the mentions' key."""

from __future__ import annotations

import numpy
from spacy.attrs import SENT_START
from spacy.tokens import Doc, Span

__all__ = ["MENTIONS_KEY", "TEXT_KEY", "doc_text", "sentence_starts", "sentence_spans", "span_value", "set_mention_values"]

MENTIONS_KEY = "mlkg_mentions"
TEXT_KEY = "mlkg_text"
_STARTS_KEY = "mlkg_sentence_starts"

if not Doc.has_extension("mlkg_relations"):
    Doc.set_extension("mlkg_relations", default=None)
if not Doc.has_extension("mlkg_event"):
    Doc.set_extension("mlkg_event", default=None)
for _name, _default in (("mlkg_canonical", ""), ("mlkg_aliases", ()), ("mlkg_rule", "")):
    if not Span.has_extension(_name):
        Span.set_extension(_name, default=_default)


def _read_direct(span: Span, name: str, default):
    return span.doc.user_data.get(("._.", name, span.start_char, span.end_char), default)


def _read_underscore(span: Span, name: str, default):
    return getattr(span._, name)


def _keyed_by_offsets() -> bool:
    """Whether spaCy keeps a span's extension values in ``doc.user_data`` under ``("._.", name, start_char,
    end_char)``, as spaCy 3 does (checked once, on a Doc of two words)."""
    from spacy.vocab import Vocab

    doc = Doc(Vocab(), words=["a", "b"])
    doc[1:2]._.mlkg_rule = "probe"
    return doc.user_data.get(("._.", "mlkg_rule", 2, 3)) == "probe" and _read_direct(doc[1:2], "mlkg_rule", "") == "probe"


span_value = _read_direct if _keyed_by_offsets() else _read_underscore
span_value.__doc__ = """``span._.<name>`` (``default`` when unset: the extension's default, an immutable one): read from
``doc.user_data`` where spaCy keeps it, without the ``Underscore`` object each ``span._`` builds (the relation
rules and the extraction read these tens of thousands of times)."""


def _write_direct(span: Span, canonical: str, aliases: tuple[str, ...], rule: str) -> None:
    data, a, b = span.doc.user_data, span.start_char, span.end_char
    data[("._.", "mlkg_canonical", a, b)] = canonical
    data[("._.", "mlkg_aliases", a, b)] = aliases
    data[("._.", "mlkg_rule", a, b)] = rule


def _write_underscore(span: Span, canonical: str, aliases: tuple[str, ...], rule: str) -> None:
    ext = span._  # one Underscore for the three values (each ``span._`` builds one)
    ext.mlkg_canonical, ext.mlkg_aliases, ext.mlkg_rule = canonical, aliases, rule


set_mention_values = _write_direct if span_value is _read_direct else _write_underscore
set_mention_values.__doc__ = """Set a mention span's ``span._.mlkg_canonical``, ``mlkg_aliases`` and ``mlkg_rule``: written to
``doc.user_data`` where spaCy keeps them (:data:`span_value`), without the ``Underscore`` object ``span._`` builds
and the checks of its ``__setattr__`` (the mention rules and the trained decision write three per mention)."""


def doc_text(doc: Doc) -> str:
    """``doc.text``, joined from the tokens once per Doc and kept in ``doc.user_data``.

    ``Doc.text`` joins every token's text on each access; the rules read the text in three components.
    ``extract_all`` puts the document's own string there before the parse, so it is never joined at all.
    """
    text = doc.user_data.get(TEXT_KEY)
    if text is None:
        text = doc.user_data[TEXT_KEY] = doc.text
    return text


def sentence_starts(doc: Doc) -> list[int]:
    """The first token of every sentence, as ``Doc.sents`` splits them.

    Read from one array: ``Doc.sents`` and ``Span.sent`` each check the annotation by iterating the Doc's
    tokens as Python objects, which cost the rules more than all their regular expressions together.
    """
    if not len(doc):
        return []
    got = doc.user_data.get(_STARTS_KEY)
    if got is not None and got[0] == len(doc):
        return got[1]
    flags = doc.to_array([SENT_START])
    starts = [0, *(numpy.flatnonzero(flags[1:] == 1) + 1).tolist()]
    if doc.has_annotation("DEP"):  # final once parsed: the rule components read them four times
        doc.user_data[_STARTS_KEY] = (len(doc), starts)
    return starts


def sentence_spans(doc: Doc, text: str) -> list[Span]:
    """The sentences of ``doc`` that hold more than whitespace, in order (``text`` is ``doc.text``)."""
    starts = sentence_starts(doc)
    out = []
    for a, b in zip(starts, [*starts[1:], len(doc)]):
        sent = doc[a:b]
        if text[sent.start_char:sent.end_char].strip():
            out.append(sent)
    return out
