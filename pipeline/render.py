"""Graph in, graph.html out: a self-contained interactive view (vis-network inlined, no network access).

Every string from a document reaches the page as JSON data read with ``textContent``: never as HTML.
"""

from __future__ import annotations

import json
from pathlib import Path

from rdflib import Graph
from rdflib.namespace import RDF, RDFS, SKOS

from .layout import force_layout
from .vocab import ENTITY_CLASSES, MLKG, RELATIONS, local_name
from .write import atomic_write

__all__ = ["render_html", "render_file", "CLASS_COLORS", "LAYOUT_THRESHOLD"]

CLASS_COLORS = {
    "Paper": "#4e79a7", "Method": "#f28e2b", "Dataset": "#59a14f",
    "Venue": "#e15759", "Hardware": "#76b7b2", "Organization": "#b07aa1",
}
CLASS_SHAPES = {"Paper": "square", "Method": "dot", "Dataset": "hexagon", "Venue": "star", "Hardware": "triangle", "Organization": "diamond"}
LAYOUT_THRESHOLD = 150
"""Above this many nodes, positions are computed in Python (:mod:`pipeline.layout`) and browser physics is off."""


def _vis_assets() -> tuple[str, str]:
    import pyvis

    lib = Path(pyvis.__file__).parent / "templates" / "lib" / "vis-9.1.2"
    return (lib / "vis-network.min.js").read_text("utf-8"), (lib / "vis-network.css").read_text("utf-8")


def _json_for_script(obj) -> str:
    """JSON safe inside a <script> element: no "<", ">" or "&" survive literally."""
    return (json.dumps(obj, ensure_ascii=False, sort_keys=True)
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _norm(s: str) -> str:
    return "".join(ch for ch in s.casefold() if ch.isalnum())


def render_html(graph: Graph) -> str:
    """The HTML page for ``graph``."""
    classes = {c: local_name(c) for c in ENTITY_CLASSES}
    nodes, index = [], {}
    for cls_iri, cls in classes.items():
        for s in sorted(set(graph.subjects(RDF.type, cls_iri)), key=str):
            label = str(graph.value(s, RDFS.label) or s)
            alts = sorted(str(o) for o in graph.objects(s, SKOS.altLabel))
            docs = sorted(str(graph.value(d, RDFS.label) or d) for d in graph.objects(s, MLKG.mentionedIn))
            index[s] = len(nodes)
            nodes.append({
                "id": len(nodes), "iri": str(s), "label": label if len(label) <= 40 else label[:38] + "…", "fullLabel": label,
                "group": cls, "color": CLASS_COLORS[cls], "shape": CLASS_SHAPES[cls], "altLabels": alts, "docs": docs,
                "names": sorted({_norm(label), *(_norm(a) for a in alts)}),
            })
    evidence: dict[tuple, list] = {}
    for ev in graph.subjects(RDF.type, MLKG.Evidence):
        key = (graph.value(ev, RDF.subject), graph.value(ev, RDF.predicate), graph.value(ev, RDF.object))
        evidence.setdefault(key, []).append({
            "sentence": str(graph.value(ev, MLKG.sentence)), "doc": str(graph.value(graph.value(ev, MLKG.source), RDFS.label)),
            "rule": str(graph.value(ev, MLKG.rule)), "confidence": str(graph.value(ev, MLKG.confidence)),
        })
    edges = []
    for p in RELATIONS:
        for s, o in sorted(graph.subject_objects(p), key=lambda so: (str(so[0]), str(so[1]))):
            if s in index and o in index:
                evs = sorted(evidence.get((s, p, o), []), key=lambda e: (e["doc"], e["sentence"]))
                edges.append({"id": len(edges), "from": index[s], "to": index[o], "label": local_name(p),
                              "arrows": "to", "evidence": evs, "font": {"size": 10}})
    degree = [0] * len(nodes)
    for e in edges:
        degree[e["from"]] += 1
        degree[e["to"]] += 1
    for n in nodes:
        n["value"] = 1 + degree[n["id"]]
    options = {"physics": {"enabled": True, "stabilization": {"iterations": 150}, "solver": "forceAtlas2Based"},
               "interaction": {"hover": True}, "nodes": {"scaling": {"min": 8, "max": 40}}}
    if len(nodes) > LAYOUT_THRESHOLD:
        pos = force_layout(len(nodes), [(e["from"], e["to"]) for e in edges])
        for n, (x, y) in zip(nodes, pos):
            n["x"], n["y"] = x, y
        options["physics"] = {"enabled": False}
        options["layout"] = {"improvedLayout": False}
        options["edges"] = {"smooth": False}
        options["interaction"] = {"hover": True, "hideEdgesOnDrag": True, "hideEdgesOnZoom": True}
    data = {"nodes": nodes, "edges": edges, "options": options, "colors": CLASS_COLORS, "shapes": CLASS_SHAPES,
            "properties": [local_name(p) for p in RELATIONS]}
    js, css = _vis_assets()
    template = (Path(__file__).parent / "templates" / "graph.html").read_text("utf-8")
    return (template.replace("__VIS_CSS__", css).replace("__VIS_JS__", js.replace("</script", "<\\/script"))
            .replace("__DATA__", _json_for_script(data)))


def render_file(graph_path: Path, out: Path) -> Path:
    """Render an existing Turtle graph file to ``out`` without rebuilding."""
    from .errors import InputError

    try:
        g = Graph().parse(str(graph_path), format="turtle")
    except Exception as exc:  # rdflib raises several unrelated types for a bad file
        raise InputError(f"{graph_path}: not a readable Turtle graph ({type(exc).__name__}: {exc})") from exc
    atomic_write(out, render_html(g).encode("utf-8"))
    return out
