"""Broad candidates, recall first: every span that may name an entity and every pair of typed mentions that may
stand in a relation. The trained decision (``classify.py``) picks among them; nothing here decides.

Mention candidates come from the rules (their class and rule name become features), from name shape (capitals,
digits, hyphens, CamelCase, acronyms), from title-like runs anywhere in a line (headings, list items, after
"Accepted to X,", in quotes), and from lower-case phrases ("grouped-query attention") only where their context
says they name something (an acronym or a citation in brackets after them, a list with a name, a cue before them, a
kind noun after them: ``phrases.py``); taken everywhere, such phrases found few names the annotators list and as
many that they do not. Pair candidates are
the pairs of typed mentions the knowledge model allows within a sentence (a sentence wrapped over lines counted as
one), the pairs a document's layout gives (a titled entry, or a method before a title's colon, and the venue,
affiliation and code lines under it; a list item and the venue or device of its heading; a paragraph's method and
the mentions of a sentence that refers to it as "it" or "the model"; a table's header and rows; the document's
method and the sentences that name no method), and the rules' own relations.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import numpy
from spacy.attrs import DEP, HEAD, IDX, ORTH, SPACY
from spacy.tokens import Doc, Span

from ..vocab import RELATION_ENDS
from .components import MENTIONS_KEY, doc_text, sentence_starts
from .doc import span_value
from .gazetteer import gazetteer_spans
from .layout_names import code_words, line_pieces, wrapped_quotes
from .softwraps import soft_breaks
from .titles import ENUMERATOR, TIME_OF_DAY, is_label
from .text import BULLET, CELL_BREAK, LIST_MARKER, folded, folded_text, screened_finditer, wider

__all__ = ["MentionCandidate", "Typed", "PairCandidate", "Layout", "layout", "span_root", "mention_candidates",
           "pair_candidates", "ALLOWED", "lexicon", "table_top", "refers"]

PATTERNS = Path(__file__).parent / "patterns"

ALLOWED: dict[tuple[str, str], tuple[str, ...]] = {}
for _p, _ends in sorted(RELATION_ENDS.items()):
    for _e in sorted(_ends):
        ALLOWED.setdefault(_e, ())
        ALLOWED[_e] += (_p,)
"""(subject class, object class) -> the properties the knowledge model allows between them."""


@lru_cache(maxsize=1)
def lexicon() -> dict:
    """The feature lexicon (``patterns/features.json``) and the rules' cue regular expressions (``cues.json``)."""
    data = json.loads((PATTERNS / "features.json").read_text("utf-8"))
    cues = json.loads((PATTERNS / "cues.json").read_text("utf-8"))
    patterns = {k: r"\b(?:" + v + r")\b" for k, v in sorted(cues.items()) if isinstance(v, str) and not k.startswith("_")}
    data["cue_res"] = {k: re.compile(v, re.I) for k, v in patterns.items()}
    # the same patterns for the lower-cased copy of an ASCII text (text.folded), None where one cannot be made
    data["cue_folded"] = {k: re.compile(f) if (f := folded(v)) is not None else None for k, v in patterns.items()}
    data["cue_wider"] = {k: wider(v) for k, v in patterns.items()}  # (the others: text.screened_finditer)
    lex = json.loads((PATTERNS / "lexicon.json").read_text("utf-8"))
    data["function_words"] = frozenset(w.lower() for w in lex["function_words"]) | frozenset(data["connectors"])
    for key in ("negation", "hedges", "anaphors", "line_labels", "name_words", "variant_words"):
        data[key] = frozenset(data[key])
    return data


@dataclass(frozen=True, slots=True)
class MentionCandidate:
    """A span that may name an entity: token and character offsets, where it came from and what the rules said."""

    start: int
    end: int
    start_char: int
    end_char: int
    source: str
    """"rule", "shape", "title", "line", "phrase", "quote", "prefix" (a title's name before its colon) or "gaz" (a name
    of the gazetteer)."""
    rule_cls: str = ""
    rule: str = ""
    canonical: str = ""
    aliases: tuple[str, ...] = ()
    forced: bool = False
    """A rule mention that no name can confirm (an untitled paper): kept as the rules gave it."""
    also: tuple[str, ...] = ()
    """The other sources that found the same span."""
    licences: tuple[str, ...] = ()
    """For a lower-case phrase, what in its context says it names something (``phrases.py``)."""


@dataclass(frozen=True, slots=True)
class Typed:
    """A mention candidate given a class (by the model, or by the gold when training)."""

    cand: MentionCandidate
    cls: str
    prob: float = 1.0


@dataclass(frozen=True, slots=True)
class PairCandidate:
    """Two typed mentions (indices into the typed list) that may stand in a relation, and why they were paired."""

    s: int
    o: int
    origin: str
    """"sentence", "wrapped", "entry", "heading", "anaphor", "antecedent", "paragraph", "para", "focus", "table",
    "caption", "topic", "orphan", "near" (``pairs.near_pairs``), "lead" (``pairs.lead_pairs``) or "rule", joined by
    "+"."""
    rules: tuple[tuple[str, str], ...] = ()
    """(property, rule name) of each rule relation between the two."""


@dataclass
class Layout:
    """Where lines, sentences and paragraphs start, and what kind of line each is."""

    text: str
    sent_starts: list[int]
    line_starts: list[int]
    line_kind: list[str]
    line_first: list[str]
    para_of_line: list[int]
    content_line: list[int]
    """For each line, how many lines with words there are up to it (blank lines and rules not counted)."""
    token_line: list[int] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    """Each token as the features see it (``features.word``)."""
    texts: list[str] = field(default_factory=list)
    deps: list[str] = field(default_factory=list)
    heads: list[int] = field(default_factory=list)
    idx: list[int] = field(default_factory=list)
    spaced: list[bool] = field(default_factory=list)
    cue_names: list[str] = field(default_factory=list)
    """The cue classes, in the order of ``cue_res``."""
    cue_marks: list = field(default_factory=list)
    """Every cue match as (start, end, the rank of its class in ``cue_names``), sorted: the classes matched inside a
    window are read from here with one bisection (``features._cues_in``)."""
    cue_starts: list[int] = field(default_factory=list)
    marker_ends: dict = field(default_factory=dict)
    """Line -> where its first character other than white space and list markers stands (``features``)."""
    counts: tuple | None = None
    """Negation and hedge words before each token (``features._counts``, computed when first asked)."""
    line_info: dict = field(default_factory=dict)
    """Line -> what the features read of the whole line (``features._line_shape``, computed when first asked)."""
    frame_info: dict = field(default_factory=dict)
    """Line -> the features of a span's frame that depend on its line alone (``features._frame``)."""
    prev_line: list[int] = field(default_factory=list)
    next_line: list[int] = field(default_factory=list)
    """For each line, the nearest line with words above and below it (-1: none)."""
    context_classes: list | None = None
    """For each token, the classes its word speaks of (``features._context``, computed when first asked)."""
    context_tokens: list[int] = field(default_factory=list)
    """The tokens whose ``context_classes`` are not empty, in order (made with them)."""

    def line_of_char(self, i: int) -> int:
        return bisect_right(self.line_starts, i) - 1

    def line_end(self, line: int) -> int:
        """The character offset where ``line`` ends (its newline, or the text's end)."""
        return self.line_starts[line + 1] - 1 if line + 1 < len(self.line_starts) else len(self.text)

    def sent_of(self, tok: int) -> int:
        return bisect_right(self.sent_starts, tok) - 1


_MARKER = re.compile(r"^\s*(?:" + LIST_MARKER + r"|#+)\s+")
_WORD = re.compile(r"[A-Za-z][\w-]*")
_ALIGNED = re.compile(r"\S {2,}\S.*\S {2,}\S")
"""Three or more columns aligned by runs of spaces: a table written as text."""


def span_root(lay: Layout, a: int, b: int) -> int:
    """The token of ``[a, b)`` whose head lies outside it (spaCy's ``Span.root``, from the arrays)."""
    heads = lay.heads
    for k in range(a, b):
        h = heads[k]
        if h < a or h >= b or h == k:
            return k
    return a


def _line_kind(line: str) -> str:
    s = line.strip()
    if not s:
        return "blank"
    if "|" in s or "\t" in s or _ALIGNED.search(s):
        return "table"
    if s.startswith("#"):
        return "heading"
    if _MARKER.match(line) and not s.startswith(">"):  # a quote's ">" is gone once Markdown is read
        return "item"
    if re.fullmatch(r"[-=_*~]{3,}", s):
        return "rule"
    if len(s) < 120 and not re.search(r"[.!?]$", s):
        return "short"
    return "text"


def layout(doc: Doc) -> Layout:
    """The line and paragraph structure of ``doc``'s text."""
    text = doc_text(doc)
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    kinds, firsts, paras, content = [], [], [], []
    para = seen = 0
    prev_ends = True
    for k, a in enumerate(starts):
        b = starts[k + 1] - 1 if k + 1 < len(starts) else len(text)
        line = text[a:b]
        kind = _line_kind(line)
        # blank lines and rules say nothing here: a document read from Markdown or HTML has none, so a paragraph
        # ends after a line of prose and before a heading or list item
        if kind not in {"blank", "rule"}:
            if prev_ends or kind in {"heading", "item"}:
                para += 1
            prev_ends = kind in {"text", "heading"}
            seen += 1
        kinds.append(kind)
        content.append(seen)
        w = _WORD.search(_MARKER.sub("", line, count=1))
        firsts.append(w.group(0).lower() if w and w.start() < 3 else "")
        paras.append(para)
    lay = Layout(text, sentence_starts(doc), starts, kinds, firsts, paras, content)
    last = -1
    for k, kind in enumerate(kinds):
        lay.prev_line.append(last)
        if kind not in {"blank", "rule"}:
            last = k
    last = -1
    for k in range(len(kinds) - 1, -1, -1):
        lay.next_line.append(last)
        if kinds[k] not in {"blank", "rule"}:
            last = k
    lay.next_line.reverse()
    if len(doc):  # read from one array: a Token object per token costs more than the features
        arr = doc.to_array([IDX, HEAD, DEP, ORTH, SPACY])
        lay.idx = arr[:, 0].tolist()
        lay.heads = (numpy.arange(len(doc)) + arr[:, 1].astype("int64")).tolist()
        strings = doc.vocab.strings
        names = {d: strings[d] for d in set(arr[:, 2].tolist())}
        lay.deps = [names[d] for d in arr[:, 2].tolist()]
        names = {o: strings[o] for o in set(arr[:, 3].tolist())}
        lay.texts = [names[o] for o in arr[:, 3].tolist()]
        lay.spaced = arr[:, 4].astype(bool).tolist()
        lay.token_line = (numpy.searchsorted(numpy.asarray(starts), arr[:, 0].astype("int64"), side="right") - 1).tolist()
    from .features import word_of

    lay.words = list(map(word_of, lay.texts))
    lex = lexicon()
    low = folded_text(text)
    for rank, (name, rx) in enumerate(lex["cue_res"].items()):
        lay.cue_names.append(name)
        fast, wide = (lex["cue_folded"][name], lex["cue_wider"][name]) if low is not None else (None, None)
        found = fast.finditer(low) if fast is not None else screened_finditer(rx, wide, text, low) if wide is not None \
            else rx.finditer(text)
        lay.cue_marks += [(m.start(), m.end(), rank) for m in found]
    lay.cue_marks.sort()
    lay.cue_starts = [a for a, _, _ in lay.cue_marks]
    return lay


# ----------------------------------------------------------------------------- mention candidates

@lru_cache(maxsize=1 << 14)  # every word of every document, most of them common ones
def _name_word(w: str) -> bool:
    """A word that can be (part of) a name: a capital anywhere, or letters with digits ("GPT-4", "wav2vec",
    "phi-3-mini", "A100")."""
    w = w.strip("()[]{}\"'“”‘’,;.!?")
    if not w or not w[0].isalnum():
        return False
    if any(map(str.isupper, w)):
        return True
    return any(map(str.isdigit, w)) and any(map(str.isalpha, w))


def name_tokens(lay: Layout) -> list[bool]:
    """For each token, whether the whitespace-delimited word it belongs to is name-like (:func:`_name_word`)."""
    texts, spaced = lay.texts, lay.spaced
    n = len(texts)
    out = [False] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and not spaced[j] and not texts[j].isspace() and not texts[j + 1].isspace():
            j += 1  # a token of spaces or line breaks ("\n  ") is a word boundary too
        if _name_word("".join(texts[i:j + 1])):
            for k in range(i, j + 1):
                out[k] = texts[k][:1].isalnum()
        i = j + 1
    return out


def _runs(lay: Layout, fw: frozenset[str], named: list[bool]) -> list[tuple[int, int]]:
    """Maximal runs of name tokens within a line, joined by hyphens, slashes, numbers, colons and connectors."""
    runs = []
    texts, tl = lay.texts, lay.token_line
    n = len(texts)
    i = 0
    while i < n:
        if not named[i]:
            i += 1
            continue
        j = i + 1
        last = i + 1
        while j < n and tl[j] == tl[i]:
            t = texts[j]
            if named[j] or t[:1].isdigit():
                last = j + 1
            elif t in {"-", "/", "–", ":", "&", "'s", ".", "+"} or t.lower() in fw:
                if t == "." and lay.spaced[j] or t == "+" and lay.spaced[j] and lay.spaced[j - 1]:
                    break  # a sentence's full stop; "A + B" joins two names (a model and its head), "C++" is one
            else:
                break
            j += 1
        runs.append((i, last))
        i = max(last, i + 1)
    return runs


def _title_like(lay: Layout, a: int, b: int, fw: frozenset[str]) -> bool:
    words = [t for t in lay.texts[a:b] if t[:1].isalpha()]
    if len(words) < 3:
        return False
    content = [w for w in words if w.lower() not in fw]
    return bool(content) and sum(w[0].isupper() for w in content) >= 0.7 * len(content)


_QUOTE = re.compile(r"[\"“]([^\"”\n]{6,160})[\"”]")


def mention_candidates(doc: Doc, lay: Layout) -> list[MentionCandidate]:
    """Every candidate span of ``doc``: the rules' mentions first, then shapes, title runs, line heads and quotes."""
    fw = lexicon()["function_words"]
    text = lay.text
    out: dict[tuple[int, int], MentionCandidate] = {}
    for span in doc.spans[MENTIONS_KEY] if MENTIONS_KEY in doc.spans else ():
        out.setdefault((span.start, span.end), _from_span(span))
    for s, _, o, _, _, _ in doc._.mlkg_relations or ():
        for span in (s, o):
            if (span.start, span.end) not in out:
                out[(span.start, span.end)] = _from_span(span)
    named = name_tokens(lay)
    texts = lay.texts
    for a, b in _runs(lay, fw, named) + _wrapped_runs(lay, fw, named):
        while b > a and (texts[b - 1].lower() in fw or not texts[b - 1][:1].isalnum()):
            b -= 1
        if b <= a:
            continue
        if b - a >= 3 and _title_like(lay, a, b, fw):
            _add(out, lay, a, b, "title")
        _shape_spans(lay, a, b, named, fw, out)
    _line_segments(doc, lay, out)
    _phrase_candidates(doc, lay, out, fw)
    for m in _QUOTE.finditer(text):
        x, y = _tokens_within(lay, m.start(1), m.end(1))
        if x < y:
            _add(out, lay, x, y, "quote")
    for x, y in gazetteer_spans(text, texts, lay.idx, lay.token_line):  # names the world knows ("SQuAD 2.0")
        _add(out, lay, x, y, "gaz")
    _layout_spans(lay, out, fw)
    _title_prefix_spans(lay, out, fw)
    for k, c in out.items():  # a name wrapped over lines is named on one line
        if not c.canonical and "\n" in text[c.start_char:c.end_char]:
            out[k] = replace(c, canonical=" ".join(text[c.start_char:c.end_char].split()))
    return [out[k] for k in sorted(out)]


_JOINERS = frozenset({"-", "/", "–", ":", "&", "'s", "+"})
"""What joins the name tokens of a run ("Llama-2", "Name: Subtitle", "R&D")."""


def _in_run(t: str, named: bool, fw: frozenset[str]) -> bool:
    """Whether a token may stand inside a run of names: a name token, a number, a joiner or a function word."""
    return named or t[:1].isdigit() or t in _JOINERS or t.lower() in fw


def _wrapped_runs(lay: Layout, fw: frozenset[str], named: list[bool]) -> list[tuple[int, int]]:
    """A run of name tokens that ends its line joined with the run that opens the next line, where prose wraps
    ("with colleagues at Carnegie Mellon" / "University"): the break is one token of white space between two name
    tokens, the first line prose, a list item or a heading at least ``_WRAP_WIDTH`` long (not a table row), the next
    prose ("[4] Name: Sparse Models for Information" / "    Retrieval": a title wrapped under its marker)."""
    texts, tl, kinds = lay.texts, lay.token_line, lay.line_kind
    out = []
    for k in range(1, len(texts) - 1):
        if "\n" not in texts[k] or not texts[k].isspace() or texts[k].count("\n") > 1:
            continue
        line = tl[k - 1]
        if not (named[k - 1] and named[k + 1]) or kinds[line] not in {"text", "short", "item", "heading"} \
                or kinds[tl[k + 1]] not in {"text", "short"} \
                or len(lay.text[lay.line_starts[line]:lay.line_end(line)].strip()) < _WRAP_WIDTH:
            continue
        a = k - 1
        while a > 0 and tl[a - 1] == line and _in_run(texts[a - 1], named[a - 1], fw):
            a -= 1
        while not named[a]:
            a += 1  # a run opens on a name ("from the University": "University")
        b = k + 2
        while b < len(texts) and tl[b] == tl[k + 1] and _in_run(texts[b], named[b], fw):
            b += 1
        out.append((a, b))
    return out


def _layout_spans(lay: Layout, out: dict, fw: frozenset[str]) -> None:
    """Titles in quotes wrapped over lines, the pieces of a line between column separators and lower-case words
    written as code (``layout_names.py``); a wrapped title's name is its words on one line."""
    kinds = frozenset(lexicon()["code_kinds"])
    found = [*wrapped_quotes(lay.text), *line_pieces(lay.text, lay.line_starts, lay.line_kind),
             *code_words(lay.text, kinds, fw | frozenset(lexicon()["phrase_openers"]))]
    for s in found:
        x, y = _tokens_within(lay, s.start, s.end)
        while y > x and not lay.texts[y - 1][:1].isalnum():
            y -= 1  # a piece's closing punctuation the parser split off
        if x >= y:
            continue
        new = (x, y) not in out
        _add(out, lay, x, y, s.source)
        if new and s.name and (x, y) in out:
            out[(x, y)] = replace(out[(x, y)], canonical=s.name)


_TITLE_PREFIX = re.compile(r"[\"“]?(?:\d{1,4}[.)]?[ \t]+)?((?:[A-Z0-9]|[a-z]{1,6}[A-Z0-9])[\w.+&'’/-]*"
                           r"(?:[ \t]+[A-Za-z0-9][\w.+&'’/-]*){0,2}?)(?::|[ \t]+[-–—])[ \t]+[\"“]?[A-Za-z0-9]\S*[ \t]+\S")
"""A title's prefix before its colon or a dash between spaces, of at most three words (after a list's number), a
subtitle of two words or more after it ("Magellan: Autonomous Discovery of ...", "CLC - Complex Linear Coding for
...")."""
_TITLE_SOURCES = frozenset({"title", "quote", "cell"})


def _capitalised(words: list[str]) -> bool:
    """Whether a prefix of several words is written as a name is: each word opening with a capital or a digit, not
    all in capitals ("Instant Policy", "Byte Latent Transformer"; not "Reading group" nor "BENCH NOTES")."""
    return all(w[0].isupper() or w[0].isdigit() for w in words) and not all(w.isupper() for w in words)


def _title_prefix_spans(lay: Layout, out: dict, fw: frozenset[str]) -> None:
    """The name a title opens with, before its colon or dash ("Orca: A Distributed Serving System ..."), as a
    candidate of its own (source "prefix"): for a title of the rules or a run, quote or table cell written as one.
    A word before a colon is none of the name-shape spans (a name ends before its colon there), and a paper's
    own name before its title's colon is what the paper introduces most often (723 of the 738 one-word prefixes of
    the gold's titles in the trained sets). A line's label ("Abstract: ", "Speaker: ", ``is_label``) is none."""
    labels = lexicon()["line_labels"]
    for c in list(out.values()):
        if c.rule_cls != "Paper" and c.source not in _TITLE_SOURCES and not _TITLE_SOURCES.intersection(c.also):
            continue
        m = _TITLE_PREFIX.match(lay.text, c.start_char, c.end_char)
        if m is None or not any(map(str.islower, lay.text[c.start_char:c.end_char])):
            continue  # (a title in capitals is a heading's: "APPLE: THE QUIET INCUMBENT")
        words = m.group(1).split()
        if any(w.lower() in fw or w.lower() in labels for w in words) or is_label(words[0]) \
                or not any(map(str.isalpha, m.group(1))) or (len(words) > 1 and not _capitalised(words)):
            continue
        x, y = _tokens_within(lay, m.start(1), m.end(1))
        if x < y and lay.idx[x] == m.start(1):
            _add(out, lay, x, y, "prefix")


_POSSESSIVE = frozenset({"'s", "’s", "'", "’"})


def _shape_spans(lay: Layout, a: int, b: int, named: list[bool], fw: frozenset[str], out: dict) -> None:
    """The sub-spans of the run of name tokens ``[a, b)`` that start and end on whole words, at most seven tokens:
    "NVIDIA A100" and "A100"; a name ends before a possessive too ("Together AI's GPU"). A run of more than six
    name words is read as a title: only its words of a name's shape, and what stands before its colon; and each
    piece of it between connectors, as a run of its own ("the Hexagon Processor in the Snapdragon 8 Gen 2's AI
    Engine": "Hexagon Processor")."""
    texts, spaced = lay.texts, lay.spaced
    key = [named[k] or texts[k][:1].isdigit() for k in range(a, b)]
    # (a line break inside a wrapped run is a token of its own: _wrapped_runs)
    firsts = [k for k in range(a, b) if key[k - a] and (k == a or spaced[k - 1] or texts[k - 1].isspace())]
    lasts = [k for k in range(a, b) if key[k - a] and (k + 1 == b or spaced[k] or texts[k + 1] in _POSSESSIVE
                                                       or texts[k + 1].isspace())]
    if len(firsts) > 6:
        cuts = [k for k in range(a, b) if texts[k].lower() in fw or texts[k] in _POSSESSIVE]
        for x, y in zip([a] + [k + 1 for k in cuts], cuts + [b]):
            if x < y and y - x < b - a:
                _shape_spans(lay, x, y, named, fw, out)
        colon = texts.index(":", a, b) if ":" in texts[a:b] else None
        lasts = [k for k in lasts if not texts[k][:1].isupper() or not texts[k][1:].islower()
                 or (colon is not None and k < colon)]
        kept = set(lasts)
        firsts = [k for k in firsts if k in kept or (colon is not None and k < colon)]
    for x in firsts:
        if texts[x][:1].isdigit() and x > a:
            continue
        # the lasts in [x, x + 7), in order (by bisection: a run of thousands of names is not quadratic)
        for y in lasts[bisect_left(lasts, x):bisect_left(lasts, x + 7)]:
            if ":" not in texts[x:y + 1]:
                _add(out, lay, x, y + 1, "shape")


_SEGMENT_END = re.compile(r"\s\(|\.\s|\.$|\s[–—]\s|\s\|\s|\s*\[|\t|$")
_LABEL = re.compile(r"^(?:" + ENUMERATOR.pattern
                    + r"|(?:\[[^\]\n]{1,60}\]|\(\d{1,2}\)|" + TIME_OF_DAY + r"|[^:.\[]{1,30}:)\s+)")
"""What may stand before a title on its line: a bracketed tag ("[CVPR 2023] ", "[MLSys 2024 Best Paper] "), a
footnote number ("(1) "), a time of day ("10:30 ", "9:00-9:45 "), a short label ("Oral: ", "Title: ") or an outline
number or numbered label ("B.1 ", "Pick 3 · ": the titles' ``enumerator``)."""
_CLOSING_MARK = re.compile(r"\s+" + BULLET + r"$")
"""A marker that closes a line as one opened it ("~~ Title ~~", "== Results =="): no part of the title before it."""
_ENCLOSED = {"[": "]", "\"": "\"", "“": "”", "(": ")", "'": "'", "‘": "’"}


_WRAPPED_LINES = 3
"""How many lines a line's head may go on over where the text is wrapped (``softwraps``)."""


def _line_segments(doc: Doc, lay: Layout, out: dict) -> None:
    """The head of every non-blank line (after a list marker, up to a bracket, a full stop or a dash), and the
    same after a short label ("10:30 Oral: ", "Title: "): a title often stands alone there. A line that wraps onto
    the next ones (``softwraps``: "(*) YourTTS: Towards Zero-Shot ... Voice" / "    Conversion for everyone") is
    read with them as one."""
    text = lay.text
    soft = set(soft_breaks(text))
    for k, a in enumerate(lay.line_starts):
        if lay.line_kind[k] in {"blank", "rule"}:
            continue
        stop, n = lay.line_end(k), 0
        while stop in soft and n < _WRAPPED_LINES:
            stop, n = lay.line_end(k + n + 1), n + 1
        line = text[a:stop]
        m = _MARKER.match(line)
        starts = [m.end() if m else len(line) - len(line.lstrip())]
        for _ in range(3):
            lab = _LABEL.match(line[starts[-1]:])
            if not lab:
                break
            starts.append(starts[-1] + lab.end())
        for s0 in starts:
            seg = line[s0:]
            end = _SEGMENT_END.search(seg, 1)
            seg = _CLOSING_MARK.sub("", seg[:end.start() if end else len(seg)]).rstrip(" :;,")
            if seg[:1] in _ENCLOSED:  # a title in brackets or quotes: the words inside
                close = line.find(_ENCLOSED[seg[0]], s0 + 1)
                if close > s0 + 1:
                    s0, seg = s0 + 1, line[s0 + 1:close].strip()
            if 2 <= len(seg.split()) <= 30 or (len(seg.split()) == 1 and ":" in line[s0:s0 + len(seg) + 2]):
                x, y = _tokens_within(lay, a + s0, a + s0 + len(seg))
                if x < y:
                    _add(out, lay, x, y, "line")


def _phrase_candidates(doc: Doc, lay: Layout, out: dict, fw: frozenset[str]) -> None:
    """Lower-case technique names where their context licenses them (``phrases.py``), each with its licences."""
    from .phrases import PhraseCues, phrases

    lex = lexicon()
    names = [(c.start_char, c.end_char) for c in out.values() if c.rule_cls in {"Method", "Dataset"} or c.source == "shape"]
    starts = set()
    for k, a in enumerate(lay.line_starts):
        if lay.line_kind[k] not in {"blank", "rule"}:
            line = lay.text[a:lay.line_end(k)]
            m = _MARKER.match(line)  # on the line itself: "^" never matches at a position past the text's start
            starts.add(a + (m.end() if m else len(line) - len(line.lstrip())))
    cues = PhraseCues(*(frozenset(lex[k]) for k in ("phrase_kinds", "phrase_cues", "phrase_openers", "phrase_enders")))
    for p in phrases(lay, names, cues, fw, starts):
        if (p.start, p.end) in out:
            continue  # a rule's or a shape's span already: its own features say more
        _add(out, lay, p.start, p.end, "phrase", p.licences)


def _tokens_within(lay: Layout, a: int, b: int) -> tuple[int, int]:
    """The tokens wholly inside the characters ``[a, b)`` (``Doc.char_span``'s "contract", from the offsets)."""
    x = bisect_left(lay.idx, a)
    y = x
    while y < len(lay.idx) and lay.idx[y] + len(lay.texts[y]) <= b:
        y += 1
    return x, y


def _from_span(span: Span) -> MentionCandidate:
    rule = span_value(span, "mlkg_rule", "")  # (read from doc.user_data: no Underscore object per value)
    return MentionCandidate(span.start, span.end, span.start_char, span.end_char, "rule", span.label_,
                            rule, span_value(span, "mlkg_canonical", ""), tuple(span_value(span, "mlkg_aliases", ())),
                            rule in _FORCED)


def _add(out: dict, lay: Layout, a: int, b: int, source: str, licences: tuple[str, ...] = ()) -> None:
    if b - a == 1 and len(lay.texts[a]) == 1:
        return  # a single letter or digit is no name: an enumerator ("(B) Toolformer: ...") or a variable
    old = out.get((a, b))
    if old is not None:
        if source != old.source and source not in old.also:
            object.__setattr__(old, "also", (*old.also, source))  # still being built, not yet shared
    else:
        out[(a, b)] = MentionCandidate(a, b, lay.idx[a], lay.idx[b - 1] + len(lay.texts[b - 1]), source,
                                       licences=licences)


# ----------------------------------------------------------------------------- pair candidates

_FORCED = frozenset({"paper.untitled_abstract"})
"""Rule mentions no name can confirm: a paper known only by what it introduces."""


def pair_candidates(doc: Doc, lay: Layout, typed: list[Typed], rule_rels: list[tuple]) -> list[PairCandidate]:
    """The pairs of ``typed`` that may stand in a relation (the knowledge model allows their classes)."""
    from .pairs import lead_pairs, near_pairs  # they read this module's classes

    found: dict[tuple[int, int], set[str]] = {}
    by_sent: dict[int, list[int]] = {}
    for k, m in enumerate(typed):
        by_sent.setdefault(lay.sent_of(m.cand.start), []).append(k)
    group = wrapped_sentences(lay)
    by_group: dict[int, list[int]] = {}
    for si in sorted(by_sent):
        by_group.setdefault(group[si], []).extend(by_sent[si])
    for members in by_group.values():
        # the mentions within 60 tokens of each, found by bisection: a sentence listing thousands of names is not
        # quadratic
        near = sorted(members, key=lambda k: typed[k].cand.start)
        starts = [typed[k].cand.start for k in near]
        for a in members:
            x = typed[a].cand.start
            for b in near[bisect_right(starts, x - 60):bisect_left(starts, x + 60)]:
                if a != b and (typed[a].cls, typed[b].cls) in ALLOWED:
                    same = lay.sent_of(x) == lay.sent_of(typed[b].cand.start)
                    found.setdefault((a, b), set()).add("sentence" if same else "wrapped")
    _entry_pairs(lay, typed, found)
    _heading_pairs(lay, typed, found)
    _anaphor_pairs(doc, lay, typed, by_sent, found)
    _table_pairs(lay, typed, found)
    _caption_pairs(lay, typed, found)
    _topic_pairs(lay, typed, by_sent, found)
    _paragraph_pairs(lay, typed, found)
    lead_pairs(lay, typed, found)
    near_pairs(lay, typed, found)
    index = {(m.cand.start, m.cand.end): k for k, m in enumerate(typed)}
    rules: dict[tuple[int, int], list] = {}
    for s, p, o, _, rule, _ in rule_rels:
        a, b = index.get((s.start, s.end)), index.get((o.start, o.end))
        if a is not None and b is not None and a != b and (typed[a].cls, typed[b].cls) in ALLOWED:
            rules.setdefault((a, b), []).append((p, rule))
            found.setdefault((a, b), set()).add("rule")
    return [PairCandidate(a, b, "+".join(sorted(found[(a, b)])), tuple(sorted(set(rules.get((a, b), ())))))
            for a, b in sorted(found)]


_NEAR_SENTENCES = 2
"""How many sentences apart a paper and an organization of one paragraph may stand to be paired."""


def _paragraph_pairs(lay: Layout, typed: list[Typed], found: dict) -> None:
    """A paper and the organizations of its paragraph up to ``_NEAR_SENTENCES`` sentences before or after it: who
    wrote a paper is often said in the sentence around it ("Baidu took a different road. In "<title>", the team
    ...", "<title> ... . The authors, from <Org>, ...")."""
    orgs: dict[int, list[tuple[int, int]]] = {}  # paragraph -> (sentence, mention) of its organizations
    for k, m in enumerate(typed):
        if m.cls == "Organization":
            orgs.setdefault(lay.para_of_line[lay.token_line[m.cand.start]], []).append((lay.sent_of(m.cand.start), k))
    if not orgs:
        return
    for j, m in enumerate(typed):
        if m.cls != "Paper" or m.cand.forced:
            continue
        near = orgs.get(lay.para_of_line[lay.token_line[m.cand.start]])
        if near:
            sent = lay.sent_of(m.cand.start)
            for s, k in near:
                if 0 < abs(s - sent) <= _NEAR_SENTENCES:
                    found.setdefault((j, k), set()).add("para")


_WRAP_WIDTH = 40
"""A line at least this long that ends a sentence without a full stop is a line of prose wrapped at a width."""
_LINE_LABEL = re.compile(r"\s*[A-Z][\w ]{0,24}:\s")


def wrapped_sentences(lay: Layout) -> list[int]:
    """For each sentence, the first sentence of the run it belongs to in prose wrapped over lines: a sentence ends
    at every line break, but one that ends without a full stop on a line of prose at least ``_WRAP_WIDTH`` long
    goes on in the next line when that is prose too and starts with no label ("... a library for anomaly" /
    "detection that bundles ..."); so does one the parser cut within a line where no full stop stands."""
    starts, texts = lay.sent_starts, lay.texts
    group = list(range(len(starts)))
    for i in range(1, len(starts)):
        end = lay.sent_starts[i] - 1
        while end > starts[i - 1] and texts[end].isspace():
            end -= 1
        nxt = starts[i]
        stop = starts[i + 1] if i + 1 < len(starts) else len(texts)
        while nxt < stop - 1 and texts[nxt].isspace():
            nxt += 1
        if not texts or texts[end][-1:] in ".!?:;" or nxt >= len(texts):
            continue
        la, lb = lay.token_line[end], lay.token_line[nxt]
        # a list item's line is cut by the parser too ("1. [Accepted to X] | Name: Title"): within one line it is prose
        prose = {"short", "text", "item"} if lb == la else {"short", "text"}
        if lb not in {la, la + 1} or lay.line_kind[la] not in prose or lay.line_kind[lb] not in prose:
            continue
        a, b = lay.line_starts[la], lay.line_starts[lb]
        # on one line, the parser's own cut without a full stop ("... that bundles | Heron and Wren ...")
        if lb == la or len(lay.text[a:b].strip()) >= _WRAP_WIDTH and not _LINE_LABEL.match(lay.text, b):
            group[i] = group[i - 1]
    return group


_SURE_HEAD = 0.5
"""An entry's head from this probability of its class on ends the entry above it."""


_LABELS = re.compile(r"(?:" + _LABEL.pattern[1:] + r"){1,3}")
"""One to three labels in a row before a title ("[Accepted to X] [Oral] ", "#3 [ICML 2024] "), as ``_line_segments``
reads them."""


def _entry_head(lay: Layout, m: Typed) -> bool:
    """A paper whose title starts its line, after a list marker or up to three short labels ("Title: ", "10:30
    Oral: ", "[Accepted to X] [Oral] "), or a method that starts its line before a colon ("[3] Sophia: A Scalable
    Optimizer"): what an entry is about."""
    if m.cls not in {"Paper", "Method"}:
        return False
    line = lay.line_of_char(m.cand.start_char)
    if m.cls == "Method" and not lay.text.startswith(":", m.cand.end_char):
        return False
    head = _entry_lead(lay.text[lay.line_starts[line]:m.cand.start_char])
    return len(head.strip()) <= 1 or _LABELS.fullmatch(head) is not None


_OPENERS = re.compile(r"[\"“«‘'*_]+")
"""Quotes and emphasis that open a title ("Paper: \"T\"", "- **T**", "☐ “9. T”"): no part of what leads it."""
_TICKS = re.compile(r"^\s*(?:\[\s?[xX]?\s?\]|\([A-Za-z]\))\s+")
"""A check box or a letter label before an entry's title ("[ ] 1. T", "(A) T", "(b) T")."""


def _entry_lead(head: str) -> str:
    """What leads a title on its line, without its list marker, check box, letter label and opening quotes or
    emphasis (each of the first three at most once, in any order: "[ ] 1. ", "☐ “9. ", "(A) ")."""
    head = _OPENERS.sub("", head)
    for _ in range(3):
        head = _TICKS.sub("", _MARKER.sub("", head, count=1), count=1)
    return head


def _entry_pairs(lay: Layout, typed: list[Typed], found: dict) -> None:
    """A paper (or a method before a title's colon) that starts a line and the venues, organizations, methods and
    datasets of the lines of its entry, up to the next entry's line."""
    heads = [k for k, m in enumerate(typed) if _entry_head(lay, m)]
    # a name the mention model doubts ("Speaker: Ann Lee" read as a title) does not end the entry above it
    head_lines = [lay.line_of_char(typed[k].cand.start_char) for k in heads if typed[k].prob >= _SURE_HEAD]
    for k in heads:
        first = lay.line_of_char(typed[k].cand.start_char)
        later = bisect_right(head_lines, first)
        stop = lay.line_starts[head_lines[later]] if later < len(head_lines) else len(lay.text)
        for j, m in enumerate(typed):
            if j == k or not typed[k].cand.start_char <= m.cand.start_char < stop:
                continue
            if lay.content_line[lay.line_of_char(m.cand.start_char)] - lay.content_line[first] > 25 \
                    or (typed[k].cls, m.cls) not in ALLOWED:
                continue
            found.setdefault((k, j), set()).add("entry")


def _heading_pairs(lay: Layout, typed: list[Typed], found: dict) -> None:
    """A paper or method in a list item or table row, and the venue, device or organization of the heading above."""
    heads_of_line: dict[int, list[int]] = {}
    for k, m in enumerate(typed):
        line = lay.line_of_char(m.cand.start_char)
        if lay.line_kind[line] in {"heading", "short"} or line == 0:
            heads_of_line.setdefault(line, []).append(k)
    lines = sorted(heads_of_line)  # every line with a mention: the nearest one above is the heading
    # of each, only the mentions that can head (a line of thousands of names is not read again for each)
    heading = {h: [k for k in ks if typed[k].cls in {"Venue", "Hardware", "Organization"}] for h, ks in heads_of_line.items()}
    for j, m in enumerate(typed):
        line = lay.line_of_char(m.cand.start_char)
        if lay.line_kind[line] not in {"item", "table", "short", "text"} or m.cls not in {"Paper", "Method"}:
            continue
        pos = bisect_right(lines, line - 1) - 1
        for h in {lines[pos] if pos >= 0 else None, 0 if lines and lines[0] == 0 else None} - {None}:
            for k in heading[h]:
                if k != j and (m.cls, typed[k].cls) in ALLOWED:
                    found.setdefault((j, k), set()).add("heading")


def _anaphoric_subject(lay: Layout, a: int, b: int, anaphors: frozenset[str]) -> bool:
    """Whether the first subject of the sentence ``[a, b)`` is "it", "the model" or the like, or is owned by one
    ("Its backbone is ...")."""
    subj = next((t for t in range(a, b) if lay.deps[t] in {"nsubj", "nsubjpass"}), None)
    return subj is not None and refers(lay, subj, anaphors, a)


def refers(lay: Layout, t: int, words: frozenset[str], start: int = 0) -> bool:
    """Whether the token ``t`` is one of ``words`` ("it", "the model") or is owned by one ("its backbone", "the
    paper's authors"), its owner standing at most four tokens before it and from ``start`` on."""
    texts, deps, heads = lay.texts, lay.deps, lay.heads
    return texts[t].lower() in words or any(
        deps[k] == "poss" and heads[k] == t and texts[k].lower() in words for k in range(max(start, t - 4), t))


def _introduced(lay: Layout, m: Typed) -> bool:
    """A method named as the object of a presenting verb ("the team presents X", "X was introduced"): what the
    paragraph goes on to be about."""
    from .features import verb_classes

    t = m.cand.start
    while lay.heads[t] != t and m.cand.start <= lay.heads[t] < m.cand.end:
        t = lay.heads[t]
    return lay.deps[t] in {"dobj", "nsubjpass"} and "introduces" in verb_classes(lay.words[lay.heads[t]])


def _anaphor_pairs(doc: Doc, lay: Layout, typed: list[Typed], by_sent: dict, found: dict) -> None:
    """The method a sentence whose subject is "it", "its X" or "the model" refers to, and what that sentence names:
    the paragraph's last method named as a subject or introduced (or an earlier paragraph's), and the methods and
    papers of the paragraph's sentence before ("the team presents X, a Y. It pairs ..."); and the method the
    paragraph first names as a subject, with what every later sentence of the paragraph names ("X builds on ... .
    The team fine-tuned Y ...")."""
    topic: dict[int, int] = {}
    before: dict[int, list[int]] = {}
    lead: dict[int, int] = {}
    last = None
    anaphors = lexicon()["anaphors"]
    for si in sorted(by_sent):
        members = by_sent[si]
        para = lay.para_of_line[lay.token_line[lay.sent_starts[si]]]
        a = lay.sent_starts[si]
        b = lay.sent_starts[si + 1] if si + 1 < len(lay.sent_starts) else len(doc)
        subj = [t for t in range(a, b) if lay.deps[t] in {"nsubj", "nsubjpass"}]
        if _anaphoric_subject(lay, a, b, anaphors):
            antecedents = [(topic.get(para, last), "anaphor")] + [(k, "antecedent") for k in before.get(para, ())]
            for k, origin in antecedents:
                if k is None:
                    continue
                for j in members:
                    if j != k and (typed[k].cls, typed[j].cls) in ALLOWED:
                        found.setdefault((k, j), set()).add(origin)
        elif topic.get(para, last) is not None and not any(typed[j].cls in {"Method", "Paper"} for j in members):
            _focus_pairs(typed, topic.get(para, last), members, found)
        if lead.get(para) is not None and lead[para] not in members:
            k = lead[para]
            for j in members:
                if (typed[k].cls, typed[j].cls) in ALLOWED:
                    found.setdefault((k, j), set()).add("paragraph")
        named = []
        for j in sorted(members, key=lambda j: typed[j].cand.start):
            m = typed[j]
            if m.cls not in {"Method", "Paper"}:
                continue
            named.append(j)
            if any(m.cand.start <= t < m.cand.end for t in subj) or (m.cls == "Method" and _introduced(lay, m)):
                topic[para] = last = j
                lead.setdefault(para, j)
        if named:
            before[para] = named[-3:]  # the last few names of the paragraph's sentence before


_FOCUS_OBJECTS = frozenset({"Dataset"})
"""What a sentence that names no method or paper is read as saying of the one in focus: "We evaluate on X and Y",
"Evaluated on X.". Not its devices: paired so, "Training runs used 256 H200 GPUs" went to the wrong method as often
as to the right one (readable two-fold: runsOn 0.535 without them, 0.531 with, demoedOn 0.728 against 0.709)."""


def _focus_pairs(typed: list[Typed], k: int, members: list[int], found: dict) -> None:
    """The method or paper in focus (the paragraph's last named as a subject or introduced, else an earlier
    paragraph's) and the datasets of a sentence that names no method or paper and whose subject is not an anaphor
    ("We benchmarked it on A and B", "Evaluated on A.")."""
    for j in members:
        if typed[j].cls in _FOCUS_OBJECTS and (typed[k].cls, typed[j].cls) in ALLOWED:
            found.setdefault((k, j), set()).add("focus")


def _first_cell_end(lay: Layout, line: int) -> int:
    """The character offset where the first cell of a table row ends."""
    a = lay.line_starts[line]
    row = lay.text[a:lay.line_end(line)]
    lead = len(row) - len(row.lstrip(" |"))
    m = CELL_BREAK.search(row, lead + 1)
    return a + (m.start() if m else len(row))


_SEPARATOR_ROW = re.compile(r"\s*[-+|:=]{3,}[-+|:= ]*")


def _separator_row(lay: Layout, line: int) -> bool:
    """A table's rule under its header written with dashes and pluses ("------+------"), no cell in it."""
    a = lay.line_starts[line]
    return _SEPARATOR_ROW.fullmatch(lay.text, a, lay.line_end(line)) is not None


def table_top(lay: Layout, line: int) -> int:
    """The header row of the table a table row stands in: the first row of its run of table rows (a rule of
    dashes under the header counted in the run; memoised per line, so a long table is read once)."""
    key = ("top", line)
    got = lay.line_info.get(key)
    if got is None:
        k = line
        while k > 0 and (lay.line_kind[k - 1] == "table" or _separator_row(lay, k - 1)):
            k -= 1
            if ("top", k) in lay.line_info:
                k = lay.line_info[("top", k)]
                break
        while k < line and _separator_row(lay, k):
            k += 1
        got = lay.line_info[key] = k
    return got


def _table_runs(lay: Layout) -> list[tuple[int, int]]:
    """Each table as the lines ``[top, stop)`` of a run of table rows (rules of dashes counted in it)."""
    runs, kinds, n, i = [], lay.line_kind, len(lay.line_kind), 0
    while i < n:
        if kinds[i] != "table":
            i += 1
            continue
        j = i
        while j < n and (kinds[j] == "table" or _separator_row(lay, j)):
            j += 1
        runs.append((i, j))
        i = j
    return runs


def _mentions_by_line(lay: Layout, typed: list[Typed]) -> dict[int, list[int]]:
    """Line -> the indices of the mentions that start on it."""
    by_line: dict[int, list[int]] = {}
    for k, m in enumerate(typed):
        by_line.setdefault(lay.line_of_char(m.cand.start_char), []).append(k)
    return by_line


def _link(typed: list[Typed], found: dict, r: int, others: list[int], origin: str) -> None:
    """Pair ``r`` with each of ``others`` both ways round, where the knowledge model allows the classes."""
    for h in others:
        for a, b in ((r, h), (h, r)):
            if (typed[a].cls, typed[b].cls) in ALLOWED:
                found.setdefault((a, b), set()).add(origin)


def _table_pairs(lay: Layout, typed: list[Typed], found: dict) -> None:
    """The name heading a table row and each name of the table's header row ("MMLU | 69%" under "benchmark |
    phi-3-mini | GPT-3.5"; "Llama 2 7B  77.4  78.8" under "model  BoolQ  PIQA")."""
    by_line = _mentions_by_line(lay, typed)
    for i, j in _table_runs(lay):
        header = [k for k in by_line.get(i, ()) if typed[k].cand.start_char >= _first_cell_end(lay, i)]
        for line in range(i + 1, j):
            cut = _first_cell_end(lay, line)
            for r in (k for k in by_line.get(line, ()) if typed[k].cand.start_char < cut):
                _link(typed, found, r, header, "table")


_CAPTION_LINES = 2
"""How many lines with words above a table's header are read as its caption ("COCO val results:", "## Results
(ImageNet-1k, top-1)")."""


def _caption_lines(lay: Layout, top: int) -> list[int]:
    """The lines with words just above the table whose header row is ``top``: its caption or heading, up to
    ``_CAPTION_LINES`` of them of one paragraph, none of them a table row (the prose of a paragraph before the
    caption is not read)."""
    got, k = [], lay.prev_line[top] if top < len(lay.prev_line) else -1
    while k >= 0 and len(got) < _CAPTION_LINES and lay.line_kind[k] in {"heading", "short", "text"} \
            and (not got or lay.para_of_line[k] == lay.para_of_line[got[0]]):
        got.append(k)
        k = lay.prev_line[k]
    return got


def _caption_pairs(lay: Layout, typed: list[Typed], found: dict) -> None:
    """The first name of each row of a table and the names of the caption or heading just above it: a table of
    methods reports results on the dataset its caption names ("COCO val results:" over "YOLO-N | 2.3M | 38.5%"), a
    table of datasets those of the method it names ("Kestrel-7B word error rate:" over "VoxPopuli | 10.9")."""
    by_line = _mentions_by_line(lay, typed)
    for i, j in _table_runs(lay):
        caption = [k for line in _caption_lines(lay, i) for k in by_line.get(line, ())]
        for line in range(i + 1, j) if caption else ():
            row = sorted((k for k in by_line.get(line, ()) if typed[k].cls in {"Method", "Dataset", "Paper"}),
                         key=lambda k: typed[k].cand.start_char)
            for r in row[:1]:
                _link(typed, found, r, caption, "caption")


def _topic(lay: Layout, typed: list[Typed]) -> int | None:
    """The document's main method: the first mention of the method named most often (at least twice)."""
    counts: dict[str, list[int]] = {}
    for k, m in enumerate(typed):
        if m.cls == "Method" and not m.cand.forced:
            key = (m.cand.canonical or lay.text[m.cand.start_char:m.cand.end_char]).lower()
            counts.setdefault(key, []).append(k)
    best = sorted(counts.values(), key=lambda ks: (-len(ks), ks[0]))
    return best[0][0] if best and len(best[0]) >= 2 else None


def _names_on_line(lay: Layout, typed: list[Typed], members: list[int], k: int) -> int:
    """How many methods and papers other than ``k`` a line names, a short form in brackets after its long form
    ("Grouped-query attention (GQA)") counted once with it."""
    names = sorted((typed[j].cand.start_char, typed[j].cand.end_char) for j in members
                   if typed[j].cls in {"Method", "Paper"} and j != k)
    return sum(1 for n, (a, _) in enumerate(names)
               if n == 0 or lay.text[names[n - 1][1]:a].strip() != "(")


def _topic_pairs(lay: Layout, typed: list[Typed], by_sent: dict, found: dict) -> None:
    """The document's main method and the names of list items and table rows that name at most two other methods
    or papers (a model card's "- SwiGLU activations;", "- Vision encoder: DINOv2 and SigLIP", "HellaSwag | 0 | 81.19%"),
    and of the sentences that name no method or paper ("Frozen features were evaluated on A, B and C."), but for
    their venues."""
    k = _topic(lay, typed)
    if k is None:
        return
    for members in by_sent.values():
        if not any(typed[j].cls in {"Method", "Paper"} for j in members):
            for j in members:  # a venue there is the event the document is about ("ICML brings together ..."),
                if typed[j].cls != "Venue" and (typed[k].cls, typed[j].cls) in ALLOWED:  # not where its method was
                    found.setdefault((k, j), set()).add("orphan")
    by_line: dict[int, list[int]] = {}
    for j, m in enumerate(typed):
        by_line.setdefault(lay.line_of_char(m.cand.start_char), []).append(j)
    for line, members in by_line.items():
        if lay.line_kind[line] not in {"item", "table"}:
            continue
        if _names_on_line(lay, typed, members, k) > 2:
            continue
        for j in members:
            if j != k and (typed[k].cls, typed[j].cls) in ALLOWED:
                found.setdefault((k, j), set()).add("topic")
