"""Reading documents: encodings, HTML, and skip reasons."""

import codecs
import json
import os

import pytest

from pipeline.errors import InputError
from pipeline.ingest import decode, find_files, html_to_text, read_documents
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


def _read(tmp_path, max_bytes=10_000):
    skipped: list[SkippedDocument] = []
    docs = list(read_documents([tmp_path], max_bytes, skipped))
    return docs, skipped


def test_ingest_jsonl_reads_good_lines_and_names_each_bad_line(tmp_path):
    lines = ['{"id": "a", "text": "First."}', "", "not json", '{"id": 7, "text": "Second."}', "[1, 2]",
             '{"id": "a", "text": "Again."}', '{"text": "No id."}', '{"id": "e", "text": "  "}',
             '{"id": "big", "text": "' + "x" * 200 + '"}', '{"id": "s", "text": "lone \\ud800 surrogate"}']
    (tmp_path / "set.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    docs, skipped = _read(tmp_path, max_bytes=100)
    assert [(d.id, d.text) for d in docs] == [("set.jsonl#a", "First."), ("set.jsonl#7", "Second."),
                                              ("set.jsonl#s", "lone \ufffd surrogate")]
    where = str(tmp_path / "set.jsonl")
    assert [s.path for s in skipped] == [f"{where}:{n}" for n in (3, 5, 6, 7, 8, 9)]
    reasons = " | ".join(s.reason for s in skipped)
    for word in ("not valid JSON", "not an object", "duplicate id 'a' (first on line 1)", 'no "id"', "empty text",
                 "over the limit"):
        assert word in reasons


def test_ingest_jsonl_in_utf16_and_whole_file_problems(tmp_path):
    (tmp_path / "wide.jsonl").write_bytes('{"id": "g", "text": "Grüße"}\r\n'.encode("utf-16"))
    (tmp_path / "blank.jsonl").write_text("\n\n")
    (tmp_path / "bin.jsonl").write_bytes(b"\x00\x01{}")
    docs, skipped = _read(tmp_path)
    assert [(d.id, d.text, d.encoding) for d in docs] == [("wide.jsonl#g", "Grüße", "utf-16-le (BOM)")]
    assert sorted((s.path.rsplit("/", 1)[1], s.reason.split(" ")[0]) for s in skipped) == [
        ("bin.jsonl", "binary"), ("blank.jsonl", "empty")]


@pytest.mark.parametrize("data,text,encoding", [
    ("Grüße".encode("utf-16-le"), "Grüße", "utf-16-le (no BOM, guessed)"),
    ("Grüße".encode("utf-16-be"), "Grüße", "utf-16-be (no BOM, guessed)"),
    ("Grüße".encode("utf-32"), "Grüße", "utf-32-le (BOM)"),
    (b"\xe2\x80\x9cquoted\xe2\x80\x9d", "\u201cquoted\u201d", "utf-8"),
    (b"\x93quoted\x94 caf\xe9", "\u201cquoted\u201d café", "cp1252 (best guess)"),
    (b"caf\xe9 \x81", "café \x81", "latin-1 (best guess)"),
])
def test_ingest_decode_detects_encodings(data, text, encoding):
    assert decode(data) == (text, encoding)


def test_ingest_decode_uses_a_declared_charset_and_rejects_binary():
    assert decode("Привет".encode("koi8-r"), declared="koi8-r") == ("Привет", "koi8-r (declared koi8-r)")
    assert decode(b"caf\xe9", declared="no-such-charset") == ("café", "cp1252 (best guess)")
    with pytest.raises(ValueError, match="binary"):
        decode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(ValueError, match="binary"):
        decode(bytes(range(1, 32)) * 4 + b"\xff")


def test_ingest_html_declared_charset_text_cells_comments(tmp_path):
    page = ('<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
            "<!-- a comment --><title>T</title></head><body><table><tr><td>a</td><td>b</td></tr></table>"
            "<noscript>enable JS</noscript><p>Caf\xe9 &lt;b&gt; &#x1F600;</p></body></html>").encode("latin-1")
    (tmp_path / "p.htm").write_bytes(page)
    docs, skipped = _read(tmp_path)
    assert not skipped and docs[0].text == "a | b\nCafé <b> 😀"  # the <title> is metadata, not text
    assert (docs[0].encoding, docs[0].title, docs[0].format) == ("cp1252 (declared iso-8859-1)", "T", "html")


def test_ingest_does_not_hang_or_loop_on_special_files(tmp_path):
    (tmp_path / "good.txt").write_text("Good.")
    os.mkfifo(tmp_path / "pipe.md")
    os.symlink("self.txt", tmp_path / "self.txt")
    os.symlink("gone", tmp_path / "gone.html")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.txt").write_text("X.")
    os.symlink("..", tmp_path / "sub" / "up")  # a loop back to the root
    os.symlink("sub", tmp_path / "alias")  # the same folder twice
    (tmp_path / "folder.txt").mkdir()  # a folder with a document's name is walked, not read
    (tmp_path / "folder.txt" / "y.txt").write_text("Y.")
    docs, skipped = _read(tmp_path)
    assert [d.id for d in docs] == ["folder.txt/y.txt", "good.txt", "sub/x.txt"]
    got = {s.path[len(str(tmp_path)) + 1:]: s.reason for s in skipped}
    assert sorted(got) == ["alias", "gone.html", "pipe.md", "self.txt", "sub/up"]
    assert "FIFO" in got["pipe.md"] and "symlink loop" in got["self.txt"] and "broken symlink" in got["gone.html"]
    assert "symlink loop" in got["sub/up"] and "read already" in got["alias"]


def test_ingest_odd_file_names_get_printable_ids(tmp_path):
    root = os.fsencode(tmp_path)
    with open(os.path.join(root, b"caf\xe9 \"<x>\".txt"), "wb") as fh:
        fh.write(b"Named in Latin-1.")
    with open(os.path.join(root, b"empty\xff.txt"), "wb"):
        pass
    docs, skipped = _read(tmp_path)
    assert [d.id for d in docs] == ['caf\\xe9 "<x>".txt']
    assert skipped[0].path.endswith("empty\\xff.txt") and "empty" in skipped[0].reason
    json.dumps([d.id for d in docs] + [s.path for s in skipped], ensure_ascii=False).encode("utf-8")


def test_ingest_same_id_from_two_inputs_is_reported(tmp_path):
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "x.txt").write_text(d)
    skipped: list[SkippedDocument] = []
    found = find_files([tmp_path / "a" / "x.txt", tmp_path / "b" / "x.txt"], skipped)
    assert [i for _, i in found] == ["x.txt"] and "same document id 'x.txt'" in skipped[0].reason
