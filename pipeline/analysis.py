"""Graph in, networkx DiGraph out, with the statistics the build reports."""

from __future__ import annotations

from rdflib import Graph
from rdflib.namespace import RDF, RDFS, SKOS

from .vocab import ENTITY_CLASSES, MLKG, RELATIONS, local_name

__all__ = ["to_networkx", "resolution_to_networkx", "entity_graph", "graph_stats", "export", "EXPORT_FORMATS"]

EXPORT_FORMATS = ("graphml", "gexf")


def to_networkx(graph: Graph):
    """The entity graph as a ``networkx.MultiDiGraph``: nodes are entity IRIs with ``label`` and ``cls``.

    Examples
    --------
    >>> G = to_networkx(Graph())
    >>> G.number_of_nodes()
    0
    """
    import networkx as nx

    G = nx.MultiDiGraph()
    for cls in ENTITY_CLASSES:
        for s in sorted(set(graph.subjects(RDF.type, cls)), key=str):
            alts = sorted(str(a) for a in graph.objects(s, SKOS.altLabel))
            docs = sorted(str(graph.value(d, RDFS.label) or d) for d in graph.objects(s, MLKG.mentionedIn))
            G.add_node(str(s), label=str(graph.value(s, RDFS.label) or s), cls=local_name(cls),
                       altLabels=" | ".join(alts), documents=" | ".join(docs))
    for p in RELATIONS:
        for s, o in sorted(graph.subject_objects(p), key=lambda so: (str(so[0]), str(so[1]))):
            if str(s) in G and str(o) in G:
                G.add_edge(str(s), str(o), key=local_name(p), predicate=local_name(p))
    return G


def resolution_to_networkx(resolution):
    """The same entity graph as :func:`to_networkx` of the built graph, straight from a Resolution.

    A large build without HTML never holds an rdflib Graph; its statistics come from here.
    """
    from .rdf import entity_iri_text

    return entity_graph(((entity_iri_text(e.key), str(e.cls), e.label) for e in resolution.entities),
                        ((entity_iri_text(r.subject), str(r.predicate), entity_iri_text(r.object))
                         for r in resolution.relations))


def entity_graph(entities, relations):
    """The entity graph from ``(IRI, class IRI, label)`` of each entity and ``(subject IRI, predicate IRI,
    object IRI)`` of each relation: nodes of the entity classes in class order then IRI order, edges of the
    relation properties between them (the nodes and edges of :func:`to_networkx`, without the documents)."""
    import networkx as nx

    G = nx.MultiDiGraph()
    order = {str(c): i for i, c in enumerate(ENTITY_CLASSES)}
    for iri, cls, label in sorted((e for e in entities if e[1] in order), key=lambda e: (order[e[1]], e[0])):
        G.add_node(iri, label=label, cls=local_name(cls))
    by_predicate: dict[str, list] = {}
    for s, p, o in relations:
        by_predicate.setdefault(p, []).append((s, o))
    for p in RELATIONS:
        for s, o in sorted(by_predicate.get(str(p), ())):
            if s in G and o in G:
                G.add_edge(s, o, key=local_name(p), predicate=local_name(p))
    return G


def graph_stats(G, top: int = 5) -> dict:
    """Degree statistics of the entity graph: size, weakly connected components, most connected methods."""
    import networkx as nx

    methods = [(d, G.nodes[n]["label"]) for n, d in G.degree() if G.nodes[n].get("cls") == "Method"]
    return {
        "nodes": G.number_of_nodes(),
        "edges": G.number_of_edges(),
        "components": nx.number_weakly_connected_components(G) if G.number_of_nodes() else 0,
        "most_connected_methods": [f"{label} ({d})" for d, label in sorted(methods, key=lambda x: (-x[0], x[1]))[:top]],
    }


def export(graph: Graph, path, fmt: str = "graphml") -> None:
    """Write the entity graph for Gephi, Cytoscape, yEd or igraph: GraphML or GEXF, one node per entity
    (attributes label, cls, altLabels, documents) and one edge per relation (attribute predicate)."""
    import networkx as nx

    from .errors import InputError

    if fmt not in EXPORT_FORMATS:
        raise InputError(f"unknown export format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    G = to_networkx(graph)
    if fmt == "graphml":
        nx.write_graphml(G, str(path))
    else:
        nx.write_gexf(G, str(path))
