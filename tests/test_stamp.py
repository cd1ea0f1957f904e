"""A true no-op (stamp.py): an unchanged build reads and writes nothing; any change builds again."""

import pytest

from pipeline import BuildConfig, build
from pipeline.generate import generate_corpus


def _mtimes(out):
    return {p.name: p.stat().st_mtime_ns for p in out.iterdir() if p.is_file()}


def test_unchanged_build_touches_nothing_and_any_change_builds_again(tmp_path):
    docs, out = tmp_path / "docs", tmp_path / "out"
    generate_corpus(6, docs)
    config = BuildConfig(inputs=(docs,), out_dir=out, stop_if_unchanged=True, validate=False)
    first = build(config)
    assert not first.up_to_date and (out / "graph.html").is_file()
    before = _mtimes(out)
    again = build(config)
    assert again.up_to_date and (again.documents_parsed, again.documents_cached) == (0, 6)
    assert (again.documents_read, again.entities_per_class, again.graph_stats) == (
        first.documents_read, first.entities_per_class, first.graph_stats)
    assert _mtimes(out) == before

    no_html = BuildConfig(inputs=(docs,), out_dir=out, stop_if_unchanged=True, validate=False, html=False)
    assert not build(no_html).up_to_date  # other options
    assert build(no_html).up_to_date
    assert not build(BuildConfig(inputs=(docs,), out_dir=out, validate=False, html=False)).up_to_date  # not asked
    victim = sorted(docs.glob("*.txt"))[2]
    victim.write_text(victim.read_text("utf-8") + "\nWe also release ZorbNet.\n", "utf-8")  # an input
    changed = build(config)
    assert not changed.up_to_date and changed.documents_parsed == 1
    (docs / "new.txt").write_text("We propose FlibNet.\n", "utf-8")  # a new input
    assert not build(config).up_to_date
    assert build(config).up_to_date
    with open(out / "graph.ttl", "ab") as fh:  # an output edited
        fh.write(b"# edited\n")
    assert not build(config).up_to_date
    (out / "graph.html").unlink()  # an output gone
    assert not build(config).up_to_date and (out / "graph.html").is_file()
    assert not build(BuildConfig(inputs=(docs,), out_dir=out, stop_if_unchanged=True, validate=False, cache=False)).up_to_date
    fresh = tmp_path / "fresh"
    build(BuildConfig(inputs=(docs,), out_dir=fresh, validate=False, cache=False))
    for name in ("graph.ttl", "graph.html", "merges.json", "report.json"):
        assert (out / name).read_bytes() == (fresh / name).read_bytes(), name


def test_a_failed_build_is_not_taken_for_an_unchanged_one(tmp_path, monkeypatch):
    docs, out = tmp_path / "docs", tmp_path / "out"
    generate_corpus(3, docs)
    config = BuildConfig(inputs=(docs,), out_dir=out, stop_if_unchanged=True, validate=False, html=False)
    build(config)
    (docs / "new.txt").write_text("We propose FlibNet.\n", "utf-8")
    from pipeline import write

    def broken(*args, **kwargs):
        raise OSError("disk full (injected)")

    monkeypatch.setattr(write, "write_outputs", broken)
    with pytest.raises(OSError):
        build(config)
    monkeypatch.undo()
    again = build(config)
    assert not again.up_to_date and again.documents_read == 4
    assert "flibnet" in (out / "graph.ttl").read_text("utf-8").lower()
    assert build(config).up_to_date


def test_a_web_address_among_the_inputs_always_builds(tmp_path):
    from pipeline.stamp import fingerprint

    docs = tmp_path / "docs"
    generate_corpus(1, docs)
    assert fingerprint(BuildConfig(inputs=(docs,), out_dir=tmp_path / "out")) is not None
    assert fingerprint(BuildConfig(inputs=(docs, "https://example.org/post"), out_dir=tmp_path / "out")) is None


def test_the_same_command_line_again_is_answered_before_the_command_line_libraries_load(tmp_path):
    """`mlkg build ...` run again with nothing changed: the stamp of the build it asked for answers it (launch.py),
    with the summary and exit code the Typer command gives, and neither Typer nor rdflib nor spaCy is imported."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    generate_corpus(3, tmp_path / "docs")
    argv = ["build", "docs", "--out", "out", "--no-html", "--no-validate"]

    def run(*head):
        return subprocess.run([sys.executable, *head, *argv], capture_output=True, text=True, cwd=tmp_path, env=env)

    first = run("-m", "pipeline")
    assert first.returncode == 0 and "up to date" not in first.stdout, first.stderr
    before = _mtimes(tmp_path / "out")
    fast = run("-X", "importtime", "-m", "pipeline")
    loaded = {line.rsplit("|", 1)[-1].strip() for line in fast.stderr.splitlines() if line.startswith("import time:")}
    assert fast.returncode == 0 and "is up to date" in fast.stdout
    assert not loaded & {"typer", "click", "pydantic", "rdflib", "spacy"}, sorted(loaded & {"typer", "rdflib", "spacy"})
    typer_path = run("-c", "import sys; from pipeline.cli import app; sys.argv[0] = 'mlkg'; app()")  # the Typer command
    assert (typer_path.returncode, typer_path.stdout) == (fast.returncode, fast.stdout)
    assert _mtimes(tmp_path / "out") == before
    other = subprocess.run([sys.executable, "-m", "pipeline", *argv, "--strict"], capture_output=True, text=True,
                           cwd=tmp_path, env=env)  # other words: the Typer command decides, and builds again
    assert other.returncode == 0 and "up to date" not in other.stdout, other.stderr
