"""Hostile documents: shapes the rules once read in quadratic time, the per-document time budget, and documents
parsed in pieces. The timings themselves are a benchmark (``mlkg bench --pathological``), not asserted here."""

from __future__ import annotations

from pathlib import Path

import pytest

from data import CORPUS_DIR

SIZE = 100_000


def _build(folder: Path, out: Path):
    from pipeline import BuildConfig, build

    return build(BuildConfig(inputs=(folder,), out_dir=out, html=False, cache=False, validate=False))


@pytest.fixture(scope="module")
def hostile_build(tmp_path_factory):
    """One build of 100 KB of each hostile shape and a document of ordinary prose, with the default budget."""
    from pipeline.pathological import SHAPES, prose_text, shape_text

    folder = tmp_path_factory.mktemp("hostile")
    for name in SHAPES:
        (folder / f"{name}.txt").write_text(shape_text(name, SIZE), "utf-8")
    (folder / "prose.txt").write_text(prose_text(20_000), "utf-8")
    report = _build(folder, tmp_path_factory.mktemp("hostile-out"))
    return report, folder


def test_each_hostile_shape_is_built_within_its_budget(hostile_build):
    from pipeline.pathological import SHAPES

    report, folder = hostile_build
    assert len(SHAPES) == 5
    assert [s.path for s in report.skipped] == []  # the budget bounds the test; none of them needs it
    assert report.documents_parsed == len(SHAPES) + 1


def test_the_shapes_are_what_they_say(hostile_build):
    from pipeline.pathological import shape_text

    assert shape_text("camelcase-token", 1000).isalpha() and " " not in shape_text("camelcase-token", 1000)
    assert shape_text("hyphen-chain", 1000).count("-") > 300
    assert shape_text("nested-parentheses", 1000).count("(") == 125
    assert shape_text("sentence-per-line", 1000).count("\n") > 20
    words = shape_text("capitalised-words", 1000).split()
    assert all(w[0].isupper() for w in words) and len(set(words)) == len(words)
    for name in ("camelcase-token", "hyphen-chain", "nested-parentheses", "sentence-per-line", "capitalised-words"):
        assert len(shape_text(name, SIZE)) == SIZE


def test_a_document_over_its_budget_is_skipped_with_its_reason_and_the_rest_built(tmp_path, monkeypatch):
    """A budget that the long document has already spent when its rules start: it is skipped, named, with the
    reason; the bundled corpus beside it is built as without it."""
    import shutil

    from pipeline import config
    from pipeline.pathological import shape_text

    folder = tmp_path / "docs"
    shutil.copytree(CORPUS_DIR, folder)
    (folder / "zz-long.txt").write_text(shape_text("capitalised-words", 60_000), "utf-8")
    normal = config.document_budget
    monkeypatch.setattr(config, "document_budget", lambda chars: -1.0 if chars > 50_000 else normal(chars))
    report = _build(folder, tmp_path / "out")
    assert [Path(s.path).name for s in report.skipped] == ["zz-long.txt"]
    assert "time budget" in report.skipped[0].reason and "BudgetExceeded" in report.skipped[0].reason
    alone = _build(CORPUS_DIR, tmp_path / "alone")
    assert report.documents_parsed == alone.documents_parsed > 0
    assert (tmp_path / "out" / "graph.ttl").read_bytes() == (tmp_path / "alone" / "graph.ttl").read_bytes()


def test_a_long_document_is_parsed_in_pieces_with_its_offsets(nlp, monkeypatch):
    """Pieces far smaller than the document (and than spaCy's max_length, lowered below the document's length):
    the Doc spans the whole text and every mention's offsets point at its text."""
    from pipeline import config
    from pipeline.model import Document
    from pipeline.nlp.extract import extract_all

    text = "\n\n".join(p.read_text("utf-8") for p in sorted(Path(CORPUS_DIR).glob("*.txt")))
    assert len(text) > 20_000
    monkeypatch.setattr(config, "PARSE_CHUNK_CHARS", 3_000)
    monkeypatch.setattr(nlp, "max_length", 5_000)
    (ex,) = list(extract_all(nlp, [Document(id="all.txt", path=Path("all.txt"), text=text)]))
    assert len(ex.mentions) > 100 and len(ex.relations) > 20
    assert max(m.end_char for m in ex.mentions) > len(text) - 3_000
    for m in ex.mentions:
        assert text[m.start_char:m.end_char] == m.text
        assert text[m.evidence.start_char:m.evidence.end_char] == m.evidence.sentence


def test_pieces_cut_at_paragraph_breaks():
    from pipeline.nlp.extract import _pieces

    text = "one two\n\nthree four\nfive six seven\n\n" * 50 + "x" * 120
    for size in (7, 20, 64, 100, 1000):
        pieces = _pieces(text, size)
        assert "".join(pieces) == text and all(len(p) <= size for p in pieces)
    assert all(p.endswith("\n\n") for p in _pieces(text, 64)[:-2])


def test_a_runaway_stretch_gets_no_parser_and_the_prose_around_it_reads_as_alone(nlp):
    """20,000 characters of hyphen chain between two stretches of prose: the chain is cut into flat sentences
    without the parser, and the prose before it gives exactly the mentions it gives as a document of its own."""
    from pipeline.model import Document
    from pipeline.nlp.extract import RUNAWAY_CHARS, RUNAWAY_SENTENCE, _flat, _runaways, extract_all
    from pipeline.pathological import prose_text, shape_text

    before, chain, after = prose_text(6_000) + "\n\n", shape_text("hyphen-chain", 20_000), "\n" + prose_text(3_000)
    text = before + chain + "\n" + after
    assert _runaways(text) == [(len(before), len(before) + len(chain) + 1)]
    for doc in sorted(Path(CORPUS_DIR).glob("*.txt")):   # ordinary documents never take this path
        assert _runaways(doc.read_text("utf-8")) == [] and RUNAWAY_CHARS > 8 * 601
    (ex,) = list(extract_all(nlp, [Document(id="mixed.txt", path=Path("mixed.txt"), text=text)]))
    (alone,) = list(extract_all(nlp, [Document(id="mixed.txt", path=Path("mixed.txt"), text=before)]))
    key = lambda m: (m.start_char, m.end_char, m.text, m.cls, m.evidence)
    assert alone.mentions and [key(m) for m in ex.mentions if m.end_char <= len(before)] == [key(m) for m in alone.mentions]
    assert any(m.start_char > len(before) + len(chain) for m in ex.mentions)
    for m in ex.mentions:
        assert text[m.start_char:m.end_char] == m.text
    flat = _flat(nlp.make_doc(chain[:999]))   # the flat parse itself: sentences of RUNAWAY_SENTENCE tokens
    assert [len(s) for s in flat.sents] == [RUNAWAY_SENTENCE] * (len(flat) // RUNAWAY_SENTENCE) + [len(flat) % RUNAWAY_SENTENCE]


def test_a_runaway_stretch_longer_than_spacys_max_length_is_read_in_pieces(nlp, monkeypatch):
    """A paragraph with no sentence end longer than spaCy's max_length (lowered here below its length) is flattened
    in pieces: the document is read, not skipped with spaCy's E088, and the prose after it still gives mentions."""
    from pipeline.model import Document
    from pipeline.nlp.extract import extract_all
    from pipeline.pathological import prose_text, shape_text

    chain, after = shape_text("hyphen-chain", 30_000), "\n" + prose_text(3_000)
    text = chain + "\n" + after
    monkeypatch.setattr(nlp, "max_length", 8_000)
    (ex,) = list(extract_all(nlp, [Document(id="long.txt", path=Path("long.txt"), text=text)]))
    assert any(m.start_char > len(chain) for m in ex.mentions)
    for m in ex.mentions:
        assert text[m.start_char:m.end_char] == m.text
