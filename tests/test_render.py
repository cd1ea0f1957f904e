"""graph.html: self-contained, and document text never becomes markup."""

import re

import pytest
from rdflib import Graph, Literal
from rdflib.namespace import RDF, RDFS

from pipeline.render import render_html
from pipeline.vocab import MLKG, RES

HOSTILE = ['<img src=x onerror=alert(1)>', '</script><script>alert(2)</script>', 'see href="x"']


def test_render_corpus_page_loads_nothing_from_the_network(corpus_build):
    html = (corpus_build[1] / "graph.html").read_text("utf-8")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?https?:""", html)
    assert "vis.Network" in html


@pytest.mark.parametrize("label", HOSTILE)
def test_render_document_text_is_escaped(label):
    g = Graph()
    g.add((RES["method/x"], RDF.type, MLKG.Method))
    g.add((RES["method/x"], RDFS.label, Literal(label)))
    html = render_html(g)
    data = html.split('id="mlkg-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data and ">" not in data
    assert label not in html
