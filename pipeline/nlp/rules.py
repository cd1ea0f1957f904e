"""Rule data and the text helpers the mlkg spaCy components share (titles, acronyms, venues, hardware)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from ..names import norm  # one definition of name identity, shared with resolution

__all__ = [
    "Rules", "load_rules", "Found", "scan_title", "acronym_long_form", "ordinal_value", "norm",
    "WORD", "is_strong_name", "NUMBERED_WORDS",
]

PATTERNS_DIR = Path(__file__).parent / "patterns"

WORD = re.compile(r"[^\s]+")

_UNITS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_TENTHS = {"twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60, "seventieth": 70}
ORDINAL = (
    r"(?:\d{1,3}(?:st|nd|rd|th)|(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[- ]?)?"
    r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|tenth|eleventh|twelfth|thirteenth|"
    r"fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth|fortieth|fiftieth|sixtieth|seventieth)"
)


def ordinal_value(word: str) -> int | None:
    """The number an ordinal stands for.

    Examples
    --------
    >>> ordinal_value("Thirteenth"), ordinal_value("Forty-Second"), ordinal_value("33rd"), ordinal_value("big")
    (13, 42, 33, None)
    """
    w = word.lower().replace(" ", "-")
    m = re.fullmatch(r"(\d+)(?:st|nd|rd|th)", w)
    if m:
        return int(m.group(1))
    if w in _UNITS:
        return _UNITS[w]
    if w in _TENTHS:
        return _TENTHS[w]
    parts = re.split(r"-", w)
    if len(parts) == 2 and parts[0] in _TENS and parts[1] in _UNITS and _UNITS[parts[1]] < 10:
        return _TENS[parts[0]] + _UNITS[parts[1]]
    return None


@dataclass(frozen=True)
class Found:
    """A mention found by a rule: character offsets in the document, class local name, canonical name."""

    start: int
    end: int
    cls: str
    canonical: str
    aliases: tuple[str, ...] = ()
    rule: str = ""
    generic: bool = False  # claims its span but is not emitted (a generic concept such as "large language models")


@dataclass
class Rules:
    """All rule data, loaded once from ``patterns/``."""

    conferences: dict
    chips: list[str]
    devices: list[str]
    hw_suffix: str
    hw_variant: str
    known_methods: set[str]
    known_datasets: set[str]
    generic: frozenset[str]
    method_heads: set[str]
    dataset_heads: set[str]
    function_words: set[str]
    organizations: list[str]
    cues: dict[str, str]
    conf_acronyms: dict[str, str] = field(default_factory=dict)  # surface acronym -> canonical acronym
    dependency_verbs: dict[str, list[str]] = field(default_factory=dict)  # relation -> verb forms (by the parse)
    lower_is_better: frozenset[str] = frozenset()  # metrics a lower value of which is better (FID, WER, latency)
    cue_patterns: dict[str, dict[str, str]] = field(default_factory=dict)  # module -> cue name -> regular expression

    # derived once from the data above, not per document
    @cached_property
    def known_words(self) -> frozenset[str]:
        """Every known method and dataset name."""
        return frozenset(self.known_methods | self.known_datasets)

    @cached_property
    def generic_norms(self) -> frozenset[str]:
        """The normalised generic acronyms ("LLM" -> "llm")."""
        return frozenset(norm(g) for g in self.generic)

    @cached_property
    def dataset_heads_alternation(self) -> str:
        """The dataset head nouns as a regular-expression alternation, longest first."""
        return "|".join(sorted(self.dataset_heads, key=len, reverse=True))

    @cached_property
    def method_heads_alternation(self) -> str:
        """The method head nouns as a regular-expression alternation, longest first."""
        return "|".join(sorted(self.method_heads, key=len, reverse=True))


@lru_cache(maxsize=1)
def load_rules() -> Rules:
    """Load the rule data from ``patterns/*.json``."""
    venues = json.loads((PATTERNS_DIR / "venues.json").read_text("utf-8"))
    hw = json.loads((PATTERNS_DIR / "hardware.json").read_text("utf-8"))
    lex = json.loads((PATTERNS_DIR / "lexicon.json").read_text("utf-8"))
    cues = json.loads((PATTERNS_DIR / "cues.json").read_text("utf-8"))
    rules = Rules(
        conferences=venues["conferences"],
        chips=hw["chips"],
        devices=hw["devices"],
        hw_suffix=hw["suffixes"],
        hw_variant=hw["variants"],
        known_methods=set(lex["known_methods"]),
        known_datasets=set(lex["known_datasets"]),
        generic=frozenset(lex["generic_acronyms"]),
        method_heads=set(lex["method_heads"]),
        dataset_heads=set(lex["dataset_heads"]),
        function_words=set(lex["function_words"]),
        organizations=lex.get("organizations", []),
        cues={k: v for k, v in cues.items() if not k.startswith("_") and isinstance(v, str)},
        dependency_verbs={k: v for k, v in cues.get("dependency_verbs", {}).items() if not k.startswith("_")},
        lower_is_better=frozenset(w.lower() for w in cues.get("comparatives", {}).get("lower_is_better", [])),
        cue_patterns={module: {k: v for k, v in patterns.items() if not k.startswith("_")}
                      for module, patterns in cues.get("patterns", {}).items() if not module.startswith("_")},
    )
    for acr, info in rules.conferences.items():
        rules.conf_acronyms[acr] = acr
        for alias in info.get("aliases", []):
            rules.conf_acronyms[alias] = acr
    return rules


def _is_title_word(core: str, function_words: set[str]) -> bool:
    if not core:
        return False
    if core in function_words:
        return True
    return core[0].isupper() or core[0].isdigit() or any(ch.isupper() for ch in core[1:])


class _Words:
    """The words of a text from some offset, tokenised only as far as they are read."""

    __slots__ = ("_it", "_buf")

    def __init__(self, matches) -> None:
        self._it = matches
        self._buf: list[tuple[int, int, str]] = []

    def has(self, i: int) -> bool:
        while len(self._buf) <= i:
            m = next(self._it, None)
            if m is None:
                return False
            self._buf.append((m.start(), m.end(), m.group()))
        return True

    def __getitem__(self, i: int) -> tuple[int, int, str]:
        self.has(i)
        return self._buf[i]


MAX_TITLE_WORDS = 60
"""The longest title :func:`scan_title` reads, in words: a longer title-case run is no title."""


def scan_title(text: str, pos: int, function_words: set[str], min_words: int = 3,
               allow_colon: bool = True, stop_words: frozenset[str] = frozenset(),
               fail_words: frozenset[str] = frozenset()) -> tuple[int, int] | None:
    """Find a title-case run (a paper title or a workshop name) starting at ``pos``.

    Words must be capitalised, contain a capital or digit, or be short function words; a comma continues
    the title only when what follows it up to the next punctuation is title-case too ("Theory, Analysis,
    and Best Practices"); ``?`` ends the title inclusively, other punctuation exclusively.

    Returns
    -------
    (start, end) character offsets, or None when no title of at least ``min_words`` words starts there.

    Examples
    --------
    >>> t = "present Theory, Analysis, and Best Practices for Sigmoid Self-Attention, which explores it."
    >>> s, e = scan_title(t, 8, {"and", "for"})
    >>> t[s:e]
    'Theory, Analysis, and Best Practices for Sigmoid Self-Attention'
    >>> t = "In Name: Understanding the Limits of Models, Apple researchers show that"
    >>> s, e = scan_title(t, 3, {"the", "of"})
    >>> t[s:e]
    'Name: Understanding the Limits of Models'
    """
    # a title's first min_words words are title words: most places asked about fail at once ("We propose ..."),
    # told from a short slice before any word is matched (a slice holding more than min_words words is exact)
    head = text[pos:pos + 80 * min_words].split(None, min_words)
    if len(head) > min_words and not all(_is_title_word(w.strip("“”\"'()[]").rstrip(",.;:?!"), function_words)
                                         for w in head[:min_words]):
        return None
    words = _Words(WORD.finditer(text, pos))  # lazily: a title ends within a few words, the text may not
    if not words.has(0):
        return None
    end = None
    count = 0
    i = 0
    while words.has(i):
        if i >= MAX_TITLE_WORDS:
            return None  # no title is this long: a run of capitalised words is something else (and scanning it to
            # its end from every position asked about was quadratic in its length)
        s, e, w = words[i]
        core = w.strip("“”\"'()[]").rstrip(",.;:?!")
        trail = w[len(w.rstrip(",.;:?!")):]
        if w.startswith("(") or w.startswith("["):
            break
        if i == 0 and (not core or not (core[0].isupper() or core[0].isdigit())):
            return None
        if (core.lower() in stop_words or core in fail_words) and i > 0:
            break
        if not _is_title_word(core, function_words):
            break
        count += 1
        end = s + len(w.rstrip(",.;:!?\"”)")) if trail != "?" else e
        if trail.startswith("?"):
            end = s + len(w.rstrip(",.;:!\"”)"))
            goes_on = _subtitle_follows(words, i, function_words, fail_words)
            if goes_on is None:
                return None
            if goes_on:
                i += 1
                continue
            break
        if trail.startswith(":") and allow_colon:
            i += 1
            continue
        if trail.startswith(","):
            goes_on = _segment_after_comma(words, i, function_words, stop_words, fail_words)
            if goes_on is None:
                return None
            if not goes_on:
                break
            i += 1
            continue
        if trail:
            break
        i += 1
    if end is None or count < min_words:
        return None
    return _without_trailing_function_words(text, words[0][0], end, function_words, min_words)


def _subtitle_follows(words: "_Words", i: int, function_words: set[str], fail_words: frozenset[str]) -> bool | None:
    """Whether a title goes on after word ``i``, which ends in "?": a question with a subtitle ("How Much Do Encoders
    Remember? Probing Memorization in Image Models"), the next words up to punctuation or the end of the text all
    title words, at least two. None: the look-ahead ran past ``MAX_TITLE_WORDS`` (no title starts there)."""
    j, n = i + 1, 0
    while words.has(j):
        if j >= MAX_TITLE_WORDS:
            return None
        w2 = words[j][2]
        c2 = w2.strip("“”\"'()").rstrip(",.;:?!")
        if not c2 or c2 in fail_words or not _is_title_word(c2, function_words) or w2.startswith("(") \
                or (n == 0 and not c2[0].isupper()):
            return False
        n += 1
        if w2[len(w2.rstrip(",.;:?!")):]:
            break
        j += 1
    return n >= 2 and (words.has(j) or not words.has(j + 1))


def _segment_after_comma(words: "_Words", i: int, function_words: set[str], stop_words: frozenset[str],
                         fail_words: frozenset[str]) -> bool | None:
    """Whether a title goes on after word ``i``, which ends in a comma: the segment up to the next punctuation is
    title-case ("Theory, Analysis, and Best Practices"). None: the look-ahead ran past ``MAX_TITLE_WORDS``."""
    j = i + 1
    ok = words.has(j)
    while words.has(j):
        if j >= MAX_TITLE_WORDS:
            return None
        w2 = words[j][2]
        c2 = w2.strip("“”\"'()").rstrip(",.;:?!")
        if c2.lower() in stop_words and j > i + 1:
            break
        if c2 in fail_words or not _is_title_word(c2, function_words) or w2.startswith("("):
            return False
        if w2[len(w2.rstrip(",.;:?!")):]:
            break
        j += 1
    return ok


def _without_trailing_function_words(text: str, start: int, end: int, function_words: set[str],
                                     min_words: int) -> tuple[int, int] | None:
    """The title ``text[start:end]`` without the function words it ends with; None when fewer than ``min_words``
    words remain."""
    span = text[start:end]
    toks = span.split()
    while toks and toks[-1].lower() in function_words:
        toks.pop()
    if len(toks) < min_words:
        return None
    trimmed = " ".join(toks)
    return start, start + len(span[: span.find(toks[-1]) + len(toks[-1])]) if trimmed else None


def _initials(word: str) -> str:
    out = []
    for part in re.split(r"[-/]", word):
        if not part:
            continue
        out.append(part[0].lower())
        out.extend(ch.lower() for ch in part[1:] if ch.isupper())
    return "".join(out)


def _subsequence(needle: str, hay: str) -> bool:
    it = iter(hay)
    return all(ch in it for ch in needle)


def acronym_long_form(acronym: str, words: list[str]) -> int | None:
    """How many of ``words`` (the words just before an acronym, in order) form its long form, or None.

    The acronym's capitals must be, in order, initials of the long form's words or of their hyphen parts,
    and the long form must start with the acronym's first letter.

    Examples
    --------
    >>> acronym_long_form("TSMC", "a method based on Twisted Sequential Monte Carlo".split())
    4
    >>> acronym_long_form("AcT", "shares Activation Transport".split())
    2
    >>> acronym_long_form("BGAN", "training a Boundary-seeking GAN".split())
    2
    >>> acronym_long_form("XYZ", "nothing to see".split()) is None
    True
    """
    letters = "".join(ch.lower() for ch in acronym if ch.isupper() or ch.isdigit())
    if len(letters) < 2:
        return None
    first = letters[0]
    best = None
    for k in range(1, min(len(words), len(letters) + 3) + 1):
        cand = words[-k:]
        if not cand[0] or cand[0][0].lower() != first:
            continue
        if cand[0].lower() in {"the", "a", "an", "of", "and", "for"}:
            continue
        if _subsequence(letters, "".join(_initials(w) for w in cand)):
            best = k
            break
    return best


def is_strong_name(word: str, generic: set[str] | frozenset[str]) -> bool:
    """Whether a word looks like a coined name by its shape alone (CamelCase, capitals with more, digits).

    Examples
    --------
    >>> [is_strong_name(w, {"LLM"}) for w in ["QuillNet", "GSM8K", "DART", "LLM", "Model", "mlx", "Mamba2", "AI", "Q-Sieve", "Non-Linear"]]
    [True, True, True, False, False, False, True, False, True, False]
    """
    if isinstance(generic, frozenset):  # the rules' own set: the answer for a word is kept
        return _strong_name_cached(word, generic)
    return _strong_name(word, generic)


@lru_cache(maxsize=65536)
def _strong_name_cached(word: str, generic: frozenset[str]) -> bool:
    return _strong_name(word, generic)


def _strong_name(word: str, generic) -> bool:
    core = word.rstrip("s") if word.endswith("s") and word[:-1].isupper() else word
    if core in generic or word in generic:
        return False
    parts = [p for p in re.split(r"[-/]", word) if p]
    if not parts or not word[0].isalnum():
        return False
    letters = [ch for ch in word if ch.isalpha()]
    if not letters:
        return False
    uppers = sum(ch.isupper() for ch in letters)
    if re.search(r"[a-z][A-Z]", word):
        return True
    if len(parts) >= 2 and any(len(p) == 1 and p.isupper() for p in parts) and any(len(p) >= 3 for p in parts):
        return True  # "Q-Sieve", "X-Former", "ViT-B"
    if uppers >= 2 and len(core) >= 3 and (uppers >= len(letters) - 1 or any(p.isupper() and len(p) >= 2 for p in parts)):
        return True
    if word[0].isupper() and re.search(r"[A-Za-z]\d+[A-Za-z]?$", word) and len(word) >= 3:
        return True
    if re.search(r"[a-z]\d+[A-Z]|[A-Z]{2}\d+[A-Z][a-z]", word):
        return True  # a digit inside a camel-case word: "Mask2Former", "Wav2Vec", "BERT4Rec"
    if re.match(r"[A-Z]{2,}[a-z]{2,}", word) and len(parts) == 1:
        return True  # capitals run into a word: "RNNoise", "MLPerf"... "GPTCache"
    if len(parts) >= 2 and re.fullmatch(r"[A-Z][a-z]{1,}", parts[0]) and re.match(r"\d", parts[1]) \
            and parts[0] not in NUMBERED_WORDS:
        return True  # a model family and its version: "Phi-4-mini", "Llama-3", "Gemma-2B"
    return False


NUMBERED_WORDS = frozenset({"Top", "Table", "Figure", "Fig", "Section", "Sec", "Level", "Stage", "Phase", "Type", "Class",
                             "Version", "Step", "Layer", "Round", "Day", "Week", "Year", "Part", "Chapter", "Appendix",
                             "Equation", "Eq", "Line", "Page", "Task", "Group", "Grade", "Tier", "Rank", "Pass", "Covid",
                             "Category", "Item", "Room", "Gate", "Hall", "Booth", "Session", "Track", "Episode", "Series"})
