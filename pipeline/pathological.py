"""Hostile document shapes, and ``mlkg bench --pathological``: the build's time per character on each of them
against ordinary prose of the same size. Figures printed, never asserted (the tests only check that each shape
is built, or skipped by its budget)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

__all__ = ["SHAPES", "shape_text", "prose_text", "run_pathological"]


def prose_text(size: int) -> str:
    """Ordinary prose: the generator's invented documents (conference posts, listings, teasers), one after
    another, up to ``size`` characters."""
    from .generate import generate_document

    parts, n, i = [], 0, 0
    while n < size:
        text = generate_document(i)[1]
        parts.append(text)
        n += len(text) + 2
        i += 1
    return "\n\n".join(parts)[:size]


def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _capitalised(size: int) -> str:
    words, n, i = [], 0, 0
    while n < size:
        w = f"Word{i}X"
        words.append(w)
        n += len(w) + 1
        i += 1
    return " ".join(words)[:size]


def _nested_parentheses(size: int) -> str:
    half = size // 2
    return _repeat("(Ab ", half) + _repeat(")", size - half)


def _lines(size: int) -> str:
    sentences = ("The model runs on a single GPU.", "We evaluate it on ImageNet.", "Results improve by two points.",
                 "Training takes three days.", "The code is available online.", "It uses a small Transformer.")
    out, n, i = [], 0, 0
    while n < size:
        s = sentences[i % len(sentences)]
        out.append(s)
        n += len(s) + 1
        i += 1
    return "\n".join(out)[:size]


SHAPES = {
    "capitalised-words": _capitalised,
    "nested-parentheses": _nested_parentheses,
    "hyphen-chain": lambda size: _repeat("Ab-", size),
    "camelcase-token": lambda size: _repeat("Ab", size),
    "sentence-per-line": _lines,
}
"""Each hostile shape by name: a function of the size in characters giving the text."""


def shape_text(name: str, size: int) -> str:
    """``size`` characters of the hostile shape ``name`` (one of :data:`SHAPES`)."""
    return SHAPES[name](size)


def _build_seconds(text: str, work: Path, name: str, model: str | None) -> tuple[float, int]:
    """Wall time of a build of one document holding ``text`` (no cache, HTML or validation), and how many
    documents it skipped. The pipeline stays loaded between builds (as in one ``mlkg build`` of many files)."""
    from .build import run_build
    from .config import BuildConfig

    folder = work / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.txt").write_text(text, "utf-8")
    config = BuildConfig(inputs=(folder,), out_dir=work / f"{name}-out", model=model, html=False, cache=False,
                         validate=False)
    t0 = time.perf_counter()
    report = run_build(config)
    return time.perf_counter() - t0, len(report.skipped)


def _bare_seconds(nlp, text: str) -> tuple[float, int]:
    """Wall time and tokens of spaCy's own parse of ``text`` (its tokenizer, tok2vec and parser, no mlkg rules)."""
    t0 = time.perf_counter()
    doc = nlp(text)
    return time.perf_counter() - t0, len(doc)


def _bare_nlp(model: str | None):
    import spacy

    from .nlp import STATISTICAL, bound_affixes, pick_model

    nlp = spacy.load(pick_model(model), enable=list(STATISTICAL), exclude=[])
    nlp.select_pipes(enable=list(STATISTICAL))
    nlp.max_length = 10_000_000
    bound_affixes(nlp.tokenizer)  # spaCy's own affix search is quadratic in a word's length (minutes on these shapes)
    return nlp


def run_pathological(size: int = 100_000, model: str | None = None, echo=print, work: Path | None = None) -> dict:
    """Build ``size`` characters of prose and of each hostile shape; print each one's time per character and
    its ratio to prose's, beside spaCy's own parse of the same text (the bare parse: tokens cost the parser the
    same whatever the rules do). Returns ``{name: {"seconds", "ratio", "skipped", "bare_seconds", "tokens"}}``."""
    bare = _bare_nlp(model)
    with tempfile.TemporaryDirectory(prefix="mlkg-pathological-") as tmp:
        work = Path(work or tmp)
        _build_seconds("Warm-up: the pipeline is loaded once.", work, "warm-up", model)
        echo(f"{'shape':<20} {'chars':>8} {'tokens':>7} {'build s':>8} {'us/char':>8} {'x prose':>8} {'bare s':>7} {'x bare':>7}")
        out: dict = {}
        base = None
        for name in ("prose", *SHAPES):
            text = prose_text(size) if name == "prose" else shape_text(name, size)
            seconds, skipped = _build_seconds(text, work, name, model)
            bare_s, tokens = _bare_seconds(bare, text)
            base = seconds if base is None else base
            ratio = seconds / base
            out[name] = {"seconds": seconds, "ratio": ratio, "skipped": skipped, "bare_seconds": bare_s, "tokens": tokens}
            echo(f"{name:<20} {len(text):>8} {tokens:>7} {seconds:>8.2f} {seconds / len(text) * 1e6:>8.1f} {ratio:>8.2f}"
                 f" {bare_s:>7.2f} {seconds / bare_s:>7.2f}" + ("  (skipped by its budget)" if skipped else ""))
        return out
