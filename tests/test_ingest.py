"""Reading documents: encodings, HTML, and skip reasons."""

import codecs

import pytest

from pipeline.errors import InputError
from pipeline.ingest import find_files, html_to_text, read_documents
from pipeline.model import SkippedDocument


@pytest.mark.parametrize("name,data,expected", [
    ("utf8.txt", "Café at ICLR 2025.".encode("utf-8"), "Café at ICLR 2025."),
    ("bom.txt", codecs.BOM_UTF8 + b"Hello", "Hello"),
    ("utf16.txt", "Grüße".encode("utf-16"), "Grüße"),
    ("latin1.txt", "Café".encode("latin-1"), "Café"),
    ("page.html", b"<html><script>alert(1)</script><p>Text &amp; more</p></html>", "Text & more"),
])
def test_ingest_decodes(tmp_path, name, data, expected):
    (tmp_path / name).write_bytes(data)
    skipped: list[SkippedDocument] = []
    docs = list(read_documents([tmp_path], 10_000, skipped))
    assert [d.text for d in docs] == [expected] and not skipped


@pytest.mark.parametrize("name,data,reason", [
    ("empty.txt", b"", "empty"),
    ("binary.txt", b"\x00\x01\x02abc", "binary"),
    ("big.txt", b"x" * 200, "over the limit"),
])
def test_ingest_skips_bad_documents_with_reason(tmp_path, name, data, reason):
    (tmp_path / name).write_bytes(data)
    (tmp_path / "good.txt").write_text("A good document.")
    skipped: list[SkippedDocument] = []
    docs = list(read_documents([tmp_path], 100, skipped))
    assert [d.id for d in docs] == ["good.txt"]
    assert len(skipped) == 1 and name in skipped[0].path and reason in skipped[0].reason


def test_ingest_missing_input_raises(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        find_files([tmp_path / "nope"])


def test_ingest_ids_are_relative_paths_sorted(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.txt").write_text("x")
    (tmp_path / "a.md").write_text("y")
    (tmp_path / "ignored.bin").write_text("z")
    assert [i for _, i in find_files([tmp_path])] == ["a.md", "b/x.txt"]


def test_ingest_html_to_text_drops_style():
    assert html_to_text("<style>p{}</style><h1>T</h1><p>x</p>") == "T\nx"
