"""Figures for the validation, inference and serialisation stages on the committed corpus graph.

    .venv/bin/python tests/bench_validate.py [GRAPH]

Prints median and minimum seconds over a few runs; no thresholds (speed is reported, not tested).
"""

from __future__ import annotations


def main(path: str = "output/graph.ttl") -> None:
    import statistics
    import time
    from decimal import Decimal

    from pyshacl import validate
    from rdflib import Graph, Literal
    from rdflib.namespace import RDF, RDFS

    from pipeline import serialize
    from pipeline.infer import entail
    from pipeline.validate import quarantine, shapes_graph, validate_graph
    from pipeline.vocab import MLKG

    g = Graph().parse(path)

    def bench(label, fn, n=5):
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        print(f"{label:<48} median {statistics.median(times):6.2f}s  min {min(times):6.2f}s  (n={n})")

    broken = Graph()
    broken += g
    paper = next(broken.subjects(RDF.type, MLKG.Paper))
    broken.add((paper, MLKG.presentedAt, next(broken.subjects(RDF.type, MLKG.Method))))
    broken.add((next(broken.subjects(RDF.type, MLKG.Dataset)), RDFS.label, Literal("second label")))
    ev = next(broken.subjects(RDF.type, MLKG.Evidence))
    broken.set((ev, MLKG.confidence, Literal(Decimal("1.5"))))

    print(f"{path}: {len(g)} triples")
    bench("validate (pySHACL over an Oxigraph store)", lambda: validate_graph(g))
    bench("validate (pySHACL over the rdflib Graph)",
          lambda: validate(g, shacl_graph=shapes_graph(), inference="none", advanced=True), n=3)
    bench("quarantine, 3 faults injected", lambda: quarantine(broken), n=3)
    bench("entail (owlrl, OWL 2 RL)", lambda: entail(g), n=3)
    bench("N-Triples + JSON-LD + TriG bytes",
          lambda: (serialize.ntriples_bytes(g), serialize.jsonld_bytes(g), serialize.trig_bytes(g)), n=3)


if __name__ == "__main__":
    import sys

    main(*sys.argv[1:])
