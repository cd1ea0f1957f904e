"""Merging rules: pairs that must merge and pairs that must not."""

import pytest

from pipeline.model import Document, Evidence, Extraction, Mention
from pipeline.resolve import resolve
from pipeline.vocab import MLKG


def _m(doc_id, text, cls=MLKG.Method, canonical="", aliases=()):
    ev = Evidence(doc_id=doc_id, sentence=text, start_char=0, end_char=len(text))
    return Mention(doc_id=doc_id, text=text, cls=cls, start_char=0, end_char=len(text), evidence=ev,
                   canonical=canonical, aliases=tuple(aliases))


def _ex(doc_id, *mentions):
    from pathlib import Path

    return Extraction(document=Document(id=doc_id, path=Path(doc_id), text=""), mentions=tuple(mentions), relations=())


@pytest.mark.parametrize("a,b", [
    (_m("d1", "FlashAttention-2"), _m("d2", "FLASHATTENTION2")),
    (_m("d1", "Cut Cross-Entropy (CCE)", canonical="Cut Cross-Entropy", aliases=("CCE",)), _m("d1", "CCE")),
    (_m("d1", "ICLR", MLKG.Venue, canonical="ICLR 2025"),
     _m("d2", "Thirteenth International Conference on Learning Representations", MLKG.Venue, canonical="ICLR 2025")),
])
def test_resolve_merges(a, b):
    res = resolve([_ex("d1", a), _ex("d2", b)])
    assert len(res.entities) == 1
    assert res.entities[0].doc_ids == tuple(sorted({a.doc_id, b.doc_id}))


@pytest.mark.parametrize("a,b", [
    (_m("d1", "robust posterior estimation (RoPE)", canonical="robust posterior estimation", aliases=("RoPE",)),
     _m("d2", "rotary position embedding (RoPE)", canonical="rotary position embedding", aliases=("RoPE",))),
    (_m("d1", "MNIST", MLKG.Dataset), _m("d1", "MNIST", MLKG.Method)),
    (_m("d1", "ICLR 2025", MLKG.Venue, canonical="ICLR 2025"), _m("d1", "ICLR 2026", MLKG.Venue, canonical="ICLR 2026")),
])
def test_resolve_keeps_apart(a, b):
    res = resolve([_ex("d1", a), _ex("d2", b)])
    assert len(res.entities) == 2


def test_resolve_is_independent_of_document_order():
    exs = [_ex("d1", _m("d1", "TarFlowX"), _m("d1", "Masked Flows (MF)", canonical="Masked Flows", aliases=("MF",))),
           _ex("d2", _m("d2", "MF"), _m("d2", "TARFLOWX"))]
    forward, backward = resolve(exs), resolve(list(reversed(exs)))
    assert forward == backward
    assert {e.key for e in forward.entities} == {"Method/tarflowx", "Method/maskedflows"}


def test_resolve_merge_log_names_each_merged_form():
    res = resolve([_ex("d1", _m("d1", "GigaNet")), _ex("d2", _m("d2", "GIGANET"))])
    log = "\n".join(res.entities[0].merge_log)
    assert "'GigaNet'" in log and "'GIGANET'" in log and "d2" in log
