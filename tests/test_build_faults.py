"""Bad input and faults, end to end through the `mlkg` command: a corpus of bad documents, a folder of 2,000
tiny files, and builds killed or failing while they write (the previous outputs must survive byte for byte)."""

import codecs
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rdflib import Graph, URIRef
from rdflib.namespace import RDF

from pipeline.ingest import html_to_text
from pipeline.rdf import document_iri
from pipeline.vocab import MLKG
from pipeline.write import JOURNAL

MAX_BYTES = 20_000
_PR_CAPBSET_DROP, _CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 24, 1, 2


def _drop_file_read_override():
    """In the child, before exec: drop root's power to read any file, so chmod 000 really denies reading."""
    if os.geteuid() == 0:  # needs CAP_SETPCAP; without it the file stays readable and the test leaves it out
        libc = ctypes.CDLL(None, use_errno=True)
        for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
            libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)


def _mlkg(*args, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True,
                          preexec_fn=_drop_file_read_override, env=env, **kw)


def _unreadable_really(path: Path) -> bool:
    r = subprocess.run([sys.executable, "-c", f"open({str(path)!r}, 'rb')"], capture_output=True,
                       preexec_fn=_drop_file_read_override)
    return r.returncode != 0 and b"PermissionError" in r.stderr


GOOD = {  # file name -> (bytes, an invented method it names, the encoding the report must give)
    "plain.txt": ("We present ZephyrNet, a new method, at ICLR 2025.\n".encode(), "ZephyrNet", "utf-8"),
    "latin1.txt": ("Café notes: we will present QuillNet at NeurIPS 2024.\n".encode("latin-1"), "QuillNet",
                   "cp1252 (best guess)"),
    "utf16.txt": ("Grüße: we present BrambleNet at ICML 2024.\r\n".encode("utf-16"), "BrambleNet", "utf-16-le (BOM)"),
    "bom.md": (codecs.BOM_UTF8 + "# Notes\n\nWe present TundraNet at ICLR 2024.\n".encode(), "TundraNet",
               "utf-8 (BOM)"),
    "page.html": ('<html><head><meta charset="windows-1252"><title>Blog</title>'
                  '<script>document.write("<p>We present ScriptNet at ICLR 2025.</p>")</script>'
                  '<style>p { content: "StyleNet" }</style></head>'
                  '<body><p>Caf\xe9: we present MarkupNet at ICML 2025.</p></body></html>'.encode("cp1252"),
                  "MarkupNet", "cp1252 (declared windows-1252)"),
    'we"ird <name> & \'more\'.txt': ("We present QuoteNet at NeurIPS 2025.\n".encode(), "QuoteNet", "utf-8"),
}
JSONL_GOOD = {"a1": "We present LineNet at ICLR 2025.", "b2": "We present RowNet at ICML 2024."}
HTML_THAT_RAISES = "<p>We present CrashNet at ICLR 2025.</p><![foo[ x ]]>"


def make_bad_corpus(root: Path) -> dict[str, str]:
    """Write the corpus; return {file name (or file:line): a word its skip reason must contain}."""
    root.mkdir()
    for name, (data, _, _) in GOOD.items():
        (root / name).write_bytes(data)
    lines = [json.dumps({"id": "a1", "text": JSONL_GOOD["a1"]}), '{"id": "x", "text": "unterminated',
             json.dumps({"id": "b2", "text": JSONL_GOOD["b2"]}), json.dumps({"id": "c3"}), ""]
    (root / "docs.jsonl").write_text("\n".join(lines), "utf-8")
    bad = {"docs.jsonl:2": "not valid JSON", "docs.jsonl:4": 'no "text"'}
    (root / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    bad["binary.txt"] = "binary"
    (root / "empty.txt").write_bytes(b"")
    bad["empty.txt"] = "empty"
    (root / "blank.md").write_text("  \n\t\n")
    bad["blank.md"] = "empty"
    (root / "only-script.html").write_text("<script>alert('no text here')</script>")
    bad["only-script.html"] = "empty"
    (root / "huge.txt").write_text("We present HugeNet at ICLR 2025. " * (MAX_BYTES // 20))
    bad["huge.txt"] = "over the limit"
    os.symlink("loop.txt", root / "loop.txt")  # a link to itself
    bad["loop.txt"] = "symlink loop"
    os.symlink(".", root / "again")  # a folder link back to the corpus
    bad["again"] = "symlink loop"
    os.symlink("no-such-target.txt", root / "dangling.txt")
    bad["dangling.txt"] = "broken symlink"
    os.mkfifo(root / "fifo.txt")  # reading it naively would block forever
    bad["fifo.txt"] = "FIFO"
    (root / "locked.txt").write_text("We present LockedNet at ICLR 2025.")
    (root / "locked.txt").chmod(0)
    if _unreadable_really(root / "locked.txt"):
        bad["locked.txt"] = "permission denied"
    else:  # cannot make a file unreadable here (root without CAP_SETPCAP): it is simply read
        (root / "locked.txt").unlink()
    # file names that are not UTF-8 (bytes on POSIX): shown with \x escapes, in the graph and in the report
    with open(os.path.join(os.fsencode(root), b"caf\xe9.txt"), "wb") as fh:
        fh.write(b"We present ByteNet at ICML 2025.\n")
    with open(os.path.join(os.fsencode(root), b"nul\xff <\">.txt"), "wb"):
        pass
    bad['nul\\xff <">.txt'] = "empty"
    (root / "weird.html").write_text(HTML_THAT_RAISES)
    try:
        html_to_text(HTML_THAT_RAISES)
    except Exception:  # this Python's HTML parser raises on it: the document is skipped with the reason
        bad["weird.html"] = "HTML cannot be parsed"
    else:
        (root / "weird.html").unlink()
    return bad


def test_build_faults_bad_corpus_reports_every_bad_document_and_keeps_every_good_one(tmp_path):
    docs = tmp_path / "docs"
    bad = make_bad_corpus(docs)
    out = tmp_path / "out"
    r = _mlkg("build", str(docs), "--out", str(out), "--max-bytes", str(MAX_BYTES), timeout=300)
    assert r.returncode == 1, r.stderr  # success, with skipped documents
    skip_lines = [line for line in r.stderr.splitlines() if line.startswith("skipped ")]
    report = json.loads((out / "report.json").read_text("utf-8"))
    assert len(skip_lines) == len(report["skipped"]) == len(bad), (skip_lines, bad)
    for name, reason in bad.items():
        path = str(docs / name)
        line = next((s for s in skip_lines if s.startswith(f"skipped {path}: ")), None)
        assert line is not None and reason in line, (name, reason, skip_lines)
        assert any(s["path"] == path and reason in s["reason"] for s in report["skipped"])
    g = Graph().parse(str(out / "graph.ttl"))
    labels = {str(o) for o in g.objects(None, URIRef("http://www.w3.org/2000/01/rdf-schema#label"))}
    for name, (_, method, encoding) in GOOD.items():
        assert (document_iri(name), RDF.type, MLKG.Document) in g, name
        assert method in labels and report["encodings"][name] == encoding
    for doc_id, text in JSONL_GOOD.items():
        assert (document_iri(f"docs.jsonl#{doc_id}"), RDF.type, MLKG.Document) in g
        assert text.split()[2].rstrip(",") in labels
    assert (document_iri("caf\\xe9.txt"), RDF.type, MLKG.Document) in g and "ByteNet" in labels
    assert report["documents_read"] == len(GOOD) + len(JSONL_GOOD) + 1
    assert not {"ScriptNet", "StyleNet", "HugeNet", "LockedNet"} & labels
    assert "read page.html as cp1252 (declared windows-1252)" in r.stdout
    # --strict: the same corpus fails, names what it would skip, and writes nothing
    strict_out = tmp_path / "strict"
    r = _mlkg("build", str(docs), "--out", str(strict_out), "--max-bytes", str(MAX_BYTES), "--strict", timeout=300)
    assert r.returncode == 2 and "--strict" in r.stderr and "binary.txt" in r.stderr
    assert not strict_out.exists() or not any(strict_out.iterdir())


def test_build_faults_only_bad_documents_exits_3_and_names_them(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "empty.txt").write_bytes(b"")
    os.symlink("loop.txt", docs / "loop.txt")
    r = _mlkg("build", str(docs), "--out", str(tmp_path / "out"), timeout=300)
    assert r.returncode == 3 and "no readable documents" in r.stderr
    assert "empty.txt" in r.stderr and "symlink loop" in r.stderr


@pytest.mark.parametrize("args", [["build", "--no-such-option"], ["no-such-command"], []])
def test_build_faults_usage_errors_exit_3(args):
    assert _mlkg(*args, timeout=120).returncode == 3


def test_build_faults_folder_of_2000_tiny_files_builds(tmp_path):
    docs = tmp_path / "many"
    for i in range(2000):
        sub = docs / f"part{i // 500}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"note{i:04d}.txt").write_text(f"Note {i}: we present Tiny{i}Net at ICLR 2025.\n")
    out = tmp_path / "out"
    r = _mlkg("build", str(docs), "--out", str(out), "--no-html", timeout=900)
    assert r.returncode == 0, r.stderr
    report = json.loads((out / "report.json").read_text("utf-8"))
    assert report["documents_read"] == 2000 and not report["skipped"] and len(report["encodings"]) == 2000
    ttl = (out / "graph.ttl").read_text("utf-8")
    assert "resource/document/part3%2Fnote1999.txt" in ttl and "Tiny1999Net" in ttl


def _fingerprint(out: Path) -> dict[str, bytes]:
    """The output files (the incremental cache folder beside them is checked apart, by ``_cache``; the state a
    build leaves for patching, and its page's, are no output: a build removes them when it starts, so the next
    one builds in full)."""
    from pipeline.incremental import STATE_FILE
    from pipeline.outputs import PAGE

    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file() and p.name not in (STATE_FILE, PAGE)}


def _cache(out: Path) -> dict[str, bytes]:
    root = out / ".mlkg-cache"
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()} if root.is_dir() else {}


@pytest.fixture(scope="module")
def previous_build(tmp_path_factory):
    """A good build of one document, and a second, different corpus to rebuild over it."""
    base = tmp_path_factory.mktemp("kill")
    (base / "v1").mkdir()
    (base / "v1" / "a.txt").write_text("We present ZephyrNet, a new method, at ICLR 2025.\n")
    (base / "v2").mkdir()
    (base / "v2" / "a.txt").write_text("We present QuillNet at NeurIPS 2024.\n")
    (base / "v2" / "b.txt").write_text("We present BrambleNet at ICML 2024.\n")
    out = base / "out"
    r = _mlkg("build", str(base / "v1"), "--out", str(out), timeout=300)
    assert r.returncode == 0, r.stderr
    return base, out, _fingerprint(out)


def _build_paused_at(checkpoint, base, out):
    """Start a build of v2 that pauses at ``checkpoint`` inside the writer, wait for it there, and SIGKILL it."""
    env = {**os.environ, "MLKG_TEST_FAULT": f"pause:{checkpoint}"}
    proc = subprocess.Popen([sys.executable, "-m", "pipeline", "build", str(base / "v2"), "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 300
        for line in proc.stderr:
            if f"paused at {checkpoint}" in line or time.monotonic() > deadline:
                break
        assert proc.poll() is None, "the build ended before reaching the checkpoint"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=60)
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL


def _copy(previous_build, tmp_path):
    base, out, before = previous_build
    shutil.copytree(out, tmp_path / "out")
    return base, tmp_path / "out", before


def test_build_faults_killed_while_writing_leaves_previous_outputs_byte_identical(previous_build, tmp_path):
    base, out, before = _copy(previous_build, tmp_path)
    cache_before = _cache(out)
    assert cache_before  # the previous build left its extractions in the cache
    _build_paused_at("staged", base, out)  # every new file written in full, none yet in place
    # the cache keeps every entry it had, byte for byte (entries for the new documents may have been added)
    assert cache_before.items() <= _cache(out).items()
    files = {p.name for p in out.iterdir()}
    assert {".graph.ttl", ".graph.html", ".report.json"} <= {n.rsplit(".", 2)[0] for n in files if n.endswith(".tmp")}
    assert {n: b for n, b in _fingerprint(out).items() if not n.startswith(".")} == before
    # the next build clears the dead run's temporary files, and fails (--strict) without touching the outputs
    (base / "bad").mkdir(exist_ok=True)
    (base / "bad" / "a.txt").write_text("We present ZephyrNet at ICLR 2025.\n")
    (base / "bad" / "b.txt").write_bytes(b"")
    r = _mlkg("build", str(base / "bad"), "--out", str(out), "--strict", timeout=300)
    assert r.returncode == 2 and "b.txt" in r.stderr
    assert _fingerprint(out) == before


def test_build_faults_killed_between_renames_is_completed_by_the_next_run(previous_build, tmp_path):
    base, out, before = _copy(previous_build, tmp_path)
    _build_paused_at("committing", base, out)  # the commit point passed, graph.ttl replaced, the rest not yet
    names = set(before)
    mixed = {n: b for n, b in _fingerprint(out).items() if n in names}
    assert mixed["graph.ttl"] != before["graph.ttl"] and mixed["report.json"] == before["report.json"]
    assert (out / JOURNAL).exists()
    staged = json.loads((out / JOURNAL).read_text("utf-8"))["renames"]
    pending = {name: (out / tmp).read_bytes() for tmp, name in staged if (out / tmp).exists()}
    assert set(pending) == {"graph.html", "merges.json", "report.json"}
    # any next build first finishes the dead run's commit; this one then fails, so the outputs are v2's
    r = _mlkg("build", str(tmp_path / "missing"), "--out", str(out), timeout=300)
    assert r.returncode == 3
    after = _fingerprint(out)
    assert set(after) == names and after["graph.ttl"] == mixed["graph.ttl"]
    assert all(after[n] == b for n, b in pending.items())
    assert json.loads(after["report.json"])["documents_read"] == 2  # the report is v2's, like the graph
    # and a clean build of v2 gives exactly these bytes
    r = _mlkg("build", str(base / "v2"), "--out", str(tmp_path / "clean"), timeout=300)
    assert r.returncode == 0 and _fingerprint(tmp_path / "clean") == after


@pytest.mark.parametrize("checkpoint", ["staged"])
def test_build_faults_write_error_fails_with_exit_2_and_keeps_outputs(previous_build, tmp_path, checkpoint):
    base, out, before = _copy(previous_build, tmp_path)
    env = {**os.environ, "MLKG_TEST_FAULT": f"raise:{checkpoint}"}
    r = _mlkg("build", str(base / "v2"), "--out", str(out), env=env, timeout=300)
    assert r.returncode == 2 and "cannot write the outputs" in r.stderr and "left as they were" in r.stderr
    assert _fingerprint(out) == before  # no temporary file left behind either


def test_build_faults_two_builds_into_one_folder_never_leave_a_wrong_graph(tmp_path):
    """Build A (a new document) pauses after its commit, before it prunes the cache and leaves its state;
    build B (without that document) starts into the same folder meanwhile. B must wait for A (the folder is
    locked for the whole build); the build after both then gives exactly the graph of a clean build, where a
    state left by A over B's outputs used to make it patch nothing and lose the document's facts."""
    from pipeline.generate import generate_corpus

    docs, out = tmp_path / "docs", tmp_path / "out"
    generate_corpus(8, docs)
    flags = ["--out", str(out), "--no-html", "--no-validate"]
    assert _mlkg("build", str(docs), *flags, timeout=300).returncode == 0
    extra = docs / "zz_new.txt"
    extra.write_text("Quorum Lab\n\nWe propose GlimmerNet, which outperforms BERT on ImageNet.\n", "utf-8")
    resume = tmp_path / "resume"
    env = {**os.environ, "MLKG_TEST_FAULT": "pause:committed", "MLKG_TEST_RESUME": str(resume)}
    a = subprocess.Popen([sys.executable, "-m", "pipeline", "build", str(docs), *flags], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    b = None
    try:
        for line in a.stderr:
            if "paused at committed" in line:
                break
        assert a.poll() is None, "build A ended before its commit"
        extra.rename(tmp_path / "aside.txt")  # B builds the corpus without the new document
        b = subprocess.Popen([sys.executable, "-m", "pipeline", "build", str(docs), *flags],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        waiting = b.stderr.readline()
        assert "waiting for it to finish" in waiting, waiting
        resume.touch()
        assert a.wait(timeout=300) == 0
        assert b.wait(timeout=300) == 0
    finally:
        for p in (a, b):
            if p is not None:
                p.kill()
                p.wait(timeout=60)
                p.stderr.close()
    (tmp_path / "aside.txt").rename(extra)
    r = _mlkg("build", str(docs), *flags, timeout=300)
    assert r.returncode == 0, r.stderr
    clean = tmp_path / "clean"
    assert _mlkg("build", str(docs), "--out", str(clean), "--no-html", "--no-validate", "--no-cache",
                 timeout=300).returncode == 0
    for name in ("graph.ttl", "merges.json", "report.json"):
        assert (out / name).read_bytes() == (clean / name).read_bytes(), name
    assert "GlimmerNet" in (out / "graph.ttl").read_text("utf-8")
