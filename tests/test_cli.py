"""The mlkg command end to end, in a subprocess as a user runs it."""

import os
import subprocess
import sys

import pytest

from data import CORPUS_DIR


def _mlkg(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, cwd=cwd)


def test_cli_build_then_query(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for f in sorted(CORPUS_DIR.glob("*.txt"))[:2]:
        (docs / f.name).write_text(f.read_text("utf-8"), "utf-8")
    out = tmp_path / "out"
    r = _mlkg("build", str(docs), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "read 2 documents" in r.stdout and (out / "graph.ttl").exists() and (out / "graph.html").exists()
    q = _mlkg("query", "papers_at_venue", "--graph", str(out / "graph.ttl"), "--param", "venue=ICML 2025", "--format", "csv")
    assert q.returncode == 0 and "Normalizing Flows are Capable Generative Models" in q.stdout


def test_cli_build_with_a_bad_document_exits_1_and_names_it(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.txt").write_text("We will present our work at ICLR 2025.")
    (docs / "bad.txt").write_bytes(b"\x00\x00binary")
    r = _mlkg("build", str(docs), "--out", str(tmp_path / "out"), "--no-html")
    assert r.returncode == 1
    assert "bad.txt" in r.stderr and "binary" in r.stderr


def test_cli_missing_input_exits_3(tmp_path):
    r = _mlkg("build", str(tmp_path / "nothing"), "--out", str(tmp_path / "out"))
    assert r.returncode == 3 and "no such file" in r.stderr


@pytest.mark.parametrize("args", [["--help"], ["build", "--help"], ["query", "--list"]])
def test_cli_help_and_list(args):
    r = _mlkg(*args)
    assert r.returncode == 0 and r.stdout.strip()


def test_cli_explain_prints_evidence(corpus_build):
    r = _mlkg("explain", "AdEMAMix", "--graph", str(corpus_build[1] / "graph.ttl"))
    assert r.returncode == 0 and "extends" in r.stdout and "modification of the Adam optimizer" in r.stdout


def test_cli_explain_shows_the_merge_log(corpus_build):
    r = _mlkg("explain", "CCE", "--graph", str(corpus_build[1] / "graph.ttl"))
    assert r.returncode == 0, r.stderr
    assert "Cut Cross-Entropy (Method)" in r.stdout and "merged from" in r.stdout
    assert "'Cut Cross-Entropy (CCE)'" in r.stdout and "[label]" in r.stdout


def test_cli_export_graphml(corpus_build, tmp_path):
    out = tmp_path / "g.graphml"
    r = _mlkg("export", "--graph", str(corpus_build[1] / "graph.ttl"), "--out", str(out))
    assert r.returncode == 0 and out.read_text("utf-8").startswith("<?xml")
    bad = _mlkg("export", "--graph", str(corpus_build[1] / "graph.ttl"), "--format", "dot")
    assert bad.returncode == 3 and "graphml, gexf" in bad.stderr


def test_cli_view_renders_the_committed_page_without_rebuilding(tmp_path):
    """`mlkg view` on the committed graph gives the committed page byte for byte, and --open hands it to
    the user's browser ($BROWSER, here a command that records the URL)."""
    from data import OUTPUT_DIR

    out, opened = tmp_path / "graph.html", tmp_path / "opened.txt"
    recorder = f"{sys.executable} -c 'import sys; open(sys.argv[1], \"w\").write(sys.argv[2])' {opened} %s"
    r = subprocess.run([sys.executable, "-m", "pipeline", "view", "--graph", str(OUTPUT_DIR / "graph.ttl"),
                        "--out", str(out), "--open"], capture_output=True, text=True,
                       env={**os.environ, "BROWSER": recorder})
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == (OUTPUT_DIR / "graph.html").read_bytes()
    assert opened.read_text() == out.resolve().as_uri()


def test_cli_view_without_a_readable_graph_exits_3(tmp_path):
    r = _mlkg("view", "--graph", str(tmp_path / "none.ttl"), "--out", str(tmp_path / "g.html"))
    assert r.returncode == 3 and "mlkg build" in r.stderr
    bad = tmp_path / "bad.ttl"
    bad.write_text("this is not turtle <<<")
    r = _mlkg("view", "--graph", str(bad), "--out", str(tmp_path / "g.html"))
    assert r.returncode == 3 and "not a readable Turtle graph" in r.stderr and not (tmp_path / "g.html").exists()


def test_cli_eval_with_a_missing_file_exits_3(tmp_path, corpus_build):
    r = _mlkg("eval", str(corpus_build[1] / "graph.ttl"), str(tmp_path / "none.json"))
    assert r.returncode == 3 and "cannot read the gold file" in r.stderr
    gold = tmp_path / "gold.json"
    gold.write_text('{"entities": [], "relations": []}')
    r = _mlkg("eval", str(tmp_path / "none.ttl"), str(gold))
    assert r.returncode == 3 and "mlkg build" in r.stderr


def test_cli_rebuild_after_one_change_says_it_patched_the_last_graph(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    files = sorted(CORPUS_DIR.glob("*.txt"))
    for f in files:
        (docs / f.name).write_text(f.read_text("utf-8"), "utf-8")
    out = tmp_path / "out"
    first = _mlkg("build", str(docs), "--out", str(out), "--no-html", "--no-validate")
    assert first.returncode == 0, first.stderr
    assert "patched" not in first.stdout and (out / ".mlkg-state.pkl").is_file()
    victim = docs / files[0].name
    victim.write_text(victim.read_text("utf-8") + "\nWe also release QuuxNet, which outperforms BERT.\n", "utf-8")
    again = _mlkg("build", str(docs), "--out", str(out), "--no-html", "--no-validate")
    assert again.returncode == 0, again.stderr
    assert "(1 parsed, 4 from the cache)" in again.stdout
    assert "graph.ttl and merges.json patched: 1 document(s) new or changed, 0 removed" in again.stdout
    assert "quuxnet" in (out / "graph.ttl").read_text("utf-8").lower()
