"""General-knowledge names (``patterns/gazetteer.json``: organisations, methods, data sets, paper titles and
hardware from public lists of the world, ``tools/gazetteer.py``) found in a document, as evidence for the trained
decision: a span that writes one is a mention candidate (source ``gaz``) and has the name's classes as features
(``gaz=``), never a decision."""

from __future__ import annotations

import json
import re
import unicodedata
from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

__all__ = ["Gazetteer", "gazetteer", "gazetteer_key", "gazetteer_spans", "gazetteer_classes",
           "gazetteer_classes_of_key", "gazetteer_classes_folded", "GAZETTEER", "LISTS"]

GAZETTEER = Path(__file__).parent / "patterns" / "gazetteer.json"
LISTS = (("organizations", "Organization"), ("organization_acronyms", "OrganizationAcronym"),
         ("methods", "Method"), ("datasets", "Dataset"), ("papers", "Paper"), ("hardware", "Hardware"))
"""The gazetteer's lists and the class each names (an organisation's acronym apart: four letters are often
something else). Each class is a feature of its own (``gaz=Paper``, ``gaz1=Hardware``), learnt by the decision."""

_NOT_ALNUM = re.compile(r"[\W_]+")
_HEAD = 4
"""How many leading characters of a name's key index it (:attr:`Gazetteer.heads`)."""
_MAX_TOKENS = 14
_GLUE = "_-"


@lru_cache(maxsize=1 << 15)  # every token of every document, most of them common words
def gazetteer_key(text: str) -> str:
    """A name as the gazetteer compares it: its letters and digits, case kept ("SQuAD 2.0" -> "SQuAD20",
    "k-means++" -> "kmeans"): the same name however it is spaced or hyphenated, never a common word in lower case
    for a name written with capitals."""
    return _NOT_ALNUM.sub("", text if text.isascii() else unicodedata.normalize("NFKC", text))


@dataclass(frozen=True)
class Gazetteer:
    """The names by key with the classes of each, and the keys' heads by which the tokens of a document that
    start no name are passed over at once."""

    classes: Mapping[str, tuple[str, ...]]
    """A dict, or a :class:`_SortedMap` read from the binary copy."""
    heads: frozenset[str]
    """Every key's first ``_HEAD`` characters and each shorter prefix of those (a name's first token may be short:
    "k-means++")."""
    longest: int
    folded: Mapping[str, tuple[str, ...]]
    """Case-folded key -> the classes of the names with that key in any case (:func:`gazetteer_classes_folded`)."""

    @cached_property
    def ordered(self) -> list[str]:
        """The keys in order, where the keys that start with a string follow it (:meth:`opens`)."""
        classes = self.classes
        return classes.ordered() if isinstance(classes, _SortedMap) else sorted(classes)

    def opens(self, key: str) -> bool:
        """Whether some key starts with ``key``: a name's key read token by token can still become one."""
        ordered = self.ordered
        k = bisect_left(ordered, key)
        return k < len(ordered) and ordered[k].startswith(key)


@lru_cache(maxsize=1)
def gazetteer(path: Path = GAZETTEER) -> Gazetteer:
    """The gazetteer, built once per process. Making a hundred thousand keys from the JSON takes a fifth of a
    second of CPU, on the path of every build: they are also kept in a plain binary copy (``files.derived_copy``,
    keyed by the JSON's digest), which loads in a tenth of that."""
    from ..files import derived_copy

    classes, heads, folded = derived_copy("gazetteer", _CACHE_FORMAT, path, _CACHE_KEPT, _from_binary,
                                          lambda raw: _built(json.loads(raw.decode("utf-8"))), lambda v: _to_binary(*v))
    return Gazetteer(classes, heads, max(map(len, classes), default=0), folded)


def _built(data: dict) -> tuple[dict[str, tuple[str, ...]], frozenset[str], dict[str, tuple[str, ...]]]:
    """The key -> classes map of the gazetteer's JSON, the keys' heads and the case-folded map (:func:`_folded`)."""
    classes = _classes({cls: data[key] for key, cls in LISTS})
    return classes, frozenset(k[:n] for k in classes for n in range(1, _HEAD + 1)), _folded(classes)


def _classes(lists: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    """Key -> the classes of the names with that key, in the order of ``LISTS``."""
    out: dict[str, tuple[str, ...]] = {}
    for cls, names in lists.items():
        for name in names:
            k = gazetteer_key.__wrapped__(name)  # (not through its cache, kept for the documents' words)
            if k and cls not in out.get(k, ()):
                out[k] = (*out.get(k, ()), cls)
    return out


_CACHE_FORMAT = "mlkg-gazetteer-4"
"""4: each map as its keys in order and a code per key (:class:`_SortedMap`), not grouped by classes."""
_CACHE_KEPT = 4
_CODE0 = 0x30
"""The code of a key's classes: the character ``_CODE0`` plus the number of its tuple of classes."""


class _SortedMap(Mapping):
    """A key -> classes map read from the binary copy: the keys in order, each with the code of its tuple of classes,
    looked up by bisection, so that reading it makes no dict (a hundred thousand keys, twice: two thirds of loading
    the gazetteer, on the path of a one-document rebuild, whose document looks up a few hundred). After
    :data:`_LOOKUPS` look-ups (a build of many documents) it makes the dict and answers from it. The same map as the
    dict: same keys, same values, iterated in order."""

    __slots__ = ("_keys", "_codes", "_groups", "_dict", "_left")

    def __init__(self, keys: list[str], codes: str, groups: list[tuple[str, ...]]) -> None:
        if len(keys) != len(codes) or any(a >= b for a, b in zip(keys, keys[1:3])):
            raise ValueError("not the keys of a binary copy of the gazetteer")
        self._keys, self._codes, self._groups = keys, codes, groups
        self._dict: dict | None = None
        self._left = _LOOKUPS

    def _made(self) -> dict:
        groups, codes = self._groups, self._codes
        self._dict = dict(zip(self._keys, (groups[ord(c) - _CODE0] for c in codes)))
        return self._dict

    def get(self, key, default=None):
        d = self._dict
        if d is None:
            self._left -= 1
            if self._left >= 0:
                keys = self._keys
                i = bisect_left(keys, key)
                return self._groups[ord(self._codes[i]) - _CODE0] if i < len(keys) and keys[i] == key else default
            d = self._made()
        return d.get(key, default)

    def __getitem__(self, key):
        got = self.get(key, _MISSING)
        if got is _MISSING:
            raise KeyError(key)
        return got

    def __contains__(self, key) -> bool:
        return self.get(key, _MISSING) is not _MISSING

    def __iter__(self):
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def ordered(self) -> list[str]:
        """The keys in order."""
        return self._keys


_MISSING = object()
_LOOKUPS = 10_000
"""Look-ups a :class:`_SortedMap` answers by bisection before it makes its dict (a bisection costs about twenty times
a dict's look-up; making the dict, about a hundred thousand of them)."""


def _to_binary(classes: Mapping[str, tuple[str, ...]], heads: frozenset[str], folded: Mapping[str, tuple[str, ...]]) -> bytes:
    """Plain text, nothing a loader could run: one line of JSON (format, the distinct tuples of classes), then for
    the key -> classes map and the case-folded one a line of its keys in order joined by NUL (a key is letters and
    digits only) and a line of their codes (one character per key: :data:`_CODE0` plus its tuple's number), then
    a line of the heads."""
    groups = sorted({*classes.values(), *folded.values()})
    number = {g: i for i, g in enumerate(groups)}
    lines = [json.dumps({"format": _CACHE_FORMAT, "groups": [list(g) for g in groups]})]
    for m in (classes, folded):
        keys = sorted(m)
        lines += ["\0".join(keys), "".join(chr(_CODE0 + number[m[k]]) for k in keys)]
    return "\n".join([*lines, "\0".join(sorted(heads))]).encode("utf-8")


def _from_binary(data: bytes) -> tuple[Mapping[str, tuple[str, ...]], frozenset[str], Mapping[str, tuple[str, ...]]]:
    """The key -> classes map, the heads and the case-folded map of :func:`_to_binary`'s bytes (ValueError when
    they are not such)."""
    lines = data.decode("utf-8").split("\n")
    head = json.loads(lines[0])
    if not isinstance(head, dict) or head.get("format") != _CACHE_FORMAT or len(lines) != 6:
        raise ValueError("not a binary copy of the gazetteer")
    groups = [tuple(g) for g in head["groups"]]
    maps = [_SortedMap(lines[i].split("\0") if lines[i] else [], lines[i + 1], groups) for i in (1, 3)]
    if any(not 0 <= ord(c) - _CODE0 < len(groups) for m in maps for c in set(m._codes)):
        raise ValueError("not a binary copy of the gazetteer")
    return maps[0], frozenset(lines[5].split("\0")), maps[1]


def gazetteer_classes(text: str) -> tuple[str, ...]:
    """The classes the gazetteer knows a span's text as ("Stanford University" -> ("Organization",))."""
    return gazetteer().classes.get(gazetteer_key(text), ())


def _folded(classes: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """Case-folded key -> the classes of the names with that key in any case."""
    out: dict[str, tuple[str, ...]] = {}
    for k in sorted(classes):
        f = k.casefold()
        for cls in classes[k]:
            if cls not in out.get(f, ()):
                out[f] = (*out.get(f, ()), cls)
    return out


def gazetteer_classes_folded(text: str) -> tuple[str, ...]:
    """The classes the gazetteer knows a span's text as in another case only ("fairseq" for "Fairseq", "MS COCO"
    for "MS-Coco"): weaker evidence than the name as listed (:func:`gazetteer_classes`), read as its own feature."""
    key = gazetteer_key(text)
    if not key or key in gazetteer().classes:
        return ()
    return gazetteer().folded.get(key.casefold(), ())


def gazetteer_classes_of_key(key: str) -> tuple[str, ...]:
    """The classes of the names whose key (:func:`gazetteer_key`) is ``key``."""
    return gazetteer().classes.get(key, ())


def gazetteer_spans(text: str, texts: list[str], idx: list[int], token_line: list[int]) -> list[tuple[int, int]]:
    """The token spans ``[a, b)`` whose words spell a gazetteer name within a line, bounded as a name is: not
    inside a longer word or hyphenated compound ("Googleplex", "Meta-learning" hold no name).

    Each token's key is made once (a token is read as a name's start and again inside the names before it), the
    tokens whose key starts no name are passed over in one pass, and a run stops at the first token after which no
    key can follow (:meth:`Gazetteer.opens`): a key's head is shared by thousands of keys, so the head alone let a
    run go on to the line's end or ``_MAX_TOKENS``, with a look-up at each token."""
    gz = gazetteer()
    classes, heads, longest = gz.classes, gz.heads, gz.longest
    n = len(texts)
    keys = list(map(gazetteer_key, texts))
    out = []
    for i in [i for i, key in enumerate(keys) if key and key[:_HEAD] in heads]:
        a = idx[i]
        if a and (text[a - 1].isalnum() or text[a - 1] in _GLUE):
            continue
        key = keys[i]
        for j in range(i + 1, min(n, i + _MAX_TOKENS) + 1):
            if j > i + 1:
                if token_line[j - 1] != token_line[i]:
                    break
                more = keys[j - 1]
                if not more:
                    continue  # punctuation inside a name ("Mila - Quebec ..."): a name never ends on it
                key += more
                if len(key) > longest or key[:_HEAD] not in heads or not gz.opens(key):
                    break
            if key in classes:
                b = idx[j - 1] + len(texts[j - 1])
                if b >= len(text) or not (text[b].isalnum() or text[b] in _GLUE):
                    out.append((i, j))
    return out
