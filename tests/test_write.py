"""The sorted Turtle writer: parses back to the same graph in rdflib and pyoxigraph, whatever the insertion order."""

import random

import pyoxigraph as ox
import pytest
from rdflib import Graph, Literal, Namespace, URIRef
from rdflib.compare import isomorphic
from rdflib.namespace import RDF, RDFS, XSD

from pipeline.vocab import MLKG, RES
from pipeline.write import turtle_bytes

EX = Namespace("http://example.org/doc/")

NASTY = ['plain', 'with "quotes"', "back\\slash", "new\nline", "tab\tand\rcr", "bell\x07", "ünïcödé ✓ 𝔘", "", "'single'",
         '"""triple"""', "ends with backslash\\"]


def _triples():
    out = []
    for i, text in enumerate(NASTY):
        s = RES[f"method/m{i}"]
        out += [(s, RDF.type, MLKG.Method), (s, RDFS.label, Literal(text)), (s, MLKG.startChar, Literal(i)),
                (s, MLKG.confidence, Literal(f"0.{i}5", datatype=XSD.decimal)),
                (s, RDFS.comment, Literal(text, lang="en")), (s, MLKG.extends, RES[f"method/m{(i + 1) % len(NASTY)}"]),
                (s, MLKG.mentionedIn, EX[f"d{i}.txt"]), (s, RDFS.seeAlso, Literal("x", datatype=XSD.token))]
    return out


def test_write_turtle_round_trips_in_rdflib_and_pyoxigraph(tmp_path):
    g = Graph()
    for t in _triples():
        g.add(t)
    data = turtle_bytes(g)
    back = Graph().parse(data=data, format="turtle")
    assert isomorphic(g, back)
    assert len(list(ox.parse(data, format=ox.RdfFormat.TURTLE))) == len(g)


def test_write_turtle_is_byte_identical_whatever_the_insertion_order():
    triples = _triples()
    outs = set()
    for seed in range(4):
        random.Random(seed).shuffle(triples)
        g = Graph()
        for t in triples:
            g.add(t)
        outs.add(turtle_bytes(g))
    assert len(outs) == 1


def test_write_turtle_refuses_blank_nodes():
    from rdflib import BNode

    g = Graph()
    g.add((BNode(), RDF.type, MLKG.Method))
    with pytest.raises(ValueError):
        turtle_bytes(g)


def test_folder_lock_is_reentrant_in_a_thread_and_exclusive_between_threads(tmp_path):
    """A build holds its folder's lock and its writer takes it again; another build waits, and is told."""
    import threading
    import time

    from pipeline.write import folder_lock

    events = []

    def other():
        with folder_lock(tmp_path, on_wait=lambda: events.append("waiting")):
            events.append("other in")

    with folder_lock(tmp_path):
        with folder_lock(tmp_path):  # the writer inside the build: no deadlock
            t = threading.Thread(target=other)
            t.start()
            time.sleep(0.3)
            events.append("first still in")
    t.join(timeout=30)
    assert events == ["waiting", "first still in", "other in"]
