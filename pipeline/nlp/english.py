"""Whether a word is an English word: the lower-case words of a dictionary (``patterns/english_words.txt``, SCOWL's
American English list, ``tools/english_words.py``). A capitalised word no dictionary holds ("Demucs", "Yandex",
"Detic") is a coined name almost always; "Chemical Science" and "Federated Learning" are made of dictionary words.
The mention features ask it of a name's words (``features._english``), never of a set's names."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

__all__ = ["ENGLISH_WORDS", "english_words", "english", "singulars", "word_kind", "runs"]

ENGLISH_WORDS = Path(__file__).parent / "patterns" / "english_words.txt"


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """The file's words (its ``#`` lines are its header), read once."""
    lines = ENGLISH_WORDS.read_text("utf-8").split("\n")
    return frozenset(w for w in lines if w and not w.startswith("#"))


def singulars(word: str) -> tuple[str, ...]:
    """The singulars a plural may have been made from: "models" -> "model", "classes" -> "class", "studies" ->
    "study" (the file leaves out the plurals these rebuild: ``tools/english_words.py``)."""
    out = []
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        out.append(word[:-2])
    if word.endswith("s") and len(word) > 2 and not word.endswith("ss"):
        out.append(word[:-1])
    return tuple(out)


@lru_cache(maxsize=1 << 15)
def english(word: str) -> str:
    """``word`` (lower case) as the dictionary has it: "word", "plural" (of a word it has) or "" (none)."""
    words = english_words()
    if word in words:
        return "word"
    return "plural" if any(s in words for s in singulars(word)) else ""


_PARTS = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|[A-Z]")


@lru_cache(maxsize=1 << 15)
def word_kind(run: str) -> tuple[str, str]:
    """How a run of letters is written (``lower``, ``cap`` for "Demucs", ``upper``, ``mixed`` for "QuickDraw" or
    "iPhone") and what the dictionary says of it: ``word``, ``plural``, ``blend`` (written mixed, each part of two
    letters or more a word: "QuickDraw", "DeepSpeed") or ``coined``."""
    case = ("lower" if run.islower() else "upper" if run.isupper()
            else "cap" if run[0].isupper() and run[1:].islower() else "mixed")
    if case != "mixed":
        return case, english(run.lower()) or "coined"
    parts = [p for p in _PARTS.findall(run) if len(p) > 1]
    return case, "blend" if parts and all(english(p.lower()) for p in parts) else "coined"


_LETTERS = re.compile(r"[^\W\d_]+")


def runs(text: str) -> list[str]:
    """The runs of letters of two or more in ``text`` (the words a dictionary may hold: "OC-SORT" -> OC, SORT)."""
    return [r for r in _LETTERS.findall(text) if len(r) > 1]

