"""Compact facts: an Extraction as plain tuples, and back. The storage format of the cache's entries, the
spill file of a large build and the state of an incremental rebuild (quick to pickle, small)."""

from __future__ import annotations

from .model import Document, Evidence, Extraction, Mention, RelationMention

__all__ = ["compact", "expand", "mentions_of"]


def compact(ex: Extraction) -> tuple:
    """The facts of ``ex`` as plain tuples: ``(evidences, mentions, relations)``.

    ``evidences``: ``(sentence, start, end)``; a mention: ``(cls, text, start, end, evidence index, canonical,
    aliases)``; a relation: ``(subject mention, predicate, object mention, evidence index, rule, confidence)``.
    The document id is the Extraction's (every mention and evidence of an Extraction is of its document).
    """
    doc_id = ex.document.id
    evs: dict[tuple, int] = {}

    def ev(e: Evidence) -> int:
        if e.doc_id != doc_id:
            raise ValueError(f"evidence of {e.doc_id!r} in the extraction of {doc_id!r}")
        k = (e.sentence, e.start_char, e.end_char)
        i = evs.get(k)
        if i is None:
            i = evs[k] = len(evs)
        return i

    def men(m: Mention) -> tuple:
        if m.doc_id != doc_id:
            raise ValueError(f"mention of {m.doc_id!r} in the extraction of {doc_id!r}")
        return (str(m.cls), m.text, m.start_char, m.end_char, ev(m.evidence), m.canonical, tuple(m.aliases))

    mentions = tuple(men(m) for m in ex.mentions)
    relations = tuple((men(r.subject), str(r.predicate), men(r.object), ev(r.evidence), r.rule, r.confidence)
                      for r in ex.relations)
    return (tuple(evs), mentions, relations)


_URIS: dict = {}


def _uri(s: str):
    u = _URIS.get(s)
    if u is None:
        from rdflib import URIRef

        u = _URIS[s] = URIRef(s)
    return u


def expand(document: Document, facts: tuple) -> Extraction:
    """The Extraction of ``document`` from its compact ``facts`` (the inverse of :func:`compact`)."""
    evs_t, ms, rs = facts
    d = document.id
    evs = [Evidence(doc_id=d, sentence=s, start_char=a, end_char=b) for s, a, b in evs_t]

    def men(m: tuple) -> Mention:
        cls, text, a, b, e, can, al = m
        return Mention(doc_id=d, text=text, cls=_uri(cls), start_char=a, end_char=b, evidence=evs[e],
                       canonical=can, aliases=al)

    return Extraction(document=document, mentions=tuple(men(m) for m in ms),
                      relations=tuple(RelationMention(subject=men(s), predicate=_uri(p), object=men(o),
                                                      evidence=evs[e], rule=rule, confidence=conf)
                                      for s, p, o, e, rule, conf in rs))


def mentions_of(facts: tuple):
    """Every compact mention of ``facts``: the mentions, then each relation's subject and object."""
    _, ms, rs = facts
    yield from ms
    for s, _, o, *_ in rs:
        yield s
        yield o
