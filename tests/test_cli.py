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


def test_cli_version_is_the_package_version():
    from importlib.metadata import version

    import pipeline

    r = _mlkg("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"mlkg {pipeline.__version__}"
    assert pipeline.__version__ == version("mlkg")


def test_cli_explain_an_unknown_name_is_bad_input(corpus_build):
    r = _mlkg("explain", "No Such Method Anywhere", "--graph", str(corpus_build[1] / "graph.ttl"))
    assert r.returncode == 3 and "no entity or fact named 'No Such Method Anywhere'" in r.stderr


def test_cli_eval_help_points_at_the_gold_format_in_the_repository():
    from data import TEST_DATA_DIR

    r = _mlkg("eval", "--help", cwd=None)
    text = " ".join(r.stdout.split())
    assert r.returncode == 0 and "tests/data/eval/README.md" in text and "shared/eval" not in text
    assert "## Gold format" in (TEST_DATA_DIR / "eval" / "README.md").read_text("utf-8")


def test_cli_dask_executor_without_the_extra_says_which_to_install(tmp_path, monkeypatch):
    """Dask is an optional extra: asked for without it, one line names it, exit 3, nothing written."""
    from typer.testing import CliRunner

    from pipeline.cli import app

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("We will present our work at ICLR 2025.", "utf-8")
    for name in ("dask", "dask.distributed", "distributed"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails as if not installed
    r = CliRunner().invoke(app, ["build", str(docs), "--out", str(tmp_path / "out"), "--executor", "dask", "--no-cache"])
    errors = [line for line in r.output.splitlines() if "error" in line]
    assert r.exit_code == 3 and len(errors) == 1 and "pip install 'mlkg[dask]'" in errors[0], r.output
    assert not (tmp_path / "out" / "graph.ttl").exists()


class _Log:
    """A stderr stand-in: a terminal or not, collecting what is written."""

    def __init__(self, tty: bool) -> None:
        self.tty, self.text = tty, ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, s: str) -> None:
        self.text += s

    def flush(self) -> None:
        pass


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _simulate(progress, clock, load=30.0, n=2000, per_doc=0.0045):
    """A build: ``load`` seconds before the first document (the pipeline loading), then ``per_doc`` each."""
    progress.on_stage("read")
    progress.on_stage("parse")
    progress.on_documents(n)
    clock.now += load
    for i in range(n):
        clock.now += per_doc
        progress.on_document_done(f"d{i}")
    progress.on_stage("resolve")
    clock.now += 1
    progress.on_stage("write")
    progress.close()


def test_cli_progress_in_a_log_prints_plain_lines_with_an_eta_from_recent_throughput():
    from pipeline.cli import _Progress

    clock, log = _Clock(), _Log(tty=False)
    _simulate(_Progress(stream=log, clock=clock, interval=10.0), clock, load=30.0, n=20_000, per_doc=0.0045)
    lines = log.text.splitlines()
    assert lines and all(line.startswith("mlkg: ") for line in lines) and "\r" not in log.text
    parsing = [line for line in lines if line.startswith("mlkg: parsing ")]
    assert len(parsing) >= 8  # every 10 s of a 90 s parse
    # 20,000 documents at 222/s after a 30 s load: each estimate is the time really left, not stretched by the load
    import re

    estimates = [re.search(r"parsing (\d+)/20000 documents, ([\d.]+)/s, about (\d+) s left", line) for line in parsing]
    assert sum(m is not None for m in estimates) >= 7, parsing
    for m in filter(None, estimates):
        assert m.group(2) == "222.2" and abs(int(m.group(3)) - (20000 - int(m.group(1))) * 0.0045) <= 1.5, m.group(0)
    assert any(line.startswith("mlkg: parsed 20000 documents in 90 s") for line in lines), lines
    assert lines[-1].startswith("mlkg: write (")


def test_cli_progress_in_a_log_is_quiet_for_a_short_build():
    from pipeline.cli import _Progress

    clock, log = _Clock(), _Log(tty=False)
    _simulate(_Progress(stream=log, clock=clock), clock, load=2.0, n=20, per_doc=0.1)
    assert log.text == ""


def test_cli_progress_on_a_terminal_redraws_one_line_and_clears_it():
    from pipeline.cli import _Progress

    clock, log = _Clock(), _Log(tty=True)
    _simulate(_Progress(stream=log, clock=clock), clock, load=5.0, n=2000, per_doc=0.0045)
    assert "\rparsing 2000/2000 documents" in log.text or "\rparsing 19" in log.text
    assert "parsed 2000 documents in 9.0 s\x1b[K\n" in log.text  # 2,000 documents at 0.0045 s: the ETA's basis
    etas = [chunk for chunk in log.text.split("\r") if "left" in chunk]
    assert etas and all("min" not in chunk for chunk in etas)  # a 9 s parse never reads as minutes
    assert log.text.endswith("\r\x1b[K")
