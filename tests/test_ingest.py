"""Reading documents: encodings, HTML, and skip reasons."""

import codecs
import json
import os

import pytest

from pipeline.errors import InputError
from pipeline.ingest import decode, find_files, html_to_text, read_documents
from pipeline.model import Document, SkippedDocument


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


# ---------------------------------------------------------------- documents as they come (issue 18.1)

import http.server
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

from pipeline.ingest import read_url

DATA = Path(__file__).resolve().parent / "data" / "ingest"


@pytest.fixture(scope="module")
def graph_of(nlp):
    """The entities and relations one document gives on its own: (sorted (class, label), sorted (s, p, o))."""
    from pipeline.nlp.extract import extract_all
    from pipeline.resolve import resolve
    from pipeline.vocab import local_name

    def run(document):
        r = resolve(list(extract_all(nlp, [document])))
        return (sorted((local_name(e.cls), e.label) for e in r.entities),
                sorted((s.subject, local_name(s.predicate), s.object) for s in r.relations))
    return run


def _one(path, max_bytes=5_000_000):
    skipped: list[SkippedDocument] = []
    docs = list(read_documents([path], max_bytes, skipped))
    assert not skipped and len(docs) == 1, skipped
    return docs[0]


def _papers_and_venues(graph):
    entities, relations = graph
    papers = {label for cls, label in entities if cls == "Paper"}
    presented = {(s, o) for s, p, o in relations if p == "presentedAt"}
    return papers, presented


@pytest.mark.parametrize("name,twin,papers,presented", [
    ("lab_post.md", "lab_post.txt", 3, 3),
    ("release.html", "release.txt", 2, 1),
    ("abstracts.pdf", "abstracts.txt", 4, 5),
    ("abstracts_columns.pdf", "abstracts.txt", 4, 5),
])
def test_ingest_structured_document_gives_the_graph_of_its_plain_twin(graph_of, name, twin, papers, presented):
    structured, plain = _one(DATA / name), _one(DATA / twin)
    got, want = graph_of(structured), graph_of(plain)
    assert got == want
    found_papers, found_presented = _papers_and_venues(got)
    assert len(found_papers) == papers and len(found_presented) == presented


def test_ingest_markdown_titles_lost_as_raw_text_are_found(graph_of):
    """The failure of issue 18: the same post read as raw text finds none of the ### or ** titles."""
    raw = Document(id="raw.txt", path="raw.txt", text=(DATA / "lab_post.md").read_text("utf-8"))
    structured = _one(DATA / "lab_post.md")
    assert len(_papers_and_venues(graph_of(structured))[1]) == 3
    assert len(_papers_and_venues(graph_of(raw))[1]) < 3


def test_ingest_metadata_of_each_format(tmp_path):
    md = _one(DATA / "lab_post.md")
    assert (md.format, md.title, md.date, md.url, md.author) == (
        "markdown", "Harbor Lab at NeurIPS 2025", "2025-11-24", "https://harbor-lab.example/blog/neurips-2025", "Harbor Lab")
    assert "check the room numbers" not in md.text and "model = RouteViT()" not in md.text
    assert "Wednesday | Poster session 2 | RouteViT" in md.text.split("\n")
    html = _one(DATA / "release.html")
    assert (html.format, html.title, html.date, html.url, html.author) == (
        "html", "Release: Orca-Vision 2.0", "2026-02-10", "https://orca.example/releases/orca-vision-2", "Orca Team")
    assert "Release" not in html.text and "Home" not in html.text and "tracking" not in html.text
    pdf = _one(DATA / "abstracts.pdf")
    assert (pdf.format, pdf.title, pdf.date, pdf.author, pdf.encoding) == (
        "pdf", "Accepted Abstracts: Efficient Learning Workshop 2025", "2025-06-02", "Efficient Learning Workshop", "pdf")
    txt = _one(DATA / "abstracts.txt")
    assert (txt.format, txt.title, txt.date, txt.url) == ("text", "", "", "")
    (tmp_path / "set.jsonl").write_text(json.dumps({"id": 1, "text": "Body.", "title": "T", "date": "June 3, 2025",
                                                    "url": "https://x.example/1", "author": 7}) + "\n")
    j = _one(tmp_path / "set.jsonl")
    assert (j.format, j.title, j.date, j.url, j.author) == ("jsonl", "T", "2025-06-03", "https://x.example/1", "")


def test_ingest_markdown_emphasis_lists_and_breaks():
    from pipeline.markup import markdown_to_text

    text = markdown_to_text(
        "**A Bold Title on Its Own**\nIts abstract follows on the next line.\n\n"
        "**Run-in Heading Here.** The paragraph goes on.\n\n"
        "Our oral is *Sparse Routers: A Study of Experts* and we use **BERT** there.\n\n"
        "3. third\n4. fourth\n\n> quoted line\n\n![figure](f.png) Caption text\n").text
    assert text.split("\n") == [
        "A Bold Title on Its Own", "Its abstract follows on the next line.",
        "Run-in Heading Here", "The paragraph goes on.",
        "Our oral is “Sparse Routers: A Study of Experts” and we use BERT there.",
        "3. third", "4. fourth", "quoted line", "Caption text"]


def test_ingest_pdf_without_text_or_broken_is_a_named_skip(tmp_path):
    import pypdf

    writer = pypdf.PdfWriter()
    writer.add_blank_page(width=595, height=842)
    with open(tmp_path / "scan.pdf", "wb") as fh:
        writer.write(fh)
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 50)
    (tmp_path / "good.pdf").write_bytes((DATA / "abstracts.pdf").read_bytes())
    docs, skipped = _read(tmp_path)
    assert [d.id for d in docs] == ["good.pdf"]
    got = {Path(s.path).name: s.reason for s in skipped}
    assert "without a text layer" in got["scan.pdf"] and "PDF cannot be read" in got["broken.pdf"]


def test_ingest_unsupported_formats_are_named_with_the_supported_ones(tmp_path):
    (tmp_path / "a.docx").write_bytes(b"PK\x03\x04\x00\x00binary")
    (tmp_path / "b.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00")
    with pytest.raises(InputError, match=r"2 other file\(s\) ignored \(a.docx, b.png\); supported: .txt, .md, .html, .pdf"):
        _read(tmp_path)
    docs, skipped = [], []
    docs = list(read_documents([tmp_path / "a.docx"], 1000, skipped))
    assert not docs and "binary" in skipped[0].reason and "supported: .txt" in skipped[0].reason


# ---------------------------------------------------------------- pages over HTTP, from a local server


class _Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=str(DATA), **kwargs)

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/slow":
            time.sleep(3)
        elif self.path == "/drip":  # no Content-Length, more than the limit
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            for _ in range(100):
                self.wfile.write(b"x" * 1000)
            return
        elif self.path == "/huge":  # a Content-Length over the limit: refused before the body
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(10 ** 9))
            self.end_headers()
            return
        elif self.path == "/to-file":
            self.send_response(302)
            self.send_header("Location", "file:///etc/passwd")
            self.end_headers()
            return
        elif self.path == "/moved":
            self.send_response(301)
            self.send_header("Location", "/release.html")
            self.end_headers()
            return
        elif self.path == "/post":  # Markdown by its Content-Type, whatever the address says
            body = (DATA / "lab_post.md").read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "text/markdown; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a client that gave up (the timeout and size tests) is expected


@pytest.fixture(scope="module")
def server():
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


@pytest.mark.parametrize("page,twin", [("/release.html", "release.txt"), ("/post", "lab_post.txt"),
                                       ("/abstracts.pdf", "abstracts.txt"), ("/moved", "release.txt")])
def test_ingest_fetched_page_gives_the_graph_of_its_plain_twin(server, graph_of, page, twin):
    doc = read_url(server + page, 5_000_000)
    assert doc.id == server + page and doc.url == server + ("/release.html" if page == "/moved" else page)
    assert graph_of(doc) == graph_of(_one(DATA / twin))
    assert doc.format == {"/post": "markdown", "/abstracts.pdf": "pdf"}.get(page, "html")


def test_ingest_fetch_failures_are_named_skips(server):
    skipped: list[SkippedDocument] = []
    urls = [server + p for p in ("/missing.html", "/slow", "/drip", "/huge", "/to-file", "/release.html")]
    docs = list(read_documents(urls, 50_000, skipped, timeout=1.0))
    assert [d.id for d in docs] == [server + "/release.html"]
    got = {s.path[len(server):]: s.reason for s in skipped}
    assert "HTTP 404" in got["/missing.html"] and "timed out after 1s" in got["/slow"]
    assert "over the limit of 50000 bytes" in got["/drip"] and "1000000000 bytes is over the limit" in got["/huge"]
    assert "HTTP 302" in got["/to-file"] and "not allowed" in got["/to-file"]
    assert all(r.endswith("; skipped") for r in got.values())


def test_ingest_unreachable_and_other_schemes(tmp_path):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    skipped: list[SkippedDocument] = []
    assert not list(read_documents([f"http://127.0.0.1:{port}/x"], 1000, skipped, timeout=2))
    assert "cannot be fetched" in skipped[0].reason
    with pytest.raises(InputError, match="only http:// and https://"):
        list(read_documents(["ftp://example.org/x.txt"], 1000, []))


def test_cli_build_fetches_a_url(server, tmp_path):
    r = subprocess.run([sys.executable, "-m", "pipeline", "build", server + "/release.html", str(DATA / "lab_post.md"),
                        "--out", str(tmp_path / "out"), "--no-html"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "read 2 documents" in r.stdout and "ICLR 2026" in (tmp_path / "out" / "graph.ttl").read_text("utf-8")


def test_ingest_document_fields_survive_the_cache_and_worker_processes(tmp_path):
    from pipeline.cache import ExtractionCache
    from pipeline.executor import ExtractStats, extract_documents
    from pipeline.nlp import pick_model

    docs = [_one(DATA / "lab_post.md"), _one(DATA / "release.html")]
    model = pick_model(None)
    store = ExtractionCache(tmp_path / "cache", model)
    first = extract_documents(docs, model, cache=store, workers=2)
    stats = ExtractStats()
    again = extract_documents(docs, model, cache=ExtractionCache(tmp_path / "cache", model), stats=stats)
    assert stats.cached == 2
    assert [e.document for e in first] == [e.document for e in again] == docs
    assert [e.document.title for e in again] == ["Harbor Lab at NeurIPS 2025", "Release: Orca-Vision 2.0"]


# ---------------------------------------------------------------- input edges (issue 19.5)


def test_ingest_deeply_nested_jsonl_line_costs_only_that_line(tmp_path):
    lines = ['{"id": "a", "text": "First."}', "[" * 100_000, '{"id": "b", "text": "After the bad line."}']
    (tmp_path / "set.jsonl").write_text("\n".join(lines) + "\n")
    docs, skipped = _read(tmp_path, max_bytes=1_000_000)
    assert [d.id for d in docs] == ["set.jsonl#a", "set.jsonl#b"]
    assert skipped[0].path.endswith("set.jsonl:2") and "nested too deeply" in skipped[0].reason


def test_ingest_symlinks_leaving_the_input_folder_are_not_followed(tmp_path):
    (tmp_path / "secret.txt").write_text("Outside the input folder.")
    root = tmp_path / "in"
    (root / "sub").mkdir(parents=True)
    (root / "doc.txt").write_text("Inside.")
    os.symlink("..", root / "up")
    os.symlink("../../secret.txt", root / "sub" / "leak.txt")
    os.symlink("../doc.txt", root / "sub" / "same.txt")  # inside: read
    docs, skipped = _read(root)
    assert [d.id for d in docs] == ["doc.txt", "sub/same.txt"]
    got = {s.path[len(str(root)) + 1:]: s.reason for s in skipped}
    assert sorted(got) == ["sub/leak.txt", "up"] and all("outside the folder" in r for r in got.values())


def test_ingest_passes_documents_over_a_million_characters(tmp_path):
    text = ("We propose LongNet, evaluated on ImageNet. " * 30_000).strip()
    (tmp_path / "long.txt").write_text(text)
    docs, skipped = _read(tmp_path, max_bytes=5_000_000)
    assert not skipped and len(docs[0].text) == len(text) > 1_000_000


def test_ingest_meta_charset_that_is_not_a_text_encoding_falls_back(tmp_path):
    (tmp_path / "p.html").write_bytes('<meta charset="rot13"><p>Caf\xe9 au lait at ICLR 2025.</p>'.encode("latin-1"))
    (tmp_path / "q.html").write_bytes('<meta charset="utf-7"><p>Caf\xe9.</p>'.encode("latin-1"))
    docs, skipped = _read(tmp_path)
    assert not skipped and [(d.text, d.encoding) for d in docs] == [
        ("Café au lait at ICLR 2025.", "cp1252 (best guess)"), ("Café.", "cp1252 (best guess)")]


def test_ingest_one_bad_byte_in_utf8_is_replaced_not_a_cp1252_guess(tmp_path):
    (tmp_path / "a.txt").write_bytes("Grüße from Zürich — “quoted” at ICLR 2025.".encode("utf-8") + b" \xff end.")
    docs, _ = _read(tmp_path)
    assert docs[0].text == "Grüße from Zürich — “quoted” at ICLR 2025. \ufffd end."
    assert docs[0].encoding == "utf-8 (1 invalid byte sequence replaced with U+FFFD)"


def _mlkg(*args, **kw):
    return subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, **kw)


def test_cli_file_names_with_control_characters_are_escaped(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.txt").write_text("We will present RouteViT at ICLR 2025.")
    (docs / "evil\x1b[31m\nskipped forged.txt: fake.txt").write_bytes(b"")
    r = _mlkg("build", str(docs), "--out", str(tmp_path / "out"), "--no-html")
    assert r.returncode == 1
    assert "\x1b" not in r.stdout + r.stderr
    lines = [line for line in r.stderr.splitlines() if line.startswith("skipped")]
    assert len(lines) == 1 and "evil\\x1b[31m\\x0askipped forged.txt" in lines[0]


@pytest.mark.parametrize("how", ["out", "out-no-cache", "cache", "fsize"])
def test_cli_write_failures_are_one_line_and_exit_2(tmp_path, how):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text((DATA / "lab_post.txt").read_text("utf-8"))
    (tmp_path / "file").write_text("a regular file")
    args = {"out": ["--out", str(tmp_path / "file" / "out")],
            "out-no-cache": ["--out", str(tmp_path / "file" / "out"), "--no-cache"],
            "cache": ["--out", str(tmp_path / "out"), "--cache", str(tmp_path / "file" / "cache")],
            "fsize": ["--out", str(tmp_path / "out")]}[how]

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))  # spilling a document's facts passes it

    r = _mlkg("build", str(docs), "--no-html", *args, preexec_fn=limit if how == "fsize" else None)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith("mlkg: error: cannot write the build's files: ")
    assert ("File too large" if how == "fsize" else "Not a directory") in r.stderr


def test_ingest_long_markdown_is_parsed_in_pieces_with_the_same_text(monkeypatch):
    from pipeline import markup

    section = ("## Section {n}\n\nWe propose *Method{n}*, evaluated on ImageNet.\n\n```python\nx = 1\n\n\ny = 2\n```\n\n"
               "1. first\n2. second\n\n| a | b |\n|---|---|\n| {n} | x |\n\n")
    source = "".join(section.format(n=n) for n in range(3000))
    assert len(source) > 4 * markup.MARKDOWN_CHUNK
    pieces = markup.markdown_to_text(source)
    monkeypatch.setattr(markup, "MARKDOWN_CHUNK", 10 ** 9)
    assert pieces == markup.markdown_to_text(source)
    assert "x = 1" not in pieces.text and "2. second" in pieces.text


def test_ingest_markdown_over_its_time_budget_is_a_named_skip(tmp_path, monkeypatch):
    from pipeline import markup

    with pytest.raises(markup.TooSlow, match="too dense"):
        markup.markdown_to_text("- a\n\n" * 50_000, budget=0.01)
    real = markup.markdown_to_text
    monkeypatch.setattr("pipeline.ingest.markdown_to_text", lambda text: real(text, budget=0.01))
    (tmp_path / "dense.md").write_text("- a\n\n" * 50_000)
    (tmp_path / "ok.txt").write_text("Fine.")
    docs, skipped = _read(tmp_path, max_bytes=1_000_000)
    assert [d.id for d in docs] == ["ok.txt"] and "too dense to convert" in skipped[0].reason


def test_ingest_markdown_line_ends_join_wrapped_prose_only():
    from pipeline.markup import markdown_to_text

    wrapped = ("We propose RouteViT, a vision transformer that sends each image token to a small subset of\n"
               "expert feed-forward blocks, and evaluate it on ImageNet, where it outperforms DeiT at equal\n"
               "compute.")
    written_as_lines = ("Sparse Expert Routing for Efficient Vision Transformers\n"
                        "Authors: A. Author, B. Author\n"
                        "[Accepted to ICLR 2025]\n" + "A teaser written on one line of its own. " * 5)
    assert markdown_to_text(wrapped).text == " ".join(wrapped.split("\n"))
    assert markdown_to_text(written_as_lines).text == written_as_lines.strip()


@pytest.mark.parametrize("name", [
    # r01 and r03 differed in their Markdown reading with earlier weights (a list item's affiliation at 0.357 against
    # 0.3; a venue line given to another subject when the entries' separators were dropped); with the weights trained
    # on 87 sets both readings agree, and are checked as the others are
    "r01_qualcomm_neurips2024",
    "r03_icml2024_abstracts",
    # Read as Markdown (no blank lines), with the overlap decision (classify._outranking) and the weights trained with
    # it, the Markdown reading alone keeps a rule's affiliation of "Any-Order GPT as Masked Diffusion Model" with
    # Qualcomm AI Research at 0.206: a real difference, kept visible rather than tolerated (strict=False: it may pass
    # after a retrain)
    pytest.param("r05_esfomo_icml2025_workshop", marks=pytest.mark.xfail(
        strict=False, reason="a rule's affiliation kept in the Markdown reading only, at 0.206")),
    # With the weights trained on 87 sets, the Markdown reading keeps the method "Skip-Convolutions" (in real-dev's
    # gold: its paper introduces it, 0.76) that the plain-text reading leaves out: a real difference, kept visible like
    # the others (strict=False: it may pass after a retrain)
    pytest.param("r08_paper_teasers", marks=pytest.mark.xfail(
        strict=False, reason="the Markdown reading keeps one more learned method (Skip-Convolutions)")),
])
def test_ingest_real_dev_documents_read_as_markdown_keep_their_graph(nlp, tmp_path, name):
    """Plain text saved as .md (one paragraph a line, '## ' headings, '- ' lists) keeps what its .txt gives: the
    same entities and the same relations, except at most two relations the trained decision took within 0.05 of
    their bars (Markdown drops blank lines and rules, so spaCy parses the text a little differently, paragraphs
    group differently, and a probability at the edge may fall on the other side)."""
    from pipeline.nlp.classify import REL_BARS, REL_THRESHOLD
    from pipeline.nlp.extract import extract_all
    from pipeline.resolve import resolve
    from pipeline.vocab import local_name

    def graph(path):
        r = resolve(list(extract_all(nlp, [_one(path)])))
        return (sorted((local_name(e.cls), e.label) for e in r.entities),
                {(s.subject, local_name(s.predicate), s.object): s.confidence for s in r.relations})

    src = Path(__file__).resolve().parent / "data" / "real-dev" / "docs"
    (tmp_path / f"{name}.md").write_bytes((src / f"{name}.txt").read_bytes())
    (md_entities, md), (txt_entities, txt) = graph(tmp_path / f"{name}.md"), graph(src / f"{name}.txt")
    assert md_entities == txt_entities, name
    differ = {k: md.get(k, txt.get(k)) for k in set(md) ^ set(txt)}
    firm = {k: c for k, c in differ.items() if abs(c - REL_BARS.get(k[1], REL_THRESHOLD)) >= 0.05}
    assert not firm and len(differ) <= 2, (name, differ)


def test_ingest_html_structure_as_lines():
    page = ("<nav><ul><li>Home</li></ul></nav><h2>Papers</h2><p><b>Run-in Title Of Ours.</b> It\nwraps in the source."
            "</p><ol start='3'><li>three</li><li>four<ul><li>nested</li></ul></li></ol><p>Title<br>Authors: X</p>"
            "<pre>line one\nline two</pre><p>We use <em>BERT</em> in <i>a long emphasised title</i>.</p>")
    assert html_to_text(page).split("\n") == [
        "Papers", "Run-in Title Of Ours", "It wraps in the source.", "3. three", "4. four", "- nested", "Title",
        "Authors: X", "line one", "line two", "We use BERT in “a long emphasised title”."]


def test_ingest_pdf_paragraph_running_on_to_the_next_page_is_one_line():
    import pypdf

    path = DATA / "across_pages.pdf"
    assert len(pypdf.PdfReader(path).pages) == 2
    abstract = (DATA / "abstracts.txt").read_text("utf-8").split("\n")[2]
    assert _one(path).text.split("\n")[-1] == abstract


def test_ingest_the_build_s_own_folders_are_not_walked_however_named(tmp_path):
    (tmp_path / "a.txt").write_text("We propose RouteMix.")
    out = tmp_path / "output"
    (out / ".mlkg-cache").mkdir(parents=True)
    (out / "graph.html").write_text("<html><body>RouteMix</body></html>")
    (out / ".mlkg-cache" / "x.md").write_text("# cached")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.md").write_text("# B")
    assert [i for _, i in find_files([tmp_path])] == ["a.txt", "output/.mlkg-cache/x.md", "output/graph.html", "sub/b.md"]
    (tmp_path / "alias").symlink_to(out)  # the same folder by another name, not a way into it
    ignored: list[str] = []
    found = find_files([tmp_path], [], ignored, exclude=[tmp_path / "alias", tmp_path / "missing"])
    assert [i for _, i in found] == ["a.txt", "sub/b.md"] and not ignored
    assert [d.id for d in read_documents([tmp_path], 10_000, [], exclude=[out])] == ["a.txt", "sub/b.md"]


def test_ingest_markdown_keeps_a_column_gap_inside_a_line_as_plain_text_does():
    """Two spaces or a tab inside a line are a column gap ("08:40  Invited talk") as in a .txt, which the layout
    reads as aligned columns; a single space, and the join of hard-wrapped prose, stay one space."""
    from pipeline.markup import markdown_to_text

    programme = "08:30  Opening remarks\n08:40\tInvited talk: A. Speaker (Lab), \"A Talk\"\n09:10 Coffee break"
    assert markdown_to_text(programme).text.split("\n") == [
        "08:30  Opening remarks", "08:40  Invited talk: A. Speaker (Lab), \"A Talk\"", "09:10 Coffee break"]
    wrapped = ("We propose RouteViT, a vision transformer that sends each image token to a small subset of   \n"
               "   expert feed-forward blocks, and evaluate it on ImageNet, where it outperforms DeiT at equal\n"
               "compute.")
    assert "  " not in markdown_to_text(wrapped).text
