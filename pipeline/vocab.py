"""The mlkg vocabulary: every ontology IRI, declared once (mirrors ``ontology/mlkg.ttl``)."""

from __future__ import annotations

from rdflib import Graph, Namespace, URIRef
from rdflib.namespace import DCTERMS, OWL, PROV, RDF, RDFS, SKOS, XSD, DefinedNamespace

__all__ = ["MLKG", "RES", "SCHEMA", "DCTERMS", "PREFIXES", "ENTITY_CLASSES", "RELATIONS", "RELATION_ENDS", "bind_prefixes", "local_name"]


class MLKG(DefinedNamespace):
    """The mlkg ontology namespace; an unknown attribute raises ``AttributeError``."""

    _NS = Namespace("https://w3id.org/mlkg/ontology#")
    _fail = True

    # classes
    Paper: URIRef  # A research paper, report or article.
    Method: URIRef  # A named model, method, algorithm, architecture, optimizer, framework, library or technique.
    Dataset: URIRef  # A named dataset or benchmark.
    Venue: URIRef  # One occurrence of a conference, workshop or event.
    Hardware: URIRef  # A physical device, chip or accelerator.
    Organization: URIRef  # A company, lab or affinity group.
    Document: URIRef  # A source document the graph was extracted from.
    Evidence: URIRef  # A reified statement recording the sentence that supports a relation.

    # relations of the knowledge model
    presentedAt: URIRef  # Paper -> Venue
    introduces: URIRef  # Paper -> Method or Dataset
    extends: URIRef  # Method -> Method, Dataset -> Dataset
    evaluatedOn: URIRef  # Method or Paper -> Dataset
    runsOn: URIRef  # Method -> Hardware
    demoedAt: URIRef  # Method -> Venue
    demoedOn: URIRef  # Method -> Hardware
    outperforms: URIRef  # Method -> Method
    uses: URIRef  # Method or Paper -> Method
    partOf: URIRef  # Venue -> Venue
    affiliatedWith: URIRef  # Paper -> Organization

    # provenance
    mentionedIn: URIRef  # A document that mentions the entity.
    source: URIRef  # The document an evidence record was read from.
    sentence: URIRef  # The supporting sentence text.
    startChar: URIRef  # Offset of the sentence start in the document.
    endChar: URIRef  # Offset one past the sentence end.
    rule: URIRef  # The extraction rule that fired.
    confidence: URIRef  # Confidence in [0, 1].
    supportCount: URIRef  # Number of distinct documents supporting the relation.


RES = Namespace("https://w3id.org/mlkg/resource/")
SCHEMA = Namespace("https://schema.org/")

PREFIXES: dict[str, Namespace] = {
    "mlkg": Namespace(str(MLKG._NS)),
    "res": RES,
    "rdf": Namespace(str(RDF)),
    "rdfs": Namespace(str(RDFS)),
    "owl": Namespace(str(OWL)),
    "xsd": Namespace(str(XSD)),
    "skos": Namespace(str(SKOS)),
    "prov": Namespace(str(PROV)),
    "dcterms": Namespace(str(DCTERMS)),
    "schema": SCHEMA,
}

ENTITY_CLASSES: tuple[URIRef, ...] = (
    MLKG.Paper, MLKG.Method, MLKG.Dataset, MLKG.Venue, MLKG.Hardware, MLKG.Organization,
)
RELATIONS: tuple[URIRef, ...] = (
    MLKG.presentedAt, MLKG.introduces, MLKG.extends, MLKG.evaluatedOn, MLKG.runsOn, MLKG.demoedAt,
    MLKG.demoedOn, MLKG.outperforms, MLKG.uses, MLKG.partOf, MLKG.affiliatedWith,
)
RELATION_ENDS: dict[str, frozenset[tuple[str, str]]] = {
    "presentedAt": frozenset({("Paper", "Venue")}),
    "introduces": frozenset({("Paper", "Method"), ("Paper", "Dataset")}),
    "extends": frozenset({("Method", "Method"), ("Dataset", "Dataset")}),
    "evaluatedOn": frozenset({("Method", "Dataset"), ("Paper", "Dataset")}),
    "runsOn": frozenset({("Method", "Hardware")}),
    "demoedAt": frozenset({("Method", "Venue")}),
    "demoedOn": frozenset({("Method", "Hardware")}),
    "outperforms": frozenset({("Method", "Method")}),
    "uses": frozenset({("Method", "Method"), ("Paper", "Method")}),
    "partOf": frozenset({("Venue", "Venue")}),
    "affiliatedWith": frozenset({("Paper", "Organization")}),
}
"""The classes (local names) each relation joins, as the knowledge model's table gives them; the ontology's
domains and ranges allow each pair (test), and extends joins like with like, which they cannot say."""


def bind_prefixes(graph: Graph) -> Graph:
    """Bind the project's prefixes on ``graph`` and return it.

    Examples
    --------
    >>> g = bind_prefixes(Graph())
    >>> dict(g.namespaces())["mlkg"] == URIRef(str(MLKG._NS))
    True
    """
    for prefix, ns in PREFIXES.items():
        graph.bind(prefix, ns, override=True, replace=True)
    return graph


def local_name(iri: URIRef | str) -> str:
    """The part of an ontology IRI after ``#``.

    Examples
    --------
    >>> local_name(MLKG.Paper)
    'Paper'
    """
    return str(iri).rsplit("#", 1)[-1]
