"""Lower-case technique names ("knowledge distillation", "prefix tuning", "best-of-n sampling") as mention
candidates, but only where the text treats the phrase as a name: a phrase written in lower case is most often
plain description ("large language models", "high accuracy"), and leave-one-set-out, phrases taken everywhere
found as many names the annotators do not list as ones they do. What licenses a phrase here:

- ``acronym``: a short form in brackets after it ("grouped-query attention (GQA)");
- ``cite``: a citation in brackets after it ("prefix tuning (Li and Liang, 2021)");
- ``kind``: a noun after it that says it is a technique ("the sliding window recomputation baseline", "a new
  negative sampling technique": ``phrase_kinds``), the phrase being the words before that noun;
- ``list``: it stands in a list next to a name ("PPO, best-of-n sampling and expert iteration");
- ``cue``: a word before it that uses, proposes or varies a technique ("trained with knowledge distillation", "a
  variant of magnitude pruning": ``phrase_cues``).

A list or a cue licenses only a whole run of lower-case words that ends as a list's item does (a comma, a full
stop, "and"): "with knowledge distillation and ..." gives "knowledge distillation", not "knowledge". A phrase of one
word is a candidate only when it joins three parts by hyphens ("sampling-then-filtering").

The licences become features (``lic=``); the trained model decides. Only spans are found here: the caller makes
the candidates (``candidates.mention_candidates``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Phrase", "PhraseCues", "phrases"]

_MAX_WORDS = 4
_SEPARATOR = re.compile(r"\s*(?:,|;|/|\+)?\s*(?:\b(?:and|or|plus)\s+)?")
_CITE = re.compile(r"\s*\((?:[^()\n]{0,60}\bet al\.?|[A-Z][^()\n]{0,60}),?\s*(?:19|20)\d\d[a-z]?\)")
_ACRONYM = re.compile(r"\s*\(\s*[A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*\s*\)")
_ITEM_END = re.compile(r"\s*(?:$|\n|[,;:.)!?])")
_NEXT_WORD = re.compile(r"\s+([a-z]+)\b")
"""What may follow a list item or a cue's object: a line's end or a punctuation mark (``_ITEM_END``), or a word of
``phrase_enders``, which opens the next clause (``_NEXT_WORD``)."""
_CLAUSAL = frozenset({"aux", "auxpass", "neg", "advmod", "prep", "mark", "cc", "det", "poss", "prt", "agent", "dative",
                      "ccomp", "xcomp", "advcl", "relcl", "acomp"})
_VERB_CHILDREN = frozenset({"nsubj", "nsubjpass", "dobj", "aux", "auxpass"})


@dataclass(frozen=True, slots=True)
class PhraseCues:
    """The words of ``features.json`` the licences read: kind nouns after a phrase, cues before it (one or two
    words), the words that may stand between a cue and the phrase ("the", "its"; never part of it), and the words
    that may follow a whole item ("and", "which")."""

    kinds: frozenset[str]
    cues: frozenset[str]
    openers: frozenset[str]
    enders: frozenset[str]


@dataclass(frozen=True, slots=True)
class Phrase:
    """Tokens ``[start, end)`` of a lower-case phrase and what licenses it as a name."""

    start: int
    end: int
    licences: tuple[str, ...]


@dataclass(slots=True)
class _Word:
    """A whitespace-delimited word of the text (:func:`_words`): one per word of every document, read only here,
    so not frozen (a frozen dataclass's fields are set through ``object.__setattr__``, four times the time)."""

    a: int
    b: int
    """Tokens."""
    start: int
    end: int
    """Characters."""
    text: str


class _Tokens:
    """What the phrase finder reads of each token, from the layout's arrays (token objects cost more than the
    reading): texts, spacing, offsets, and whether the parser reads the token as a verb or a particle."""

    def __init__(self, lay) -> None:
        self.texts, self.spaced, self.idx, self.text = lay.texts, lay.spaced, lay.idx, lay.text
        self.sent_starts = set(lay.sent_starts)
        deps, heads = lay.deps, lay.heads
        self.verbish = [d in _CLAUSAL for d in deps]
        for t, d in enumerate(deps):
            if d in _VERB_CHILDREN and heads[t] != t:
                self.verbish[heads[t]] = True  # it has a subject, an object or an auxiliary of its own

    def lower(self, k: int) -> str:
        return self.texts[k].lower()


def _words(tk: _Tokens) -> list[_Word]:
    """The whitespace-delimited words, without the punctuation around them ("best-of-n" is one word of five
    tokens; "(prefix" is "prefix")."""
    texts, spaced, idx, text = tk.texts, tk.spaced, tk.idx, tk.text
    out, i, n = [], 0, len(texts)
    while i < n:
        j = i
        while j + 1 < n and not spaced[j] and not texts[j + 1].isspace() and not texts[j].isspace():
            j += 1
        a, b = i, j + 1
        while a < b and not texts[a][0].isalnum():
            a += 1  # brackets and quotes around a word are not part of it
        while b > a and not texts[b - 1][-1].isalnum():
            b -= 1
        if a < b:
            start, end = idx[a], idx[b - 1] + len(texts[b - 1])
            out.append(_Word(a, b, start, end, text[start:end]))
        i = j + 1
    return out


def _plain(tk: _Tokens, w: _Word, fw: frozenset[str], opens: bool) -> bool:
    """A word of a lower-case phrase: letters (and digits joined by hyphens), not a function word, no capital but
    the first letter of a word that opens its sentence or line, and not read as a verb ("outperforms") or a
    particle ("much")."""
    t = w.text
    body = t[1:] if opens else t
    # (the cheap tests first; a lower-case body holds no capital, and the other's letters are tested one by one)
    if tk.verbish[w.b - 1] or not (body.islower() or not any(map(str.isupper, body))):
        return False
    rest = t.replace("-", "").replace("'", "")  # letters and digits but for hyphens and apostrophes
    return (rest.isalnum() or not rest) and any(map(str.isalpha, t)) and t.lower() not in fw


def phrases(lay, names: list[tuple[int, int]], cue: PhraseCues, fw: frozenset[str],
            line_starts: set[int]) -> list[Phrase]:
    """The licensed lower-case phrases of a document's layout (``candidates.Layout``): two to ``_MAX_WORDS``
    words, or one of three parts joined by hyphens. ``names`` are the character spans of the name-like candidates
    found already (a list licenses a phrase next to one of them, or next to a phrase a list licensed);
    ``line_starts`` the character offsets where a line's text begins after its list marker."""
    if not lay.texts:
        return []
    tk = _Tokens(lay)
    words = _words(tk)
    runs = _runs(tk, words, fw | cue.openers, line_starts)
    if not runs:
        return []
    ends, starts = {b for _, b in names}, {a for a, _ in names}
    out: dict[tuple[int, int], set[str]] = {}
    for _ in range(3):  # "PPO, best-of-n sampling and expert iteration": a list goes on past a phrase it licensed
        before = len(out)
        for i, j in runs:
            _licensed(tk, words, i, j, ends, starts, cue, out)
        listed = [(words[x].start, words[y].end) for (x, y), lic in out.items() if "list" in lic]
        wider = ends | {b for _, b in listed}, starts | {a for a, _ in listed}
        if len(out) == before or wider == (ends, starts):
            break  # (with the same names to lean on, another pass would find the same phrases)
        ends, starts = wider
    return [Phrase(words[x].a, words[y].b, tuple(sorted(lic))) for (x, y), lic in sorted(out.items())]


def _runs(tk: _Tokens, words: list[_Word], fw: frozenset[str], line_starts: set[int]) -> list[tuple[int, int]]:
    """Maximal runs of plain words (:func:`_plain`) with only spaces between them, as (first, last) word."""
    runs, k, text = [], 0, tk.text
    while k < len(words):
        opens = words[k].start in line_starts or words[k].a in tk.sent_starts
        if not _plain(tk, words[k], fw, opens):
            k += 1
            continue
        j = k
        while (j + 1 < len(words) and _plain(tk, words[j + 1], fw, False)
               and text[words[j].end:words[j + 1].start] == " "):
            j += 1
        runs.append((k, j))
        k = j + 1
    return runs


def _licensed(tk: _Tokens, words: list[_Word], i: int, j: int, ends: set[int], starts: set[int], cue: PhraseCues,
              out: dict) -> None:
    """The phrases of the run of words ``i..j`` that its context licenses, added to ``out``: the whole run after a
    cue or a list's name; those that end where the run does before an acronym, a citation or a list's name;
    those that end before a kind noun inside the run."""
    text = tk.text

    def add(x: int, y: int, lic: str) -> None:
        if y > x or words[x].text.count("-") >= 2:
            out.setdefault((x, y), set()).add(lic)

    kinds, cues = cue.kinds, cue.cues
    nxt = _NEXT_WORD.match(text, words[j].end)
    whole = j - i < _MAX_WORDS and (_ITEM_END.match(text, words[j].end) is not None
                                    or nxt is not None and nxt.group(1) in cue.enders)
    head = []
    k = words[i].a - 1
    while k >= 0 and tk.lower(k) in cue.openers:
        k -= 1
    if k >= 0 and (tk.lower(k) in cues or k >= 1 and f"{tk.lower(k - 1)} {tk.lower(k)}" in cues):
        head.append("cue")
    if _listed_before(words[i].start, text, ends):
        head.append("list")
    for lic in head:  # the whole run, when it ends as a list's item does ("with knowledge distillation and ...")
        if whole and words[j].text not in kinds:
            add(i, j, lic)
    tail = []
    if _ACRONYM.match(text, words[j].end):
        tail.append("acronym")
    elif _CITE.match(text, words[j].end):
        tail.append("cite")
    sep = _SEPARATOR.match(text, words[j].end)
    if sep and text[words[j].end:sep.end()].strip() and sep.end() in starts:
        tail.append("list")
    for lic in tail:
        for x in range(max(i, j - _MAX_WORDS + 1), j + 1):
            add(x, j, lic)
    for m in range(i + 1, j + 1):
        if words[m].text in kinds:  # "the sliding window recomputation baseline"
            for x in range(max(i, m - _MAX_WORDS), m):
                add(x, m - 1, "kind")


def _listed_before(start: int, text: str, ends: set[int]) -> bool:
    """Whether a name ends just before ``start`` with a list's separator between ("PPO, X", "A and X")."""
    before = text[max(0, start - 8):start]
    for k in range(len(before)):
        if start - len(before) + k in ends and _SEPARATOR.fullmatch(before[k:]) and before[k:].strip():
            return True
    return False
