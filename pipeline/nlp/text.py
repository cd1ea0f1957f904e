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


# characters that ``re.IGNORECASE`` equates with an ASCII letter although ``str.lower`` does not map them to it
FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")
SEPARATOR = re.compile(r"[\s-]+")


def bounds_word(ch: str) -> bool:
    """Whether ``ch`` joins a word in the name patterns' bounds ``(?<![\\w-])``, ``(?![\\w-])``."""
    return ch.isalnum() or ch in "_-"

SPACE = re.compile(r"\s+")
