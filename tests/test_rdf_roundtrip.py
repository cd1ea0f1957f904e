"""Any text a document can hold survives the graph: as a label, alt label, evidence sentence or document id, through
the bytes the build writes (Turtle, N-Triples, TriG and JSON-LD, by the project's own writers), read back by rdflib
and by pyoxigraph, unchanged; and through pyoxigraph's writers too; minted IRIs always parse.

The one normalisation is the pipeline's own (``ingest.clean_text``, applied to every document as it is read):
line ends become ``\\n`` and lone surrogates, which no UTF-8 file can hold, become U+FFFD."""

import pyoxigraph as ox
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDFS, SKOS

from rdflib import Dataset

from pipeline.ingest import clean_text
from pipeline.model import Entity, Evidence, Relation, Resolution
from pipeline.rdf import document_iri, entity_iri, to_graph
from pipeline.serialize import jsonld_bytes, ntriples_bytes, trig_bytes
from pipeline.vocab import ENTITY_CLASSES, MLKG, local_name
from pipeline.write import turtle_bytes

# every code point, lone surrogates included (hypothesis leaves them out by default)
ANY_TEXT = st.text(alphabet=st.characters(exclude_categories=()), max_size=60)
NASTY = ['"', '"""', 'a"', "'''", "\\", 'x\\"', "\n", "\r\n", "\x00\x01\x1f\x7f", "\u202eevil\u202c", "\u200f",
         "😀🇫🇷", "<script>alert('x')</script>", "]]>", "\ufeff", "\ud800", "a\udfffb", "\ufffe\uffff",
         "@prefix x: <y> .", "_:b0", "{\"@id\": \"x\"}", " ", ""]
# every text the pipeline reads as a line break or separator somewhere (str.splitlines, Unicode, XML, JavaScript)
NASTY += ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c\x1d\x1e", "a\u2028<http://evil.example/s> "
          "<http://evil.example/p> <http://evil.example/o> .\u2028b", "}\n<http://evil.example/g> {", "\n    \n"]
WRITERS = {"turtle": turtle_bytes, "nt": ntriples_bytes, "trig": trig_bytes, "json-ld": jsonld_bytes}
"""Each format the build writes, by the function ``build`` writes it with."""
FORMATS = {"turtle": ox.RdfFormat.TURTLE, "nt": ox.RdfFormat.N_TRIPLES, "trig": ox.RdfFormat.TRIG,
           "json-ld": ox.RdfFormat.JSON_LD}


def _graph_of(text: str) -> Graph:
    """The pipeline's graph of one entity named ``text`` in a document with id ``text``, with one relation
    whose evidence sentence is ``text``."""
    ev = Evidence(doc_id=text, sentence=text, start_char=0, end_char=len(text))
    method, venue = "Method/" + text, "Venue/" + text
    return to_graph(Resolution(
        entities=(Entity(key=method, cls=MLKG.Method, label=text, alt_labels=frozenset({text + "!"}), doc_ids=(text,)),
                  Entity(key=venue, cls=MLKG.Venue, label=text, alt_labels=frozenset(), doc_ids=(text,))),
        relations=(Relation(subject=method, predicate=MLKG.presentedAt, object=venue, evidence=((ev, "rule", 0.5),)),),
    ))


def _from_ox(term):
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.Literal):
        return Literal(term.value, lang=term.language,
                       datatype=None if term.language else URIRef(term.datatype.value))
    raise AssertionError(f"unexpected term {term!r}")


def _to_ox(term):
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if term.language:
        return ox.Literal(str(term), language=term.language)
    return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype))) if term.datatype else ox.Literal(str(term))


def _norm(triples):
    """Triples with plain literals typed xsd:string, as RDF 1.1 says they are (pyoxigraph says so explicitly)."""
    xsd_string = URIRef("http://www.w3.org/2001/XMLSchema#string")
    return {(s, p, Literal(str(o), datatype=xsd_string) if isinstance(o, Literal) and not o.language and o.datatype is None else o)
            for s, p, o in triples}


def _rdflib_triples(data: bytes, fmt: str):
    if fmt == "trig":  # the union of the default graph and the named graphs is the graph
        ds = Dataset()
        ds.parse(data=data, format="trig")
        return {(s, p, o) for s, p, o, _ in ds.quads((None, None, None, None))}
    return set(Graph().parse(data=data, format=fmt))


def _ox_triples(data: bytes, fmt: str):
    return {(_from_ox(q.subject), _from_ox(q.predicate), _from_ox(q.object)) for q in ox.parse(data, format=FORMATS[fmt])}


@settings(max_examples=150, deadline=None)
@given(ANY_TEXT)
@example("")
def test_rdf_roundtrip_clean_text_is_minimal_and_always_utf8(s):
    t = clean_text(s)
    t.encode("utf-8")  # never raises
    if not any("\ud800" <= ch <= "\udfff" for ch in s) and "\r" not in s:
        assert t == s
    assert clean_text(t) == t


@settings(max_examples=150, deadline=None)
@given(ANY_TEXT)
def test_rdf_roundtrip_any_text_survives_every_format_both_ways(s):
    text = clean_text(s)
    graph = _graph_of(text)
    expected = _norm(graph)
    method = entity_iri("Method/" + text)
    assert graph.value(method, RDFS.label) == Literal(text)
    assert graph.value(method, SKOS.altLabel) == Literal(text + "!")
    assert str(graph.value(document_iri(text), RDFS.label)) == text
    assert {str(o) for o in graph.objects(None, MLKG.sentence)} == {text}
    for fmt, write in WRITERS.items():
        data = write(graph)
        # the build's writers write; rdflib and pyoxigraph read
        assert _norm(_rdflib_triples(data, fmt)) == expected, fmt
        assert _norm(_ox_triples(data, fmt)) == expected, fmt
        if fmt == "nt":  # one statement a line, whatever a line reader takes for a line break
            assert len(data.decode("utf-8").splitlines()) == len(graph)
        # pyoxigraph writes; pyoxigraph and rdflib read
        ox_data = ox.serialize([ox.Quad(_to_ox(a), _to_ox(b), _to_ox(c)) for a, b, c in graph], format=FORMATS[fmt])
        assert _norm(_ox_triples(ox_data, fmt)) == expected, fmt
        assert _norm(_rdflib_triples(ox_data, fmt)) == expected, fmt


def test_rdf_roundtrip_nasty_strings():
    for s in NASTY:
        test_rdf_roundtrip_any_text_survives_every_format_both_ways.hypothesis.inner_test(s)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([local_name(c) for c in ENTITY_CLASSES]), ANY_TEXT)
def test_rdf_roundtrip_minted_iris_always_parse(cls_name, label):
    """Even from raw text (not cleaned, lone surrogates and all), entity and document IRIs are valid IRIs."""
    for iri in (entity_iri(f"{cls_name}/{label}"), document_iri(label)):
        nt = f"<{iri}> <http://example.org/p> <{iri}> .\n".encode("utf-8")
        (quad,) = ox.parse(nt, format=ox.RdfFormat.N_TRIPLES)
        assert quad.subject.value == str(iri)
        (triple,) = Graph().parse(data=nt, format="nt")
        assert str(triple[0]) == str(iri)
