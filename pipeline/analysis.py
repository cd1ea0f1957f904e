"""Graph in, networkx DiGraph out, with the statistics the build reports."""

from __future__ import annotations

import re

from rdflib import Graph
from rdflib.namespace import RDF, RDFS, SKOS

from .vocab import ENTITY_CLASSES, MLKG, RELATIONS, local_name

__all__ = ["to_networkx", "resolution_to_networkx", "entity_graph", "graph_stats", "entity_stats", "stats", "export",
           "EXPORT_FORMATS"]

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
    """Degree statistics of the entity graph ``G`` (:func:`to_networkx`, :func:`entity_graph`): size, weakly
    connected components, most connected methods (:func:`stats`)."""
    return stats({n: (d.get("cls"), d["label"]) for n, d in G.nodes(data=True)},
                 {(u, k, v) for u, v, k in G.edges(keys=True)}, top)


def entity_stats(entities, relations, top: int = 5) -> dict:
    """:func:`graph_stats` of :func:`entity_graph` of the same ``entities`` and ``relations``, without making
    it (a patched build's report, where networkx would cost more than the patch)."""
    order = {str(c): i for i, c in enumerate(ENTITY_CLASSES)}
    classes = {str(c): local_name(c) for c in ENTITY_CLASSES}
    nodes = {iri: (classes[cls], label)  # in entity_graph's order: of one IRI, the last class's label stands
             for iri, cls, label in sorted((e for e in entities if e[1] in order), key=lambda e: (order[e[1]], e[0]))}
    predicates = {str(p): local_name(p) for p in RELATIONS}
    return stats(nodes, {(s, predicates[p], o) for s, p, o in relations if p in predicates and s in nodes and o in nodes},
                 top)


def stats(nodes: dict, edges: set, top: int = 5) -> dict:
    """The report's statistics of an entity graph: ``nodes`` (IRI -> (class name, label)) and ``edges`` (distinct
    ``(subject, property name, object)`` between them): their numbers, the weakly connected components, and the
    ``top`` methods by degree (edges in and out; a loop counts twice), then label."""
    from .resolve import root

    degree = dict.fromkeys(nodes, 0)
    parent = {n: n for n in nodes}
    components = len(nodes)
    for s, _, o in edges:
        degree[s] += 1
        degree[o] += 1
        a, b = root(parent, s), root(parent, o)
        if a != b:
            parent[a] = b
            components -= 1
    methods = [(degree[n], label) for n, (cls, label) in nodes.items() if cls == "Method"]
    return {
        "nodes": len(nodes),
        "edges": len(edges),
        "components": components,
        "most_connected_methods": [f"{label} ({d})" for d, label in sorted(methods, key=lambda x: (-x[0], x[1]))[:top]],
    }


def _edges(graph: Graph) -> list[dict]:
    """One record per relation between entities, in (subject, predicate, object) order: its label (the property's
    name), predicate IRI, highest confidence, support count (distinct documents) and evidence count."""
    evidence: dict[tuple, list] = {}
    for ev in graph.subjects(RDF.type, MLKG.Evidence):
        key = (graph.value(ev, RDF.subject), graph.value(ev, RDF.predicate), graph.value(ev, RDF.object))
        evidence.setdefault(key, []).append((graph.value(ev, MLKG.confidence), graph.value(ev, MLKG.source)))
    out = []
    for p in RELATIONS:
        for s, o in sorted(graph.subject_objects(p), key=lambda so: (str(so[0]), str(so[1]))):
            records = evidence.get((s, p, o), [])
            confidences = [float(c) for c, _ in records if c is not None]
            edge = {"source": str(s), "target": str(o), "label": local_name(p), "predicate": str(p),
                    "supportCount": len({d for _, d in records if d is not None}), "evidenceCount": len(records)}
            if confidences:
                edge["confidence"] = max(confidences)
            out.append(edge)
    return out


_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_safe(value):
    r"""``value`` with the characters XML 1.0 cannot hold at all (most C0 controls) as U+FFFD; other values as
    they are.

    Examples
    --------
    >>> _xml_safe("a\x0bb\nc")
    'a\ufffdb\nc'
    """
    return _XML_ILLEGAL.sub("\ufffd", value) if isinstance(value, str) else value


def _export_graph(graph: Graph):
    """The entity graph for export: :func:`to_networkx`'s nodes, and edges keyed ``e0``, ``e1``... (unique ids in
    the file) with the attributes of :func:`_edges`; every text XML-safe."""
    import networkx as nx

    nodes = to_networkx(graph)
    G = nx.MultiDiGraph()
    G.add_nodes_from((n, {k: _xml_safe(v) for k, v in d.items()}) for n, d in nodes.nodes(data=True))
    for i, edge in enumerate(e for e in _edges(graph) if e["source"] in G and e["target"] in G):
        data = {k: _xml_safe(v) for k, v in edge.items() if k not in ("source", "target")}
        G.add_edge(edge["source"], edge["target"], key=f"e{i}", **data)
    return G


_GEXF_NS = "http://www.gexf.net/1.2draft"
_GEXF_TYPES = {str: "string", int: "integer", float: "double"}


def _gexf_bytes(G) -> bytes:
    """GEXF 1.2 of the export graph, written here rather than by networkx, whose writer adds a ``networkx_key``
    attribute to every edge of a multigraph: node and edge ``label`` as GEXF labels, the rest as attributes."""
    from xml.etree.ElementTree import Element, SubElement, indent, tostring

    root = Element("gexf", xmlns=_GEXF_NS, version="1.2")
    SubElement(root, "meta").append(Element("creator"))
    root.find("meta/creator").text = "mlkg"
    graph_el = SubElement(root, "graph", defaultedgetype="directed", mode="static")
    items = {"node": [(n, d) for n, d in G.nodes(data=True)],
             "edge": [((u, v, k), d) for u, v, k, d in G.edges(keys=True, data=True)]}
    for kind in ("node", "edge"):
        names: dict[str, type] = {}
        for _, data in items[kind]:
            for name, value in data.items():
                if name != "label":
                    names.setdefault(name, type(value))
        ids = {name: str(i) for i, name in enumerate(names)}
        attrs = SubElement(graph_el, "attributes", {"class": kind, "mode": "static"})
        for name, typ in names.items():
            SubElement(attrs, "attribute", id=ids[name], title=name, type=_GEXF_TYPES[typ])
        container = SubElement(graph_el, kind + "s")
        for ident, data in items[kind]:
            if kind == "node":
                el = SubElement(container, "node", id=ident, label=str(data.get("label", ident)))
            else:
                el = SubElement(container, "edge", id=ident[2], source=ident[0], target=ident[1],
                                label=str(data.get("label", "")))
            values = SubElement(el, "attvalues")
            for name, value in data.items():
                if name != "label":
                    SubElement(values, "attvalue", {"for": ids[name], "value": str(value)})
    indent(root)
    return b"<?xml version='1.0' encoding='utf-8'?>\n" + tostring(root, encoding="utf-8") + b"\n"


def export(graph: Graph, path, fmt: str = "graphml") -> None:
    """Write the entity graph for Gephi, Cytoscape, yEd or igraph: GraphML or GEXF, one node per entity
    (attributes label, cls, altLabels, documents) and one edge per relation (label, predicate, confidence: the
    highest of its evidence, supportCount: documents, evidenceCount: sentences)."""
    import networkx as nx

    from .errors import InputError

    if fmt not in EXPORT_FORMATS:
        raise InputError(f"unknown export format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    G = _export_graph(graph)
    if fmt == "graphml":
        nx.write_graphml(G, str(path))
    else:
        from .write import atomic_write

        atomic_write(path, _gexf_bytes(G))
