"""Soft line breaks: where text that was hard-wrapped at a width goes on in the next line.

Plain-text pages (mailing-list digests, preprint listings, programmes, READMEs) wrap their prose, their titles and
their affiliation lines at a width of 60 to 120 characters. A line break there is no sentence's end: the sentence
goes on in the next line. A writer's own line break is told from a wrap as a formatter would have made it: a line
wraps when the next line's first word would not have fitted on it, so the line is long (near the text's width, the
longest lines but the few longest) and the next word is long enough to pass that width; the line ends in a word or
a comma, not in a sentence's end, and the next line goes on at the same indentation, or under the text after the
line's own marker ("3.  Title ..." over "    rest") or under a hanging indentation (the column where a word of the
line starts just past what opens it: "(*) Title ..." over "    rest"), with no label, list marker or table bar of its
own. A long line also goes on where the next opens in lower case or where it ends in a word no sentence ends on
(``PROSE``). Line heads and titles go on over these breaks too (``candidates``, ``titles``).

Pure text: nothing here needs spaCy, so the parse's process reads it before the parser.
"""

from __future__ import annotations

import re
from functools import lru_cache

from spacy.lang.en.stop_words import STOP_WORDS

from .text import LIST_MARKER

__all__ = ["soft_breaks"]

WIDTH_RANK = 0.9
"""The text's width is the length of the line at this rank of its non-empty lines' lengths (the longest few lines,
a URL or a table row, do not set it)."""
MIN_WIDTH = 40
"""A text whose width is shorter than this is not wrapped prose (a list of names, a programme's short lines)."""
PROSE = 40
"""A line at least this long that ends in a word goes on in a next line that opens in lower case, or after a word no
sentence ends on (spaCy's English stop words: "of", "the", "and", "with"), whatever the text's width: such a break is
a wrap in a text of lines of all lengths, or a writer's break within a sentence, which the sentence crosses too. Two
grouped folds over the trained sets (tools/selection.py): the width's rule alone 0.8049 / 0.6097 -> 0.8055 / 0.6152,
with these two 0.8056 / 0.6165."""
SLACK = 20
"""How much shorter than the width a wrapped line may be (a formatter leaves the rest of a line for the next word)."""
HANG = 8
"""How far past a line's own start a hanging indentation under it may stand."""

_ENDS = re.compile(r"(?:\w|[,(]|[A-Za-z]-)$")
"""How a wrapped line ends: a word, a comma, an opening bracket, or a word's hyphen."""
_OPENS = re.compile(r"[\w(\"“'‘]")
_OWN_START = re.compile(r"(?:" + LIST_MARKER + r"|\(?[A-Za-z]\))[ \t]|[A-Za-z][\w ]{0,24}:[ \t]|#|\||\S*(?:/|www\.)")
"""What starts a line of its own: a list marker, an item's number or letter, a label ("Venue: ", "note: "), a heading,
a table, an address ("openreview.net/forum?id=...")."""
_COLUMNS = re.compile(r"\S(?: {3,}|\t+)\S")
"""A column gap between two words: a table's row, not prose."""
_LEAD = re.compile(r"[ \t]*(?:(?:" + LIST_MARKER + r")[ \t]+)?")
"""A line's indentation and list marker: where its text starts."""


def _width(lengths: list[int]) -> int:
    filled = sorted(n for n in lengths if n)
    return filled[int(WIDTH_RANK * (len(filled) - 1))] if len(filled) >= 3 else 0


@lru_cache(maxsize=4)  # one text is read by the sentence marks, the title rules and the line heads in turn
def soft_breaks(text: str) -> tuple[int, ...]:
    """The offsets of the line breaks of ``text`` that are wraps of one line's text onto the next, in order."""
    if "\n" not in text:
        return ()
    lines = text.split("\n")
    lengths = [len(line.rstrip().expandtabs(8)) for line in lines]
    width = _width(lengths)
    if width < MIN_WIDTH:
        return ()
    out, at = [], 0
    for k in range(len(lines) - 1):
        at += len(lines[k])
        if _wraps(lines[k], lines[k + 1], lengths[k], width):
            out.append(at)
        at += 1
    return tuple(out)


def _wraps(line: str, nxt: str, length: int, width: int) -> bool:
    """Whether ``line`` (``length`` columns long) wraps onto ``nxt`` in a text ``width`` columns wide."""
    body = nxt.lstrip(" \t")
    if length < min(width - SLACK, PROSE) or not body or not _OPENS.match(body) or _OWN_START.match(body):
        return False
    stripped = line.rstrip()
    if not _ENDS.search(stripped) or stripped.lstrip().startswith(("#", "|")) or _COLUMNS.search(stripped + " | " + body):
        return False
    if length + 1 + len(body.split(None, 1)[0]) <= width or length < width - SLACK:  # not where a formatter wraps
        last = stripped.rsplit(None, 1)[-1]
        if length < PROSE or not (body[0].islower() or last in STOP_WORDS):
            return False
    indent = len(nxt.expandtabs(8)) - len(body.expandtabs(8))
    own = len(line.expandtabs(8)) - len(line.lstrip(" \t").expandtabs(8))
    return indent == own or indent == len(_LEAD.match(line).group(0).expandtabs(8)) or _hangs(line, own, indent)


def _hangs(line: str, own: int, indent: int) -> bool:
    """Whether ``indent`` is a hanging indentation under ``line``: the column where a word of it starts, a little
    past the line's own start, after whatever opens it ("(*) Title ..." / "    rest", "C1. ", "a) ")."""
    wide = line.expandtabs(8)
    return own < indent <= own + HANG and indent < len(wide) and wide[indent - 1] == " " and wide[indent] != " "
