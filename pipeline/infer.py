"""Add the RDFS/OWL-RL entailments of ``ontology/mlkg.ttl`` to a graph (owlrl), for ``mlkg build --infer``.

After it, a query for ``schema:ScholarlyArticle`` finds the papers, ``prov:wasDerivedFrom`` finds each evidence
record's document, and ``schema:mentions`` runs from documents to the entities they name.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rdflib import BNode, Graph, Literal
from rdflib.namespace import OWL, RDF, RDFS

from .config import ONTOLOGY_DIR
from .errors import MlkgError
from .vocab import bind_prefixes

__all__ = ["ONTOLOGY", "ontology_graph", "entail"]

ONTOLOGY = ONTOLOGY_DIR / "mlkg.ttl"

# Entailments true of every resource, which say nothing about this graph: left out.
_TRIVIAL_TYPES = {OWL.Thing, RDFS.Resource, OWL.NamedIndividual, RDFS.Class, OWL.Class}


@lru_cache(maxsize=2)
def ontology_graph(path: Path = ONTOLOGY) -> Graph:
    """The ontology (parsed once per process)."""
    if not Path(path).is_file():
        raise MlkgError(f"{path}: the ontology file is missing; mlkg must run from its checkout (ontology/ beside pipeline/)")
    return Graph().parse(str(path), format="turtle")


def entail(graph: Graph) -> Graph:
    """``graph`` plus what OWL 2 RL (which covers RDFS subclass, subproperty, domain and range) entails about
    its resources from the ontology.

    Only new statements about the graph's own subjects and objects are kept: the ontology's own triples, the
    entailments about the vocabulary, ``x owl:sameAs x`` and ``x a owl:Thing`` are not added. The result has
    no blank nodes, so it serialises as deterministically as the input.

    Examples
    --------
    >>> from rdflib import Graph, URIRef
    >>> from pipeline.vocab import MLKG, SCHEMA
    >>> p = URIRef("https://example.org/p")
    >>> g = Graph(); _ = g.add((p, RDF.type, MLKG.Paper))
    >>> (p, RDF.type, SCHEMA.ScholarlyArticle) in entail(g)
    True
    """
    import owlrl

    ontology = ontology_graph()
    work = Graph()
    work += graph
    work += ontology
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, axiomatic_triples=False, datatype_axioms=False).expand(work)
    vocabulary = set(ontology.subjects()) - set(graph.subjects())
    nodes = (set(graph.subjects()) | {o for o in graph.objects() if not isinstance(o, Literal)}) - vocabulary
    out = bind_prefixes(Graph())
    out += graph
    for s, p, o in work:
        if s not in nodes or isinstance(s, (BNode, Literal)) or isinstance(o, BNode) or (s, p, o) in ontology:
            continue
        if (p == OWL.sameAs and s == o) or (p == RDF.type and o in _TRIVIAL_TYPES):
            continue
        out.add((s, p, o))
    return out
