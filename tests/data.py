"""Paths and constants the tests share."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST_DATA_DIR = Path(__file__).resolve().parent / "data"
CORPUS_DIR = ROOT / "corpus"
OUTPUT_DIR = ROOT / "output"
ONTOLOGY = ROOT / "ontology" / "mlkg.ttl"
SHARED_EVAL = ROOT.parent / "shared" / "eval"
GENERALISATION_DIR = TEST_DATA_DIR / "generalisation"
