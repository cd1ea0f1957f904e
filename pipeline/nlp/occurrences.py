"""Where a name occurs in a text, in any case and spacing: one name, or many names of one text by an index."""

from __future__ import annotations

import re

from .text import FOLDS_TO_ASCII, SEPARATOR, bounds_word, regex

__all__ = ["name_occurrences", "NameFinder"]


def name_occurrences(name: str, text: str, lower: str | None = None) -> list[tuple[int, int]]:
    """Where ``name`` occurs in ``text`` as a word, in any case, its parts joined by at most one space or
    hyphen, perhaps plural: the spans ``re.finditer`` gives for ``(?<![\\w-])part[\\s-]?part...s?(?![\\w-])``
    with ``re.IGNORECASE``.

    Found with ``str.find`` in the lower-cased text (pass ``lower=text.lower()`` when asking for many names),
    not by a pattern compiled per name: most names of a large corpus are new, and compiling their patterns
    cost more than all the other name rules. The regular expression serves where lower-casing is no exact
    stand-in for ``re.IGNORECASE``: a name outside ASCII, or a text that lower-cases to another length or holds
    a letter such as the Kelvin sign.
    """
    return NameFinder(text, lower).occurrences(name)


class NameFinder:
    """:func:`name_occurrences` of many names in one text.

    With few names each is looked for with ``str.find`` over the whole text; with many (a text of thousands of
    coined names, each a strong name by its shape) that is quadratic, so the positions where a name can start
    (at a word's start) are indexed by their first characters once, and each name checks only its own.
    """

    _MANY = 20_000_000  # names x characters from which the index pays

    def __init__(self, text: str, lower: str | None = None, names: int = 1) -> None:
        self.text = text
        self.lower = text.lower() if lower is None else lower
        self.exact = len(self.lower) == len(text) and not FOLDS_TO_ASCII.search(text)
        self.indexed = names * len(text) > self._MANY
        self._by_length: dict[int, dict[str, list[int]]] = {}
        self._starts: list[int] | None = None

    def occurrences(self, name: str) -> list[tuple[int, int]]:
        """The spans of ``name`` in the text, as :func:`name_occurrences` gives them."""
        text, lower = self.text, self.lower
        parts = SEPARATOR.split(name)
        if not name.isascii() or "" in parts or not self.exact:
            pattern = regex(r"(?<![\w-])" + r"[\s-]?".join(re.escape(p) for p in parts) + r"s?(?![\w-])", re.I)
            return [m.span() for m in pattern.finditer(text)]
        parts = [p.lower() for p in parts]
        first, out = parts[0], []
        if self.indexed:
            last = 0
            for i in self._candidates(first):
                if i < last:
                    continue  # inside the occurrence found before (as str.find from its end skips it)
                end = _match_at(parts, text, lower, i)
                if end >= 0:
                    out.append((i, end))
                    last = end
            return out
        i = lower.find(first)
        while i >= 0:
            end = _match_at(parts, text, lower, i) if i == 0 or not bounds_word(text[i - 1]) else -1
            if end >= 0:
                out.append((i, end))
                i = lower.find(first, end)
            else:
                i = lower.find(first, i + 1)
        return out

    def _candidates(self, first: str) -> list[int]:
        """The positions, in order, where ``first`` starts at a word's start (no word character before)."""
        if self._starts is None:
            self._starts = [0, *(m.end() for m in _NOT_BOUNDS_WORD.finditer(self.text))]
        n = len(first)
        index = self._by_length.get(n)
        if index is None:
            index = self._by_length[n] = {}
            lower = self.lower
            for p in self._starts:
                index.setdefault(lower[p:p + n], []).append(p)
        return index.get(first, [])


_NOT_BOUNDS_WORD = re.compile(r"[^\w-]")
"""A character that does not join a word in the name patterns' bounds (the complement of :func:`bounds_word`)."""


def _match_at(parts: list[str], text: str, lower: str, i: int) -> int:
    """The end of the name of lower-case ``parts`` at ``i`` (a word's start in ``text``), or -1: its parts
    joined by nothing or one space or hyphen, perhaps a plural "s", then no word character."""
    n = len(text)
    j = i + len(parts[0])
    for p in parts[1:]:
        if j < n and (text[j].isspace() or text[j] == "-") and lower.startswith(p, j + 1):
            j += 1 + len(p)
        elif lower.startswith(p, j):
            j += len(p)
        else:
            return -1
    if j < n and lower[j] == "s" and (j + 1 == n or not bounds_word(text[j + 1])):
        return j + 1
    if j == n or not bounds_word(text[j]):
        return j
    return -1
