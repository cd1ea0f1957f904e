"""Text helpers the rule families share: a cache of compiled patterns, the bounds of a name, title-case words, months."""

from __future__ import annotations

import re
from functools import lru_cache


TW = r"(?:[A-Z0-9][\w'’&/.-]*|&)"  # a title-case word in a workshop or long name
MONTHS = {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"}


@lru_cache(maxsize=2048)
def regex(pattern: str, flags: int = 0) -> re.Pattern:
    """``re.compile`` with a cache big enough for the rules' patterns built from rule data and names
    (``re``'s own cache holds 512 and, overflowing, recompiled them for every document). Per-name patterns
    are reused within a document and its neighbours, so 2,048 keep them (a full cache of 8,192 held some 5-9 MB
    more through a large build, for no measurable speed)."""
    return re.compile(pattern, flags)


_GROUP_OPENERS = ("(?:", "(?=", "(?!", "(?<=", "(?<!")


def folded(pattern: str, widen: bool = False) -> str | None:
    """``pattern`` with its upper-case letters in lower case, for a search without ``re.IGNORECASE`` in the
    lower-cased copy of an ASCII text: the same matches at the same offsets as ``pattern`` with ``re.IGNORECASE``
    in the text itself (lower-casing ASCII keeps its length and what ``\\w``, ``\\s``, ``\\d`` and ``\\b``
    see, and the letters then compare as case-blind ones did), found about three times faster: ``re`` rejects a
    branch on its first literal character only without the flag. None when that cannot be said of the pattern
    from its text alone: a character beyond ASCII, an escape other than a backslash and one character that is no
    digit nor ``N``, ``x``, ``u``, ``U``, a group that sets flags or is named ("(?" other than ``_GROUP_OPENERS``),
    or an upper-case letter in a character class. The text is searched as :func:`folded_text` gives it.

    With ``widen``, a group that turns the flag off (``(?-i:...)``) is read as any other, case-blind: the pattern
    then matches wherever ``pattern`` does, and maybe elsewhere (a wider pattern, for :func:`screened_finditer`)."""
    if not pattern.isascii():
        return None
    out, i, n, in_class = [], 0, len(pattern), False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            escaped = pattern[i + 1:i + 2]
            if not escaped or escaped in "NxuU" or escaped.isdigit():
                return None
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if ch.isupper():
                return None
            in_class = ch != "]"
        elif ch == "[":
            head = 2 if pattern.startswith("[^", i) else 1
            head += pattern.startswith("]", i + head)  # a "]" first in a class is one of its characters
            out.append(pattern[i:i + head])
            i += head
            in_class = True
            continue
        elif ch == "(" and pattern.startswith("(?", i) and not pattern.startswith(_GROUP_OPENERS, i):
            if widen and pattern.startswith("(?-i:", i):
                out.append("(?:")
                i += 5
                continue
            return None
        out.append(ch.lower())
        i += 1
    return "".join(out)


def wider(pattern: str) -> re.Pattern | None:
    """The compiled ``folded(pattern, widen=True)`` of a pattern that never matches the empty string, for
    :func:`screened_finditer`; None when there is none, or when ``pattern`` is folded as it is (:func:`folded`)."""
    if folded(pattern) is not None or _sre_parser.parse(pattern, re.I).getwidth()[0] == 0:
        return None
    wide = folded(pattern, widen=True)
    return re.compile(wide) if wide is not None else None


def screened_finditer(pattern: re.Pattern, wide: re.Pattern, text: str, low: str):
    """``pattern.finditer(text)`` (a pattern that never matches the empty string), ``pattern`` tried only from
    where ``wide`` finds a match in ``low`` (``text`` lower-cased by :func:`folded_text`; ``wide`` matches there
    wherever ``pattern`` matches in ``text``: :func:`wider`). The leftmost match of ``pattern`` from a position
    is where ``wide``'s is or after it, so the same matches, in the time of the faster scan and of ``pattern``
    from each of ``wide``'s matches on: a pattern with a case-sensitive part ("a (?-i:lower-case) word before
    'version of'"), which is not folded, scanned ignoring case at every word of every document."""
    pos, n = 0, len(text)
    while pos <= n:
        w = wide.search(low, pos)
        if w is None:
            return
        m = pattern.search(text, w.start())
        if m is None:
            return
        yield m
        pos = m.end()


# characters that ``re.IGNORECASE`` equates with an ASCII letter although ``str.lower`` does not map them to it
FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")
SEPARATOR = re.compile(r"[\s-]+")


def folded_text(text: str) -> str | None:
    """``text`` lower-cased, for a :func:`folded` pattern; None when the pattern with ``re.IGNORECASE`` could
    find something else in ``text``: when lower-casing changes its length (a character mapped to two: offsets
    would move), or it holds a character that ``re.IGNORECASE`` equates with an ASCII letter (:data:`FOLDS_TO_ASCII`).
    Else each character is mapped to one, none outside ASCII to an ASCII one, and none in or out of ``\\w``,
    ``\\s`` or ``\\d`` (checked over every code point of this Python's Unicode tables)."""
    low = text.lower()
    if len(low) != len(text) or not text.isascii() and FOLDS_TO_ASCII.search(text):
        return None
    return low


def bounds_word(ch: str) -> bool:
    """Whether ``ch`` joins a word in the name patterns' bounds ``(?<![\\w-])``, ``(?![\\w-])``."""
    return ch.isalnum() or ch in "_-"


def line_end(text: str, pos: int) -> int:
    """Where the line holding ``pos`` ends: its newline's offset, or the text's end."""
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


SPACE = re.compile(r"\s+")
COLUMN_GAP = re.compile(r" {2,}|\t")
"""Two spaces or a tab inside a line: a column gap, as the readers keep it (``markup``), no part of one name."""
CELL_BREAK = re.compile(r"\s*\|\s*|\t|\s{2,}")
"""Where a table row's cell ends: a ``|`` or a column gap."""
MARK = r"[^\w\s\[\](){}<\"“”‘’'`|#]"
BULLET = MARK + "+"
"""A list item's marker made of symbols: "-", "*", "•", ">", and any other run of characters (``MARK``) that are
neither letters, digits, brackets, quotes, a table's bar nor a heading's "#" ("▸", "▶", "~~", "->", "==", an emoji).
Writers in other styles bullet with whatever their editor offers; a title after "▶ " is on its line as after "- ".
Two grouped folds over the readable real-* sets: entity F1 0.8026 -> 0.8050 (Paper 0.811 -> 0.824), relation F1
0.5096 -> 0.5153; the selection sets (real-ff, -gg, -hh, each left out, pooled): 0.783 / 0.561 -> 0.785 / 0.563."""
LIST_MARKER = BULLET + r"|\d{1,3}[.)]|\[\d{1,3}\]|\d\ufe0f?\u20e3"
"""A list item's marker (an alternation): a ``BULLET``, a number with a full stop or bracket ("3.", "2)"), a
number in brackets ("[4]") or a keycap emoji's ("4️⃣", a digit with its keycap mark: posts number their lists so)."""


def _run_needles(items) -> frozenset[str] | None:
    """Strings one of which, lower-cased, every match of the parsed pattern ``items`` holds (None: no such set).

    A run of ASCII literals is one string; a group or a repeat of at least one gives its body's strings; an
    alternation gives the union of its branches' (None if any branch has none); of the sequence's sets the one
    whose shortest string is longest is kept. Everything else (classes, assertions, references) gives none.
    """
    best: frozenset[str] | None = None

    def keep(found: frozenset[str] | None) -> None:
        nonlocal best
        if found and (best is None or (min(map(len, found)), -len(found)) > (min(map(len, best)), -len(best))):
            best = found

    run = ""
    for op, arg in items:
        if op is _LITERAL and arg < 128:
            run += chr(arg).lower()
            continue
        keep(frozenset((run,)) if run else None)
        run = ""
        if op is _SUBPATTERN:
            keep(_run_needles(arg[-1]))
        elif op is _ATOMIC_GROUP:
            keep(_run_needles(arg))
        elif op in _REPEATS and arg[0] >= 1:
            keep(_run_needles(arg[2]))
        elif op is _BRANCH:
            branches = [_run_needles(b) for b in arg[1]]
            if all(branches):
                keep(frozenset().union(*branches))
    keep(frozenset((run,)) if run else None)
    return best


try:  # the parser re compiles with (re._parser from Python 3.11, sre_parse before)
    from re import _constants as _sre_constants, _parser as _sre_parser
except ImportError:  # pragma: no cover
    import sre_constants as _sre_constants  # type: ignore[no-redef]
    import sre_parse as _sre_parser  # type: ignore[no-redef]
_LITERAL, _SUBPATTERN, _BRANCH = _sre_constants.LITERAL, _sre_constants.SUBPATTERN, _sre_constants.BRANCH
_ATOMIC_GROUP = getattr(_sre_constants, "ATOMIC_GROUP", None)
_REPEATS = tuple(getattr(_sre_constants, n) for n in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
                 if hasattr(_sre_constants, n))
_lowered: list = [None, ""]  # the last text lower-cased and its lower case (the same sentence is asked of many patterns)


class Prefiltered:
    """A compiled pattern that is not run on a text holding none of the strings every match must hold.

    The strings (:func:`_run_needles`, at least 3 characters each) are looked for with ``in`` in the lower-cased
    text, which costs a fraction of a scan by a pattern of many alternatives (most sentences hold none of a cue's
    words). The answers are the pattern's own: a text is skipped only when the pattern cannot match in it.
    Lower-casing stands in for ``re.IGNORECASE`` exactly on the ASCII strings looked for, except for the four
    letters of :data:`FOLDS_TO_ASCII`: a text holding one is always scanned.
    """

    __slots__ = ("pattern", "needles")

    def __init__(self, pattern: re.Pattern, needles: frozenset[str]) -> None:
        # a string holding another is found only where that one is: the shorter one answers for both
        self.pattern = pattern
        self.needles = tuple(sorted(n for n in needles if not any(m != n and m in n for m in needles)))

    def may_match(self, text: str) -> bool:
        """False only when the pattern cannot match anywhere in ``text``."""
        if _lowered[0] is text:
            low = _lowered[1]
        else:
            if not text.isascii() and FOLDS_TO_ASCII.search(text):
                return True
            low = text.lower()
            _lowered[0], _lowered[1] = text, low
        return any(map(low.__contains__, self.needles))  # the loop in C: most texts hold none of the needles

    def finditer(self, text: str, *args):
        return self.pattern.finditer(text, *args) if self.may_match(text) else iter(())

    def search(self, text: str, *args):
        return self.pattern.search(text, *args) if self.may_match(text) else None

    def match(self, text: str, *args):
        return self.pattern.match(text, *args) if self.may_match(text) else None

    def fullmatch(self, text: str, *args):
        return self.pattern.fullmatch(text, *args) if self.may_match(text) else None

    def findall(self, text: str, *args):
        return self.pattern.findall(text, *args) if self.may_match(text) else []

    def __getattr__(self, name: str):
        return getattr(self.pattern, name)


MIN_NEEDLE = 3
"""The shortest string worth a prefilter: shorter ones ("of", "a") are in nearly every text."""


def prefiltered(pattern: re.Pattern, shortest: int = MIN_NEEDLE) -> re.Pattern | Prefiltered:
    """``pattern`` behind a :class:`Prefiltered` check, or ``pattern`` itself when its matches share no string of
    ``shortest`` characters or more (1 for a rare character: ":" in a sentence)."""
    needles = _run_needles(_sre_parser.parse(pattern.pattern, pattern.flags))
    if not needles or min(map(len, needles)) < shortest:
        return pattern
    return Prefiltered(pattern, needles)


@lru_cache(maxsize=512)
def cue(pattern: str, flags: int = 0) -> re.Pattern | Prefiltered:
    """:func:`prefiltered` of the compiled ``pattern``, once per pattern (the rules' whole-text patterns built
    from rule data: a document without their cue words is not scanned)."""
    return prefiltered(re.compile(pattern, flags))
