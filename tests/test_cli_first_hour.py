"""A new user's first hour with the mlkg command: their own folder, and the mistakes everyone makes once.

Each test runs the real command in a subprocess, as a user does, and checks the exit code and what it says.
"""

import os
import shutil
import socket
import subprocess
import sys

import pytest

from data import OUTPUT_DIR, ROOT

GOOD = ("Researchers from Northwind Lab will present RouteMix at ICLR 2026. RouteMix is evaluated on C4 "
        "and outperforms GShard.\n")


def _mlkg(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, cwd=cwd)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The committed graph in a folder of its own, as a user's `--out` folder."""
    out = tmp_path_factory.mktemp("my-graph")
    for name in ("graph.ttl", "merges.json"):
        shutil.copy(OUTPUT_DIR / name, out / name)
    return out


def test_graph_option_takes_the_build_output_folder(built):
    q = _mlkg("query", "demos", "--graph", str(built), "--format", "csv")
    assert q.returncode == 0, q.stderr
    assert q.stdout.startswith("method,venue,hardware\n") and "MLX,ICLR 2026,MacBook Pro" in q.stdout
    e = _mlkg("explain", "CCE", "--graph", str(built))
    assert e.returncode == 0 and "Cut Cross-Entropy (Method)" in e.stdout


def test_a_folder_without_a_graph_says_so_and_exits_3(tmp_path):
    for args in (["query", "demos"], ["explain", "CCE"], ["serve", "--port", "0"], ["view"], ["export"]):
        r = _mlkg(*args, "--graph", str(tmp_path))
        assert r.returncode == 3, (args, r.stderr)
        assert "no graph.ttl in this folder" in r.stderr and "--out folder" in r.stderr and "Traceback" not in r.stderr


def test_csv_ends_with_one_line_end(built):
    r = _mlkg("query", "demos", "--graph", str(built), "--format", "csv")
    assert r.returncode == 0 and r.stdout.endswith("iPhone\n") and not r.stdout.endswith("\n\n")


def test_a_misspelt_query_name_suggests_the_right_one(built):
    r = _mlkg("query", "paper_at_venue", "--graph", str(built))
    assert r.returncode == 3
    assert "no such named query" in r.stderr and "did you mean papers_at_venue?" in r.stderr


def test_a_param_without_equals_shows_what_the_query_takes(built):
    r = _mlkg("query", "papers_at_venue", "--graph", str(built), "--param", "ICML 2025")
    assert r.returncode == 3
    assert "expected NAME=VALUE" in r.stderr and 'this query takes --param venue="' in r.stderr


def test_a_misspelt_param_name_suggests_the_right_one(built):
    r = _mlkg("query", "papers_at_venue", "--graph", str(built), "--param", "venu=ICML 2025")
    assert r.returncode == 3 and "did you mean venue?" in r.stderr


def test_a_closed_pipe_ends_quietly_with_141(built):
    """`mlkg query ... | head -1`: the reader has gone away when the answer is written; no traceback, the
    SIGPIPE exit code (the read end is closed before the command, still importing, writes anything)."""
    read_end, write_end = os.pipe()
    proc = subprocess.Popen([sys.executable, "-m", "pipeline", "query", "demos", "--graph", str(built)],
                            stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    os.close(read_end)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "unexpected error" not in err


def test_view_writes_the_page_beside_its_graph(built):
    r = _mlkg("view", "--graph", str(built / "graph.ttl"))
    assert r.returncode == 0, r.stderr
    assert (built / "graph.html").is_file() and str(built / "graph.html") in r.stdout


def test_an_empty_folder_is_named_with_the_supported_formats(tmp_path):
    (tmp_path / "empty").mkdir()
    r = _mlkg("build", str(tmp_path / "empty"), "--out", str(tmp_path / "out"))
    assert r.returncode == 3 and "an empty folder" in r.stderr and ".md" in r.stderr
    assert not (tmp_path / "out").exists()


def test_no_inputs_outside_the_checkout_says_to_name_them(tmp_path):
    r = _mlkg("build", cwd=tmp_path)
    assert r.returncode == 3 and "no documents named, and no corpus/ folder here" in r.stderr
    assert "--out" in r.stderr and not (tmp_path / "output").exists()


def test_out_naming_a_file_is_refused_before_any_work(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text(GOOD)
    (tmp_path / "a-file").write_text("mine")
    r = _mlkg("build", str(docs), "--out", str(tmp_path / "a-file"))
    assert r.returncode == 2 and "is a file; name a folder" in r.stderr
    assert (tmp_path / "a-file").read_text() == "mine"


def test_out_inside_an_input_folder_is_never_read_as_documents(tmp_path):
    """`mlkg build . --out output`: the build's own folder (graph.html, its cache) is not among its inputs, so the
    next build reads the same one document, and with nothing changed it is up to date."""
    import json

    (tmp_path / "a.txt").write_text(GOOD)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = [subprocess.run([sys.executable, "-m", "pipeline", "build", ".", "--out", "output"], capture_output=True,
                           text=True, cwd=tmp_path, env=env) for _ in range(3)]
    assert all(r.returncode == 0 for r in runs), runs[-1].stderr
    assert (tmp_path / "output" / "graph.html").is_file()
    report = json.loads((tmp_path / "output" / "report.json").read_text("utf-8"))
    assert report["documents_read"] == 1 and not report["skipped"]
    assert "graph.html" not in (tmp_path / "output" / "graph.ttl").read_text("utf-8")
    assert "up to date (1 documents," in runs[1].stdout and "not read" not in runs[0].stderr + runs[1].stderr
    assert "up to date" not in runs[0].stdout and all("up to date" in r.stdout for r in runs[1:])


def test_a_mixed_folder_names_what_is_skipped_and_what_is_not_read(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "post.md").write_text("# Northwind Lab at ICLR 2026\n\n" + GOOD)
    (docs / "notes.txt").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00" * 50)
    (docs / "paper.docx").write_text(GOOD)
    (docs / "table.csv").write_text("a,b\n")
    (docs / ".DS_Store").write_bytes(b"\x00\x01")
    r = _mlkg("build", str(docs), "--out", str(tmp_path / "out"), "--no-html")
    assert r.returncode == 1, r.stderr
    assert "read 1 documents" in r.stdout
    skipped = [ln for ln in r.stderr.splitlines() if ln.startswith("skipped ")]
    assert len(skipped) == 1 and "notes.txt: binary content" in skipped[0] and not skipped[0].endswith("; skipped")
    assert "not read: 2 file(s) of other formats (paper.docx, table.csv); supported: .txt, .md" in r.stderr
    assert ".DS_Store" not in r.stderr


def test_a_taken_port_says_how_to_pick_another(built):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = _mlkg("serve", "--graph", str(built), "--port", str(port))
    assert r.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in r.stderr and "--port 0" in r.stderr


def test_a_misspelt_entity_name_suggests_the_label(built):
    r = _mlkg("explain", "cut cross entropi", "--graph", str(built))
    assert r.returncode == 3 and "no entity or fact named" in r.stderr
    assert "did you mean Cut Cross-Entropy?" in r.stderr


def test_ctrl_c_during_a_build_says_the_last_outputs_stand(tmp_path):
    """Ctrl-C while the build is writing (held there by the test hook): one line, exit 130, old graph kept."""
    import signal
    import time

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text(GOOD)
    out = tmp_path / "out"
    first = _mlkg("build", str(docs), "--out", str(out), "--no-html")
    assert first.returncode == 0, first.stderr
    before = (out / "graph.ttl").read_bytes()
    (docs / "b.txt").write_text("We will present TinyWhisper at Interspeech 2025.\n")
    proc = subprocess.Popen([sys.executable, "-m", "pipeline", "build", str(docs), "--out", str(out), "--no-html"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "MLKG_TEST_FAULT": "pause:staged"})
    line = proc.stderr.readline()
    deadline = time.monotonic() + 120
    while "paused at staged" not in line and time.monotonic() < deadline and line:
        line = proc.stderr.readline()
    assert "paused at staged" in line
    proc.send_signal(signal.SIGINT)
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 130, err
    assert "interrupted; the outputs in" in err and "Traceback" not in err
    assert (out / "graph.ttl").read_bytes() == before
