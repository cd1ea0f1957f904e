"""Mention candidates that the name-shape runs and the line heads miss, found by layout and by how code is written:

- a title in quotes wrapped over two or three lines ("... with \"Unbiased Scene Graph Generation from Biased" /
  "Training\", written with ..."): the quote's words, its line breaks squeezed in the name;
- the pieces of a line between column separators (a table's cells, "Nature 2023 :: Title :: teaser", "Title ......
  value", "TI  - Title", "Title · 2022"), each of two words or more: a title in sentence case ("Solving olympiad
  geometry without human demonstrations") in a table cell is no run of capitals and no line head;
- a word written as code in lower case: a package, checkpoint or file-like name with an underscore, an inner dot or a
  slash ("ir_datasets", "whisper.cpp", "facebook/bart-large-cnn"), and a plain lower-case word that a kind noun
  says is a library or a package ("the norbert library").

Only spans are found here; the caller makes the candidates and the trained decision picks among them. Out of fold on
the readable real-* sets, these constructions held about a third of the gold names that were never a candidate
(papers: 48 titles wrapped over lines, 26 in table cells, 22 after a field label; methods: about 35 written as code).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["LayoutSpan", "wrapped_quotes", "line_pieces", "code_words"]


@dataclass(frozen=True, slots=True)
class LayoutSpan:
    """Characters ``[start, end)`` of a span, what found it (the candidate's source: "quote", "cell" or "code"),
    and its name with line breaks squeezed ("" if none)."""

    start: int
    end: int
    source: str
    name: str = ""


_WRAPPED_QUOTE = re.compile(r"(?<![\w\"“])[\"“](?=[^\s\"”])([^\"“”\n]{2,200}(?:\n[ \t]*[^\"“”\s][^\"“”\n]{0,200}){1,2})"
                            r"[\"”](?!\w)")
_MAX_QUOTE = 300


def wrapped_quotes(text: str) -> list[LayoutSpan]:
    """The words inside quotes that open and close on different lines (at most three lines, no blank line between),
    three words at least: a title wrapped at a width."""
    out = []
    for m in _WRAPPED_QUOTE.finditer(text):
        a, b = m.span(1)
        while b > a and text[b - 1] in ",.;: \t":
            b -= 1  # the comma or full stop the quote closes over
        inside = text[a:b]
        if b - a <= _MAX_QUOTE and len(inside.split()) >= 3:
            out.append(LayoutSpan(a, b, "quote", " ".join(inside.split())))
    return out


_PIECE_BREAK = re.compile(r"[ \t]*(?:\||\t|::|[·•▸]|\.{3,})[ \t]*|[ \t]{2,}|[ \t]+[-–—][ \t]+")
"""What separates the columns of a line: a bar, a tab, a double colon, a middle dot, leader dots, a run of spaces or a
dash between spaces."""
_PIECE_TRIM = " \t-–—:=>*•·▸[](),;.\"“”"
_MAX_PIECE_WORDS = 30
_MAX_LINE = 2000


def line_pieces(text: str, line_starts: list[int], line_kinds: list[str]) -> list[LayoutSpan]:
    """Each piece of a line between two column separators, or after one to the line's end, of two to
    ``_MAX_PIECE_WORDS`` words; a piece in quotes or brackets gives its inside. The line's head before the first
    separator is a line segment already (``candidates._line_segments``)."""
    out = []
    for k, a in enumerate(line_starts):
        if line_kinds[k] in {"blank", "rule"}:
            continue
        b = line_starts[k + 1] - 1 if k + 1 < len(line_starts) else len(text)
        if b - a > _MAX_LINE:
            continue
        cuts = [m for m in _PIECE_BREAK.finditer(text, a, b) if m.start() > a and text[a:m.start()].strip()]
        for j, m in enumerate(cuts):
            x, y = m.end(), cuts[j + 1].start() if j + 1 < len(cuts) else b
            while x < y and text[x] in _PIECE_TRIM:
                x += 1
            while y > x and text[y - 1] in _PIECE_TRIM:
                y -= 1
            if 2 <= len(text[x:y].split()) <= _MAX_PIECE_WORDS and any(map(str.isalpha, text[x:y])):
                out.append(LayoutSpan(x, y, "cell"))
    return out


_CODE_WORD = re.compile(r"(?<![\w./@:-])([a-z][\w-]+(?:[._/][A-Za-z0-9][\w-]*)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w/@-]|\.\w)")
"""A lower-case word with an underscore, an inner dot or a slash: how a package, a checkpoint or a repository is
written ("ir_datasets", "transformers.js", "meta-llama/Llama-2-7b-hf"); not a web address (its "://" or "www.")."""
_PLAIN_WORD = re.compile(r"(?<![\w./-])([a-z][a-z0-9]{2,}(?:-[a-z0-9]+)*)(?=[ \t]+([a-z]+)\b)")


def code_words(text: str, kinds: frozenset[str], function_words: frozenset[str]) -> list[LayoutSpan]:
    """Lower-case words written as code (``_CODE_WORD``), and a lower-case word right before a noun of ``kinds``
    ("the norbert library", "NVIDIA's open-source kvpress library") that is not a function word."""
    out = []
    for m in _CODE_WORD.finditer(text):
        w = m.group(1)
        if "://" in text[m.end(1):m.end(1) + 3] or w.startswith("www.") or w.count("/") > 2:
            continue
        out.append(LayoutSpan(m.start(1), m.end(1), "code"))
    for m in _PLAIN_WORD.finditer(text):
        if m.group(2) in kinds and m.group(1) not in function_words and m.group(1) not in kinds:
            out.append(LayoutSpan(m.start(1), m.end(1), "code"))
    return out
