"""A title candidate's extent: whether it stands where a line wraps (a title cut at its line's end, or the second
half of one) and what page furniture it holds (a label, a list number, a role before a comma, a middle dot, a
headline's capitals): the features that tell such a span from a whole title.

Measured with the title rules' extents (``titles._continued_end``, ``_hanging_end``) by tools/selection.py against
main ed92f0f: two folds entity / relation F1 0.8095 / 0.5795 -> 0.8110 / 0.5829 (Paper 0.853 -> 0.862: 15 right more,
19 false fewer; affiliatedWith 0.733 -> 0.741, introduces 0.645 -> 0.651, presentedAt 0.645 -> 0.648); the selection
sets 0.8316 / 0.6594 -> 0.8316 / 0.6581 (Paper 0.837 -> 0.843, one evaluatedOn fewer). On the out-of-fold graphs, false
papers that are a gold title cut or with something more: 33 -> 22 (cut at a line's wrap 14 -> 6)."""

from __future__ import annotations

import re

from .candidates import Layout, MentionCandidate
from .titles import WRAP_LINE_CHARS

__all__ = ["wrap_features", "furniture_features"]

_AROUND = " \t\"“”*_"
"""What may stand between a candidate and its line's start or end: quotes and emphasis marks."""


def _column(text: str) -> int:
    return len(text.expandtabs(8))


def wrap_features(lay: Layout, c: MentionCandidate) -> list[str]:
    """``wrap_in`` for a candidate that holds a line break; ``wrap_next=K`` for one that ends a long line whose next
    line goes on with a word (K: ``hang`` when that line is indented to the column the candidate starts at, ``low``
    when it opens in lower case, else ``cap``); ``wrap_prev=K`` for one that opens a line after a long line ending in
    a word (K: ``hang`` when it stands at the column where the text of that line starts after a short code or
    marker, "C1  Name of a Paper" over "    Rest of It", else ``flat``)."""
    text, starts = lay.text, lay.line_starts
    out = ["wrap_in"] if "\n" in text[c.start_char:c.end_char] else []
    first = lay.line_of_char(c.start_char)
    last = lay.line_of_char(max(c.start_char, c.end_char - 1))
    end = lay.line_end(last)
    if not text[c.end_char:end].strip(_AROUND) and last + 1 < len(starts) and end - starts[last] >= WRAP_LINE_CHARS:
        nxt = text[starts[last + 1]:lay.line_end(last + 1)]
        body = nxt.lstrip(" \t")
        if body[:1].isalnum():
            col, indent = _column(text[starts[first]:c.start_char]), _column(nxt) - _column(body)
            out.append("wrap_next=" + ("hang" if indent > 0 and abs(indent - col) <= 1
                                       else "low" if body[0].islower() else "cap"))
    head = text[starts[first]:c.start_char]
    if first > 0 and not head.strip(_AROUND):
        above = text[starts[first - 1]:lay.line_end(first - 1)].rstrip().expandtabs(8)
        if len(above) >= WRAP_LINE_CHARS and above[-1].isalnum():
            col = _column(head)
            hang = 2 <= col < len(above) and above[col - 1] == " " and not above[col].isspace() \
                and 0 < len(above[:col].strip()) <= 12
            out.append("wrap_prev=" + ("hang" if hang else "flat"))
    return out


_LABEL_VALUE = re.compile(r"[A-Za-z][\w-]*(?:[ \t]+[\w-]+)?[ \t]*:[ \t]+(\S+(?:[ \t]+\S+){0,2})$")
"""A line's label and a short value ("Event Type: Workshop", "Paper ID: 1227", "Block 2: HMR from RGB")."""
_TWO_COLONS = re.compile(r"[A-Za-z][\w-]*(?:[ \t]+[\w-]+)?[ \t]*:[ \t]+\S[^:]*:[ \t]")
"""A label before a title that names itself before its own colon ("Paper: Name: Subtitle", "BOX: Name: Subtitle")."""
_LEAD_NUMBER = re.compile(r"#?\d{2,4}[ \t]+[A-Z]")
_LEAD_COMMA = re.compile(r"[A-Za-z]+(?:[ \t]+[a-z]+)?,[ \t]+\S")
"""One or two words and a comma before the rest ("Contact author, Name", "Separately, Name: Subtitle")."""


def furniture_features(text: str) -> list[str]:
    """What page furniture a candidate of three words or more holds: a label with a short value (``fur=label``), a
    label before a title with its own colon (``fur=two_colons``), a list number (``fur=number``), a role or an adverb
    before a comma (``fur=comma``), a middle dot or a bar between items (``fur=dot``), words in capitals
    (``fur=caps``: a headline's). On the trained sets' out-of-fold graphs, 45 of the 215 false papers were a label
    and its value or page furniture, 16 a headline in capitals, 8 a title with such a label or number before it."""
    words = text.split()
    if len(words) < 3:
        return []
    f = []
    if _LABEL_VALUE.fullmatch(" ".join(words)):
        f.append("fur=label")
    if _TWO_COLONS.match(text):
        f.append("fur=two_colons")
    if _LEAD_NUMBER.match(text) and not re.match(r"(?:19|20)\d\d\b", text):
        f.append("fur=number")
    if _LEAD_COMMA.match(text):
        f.append("fur=comma")
    if " · " in text or " | " in text:
        f.append("fur=dot")
    letters = [w for w in words if any(ch.isalpha() for ch in w)]
    if letters and sum(w.isupper() and len(w) > 1 for w in letters) >= 0.6 * len(letters):
        f.append("fur=caps")
    return f
