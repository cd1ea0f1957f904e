"""Stage tests from hand-made extractions, without spaCy: the one name table under the in-memory and the
streamed renderers gives the same graph.ttl and merges.json bytes."""

from pathlib import Path

from pipeline import rdf, write
from pipeline.facts import compact
from pipeline.model import Document, Evidence, Extraction, Mention, RelationMention
from pipeline.resolve import resolve
from pipeline.stream import Spill, StreamResolver
from pipeline.vocab import MLKG


def _doc(doc_id: str, text: str, spans: list[tuple], relations: list[tuple]) -> Extraction:
    """``spans``: (surface, class, canonical, aliases); ``relations``: (subject index, predicate, object index)."""
    ev = Evidence(doc_id, text, 0, len(text))
    ms = []
    for surface, cls, canonical, aliases in spans:
        start = text.index(surface)
        ms.append(Mention(doc_id, surface, cls, start, start + len(surface), ev, canonical, aliases))
    rs = tuple(RelationMention(ms[s], p, ms[o], ev, "test.rule", 0.75) for s, p, o in relations)
    return Extraction(Document(doc_id, Path(doc_id), text), tuple(ms), rs)


EXTRACTIONS = [
    _doc("a.txt", "We introduce Masked Flows (MF), which outperforms GigaNet on CIFAR-10 at ICLR 2025.",
         [("Masked Flows (MF)", MLKG.Method, "Masked Flows", ("MF",)), ("GigaNet", MLKG.Method, "", ()),
          ("CIFAR-10", MLKG.Dataset, "", ()), ("ICLR 2025", MLKG.Venue, "ICLR 2025", ())],
         [(0, MLKG.outperforms, 1), (0, MLKG.evaluatedOn, 2)]),
    _doc("b.txt", "MF beats GIGANET on CIFAR-10; \"quoted\" \\ text\u2028here.",
         [("MF", MLKG.Method, "", ()), ("GIGANET", MLKG.Method, "", ()), ("CIFAR-10", MLKG.Dataset, "", ())],
         [(0, MLKG.outperforms, 1), (0, MLKG.evaluatedOn, 2)]),
    _doc("dir/c d.txt", "The Café Lab presents Ωmega-Net.",
         [("Café Lab", MLKG.Organization, "", ()), ("Ωmega-Net", MLKG.Method, "", ())], []),
]


def test_streamed_renderer_writes_the_bytes_of_the_in_memory_one(tmp_path):
    resolution = resolve(EXTRACTIONS)
    ttl = write.turtle_bytes(rdf.triples(resolution))
    merges = b"".join(rdf.resolution_merges(resolution))
    assert merges == write.json_bytes(rdf.merge_log(resolution))
    r = StreamResolver()
    r.documents = {ex.document.id: ex.document for ex in EXTRACTIONS}  # as the build hands them over
    facts = {ex.document.id: compact(ex) for ex in EXTRACTIONS}
    for doc_id in reversed(list(facts)):  # any order of documents
        r.add(doc_id, facts[doc_id])
    assert r.finish()
    with Spill(tmp_path) as spill:
        r.start_render(spill)
        for doc_id, f in facts.items():
            r.render(doc_id, f)
        assert b"".join(r.turtle()) == ttl
        assert b"".join(r.merges()) == merges
    assert r.triples == sum(1 for _ in rdf.triples(resolution))  # the count the validation limit is about
    assert {e.key for e in resolution.entities} == set(r.entities)
    (mf,) = [e for e in resolution.entities if e.key == "Method/maskedflows"]  # 3 votes each: the longer wins
    assert mf.alt_labels == {"MF"} and {(m.doc_id, m.rule) for m in mf.merge_log} == {
        ("a.txt", "label"), ("b.txt", "initials")}  # paired elsewhere, and its initials too
