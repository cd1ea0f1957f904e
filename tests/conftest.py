"""Shared fixtures: the spaCy pipeline and one build of the bundled corpus, each made once per session."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from data import CORPUS_DIR  # noqa: E402


@pytest.fixture(scope="session")
def nlp():
    from pipeline.nlp import load_nlp

    return load_nlp()


@pytest.fixture(scope="session")
def corpus_build(tmp_path_factory):
    """Build the bundled corpus once into a temporary folder: (report, out_dir)."""
    from pipeline import BuildConfig, build

    out = tmp_path_factory.mktemp("corpus_build")
    report = build(BuildConfig(inputs=(CORPUS_DIR,), out_dir=out))
    return report, out


@pytest.fixture(scope="session")
def corpus_graph(corpus_build):
    from rdflib import Graph

    return Graph().parse(str(corpus_build[1] / "graph.ttl"), format="turtle")


@pytest.fixture(scope="session")
def extract_text(nlp):
    """Run the pipeline on a text: returns the Doc."""

    def run(text: str):
        return nlp(text)

    return run
