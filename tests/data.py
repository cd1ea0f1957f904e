"""Paths and constants the tests share."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST_DATA_DIR = Path(__file__).resolve().parent / "data"
CORPUS_DIR = ROOT / "corpus"
OUTPUT_DIR = ROOT / "output"
ONTOLOGY = ROOT / "ontology" / "mlkg.ttl"
EVAL_DIR = TEST_DATA_DIR / "eval"  # copies of the reference scorer and the corpus's gold
REAL_DEV_DIR = TEST_DATA_DIR / "real-dev"
GENERALISATION_DIR = TEST_DATA_DIR / "generalisation"
