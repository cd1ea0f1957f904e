"""The mlkg spaCy components: paragraph boundaries, entity mentions, and relations between them.

Mentions go to ``doc.spans["mlkg_mentions"]`` with span labels equal to the ontology's class local
names and the canonical name in ``span._.mlkg_canonical``; relations go to ``doc._.mlkg_relations`` as
``(subject span, property local name, object span, sentence span, rule, confidence)`` tuples.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter, defaultdict
from dataclasses import replace
from functools import lru_cache

import numpy
from spacy.attrs import IDX, LOWER, ORTH, SENT_START
from spacy.language import Language
from spacy.strings import get_string_id
from spacy.tokens import Doc, Span

from . import budget
from .rules import NUMBERED_WORDS, ORDINAL, Found, acronym_long_form, is_strong_name, load_rules, norm, ordinal_value, scan_title

__all__ = ["MENTIONS_KEY", "MentionFinder", "RelationFinder", "mark_paragraphs", "doc_text", "TEXT_KEY", "sentence_spans", "sentence_starts"]

MENTIONS_KEY = "mlkg_mentions"

if not Doc.has_extension("mlkg_relations"):
    Doc.set_extension("mlkg_relations", default=None)
if not Doc.has_extension("mlkg_event"):
    Doc.set_extension("mlkg_event", default=None)
for _name, _default in (("mlkg_canonical", ""), ("mlkg_aliases", ()), ("mlkg_rule", "")):
    if not Span.has_extension(_name):
        Span.set_extension(_name, default=_default)


TEXT_KEY = "mlkg_text"


def doc_text(doc: Doc) -> str:
    """``doc.text``, joined from the tokens once per Doc and kept in ``doc.user_data``.

    ``Doc.text`` joins every token's text on each access; the rules read the text in three components.
    ``extract_all`` puts the document's own string there before the parse, so it is never joined at all.
    """
    text = doc.user_data.get(TEXT_KEY)
    if text is None:
        text = doc.user_data[TEXT_KEY] = doc.text
    return text


def sentence_starts(doc: Doc) -> list[int]:
    """The first token of every sentence, as ``Doc.sents`` splits them.

    Read from one array: ``Doc.sents`` and ``Span.sent`` each check the annotation by iterating the Doc's
    tokens as Python objects, which cost the rules more than all their regular expressions together.
    """
    if not len(doc):
        return []
    flags = doc.to_array([SENT_START])
    return [0, *(int(i) for i in numpy.flatnonzero(flags[1:] == 1) + 1)]


def sentence_spans(doc: Doc, text: str) -> list[Span]:
    """The sentences of ``doc`` that hold more than whitespace, in order (``text`` is ``doc.text``)."""
    starts = sentence_starts(doc)
    out = []
    for a, b in zip(starts, [*starts[1:], len(doc)]):
        sent = doc[a:b]
        if text[sent.start_char:sent.end_char].strip():
            out.append(sent)
    return out


_JOINS_NEXT = numpy.array(sorted(get_string_id(s) for s in (":", ",", ";", "(", "-", "–", "—")), dtype="uint64")
_LINE_BREAK = re.compile("\n")
_JOINS_PREVIOUS = numpy.array(sorted(get_string_id(s) for s in ("–", "—", ":")), dtype="uint64")


@Language.component("mlkg_paragraphs", assigns=["token.is_sent_start"])
def mark_paragraphs(doc: Doc) -> Doc:
    """Start a sentence after every line break, so no sentence crosses a paragraph or list item.

    A token followed by ":", "–" or "—", or itself one of ":,;(-–—", is not followed by a sentence start:
    "Title: Subtitle" and "Name – what it does" are one sentence. Read from arrays, since this runs in the
    parse's process, before the parser, on every token.
    """
    if len(doc) < 2:
        return doc
    text = doc_text(doc)
    arr = doc.to_array([IDX, ORTH])
    starts = arr[:, 0].astype("int64")
    lines = numpy.array([m.start() for m in _LINE_BREAK.finditer(text)], dtype="int64") if "\n" in text else None
    # a line break in a token or the space after it: the text from its start to the next token's
    breaks = (numpy.searchsorted(lines, starts[1:]) > numpy.searchsorted(lines, starts[:-1])) if lines is not None \
        else numpy.zeros(len(doc) - 1, dtype=bool)
    joins = numpy.isin(arr[:-1, 1], _JOINS_NEXT) | numpy.isin(arr[1:, 1], _JOINS_PREVIOUS)
    # set in one call: ``Token.is_sent_start`` checks the whole Doc's annotation on every assignment
    flags = doc.to_array([SENT_START]).astype("int32")
    flags[1:][joins & ~breaks] = -1
    flags[1:][breaks] = 1
    doc.from_array([SENT_START], flags.astype("int64").astype("uint64").reshape(-1, 1))
    return doc


# ----------------------------------------------------------------------------- mention rules

_TW = r"(?:[A-Z0-9][\w'’&/.-]*|&)"  # a title-case word in a workshop or long name
_MONTHS = {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"}


@lru_cache(maxsize=2048)
def _re(pattern: str, flags: int = 0) -> re.Pattern:
    """``re.compile`` with a cache big enough for the rules' patterns built from rule data and names
    (``re``'s own cache holds 512 and, overflowing, recompiled them for every document). Per-name patterns
    are reused within a document and its neighbours, so 2,048 keep them (a full cache of 8,192 held some 5-9 MB
    more through a large build, for no measurable speed)."""
    return re.compile(pattern, flags)


# characters that ``re.IGNORECASE`` equates with an ASCII letter although ``str.lower`` does not map them to it
_FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")
_SEPARATOR = re.compile(r"[\s-]+")


def _bounds_word(ch: str) -> bool:
    """Whether ``ch`` joins a word in the name patterns' bounds ``(?<![\\w-])``, ``(?![\\w-])``."""
    return ch.isalnum() or ch in "_-"


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
        self.exact = len(self.lower) == len(text) and not _FOLDS_TO_ASCII.search(text)
        self.indexed = names * len(text) > self._MANY
        self._by_length: dict[int, dict[str, list[int]]] = {}
        self._starts: list[int] | None = None

    def occurrences(self, name: str) -> list[tuple[int, int]]:
        """The spans of ``name`` in the text, as :func:`name_occurrences` gives them."""
        text, lower = self.text, self.lower
        parts = _SEPARATOR.split(name)
        if not name.isascii() or "" in parts or not self.exact:
            pattern = _re(r"(?<![\w-])" + r"[\s-]?".join(re.escape(p) for p in parts) + r"s?(?![\w-])", re.I)
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
            end = _match_at(parts, text, lower, i) if i == 0 or not _bounds_word(text[i - 1]) else -1
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
"""A character that does not join a word in the name patterns' bounds (the complement of :func:`_bounds_word`)."""


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
    if j < n and lower[j] == "s" and (j + 1 == n or not _bounds_word(text[j + 1])):
        return j + 1
    if j == n or not _bounds_word(text[j]):
        return j
    return -1


@lru_cache(maxsize=None)
def _acronym_pattern(acrs: tuple[str, ...]) -> re.Pattern:
    return re.compile(
        r"(?<![\w-])(" + "|".join(re.escape(a) for a in acrs) + r")(?:(?:\s+|-|\s*')((?:19|20)\d{2}|\d{2}))?(?![\w-])"
    )


@lru_cache(maxsize=None)
def _long_name_patterns(long: str) -> tuple[re.Pattern, re.Pattern]:
    """The long name alone, and with its optional ordinal, "the", "Annual", publisher, acronym and year."""
    body = r"\s*".join(re.escape(w) for w in long.split())
    pat = re.compile(
        r"(?:(?:the\s+)?(?:(?P<ord>" + ORDINAL + r")|(?P<pre>(?:19|20)\d{2}))\s+)?(?:Annual\s+)?(?:(?:IEEE/CVF|IEEE|ACM)\s+)?"
        + body + r"(?:\s*\((?P<acr>[A-Za-z]+)(?:\s+(?P<py>(?:19|20)\d{2}))?\))?(?:\s+(?P<year>(?:19|20)\d{2}))?",
        re.I,
    )
    return re.compile(body, re.I), pat


_SPACE = re.compile(r"\s+")


@lru_cache(maxsize=None)
def _squeezed(long: str) -> str:
    return _SPACE.sub("", long).casefold()


@lru_cache(maxsize=8)
def _versioned_pattern(names: frozenset[str]) -> re.Pattern:
    """A known method followed by a version or a size ("NAME 3", "NAME 2.5 7B")."""
    first = "".join(sorted({re.escape(n[0]) for n in names}))  # a look-ahead on the first letters turns most positions away
    return re.compile(r"(?<![\w-])(?=[" + first + r"])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                      + r")((?:[ \t]+\d+(?:\.\d+)?)(?:[ \t]+\d+(?:\.\d+)?[BMK])?|[ \t]+\d+(?:\.\d+)?[BMK])(?![\w-])")


_PREFIX_WORDS = 6
"""Words a long conference name's pattern may read before the name itself: "the Twenty First Annual IEEE/CVF"."""


def _long_name_matches(text: str, body_re: re.Pattern, pat: re.Pattern):
    """``pat.finditer(text)``, where every match of ``pat`` holds a match of ``body_re`` after at most
    :data:`_PREFIX_WORDS` words: each search starts a few words before the next occurrence of the name itself
    rather than trying the pattern's optional ordinals and years at every character of the text."""
    pos, n = 0, len(text)
    while pos <= n:
        body = body_re.search(text, pos)
        if body is None:
            return
        start = body.start()
        for _ in range(_PREFIX_WORDS):  # back over a run of white space, then over a word
            while start > pos and text[start - 1].isspace():
                start -= 1
            while start > pos and not text[start - 1].isspace():
                start -= 1
        m = pat.search(text, start)
        if m is None:  # cannot be: the name alone matches
            return
        yield m
        pos = m.end() if m.end() > m.start() else m.end() + 1


def _conference_mentions(text: str, rules) -> list[Found]:
    """Conference acronyms with or without a year, and long conference names with ordinals."""
    out: list[Found] = []
    acr_re = _acronym_pattern(tuple(sorted(rules.conf_acronyms, key=len, reverse=True)))
    for m in acr_re.finditer(text):
        acr = rules.conf_acronyms[m.group(1)]
        year = m.group(2)
        if year and len(year) == 2:
            year = "20" + year
        canonical = f"{acr} {year}" if year else acr
        out.append(Found(m.start(), m.end(), "Venue", canonical, (), "venue.acronym"))
    # every match holds the long name itself, its words separated by nothing but whitespace, in any case:
    # so a long name whose letters do not occur in a row in the text, white space removed, cannot match
    squeezed = _SPACE.sub("", text).casefold()
    for acr, info in rules.conferences.items():
        for long in info.get("long", []):
            if _squeezed(long) not in squeezed:
                continue
            body_re, pat = _long_name_patterns(long)
            if not body_re.search(text):  # every match contains the name itself: skip the slow scan
                continue
            for m in _long_name_matches(text, body_re, pat):
                year = m.group("py") or m.group("year") or m.group("pre")
                if not year and m.group("ord") and info.get("base"):
                    n = ordinal_value(m.group("ord"))
                    if n:
                        year = str(info["base"] + n)
                canonical = f"{acr} {year}" if year else acr
                surface = re.sub(r"^the\s+", "", m.group(0), flags=re.I)
                aliases = {surface, re.sub(r"\s*\([^)]*\)", "", surface).strip()}
                out.append(Found(m.start(), m.end(), "Venue", canonical, tuple(sorted(aliases)), "venue.long_name"))
    return out


_WORKSHOP = re.compile("workshop", re.I)


def _workshop_mentions(text: str, rules, confs: list[Found]) -> list[Found]:
    """Workshops: "Workshop on X", "X Workshop", "workshop paper at CONF (X)"."""
    out: list[Found] = []
    if not _WORKSHOP.search(text):  # each pattern below needs the word: most documents have none
        return out
    fw = rules.function_words - {"at"}
    for m in re.finditer(r"(?:(?P<ord>" + ORDINAL + r")\s+)?[Ww]orkshop\s+on\s+", text, re.I):
        span = scan_title(text, m.end(), fw, min_words=1, stop_words=frozenset({"at"}),
                          fail_words=frozenset(rules.conf_acronyms))
        if not span:
            continue
        end = span[1]
        # a comma or "at the" inside the name when an acronym in parentheses closes it:
        # "Workshop on Tiny Models, Big Questions (TinyQ)", "Workshop on Data Streams at the Edge (DSE)"
        more = re.match(r"(?:,[ \t]+|[ \t]+at[ \t]+the[ \t]+)[A-Z][\w-]*(?:[ \t]+(?:[A-Z][\w-]*|of|and|for|the|in|on))*(?=[ \t]*\([A-Za-z][\w-]*\))", text[end:])
        if more and not any(w in rules.conf_acronyms for w in more.group(0).split()):
            end += more.end()
        name = text[span[0]:end]
        if name.split()[0] in _MONTHS or ")" in name:
            continue
        aliases = {text[m.start():end]}
        acr = re.match(r"\s*\(([A-Za-z][\w-]*)\)", text[end:])
        if acr and not any(c.start <= end + acr.start(1) < c.end for c in confs):
            aliases.add(acr.group(1))
            aliases.add(f"Workshop on {name} ({acr.group(1)})")
            end = end + acr.end()
        out.append(Found(m.start(), end, "Venue", f"Workshop on {name}", tuple(sorted(aliases)), "venue.workshop_on"))
    for m in re.finditer(r"(?<![\w-])(" + _TW + r"(?:\s+(?:" + _TW + r"|and|of|for|on|in|the))*)\s+Workshop\b(?!\s+on)", text):
        name = m.group(1)
        if name.split()[0].lower() in {"the", "a", "an"}:
            continue
        out.append(Found(m.start(), m.end(), "Venue", m.group(0), (name,), "venue.name_workshop"))
    # "the Tackling Climate Change with Machine Learning workshop at ICLR 2026": a title-case name before a
    # lower-case "workshop", after "the"
    for m in re.finditer(r"\b[Tt]he[ \t]+((?:[A-Z][\w'’&/.-]*)(?:[ \t]+(?:[A-Z][\w'’&/.-]*|and|of|for|on|in|with|the|to|from|at)){1,9})[ \t]+workshop\b", text):
        name = m.group(1)
        if name.split()[-1] in {"and", "of", "for", "on", "in", "with", "the", "to", "from", "at"} or any(w in rules.conf_acronyms for w in name.split()) \
                or len(name.split()) < 2:
            continue
        out.append(Found(m.start(1), m.end(0), "Venue", name, (f"{name} workshop", f"{name} Workshop"), "venue.name_workshop_lower"))
    for m in re.finditer(r"workshop\s+paper\s+at\s+[^()\n]{2,40}?\(([^()\n]{2,60})\)", text, re.I):
        out.append(Found(m.start(1), m.end(1), "Venue", m.group(1), (), "venue.workshop_paper_at"))
    return out


def _venue_lists(text: str, sentences, rules, taken: list[Found]) -> list[Found]:
    """In "Presented at A and B, CONF": title-case items that are not yet venues are workshops."""
    out: list[Found] = []
    cue = re.compile(r"\b(?:presented|accepted(?:\s+for\s+presentation)?|published(?:\s+as\s+a\s+workshop\s+paper)?)\s+(?:at|in)\s+(?:the\s+)?", re.I)
    for s_start, s_end in sentences:
        sent = text[s_start:s_end]
        m = cue.search(sent)
        if not m:
            continue
        pos = s_start + m.end()
        for item in re.finditer(r"[^,;()]+(?:\([^)]*\))?", text[pos:s_end]):
            a, b = pos + item.start(), pos + item.end()
            for chunk in re.split(r"\s+and\s+", text[a:b]):
                c0 = text.find(chunk, a, b)
                c1 = c0 + len(chunk.rstrip(" ."))
                c0 += len(chunk) - len(chunk.lstrip())
                if c1 <= c0:
                    continue
                if any(f.start < c1 and c0 < f.end for f in taken):
                    if any(f.start < c1 and c0 < f.end and f.rule.startswith("venue.") and "workshop" not in f.rule
                           and "Workshop" not in f.canonical for f in taken):
                        break  # a conference ends the list: what follows is its place
                    continue
                words = text[c0:c1].split()
                if 2 <= len(words) <= 8 and all(w[0].isupper() or w in {"and", "of", "for", "on", "in", "&"} for w in words):
                    out.append(Found(c0, c1, "Venue", text[c0:c1], (), "venue.presented_at_list"))
            else:
                continue
            break
    return out


def _hardware_mentions(text: str, rules) -> list[Found]:
    chip = "(?:" + "|".join(rules.chips) + ")"
    device = "(?:" + "|".join(rules.devices) + ")"
    suffix = rules.hw_suffix
    out: list[Found] = []

    def canon(s: str) -> str:
        s = _re(suffix + r"$").sub("", s)
        s = re.sub(r"^(?:NVIDIA|AMD|Google|AWS|Intel|Qualcomm|Arm|MediaTek)\s+", "", s)
        s = re.sub(r"\s+", " ", s).strip()
        return "Apple silicon" if s.lower() == "apple silicon" else s

    b, e = r"(?<![\w-])", r"(?![\w-])"
    # chips and devices alone first: a chip-and-device phrase needs both, so most texts skip those two scans
    # (the results keep the order of priority: phrases, then chips, then devices)
    chips = []
    # every chip pattern starts with a capital: the look-ahead turns most positions away before the alternation
    for m in _re(b + r"(?=[A-Z])(?P<x>" + chip + r")(?P<suf>" + suffix + r")?" + e).finditer(text):
        aliases = (m.group(0),) if m.group("suf") else ()
        chips.append(Found(m.start(), m.end(), "Hardware", canon(m.group("x")), aliases, "hardware.chip"))
    devices = [Found(m.start(), m.end(), "Hardware", canon(m.group("x")), (), "hardware.device")
               for m in _re(b + r"(?P<x>" + device + r")s?" + e).finditer(text)]
    if chips and devices:
        for m in _re(b + r"(?=[A-Z])(?P<chip>" + chip + r")\s+(?:\d+\s*GB\s+)?(?P<dev>" + device + r")" + e).finditer(text):
            out.append(Found(m.start("dev"), m.end("dev"), "Hardware", canon(m.group("dev")), (m.group(0),), "hardware.chip_device"))
            out.append(Found(m.start("chip"), m.end("chip"), "Hardware", canon(m.group("chip")), (), "hardware.chip"))
        for m in _re(b + r"(?P<dev>" + device + r")\s+with\s+(?:the\s+|an?\s+)?(?P<chip>" + chip + r")(?P<suf>\s+chips?)?" + e).finditer(text):
            out.append(Found(m.start("dev"), m.end("dev"), "Hardware", canon(m.group("dev")), (m.group(0),), "hardware.device_with_chip"))
            out.append(Found(m.start("chip"), m.end("chip") if not m.group("suf") else m.end("suf"), "Hardware", canon(m.group("chip")), (), "hardware.chip"))
    return out + chips + devices


def _lexicon_matcher(tokenizer, rules):
    """A PhraseMatcher over the names of the rule lexicons that a pattern cannot find by shape: organizations
    (every name), and known methods and datasets written as several words ("Stable Diffusion"). The names are
    tokenised by the pipeline's own tokenizer, so they split as the documents do."""
    from spacy.matcher import PhraseMatcher

    matcher = PhraseMatcher(tokenizer.vocab, attr="ORTH")
    for label, names in (("Organization", rules.organizations),
                         ("Method", [n for n in rules.known_methods if " " in n]),
                         ("Dataset", [n for n in rules.known_datasets if " " in n])):
        matcher.add(label, [tokenizer(n) for n in sorted(names)])
    return matcher


def _lexicon_hits(matcher, doc: Doc, text: str) -> dict[str, list[tuple[int, int]]]:
    """Character spans of the lexicon's names in ``doc`` by label, bounded as the rules bound a name: not inside
    a longer word or hyphenated compound ("Google-scale" holds no Google)."""
    hits: dict[str, list[tuple[int, int]]] = {}
    for match_id, start, end in matcher(doc):
        a, b = doc[start].idx, doc[end - 1].idx + len(doc[end - 1])
        if (a and (text[a - 1].isalnum() or text[a - 1] in "_-")) or (b < len(text) and (text[b].isalnum() or text[b] in "_-")):
            continue
        hits.setdefault(doc.vocab.strings[match_id], []).append((a, b))
    return hits


def _longest_first(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Non-overlapping spans read left to right, the longest at each start (as an alternation of names does)."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans, key=lambda x: (x[0], -x[1])):
        if out and a < out[-1][1]:
            continue
        out.append((a, b))
    return out


def _organization_mentions(text: str, rules, lexicon: dict | None = None) -> list[Found]:
    out: list[Found] = []
    for m in re.finditer(r"(?<![\w-])((?:[A-Z][\w]*\s+){1,3}in\s+(?:AI|Machine\s+Learning|ML|NLP|Computer\s+Vision|Robotics))"
                         r"(?:\s*\(([A-Za-z]+)\))?", text):
        aliases = (m.group(2),) if m.group(2) else ()
        out.append(Found(m.start(), m.end(), "Organization", m.group(1), aliases, "org.affinity_group"))
    # universities and institutes by their naming patterns
    # names do not run across a line break: "University of X\nNews" is the university
    inst = (r"(?:University[ \t]+of[ \t]+(?:[A-Z][\w-]+[ \t]+){0,2}[A-Z][\w-]+(?:[ \t]+at[ \t]+[A-Z][\w-]+)?"
            r"|(?:[A-Z][\w-]+[ \t]+){1,3}(?:University|Institute[ \t]+of[ \t]+Technology|Institute|Polytechnic)"
            r"(?:[ \t]+of[ \t]+(?:[A-Z][\w-]+[ \t]+)?[A-Z][\w-]+)?"
            r"|(?:Universidad|Universidade|Università|Universit[äé]t?|Universiteit|Politecnico|Politécnica|[ÉE]cole|Technische[ \t]+Universität)"
            r"(?:[ \t]+(?:de|di|del|della|des|du|do|da|la|le|degli|für|van|von|[A-Z][\w-]+))*?[ \t]+[A-Z][\w-]+"
            r"|(?:[A-Z][\w-]+[ \t]+){1,2}(?:Labs|Laboratory|Laboratories)"
            r"|ETH[ \t]+Z(?:u|ü)rich|EPFL|MIT|CMU|Carnegie[ \t]+Mellon|Stanford|UC[ \t]+Berkeley|Max[ \t]+Planck[ \t]+Institute(?:[ \t]+for[ \t]+[A-Z][\w \t]+?)?(?=[,.;)]|\s+and\b))")
    for m in re.finditer(r"(?<![\w-])(?:the\s+)?(" + inst + r")(?![\w-])", text):
        if m.group(1).split()[0] in {"The", "A", "An", "Our", "This", "About", "At", "In", "From", "With", "By", "For"}:
            continue
        out.append(Found(m.start(1), m.end(1), "Organization", m.group(1), (), "org.institution"))
    # organizations named by their role: affiliations in "Authors: A, B (Org); C (Org)" lines, and the
    # names after "colleagues at", "researchers from", "written with the payments processor"; each is then
    # found wherever it occurs
    named: set[str] = set()
    for line in re.finditer(r"(?m)^[ \t]*(?:Authors?|Affiliations?)\s*:(.*)$", text):
        for g in re.finditer(r"\(([A-Z][^()\n]{1,60})\)", line.group(1)):
            named.update(x.strip() for x in re.split(r";|\s+and\s+", g.group(1)) if x.strip()[:1].isupper())
    org_name = r"((?:[A-Z][\w&-]*(?:\.[\w&-]+)*[ \t]+){0,3}[A-Z][\w&-]*(?:\.[\w&-]+)*)"
    for m in re.finditer(r"\b(?:colleagues|researchers|collaborators|scientists|engineers|partners)\s+(?:at|from)\s+(?:the\s+)?" + org_name
                         + r"|\b(?:written|joint\s+work|co-authored|in\s+collaboration)\s+with\s+(?:the\s+)?(?:[a-z][\w-]*\s+){0,3}" + org_name, text):
        name = (m.group(1) or m.group(2)).rstrip(".")
        if name.split()[0] not in rules.conf_acronyms and not re.search(r"\d{4}", name):
            named.add(name)
    for name in sorted(named, key=len, reverse=True):
        for m in re.finditer(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text):
            out.append(Found(m.start(), m.end(), "Organization", name, (), "org.institution"))
    if lexicon is not None:
        for a, b in _longest_first(lexicon.get("Organization", [])):
            out.append(Found(a, b, "Organization", text[a:b], (), "org.lexicon"))
    elif rules.organizations:
        pat = _re(r"(?<![\w-])(" + "|".join(re.escape(o) for o in sorted(rules.organizations, key=len, reverse=True)) + r")(?![\w-])")
        for m in pat.finditer(text):
            out.append(Found(m.start(), m.end(), "Organization", m.group(1), (), "org.lexicon"))
    return out


_TITLE_CUE = re.compile(
    r"\b(?:will\s+(?:also\s+)?)?(?:present|presents|share|shares|sharing|presenting)\s+"
    r"(?:(?:their|our|the|a|new)\s+)?(?:(?:work|paper|research)\s+)?(?=[A-Z0-9“\"])"
)


def _paper_titles(text: str, sentences, rules) -> list[Found]:
    """Paper titles after presentation cues, after "In"/"The paper," and before ", a new ... paper"."""
    fw = rules.function_words
    confs = frozenset(rules.conf_acronyms)
    out: list[Found] = []

    def add(a: int, b: int, rule: str, need_colon: bool = False) -> None:
        while a < b and text[a] in "“”\"":  # the quotes around a title are not part of it
            a += 1
        while b > a and text[b - 1] in "“”\"":
            b -= 1
        title = text[a:b]
        if need_colon and ":" not in title:
            return
        words = title.split()
        caps = sum(1 for w in words if w[0].isupper())
        if len(words) < 3 or caps < 2:
            return
        first = words[0].rstrip(":,")
        if first in rules.organizations or first in {"This", "These", "Our", "We", "It", "At", "In"}:
            return
        out.append(Found(a, b, "Paper", title, (), rule))

    prev_start = 0
    for s_start, s_end in sentences:
        sent = text[s_start:s_end]
        for m in _TITLE_CUE.finditer(sent):
            span = scan_title(text, s_start + m.end(), fw, min_words=3, fail_words=confs)
            if span:  # a title may run past a sentence boundary the parser put inside it
                add(*span, "paper.present_title")
        for m in re.finditer(r"\b[Ii]n\s+(?=[A-Z0-9])", sent):
            span = scan_title(text, s_start + m.end(), fw, min_words=3, fail_words=confs)
            if span and text[span[1]:span[1] + 1] == ",":
                add(*span, "paper.in_title", need_colon=True)
        m = re.match(r"(?:The|the)\s+paper,\s+", sent)
        if m:
            span = scan_title(text, s_start + m.end(), fw, min_words=3)
            if span:
                add(*span, "paper.the_paper_title")
        span = scan_title(text, s_start, fw, min_words=3, fail_words=confs)
        if span:
            # the parser ends a sentence at a question mark: "Where Did I Leave It? Long-Horizon Memory for X, a
            # paper ..." starts with the question before it on the same line
            q = re.fullmatch(r"[ \t]*((?:[A-Z0-9][^.!?\n]{2,100})\?)[ \t]*", text[prev_start:s_start])
            if q and _title_like(q.group(1), fw):
                span = (prev_start + q.start(1), span[1])
        if span and re.match(r",\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,3}(?:paper|work|study)\b"
                             r"|,\s+(?:which|that)\s+(?:will\s+|has\s+been\s+|was\s+|is\s+)?(?:appear|be\s+presented|presented|accepted)\b"
                             r"|,\s+(?:which|that)\s+(?:[\w-]+\s+){1,3}(?:will\s+)?(?:also\s+)?(?:present|share)\b"
                             r"|,\s+(?:accepted|to\s+appear|presented)\s+(?:at|to|in)\b"
                             r"|\s+(?:will\s+be|is|was|has\s+been)\s+(?:presented|published|accepted|featured|selected)\b", text[span[1]:s_end]):
            add(*span, "paper.title_apposition")
        elif span and ":" in text[span[0]:span[1]] and re.match(
                r"\s+(?:presents|introduces|proposes|describes|shows|studies|explores|revisits)\b", text[span[1]:s_end]):
            add(*span, "paper.title_subject")
        for m in re.finditer(r"\b(?:[Oo]ur|[Tt]heir|[Tt]he)\s+(?:[\w-]+\s+){0,2}(?:paper|work|study),?\s+(?=[A-Z])", sent):
            span = scan_title(text, s_start + m.end(), fw, min_words=3, fail_words=confs)
            if span:
                add(*span, "paper.our_paper_title")
        for m in re.finditer(r"(?:[a-z]{3,}):\s+(?=[A-Z])", sent):
            before = sent[: m.start()]
            if re.search(r"\b(?:present|share|sharing|presenting)\b", before):
                span = scan_title(text, s_start + m.end(), fw, min_words=4)
                if span and span[1] <= s_end:
                    add(*span, "paper.colon_title")
        for m in re.finditer(r"\b(?:titled|entitled)\s+[“\"]?", sent):
            span = scan_title(text, s_start + m.end(), fw, min_words=2)
            if span:
                add(*span, "paper.titled")
        prev_start = s_start
    # a title set off by emphasis or quotes in a sentence about a paper: "Our oral is *Name: Subtitle*"
    for m in re.finditer(r"(?<![*\w])(?:\*\*?|__?|[“\"])((?:[A-Z0-9]|[a-z]{1,4}[A-Z])[^*_“”\"\n]{8,200}?)(?:\*\*?|__?|[”\"])(?![*\w])", text):
        line = text[text.rfind("\n", 0, m.start()) + 1:text.find("\n", m.end()) if "\n" in text[m.end():] else len(text)]
        if re.search(r"\b(?:paper|oral|poster|spotlight|work|accepted|present\w*|appear\w*|publish\w*|talk)\b", line, re.I) \
                and _title_like(m.group(1), fw):
            add(m.start(1), m.end(1), "paper.emphasised_title")
    # a title on a line of its own, perhaps as a list item: with a colon or a question mark, or followed by
    # an "Authors:" line ("1. Name: Subtitle", "-- Where Does the Gripper Look? ...", "Paperweight: ...")
    for m in re.finditer(r"(?m)^[ \t]*(?:(?:\d{1,3}[.)]|[-–—*•]{1,2}|>+)[ \t]+)?((?:[A-Z0-9]|[a-z]{1,4}[A-Z])[^\n]{8,220}?)[ \t]*$", text):
        title = m.group(1)
        if re.match(r"(?:Authors?|By|Comments?|Notes?|Venue|Keywords|Abstract|Title|Code|Links?|Contact)\s*:", title):
            continue
        nxt = text[m.end():m.end() + 200].lstrip("\n").lstrip()
        if title.endswith((".", ",", ";")) or "|" in title or " -- " in title:
            continue
        if not (re.search(r"[:?]", title) or re.match(r"(?:Authors?|By)\b", nxt)):
            continue
        if re.match(r"(?:(?:Posted|Published|Updated)\s+(?:on\s+)?)?(?:" + "|".join(_MONTHS) + r")\s+\d{1,2},\s+(?:19|20)\d{2}\s*$", nxt.split("\n", 1)[0]):
            continue  # a dated line follows the headline of the post itself, not a paper's title
        if _title_like(title, fw):
            add(m.start(1), m.end(1), "paper.title_line")
    # a title on a line of its own with no colon, question mark or author line: a title-case line opening a
    # paragraph that reads as that paper's abstract or teaser. Section headings ("Estimating Depth from an
    # Image") open paragraphs too, but theirs present other papers by their titles ("researchers will
    # present X: Y"), so a paragraph that names a title or has researchers present one opens no title.
    for m in re.finditer(r"(?m)^[ \t]*((?:[A-Z0-9]|[a-z]{1,4}[A-Z])[^\n]{8,220}?)[ \t]*\n", text):
        title = m.group(1)
        if title.endswith((".", ",", ";", ":")) or "|" in title or len(title.split()) < 4 or not _title_like(title, fw) \
                or any(f.start == m.start(1) for f in out) or re.match(r"[\w ]{1,20}:", title):
            continue
        para_end = text.find("\n", m.end())
        para = text[m.end():para_end if para_end >= 0 else len(text)]
        if len(para) < 150 or any(m.end() <= f.start < m.end() + len(para) for f in out):
            continue
        tail = text[m.end() + len(para):m.end() + len(para) + 300]  # a venue or "Authors:" line may follow
        block = para + "\n".join(line for line in tail.split("\n")[:3] if len(line) < 200)
        if _HEADING_PARAGRAPH.search(para) or not _ABSTRACT_SIGNAL.search(block):
            continue
        add(m.start(1), m.end(1), "paper.title_line_abstract")
    # a labelled title ("Title: Name: Subtitle"), and a list item "• Title (Venue Year) — teaser"
    for m in re.finditer(r"(?m)^[ \t]*Title[ \t]*:[ \t]*(\S[^\n]{8,250}?)[ \t]*$", text):
        add(m.start(1), m.end(1), "paper.labelled_title")
    for m in re.finditer(r"(?m)^[ \t]*(?:\d{1,3}[.)]|[-–—*•]{1,2})[ \t]+((?:[A-Z0-9]|[a-z]{1,4}[A-Z])[^\n()]{8,220}?)[ \t]*"
                         r"\([^()\n]*(?:19|20)\d{2}[^()\n]*\)[ \t]*(?:[—–:-]|$)", text):
        if _title_like(m.group(1), fw):
            add(m.start(1), m.end(1), "paper.list_item_title")
    return out


_ABSTRACT_SIGNAL = re.compile(
    r"\b(?:[Ww]e\s+(?:propose|introduce|present|study|show|construct|develop|describe|release|investigate|analy[sz]e|"
    r"evaluate|compare|find|demonstrate)|[Tt]his\s+(?:paper|work|study)|[Oo]ur\s+(?:[\w-]+\s+){0,2}(?:paper|work|study)|"
    r"[Tt]he\s+(?:paper|work|study)\s+(?:will|was|is|has|propose|introduce|present|show)|accepted\s+(?:at|to|for|in)|"
    r"to\s+appear|will\s+be\s+presented|[Pp]resented\s+at|Findings\s+of|[A-Z][\w-]*\s+(?:19|20)\d{2}\s+paper)\b")
"""What makes a paragraph an abstract or a teaser of one paper: research prose in the first person plural,
"this paper", a publication cue."""
_HEADING_PARAGRAPH = re.compile(r"\bresearchers\s+(?:will\s+)?(?:also\s+)?(?:present|share|showcase)|"
                                r"\b(?:[Tt]wo|[Tt]hree|[Ff]our|[Ff]ive|[Ss]everal|[Bb]oth|[Mm]any|\d+)\s+(?:[\w’'-]+\s+){0,5}papers\b|"
                                r"\b[a-z]+:\s+[A-Z][\w-]*\s+[A-Z]")
"""What makes it a section's: researchers presenting papers, a number of papers, a "Name: Subtitle" title in its prose."""


def _title_like(title: str, fw) -> bool:
    """Title case: most words that are not function words start with a capital or a digit, and no sentence
    punctuation inside ("We Propose X." is a sentence)."""
    words = [w.strip("“”\"'()[]:?!,") for w in title.split()]
    content = [w for w in words if w and w.lower() not in fw]
    if len(words) < 3 or len(content) < 2 or re.search(r"[.!;]\s", title):
        return False
    caps = sum(1 for w in content if w[0].isupper() or w[0].isdigit() or re.match(r"[a-z]{1,4}[A-Z]", w))
    return caps / len(content) >= 0.75


_GROUP_NOUNS = frozenset({"Group", "Lab", "Laboratory", "Team", "Center", "Centre", "Institute", "Department", "Division",
                          "Initiative", "Consortium", "Foundation", "Society", "Association", "Council", "Agency"})


def _acronym_pairs(text: str, rules) -> list[Found]:
    """"Long Form (LF)" and "LF (Long Form)" pairs: one mention naming both."""
    out: list[Found] = []
    for m in re.finditer(r"\(([A-Za-z][A-Za-z0-9]*(?:[-/][A-Za-z0-9]+)*?)(s?)\)", text):
        acr = m.group(1)
        if sum(ch.isupper() for ch in acr) < 2:
            continue
        before = text[max(0, m.start() - 160):m.start()]
        words = before.split()
        k = acronym_long_form(acr, [w.strip(",;:") for w in words])
        if not k:
            continue
        long_words = words[-k:]
        long = " ".join(long_words)
        if any(w.endswith((",", ";", ":")) for w in long_words[:-1]):
            continue
        a = m.start() - len(before) + before.rfind(long)
        generic = acr in rules.generic or (acr + m.group(2)) in rules.generic
        heads = text[m.end():m.end() + 30].split()
        # a dataset by the noun after it ("(ACDC) dataset") or inside it ("Adverse Conditions Dataset with ..."),
        # a group of people by its last word ("Perception and Learning Group (PLG)")
        cls = "Dataset" if heads and heads[0].strip(",.").lower() in rules.dataset_heads \
            or any(w.lower().strip(",.") in rules.dataset_heads for w in long_words) else "Method"
        if long_words[-1] in _GROUP_NOUNS:
            cls = "Organization"
        out.append(Found(a, m.end(), cls, long, (acr, f"{long} ({acr}{m.group(2)})"), "name.acronym_pair", generic))
    # reverse: ACR (Long Form)
    for m in re.finditer(r"(?<![\w-])([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)\s+\(([^()]{4,80})\)", text):
        acr, long = m.group(1), m.group(2).strip()
        if sum(ch.isupper() for ch in acr) < 2 or acr in rules.generic:
            continue
        words = long.split()
        if acronym_long_form(acr, words) != len(words):
            continue
        out.append(Found(m.start(), m.end(), "Method", acr, (long, f"{acr} ({long})"), "name.acronym_pair_reverse"))
    # no brackets: "Parallel-Track Mixture-of-Experts PT-MoE"
    for m in re.finditer(r"(?<![\w-])((?:[A-Z][\w]*(?:-[\w]+)*\s+){1,5})([A-Z][A-Za-z]*-[A-Z][A-Za-z]*)(?![\w-])", text):
        words = m.group(1).split()
        k = acronym_long_form(m.group(2), words)
        if k and k >= 2:
            long = " ".join(words[-k:])
            a = m.start(1) + m.group(1).rfind(long)
            out.append(Found(a, m.end(), "Method", long, (m.group(2), f"{long} {m.group(2)}"), "name.acronym_apposition"))
    return out


_MODEL_SIZE = re.compile(r"(?:[ \t]+\d+(?:\.\d+)?)?[ \t]+(?:((?:\d+x)?\d+(?:\.\d+)?[BMT])|(?:large|base|small|tiny|medium)(?:-v\d+(?:-turbo)?|(?![ \t]+[a-z])))(?![\w.-])"
                         r"|([ \t]+\d+(?:\.\d+)?[ \t]+(?:Pro|Flash|Ultra|Mini|Nano|Lite|Max|Plus|Instruct|Turbo|Sonnet|Opus|Haiku))(?![\w.-])")
_ADJECTIVE_SUFFIX = re.compile(r"-(?i:trained|based|style|like|only|free|aware|augmented|specific|guided|conditioned|generated|"
                               r"tuned|finetuned|enabled|driven|powered|compatible|sized|scale|level|wise|centric|native|ready|"
                               r"friendly|inspired|derived|produced|labeled|labelled|annotated|distilled)$")
_DATASET_SHAPE = re.compile(r"\w(?:Bench|bench|QA|Eval|Arena)$|-\d+(?:\.\d+)?[KkM]$")
_NAME_RE = re.compile(r"(?<![\w-])([A-Za-z][A-Za-z0-9]*(?:[-/.][A-Za-z0-9]+)*)(?![\w-])")
_LM_SUFFIX = re.compile(r"[ \t]+(LM|LLM|GPT|Net|NN)\b")
_VERSION_SUFFIX = re.compile(r"[ \t]+(?:[Vv]\d+(?:\.\d+)?|\d{1,3}(?:\.\d+)?[kK]?|QA)(?![\w.%×-])(?!\s*(?:%|×|x\b|points?|pp\b|times|percent))")


def _name_candidates(doc: Doc, text: str, sentences, rules, taken: list[Found], titles: list[Found],
                     lexicon: dict | None = None) -> list[Found]:
    """Method and dataset names: by shape, by lexicon, and by the words around them; class by context votes."""
    sent_starts = {s for s, _ in sentences}
    votes: dict[str, Counter] = defaultdict(Counter)
    surface: dict[str, str] = {}
    cands: list[tuple[int, int, str]] = []
    dheads = rules.dataset_heads_alternation
    mheads = rules.method_heads_alternation
    generic_norms = rules.generic_norms

    def vote(name: str, cls: str, w: int = 1) -> None:
        key = norm(name)
        if not key or "\n" in name or (sum(ch.isalpha() for ch in name) < 2 and not (cls == "Dataset" and re.fullmatch(r"[A-Z][1-9]\d?", name))):
            return
        first = re.split(r"[/-]", name)[0] if " " not in name else name
        if key in generic_norms or key.rstrip("s") in generic_norms or (norm(first) in generic_norms and not (
                cls == "Dataset" and _DATASET_SHAPE.search(name)) and name not in rules.known_methods
                and name not in rules.known_datasets):  # "SKU-110K" is a dataset and "RNN-T" a method, "SKU", "RNN" words
            return
        if name.lower() in rules.method_heads or name.lower() in rules.dataset_heads or _ADJECTIVE_SUFFIX.search(name):
            return  # "BEIR-style collections": an adjective, not a name
        if name in rules.organizations:
            return
        if name.split()[0] in rules.organizations and not is_strong_name(name.split()[-1], rules.generic) and not (
                cls == "Dataset" and w >= 4):  # "Google Research" is no method; "the Amazon Sports dataset" is a dataset
            return
        if w == 1:  # shape alone: one vote per name, however often it occurs
            votes[key][cls] = max(votes[key][cls], 1)
        else:
            votes[key][cls] += w
        surface.setdefault(key, name)

    # capitals that are typography, not names: all-caps heading lines ("ABOUT THE RESEARCH") and datelines
    # ("TORONTO, August 4, 2025 --")
    shouting = [(m.start(), m.end()) for m in re.finditer(r"(?m)^[^a-z\n]*[A-Z]{2,}[^a-z\n]*\s[^a-z\n]*[A-Z]{2,}[^a-z\n]*$", text)]
    shouting += [(m.start(), m.end(1)) for m in re.finditer(r"(?m)^([A-Z]{3,}(?:[ \t]+[A-Z]{3,})*),[ \t]+(?:" + "|".join(_MONTHS) + r")\b", text)]
    shouting += [(m.start(1), m.end(1)) for m in re.finditer(r"(?m)^[ \t]*([A-Z]{3,}(?:[ \t]+[A-Z]{3,})+)(?![\w-])", text)]  # "AUTUMN NEWSLETTER 2025"

    # people's names on author lines are no method names, however they are spelt ("MacLeod", "DeVries")
    shouting += [(m.start(), m.end()) for m in re.finditer(r"(?m)^[ \t]*(?:Authors?|By|Affiliations?|Posted\s+by|Written\s+by)\b[^\n]*", text)]

    # strong shapes and lexicon names
    known_words = rules.known_words
    for m in _NAME_RE.finditer(text):
        w = m.group(1)
        if w.islower() and w.isalpha() and w not in known_words:
            continue  # a plain lower-case word ("the", "model"): no shape below holds for it, so it names nothing
        if any(x <= m.start() < y for x, y in shouting):
            continue
        w = w.rstrip(".")
        adj = _ADJECTIVE_SUFFIX.search(w)
        if adj and adj.start() >= 2:  # "FogForge-trained detectors", "LiDAR-free": the name is before the hyphen
            w = w[:adj.start()]
        end = m.start() + len(w)
        lm = _LM_SUFFIX.match(text, end)
        if lm and w.isupper() and len(w) >= 3:
            w, end = w + lm.group(0).replace("\t", " "), lm.end()
        # a version or size written after the name is part of it: "FastSpeech 2", "VideoMAE V2", "Mip-NeRF 360"
        ver = _VERSION_SUFFIX.match(text, end)
        base = w
        if ver and (is_strong_name(w, rules.generic) or w in rules.known_datasets) and (
                w not in rules.known_methods or ver.group(0).strip()[0] in "vV"):
            w, end = w + ver.group(0).replace("\t", " "), ver.end()
        if w in rules.conf_acronyms or w in rules.generic:
            continue
        # a parameter count or a size variant after a name makes it a model's: "Mixtral 8x22B", "Qwen3 1.7B",
        # "Llama 2 70B", "Whisper large-v3"
        size = _MODEL_SIZE.match(text, end)
        if size and w[0].isupper() and w not in NUMBERED_WORDS and w not in rules.known_datasets \
                and (size.group(1) or size.group(2) or is_strong_name(w, rules.generic) or w in rules.known_methods):
            w, end = w + size.group(0).replace("\t", " "), size.end()
            vote(w, "Method", 2)
        elif w in rules.known_datasets or base in rules.known_datasets:
            vote(w, "Dataset", 3)  # "AlpacaEval 2.0": a version of a known dataset
        elif w in rules.known_methods:
            vote(w, "Method", 3)
        elif is_strong_name(w, rules.generic):
            vote(w, "Method", 1)
        else:
            continue
        cands.append((m.start(), end, w))
    versioned = _versioned_pattern(frozenset(rules.known_methods))
    for m in versioned.finditer(text):
        vote(m.group(0), "Method", 3)
        cands.append((m.start(), m.end(), m.group(0)))
    if lexicon is not None:  # known names of several words, found by the PhraseMatcher
        for cls in ("Method", "Dataset"):
            for a, b in lexicon.get(cls, []):
                vote(text[a:b], cls, 3)
                cands.append((a, b, text[a:b]))
    else:
        for lex, cls in ((rules.known_methods, "Method"), (rules.known_datasets, "Dataset")):
            for name in sorted(lex):
                if " " in name and name in text:  # the pattern matches the name literally: absent, nothing to find
                    for m in _re(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])").finditer(text):
                        vote(name, cls, 3)
                        cands.append((m.start(), m.end(), name))
    # "X dataset", "the X and Y datasets", "datasets including X and Y", "X, a ... benchmark"
    ds_word = r"(?:[A-Z]|[a-z]{1,6}[A-Z])[\w-]*"  # "MedQA", "iNaturalist", "nuScenes"
    ds_more = r"(?:\s+(?:[A-Z][\w-]*|\d{1,4}[kK]?|v\d+(?:\.\d+)?))"  # "... 2021", "LongBench v2"
    for m in _re(r"(?<![\w-])(" + ds_word + ds_more + r"{0,3})\s+(?:and\s+(" + ds_word + ds_more + r"{0,2})\s+)?(?:[a-z]+(?:-[a-z]+)?\s+)?(" + dheads + r")\b").finditer(text):
        if m.start() in sent_starts and not any(is_strong_name(w, rules.generic) for w in m.group(1).split()):
            continue
        if re.search(r"[A-Z][\w-]*,\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,4}$", text[max(0, m.start() - 80):m.start()]):
            continue  # "SwaText, the 48-billion-token Swahili corpus": the appositive names SwaText, not "Swahili"
        if m.group(2) and not m.group(3).endswith(("s", "corpora")) and text[m.end(1):m.start(2)].strip() == "and" \
                and not any(is_strong_name(w, rules.generic) for w in (m.group(1) + " " + m.group(2)).split()):
            # "the Tanks and Temples dataset": one name, a singular head noun after plain words
            vote(text[m.start(1):m.end(2)], "Dataset", 4)
            cands.append((m.start(1), m.end(2), text[m.start(1):m.end(2)]))
            continue
        for g in (1, 2):
            if m.group(g):
                vote(m.group(g), "Dataset", 4)
                cands.append((m.start(g), m.end(g), m.group(g)))
    # a head noun before the name: "the hate speech corpus HateXplain" (a noun: "we benchmark X" is a verb)
    for m in _re(r"\b(?:the|a|an|our|their|its|new)\s+(?:[\w-]+\s+){0,3}?(?:corpus|dataset|benchmark|suite|leaderboard)\s+(" + ds_word + r"(?:\s+(?:\d{1,4}[kK]?|v\d+))?)(?![\w-])").finditer(text):
        if is_strong_name(m.group(1).split()[0], rules.generic) or m.group(1) in rules.known_datasets:
            vote(m.group(1), "Dataset", 4)
            cands.append((m.start(1), m.end(1), m.group(1)))
    # "three text classification datasets, SST-2, AG News and HateXplain": the list after a comma
    for m in re.finditer(r"\b(?:datasets|benchmarks|corpora),\s+((?:" + ds_word + ds_more + r"{0,2}(?:,\s+|,?\s+and\s+(?:the\s+(?:[a-z-]+\s+){0,3})?))+" + ds_word + ds_more + r"{0,2})", text):
        for item in re.finditer(ds_word + ds_more + r"{0,2}", m.group(1)):
            vote(item.group(0), "Dataset", 4)
            cands.append((m.start(1) + item.start(), m.start(1) + item.end(), item.group(0)))
    ds_item = r"(?:[A-Z][a-z]{1,2}\.\s+)?[A-Z][\w-]*(?:\s+(?:[A-Z][\w-]*|\d{1,4}[kK]?)){0,3}"
    for m in re.finditer(r"\b(?:" + dheads + r")(?:\s+(?:including|such\s+as|like)\s+|\s*:\s*)((?:" + ds_item + r"(?:,\s+|,?\s+and\s+|,?\s+or\s+)?)+)", text):
        for item in re.finditer(ds_item, m.group(1)):
            vote(item.group(0), "Dataset", 4)
            cands.append((m.start(1) + item.start(), m.start(1) + item.end(), item.group(0)))
    for m in _re(r"(?<![\w-])([A-Z][\w-]*),\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,4}?(" + dheads + r")\b").finditer(text):
        vote(m.group(1), "Dataset", 6)
    for m in _re(r"(?<![\w-])([A-Z][\w-]*),\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,5}?(" + mheads + r")\b").finditer(text):
        if m.start() in sent_starts and not is_strong_name(m.group(1), rules.generic):
            continue
        vote(m.group(1), "Method", 2)
        cands.append((m.start(1), m.end(1), m.group(1)))
    # "Evaluating Chronos-Bolt, TimesFM 2.0 and Moirai on X", "We benchmark A and B on X": what is evaluated on
    # a dataset is a method
    for m in re.finditer(r"\b(?:[Ee]valuat(?:e|es|ed|ing)|[Bb]enchmark(?:s|ed|ing)?|[Cc]ompar(?:e|es|ed|ing)|[Tt]est(?:s|ed|ing)?)\s+"
                         r"((?:[A-Z][\w.-]*(?:[ \t]+\d+(?:\.\d+)?)?(?:,\s+|,?\s+and\s+))+[A-Z][\w.-]*(?:[ \t]+\d+(?:\.\d+)?)?)\s+on\s", text):
        for item in re.finditer(r"[A-Z][\w.-]*(?:[ \t]+\d+(?:\.\d+)?)?", m.group(1)):
            w = item.group(0).rstrip(".")
            if w not in rules.generic and w not in rules.conf_acronyms and w not in rules.known_datasets and w not in rules.organizations:
                vote(w, "Method", 2)
                cands.append((m.start(1) + item.start(), m.start(1) + item.start() + len(w), w))
    # the items of a demo list ("... live demos at booth #412, including:\n- Parley: Parley is a voice
    # assistant ...") are named by their first word or words
    for m in re.finditer(r"(?im)^[^\n]*\b(?:demos?|demonstrations?|booth)\b[^\n]*(?:including|following(?:\s+\w+){0,2}|are)\s*:[ \t]*\n((?:[ \t]*(?:[-•*][ \t]+)?[^\n]+\n?){1,8})", text):
        for item in re.finditer(r"(?m)^[ \t]*(?:[-•*][ \t]+)?([A-Z][\w.-]*(?:[ \t]+[A-Z0-9][\w.-]*){0,2})[ \t]*(?::|[–—]|[ \t]-[ \t])", m.group(1)):
            name = item.group(1)
            if name not in rules.generic and name.split()[0] not in rules.organizations and name.split()[0] not in {"The", "This", "A", "An", "Our"}:
                vote(name, "Method", 2)
                cands.append((m.start(1) + item.start(1), m.start(1) + item.end(1), name))
    # "edit pictures with Petal running entirely on a Pixel 10 Pro": a name running on something is a method
    for m in re.finditer(r"\b(?:with|using|see|watch|try)\s+([A-Z][\w-]*)\s+(?:running|deployed|served)\s+(?:\w+\s+)?(?:on|locally|live)\b", text):
        if m.group(1) not in rules.generic and m.group(1) not in rules.organizations:
            vote(m.group(1), "Method", 2)
            cands.append((m.start(1), m.end(1), m.group(1)))
    # evaluation contexts: "<number> for X", "on X" after a result cue
    for m in re.finditer(r"\d[\d.,]*%?\s+(?:on|for)\s+([A-Z][\w-]*\d[\w-]*|[A-Z]{2,}[\w-]*)", text):
        vote(m.group(1), "Dataset", 3)
    for m in re.finditer(r"\b(?:[Pp]erformance|[Aa]ccuracy|results?|evaluated|tested|benchmarked|FID|perplexity)\s+(?:of\s+[\w-]+\s+)?(?:\w+\s+){0,3}?on\s+([A-Z][\w-]*\d[\w-]*|[A-Z]{3,}[\w-]*)", text):
        vote(m.group(1), "Dataset", 3)
    # a dataset name: capitalised ("MedQA", "Long Range Arena"), or lower-case with a hyphen ("ogbg-molhiv")
    name_item = (r"(?:(?:[A-Z]|\d[A-Za-z])[\w-]*(?:\.\d+)?(?:[ \t]+(?:[A-Z][\w-]*|\d{1,3}[kK]?(?![\w.%])|(?:19|20)\d{2}(?![\w.%])|v\d+(?:\.\d+)?)(?:\.\d+)?){0,3}"
                 r"|[a-z]{1,6}[A-Z][\w-]*|[a-z][a-z0-9]*-[a-z0-9-]*[a-z0-9]|[a-z]{3,}\d+[a-z0-9]*)")
    sep = r"(?:,\s+|,?\s+and\s+|,?\s+or\s+)(?:on\s+)?(?:the\s+|our\s+(?:new\s+|own\s+|internal\s+)?)?"
    eval_cue = re.compile(r"\b(?i:evaluated|evaluate|evaluating|evaluation|tested|test|testing|benchmarked|benchmarks?|"
                          r"accuracy|loss|perplexity|scores?|results?|measured|measuring|trained|training|pretrained|pre-trained|fine-tuned|"
                          r"performance|improves?|achieves?|reaches|reach|state[- ]of[- ]the[- ]art|gains?|WER|FID|nDCG|error|"
                          r"experiments?|tests|matches|match|compared?|compares|comparing|convergence|outperforms?|beats?|surpass(?:es)?|"
                          r"cuts|reduces|lowers|boosts|lifts|raises)\b")
    # "Experiments span A, B and the C": a list of datasets after an experiments verb
    for m in re.finditer(r"\b(?:[Ee]xperiments|[Ee]valuations?|[Bb]enchmarks)\s+(?:span|spanning|cover|covering|include|including)\s+", text):
        lst = re.match(r"(?:the\s+)?(" + name_item + r"(?:" + sep + name_item + r")*)", text[m.end():])
        if lst and re.search(r"\b(?:and|or)\b", lst.group(1)):
            for item in re.finditer(name_item, lst.group(1)):
                vote(item.group(0), "Dataset", 3)
                cands.append((m.end() + lst.start(1) + item.start(), m.end() + lst.start(1) + item.end(), item.group(0)))
    on_list = re.compile(r"\b[Oo]n\s+(?:the\s+)?(?:(?:\w+\s+){0,2}(?:portion|split|subset|set|version)\s+of\s+)?"
                         r"(?:(?:[a-z]+-(?:class|grained|scale|domain|shot|world|source)|held-out|standard|public|popular|challenging)\s+)?"
                         r"(" + name_item + r"(?:" + sep + name_item + r")*)")

    def in_eval_context(at: int) -> bool:
        """An "on X" at ``at`` opens its sentence or follows a result cue in the same sentence."""
        window = text[max(0, at - 90):at]
        window = re.split(r"[.;:](?!\d)\s|\n", window)[-1]
        return not window.strip() or bool(eval_cue.search(window))

    for m in on_list.finditer(text):
        if not in_eval_context(m.start()):
            continue
        items = list(re.finditer(name_item, m.group(1)))
        while len(items) > 1 and not re.search(r"\b(?:and|or)\b", m.group(1)[items[-2].end():items[-1].start()]):
            items.pop()  # a list ends "Y and Z": in "on X, Driftless reaches" the comma closes a fronted phrase
        for item in items:
            w = item.group(0).rstrip(".")
            after = text[m.start(1) + item.end():m.start(1) + item.end() + 12]
            if w[0].islower() and (not re.match(r"\s*(?:[,.;:)]|and\b|or\b|$)", after)
                                   or re.match(r"[ \t]+(?!(?:" + dheads + r"|tasks?|splits?|subsets?)\b)[a-z]",
                                               text[m.start(1) + items[-1].end():m.start(1) + items[-1].end() + 20])):
                continue  # "on large-scale data", "on real-world tasks": a lower-case word before a noun is an adjective
            if w in rules.conf_acronyms or re.match(r"(?:Apple|NVIDIA|iPhone|iPad|Mac)\b", w):
                continue
            vote(w, "Dataset", 3)
            cands.append((m.start(1) + item.start(), m.start(1) + item.start() + len(w), w))
    # capitalised name + head noun: "the Adam optimizer", "Foundation Models framework"
    for m in _re(r"(?<![\w-])((?:[A-Z][\w-]*\s+){0,2}[A-Z][\w-]*)\s+(" + mheads + r")\b").finditer(text):
        if m.start() in sent_starts or m.group(1).split()[0] in {"The", "A", "An", "This", "Our", "These", "Each"}:
            continue
        if all(not is_strong_name(w, rules.generic) for w in m.group(1).split()) and len(m.group(1).split()) == 1 and m.group(1) not in rules.known_methods:
            # a single plain capitalised word needs a stronger cue than a head noun
            # "the Adam optimizer", "a chunked Conformer encoder": an article, perhaps one lower-case modifier
            if not re.search(r"\b(?:the|a|an)\s+(?:[a-z][a-z-]+\s+)?$", text[max(0, m.start() - 24):m.start()]):
                continue
        if m.group(1) in rules.generic or m.group(1).split()[-1] in rules.generic:
            continue
        vote(m.group(1), "Method", 2)
        cands.append((m.start(1), m.end(1), m.group(1)))
        surface.setdefault(norm(m.group(1)) + "#head", f"{m.group(1)} {m.group(2)}")
    # names in lists after a class noun: "SSMs like Mamba", "Transformers (Pythia, Mistral)"
    for m in re.finditer(r"\b(?:models?|methods?|architectures?|baselines?|optimizers?|LLMs|SSMs|RNNs|Transformers|networks)\s*(?:\(|,?\s+(?:like|such\s+as|including)\s+)((?:[A-Z][\w.-]*(?:,\s+|\s+and\s+|\s+or\s+)?){1,6})", text):
        for item in re.finditer(r"[A-Z][\w.-]*", m.group(1)):
            w = item.group(0).rstrip(".")
            if w in rules.generic or w in rules.conf_acronyms:
                continue
            vote(w, "Method", 2)
            cands.append((m.start(1) + item.start(), m.start(1) + item.start() + len(w), w))
    # "called X", "named X", "dubbed X"
    for m in re.finditer(r"\b(?:[Cc]alled|[Nn]amed|[Dd]ubbed|(?:[Cc]all|[Nn]ame|[Tt]erm)\s+(?:the|this|our)\s+(?:[\w-]+\s+)?"
                         r"(?:method|model|approach|algorithm|framework|system|technique|architecture))\s+([A-Z][\w-]*)", text):
        vote(m.group(1), "Method", 2)
        cands.append((m.start(1), m.end(1), m.group(1)))
    # "we propose/introduce/present X" where X is capitalised
    for m in re.finditer(r"\b(?:[Ww]e|[Tt]he\s+(?:paper|work))\s+(?:propose|introduce|present|develop|describe)s?\s+(?:(?:a|an|the)\s+)?(?:(?:new|novel|simple)\s+)?([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)(\s+[a-z]+s\b)?", text):
        name = m.group(1)
        if name in rules.generic or name.split()[0] in {"In", "The", "A", "We", "Our"}:
            continue
        if m.group(2) and not is_strong_name(name, rules.generic) and m.group(2).strip() not in rules.function_words \
                and m.group(2).strip() not in rules.method_heads and m.group(2).strip() not in rules.dataset_heads:
            name = name + m.group(2)
            vote(name, "Method", 2)
            cands.append((m.start(1), m.start(1) + len(name), name))
        else:
            vote(name, "Method", 2)
            cands.append((m.start(1), m.end(1), name))
    # title prefixes "Name: Subtitle"
    for t in titles:
        title = text[t.start:t.end]
        m = _re(r"(?:The\s+)?((?:[A-Z0-9][\w-]*\s*){1,3}?)(?:\s+(?:" + mheads + r"))?:\s", re.I).match(title)
        if not m:
            continue
        name = m.group(1).strip()
        words = name.split()
        if any(w.lower() in rules.function_words for w in words):
            continue
        key = norm(name)
        elsewhere = sum(1 for mm in re.finditer(re.escape(name), text, re.I) if not (t.start <= mm.start() < t.end))
        if any(is_strong_name(w, rules.generic) for w in words) or elsewhere:
            # "Canopy: A Benchmark for Web Agents" names a dataset, "Quill: Learning to Prove" a method
            kind = "Dataset" if re.match(r"\s*(?:An?\s+)?(?:(?:New|Large-Scale|Multilingual|Open)\s+)?(?:Benchmark|Dataset|Corpus|Suite|Testbed|"
                                         r"Collection|Leaderboard|Test\s+Set)\b", title[m.end():], re.I) else "Method"
            vote(name, kind, 2 if kind == "Method" else 4)
            cands.append((t.start + m.start(1), t.start + m.start(1) + len(name), name))
            surface.setdefault(key, name)
    # code names of a known method's companions: "MLX, mlx-lm and ..."
    for m in re.finditer(r"(?<![\w-])([a-z][a-z0-9]*)([-_][a-z0-9]+)+(?![\w-])", text):
        if votes.get(norm(m.group(1)), Counter())["Method"] >= 1 and m.group(1) not in rules.function_words:
            vote(m.group(0), "Method", 2)
            cands.append((m.start(), m.end(), m.group(0)))
    # what a method or dataset extends, builds on, uses or beats is of its class: "Marrow extends MedQA" (datasets),
    # "DRAFTWISE extends Medusa", "it is a direct successor of our earlier Hydra" (methods)
    rel_cue = (r"(?:extends|extending|builds\s+(?:up)?on|built\s+(?:up)?on(?:\s+top\s+of)?|generali[sz]es|adapts|"
               r"is\s+an?\s+(?:direct\s+)?(?:extension|successor|variant|generali[sz]ation)\s+(?:of|to)|"
               r"replaces\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?of|uses|relies\s+on|outperforms|beats|surpasses)")
    obj = r"([A-Z0-9][\w-]*(?:[ \t]+[A-Z][\w-]*){0,2}(?:[ \t]+\d+(?:\.\d+)?)?|[a-z][a-z0-9]*(?:[.-][a-z0-9]+)+|[a-z]{1,3}[A-Z][\w-]*)"
    for m in re.finditer(r"(?<![\w-])([A-Z][\w-]*|[Ii]t)\s+(?:(?:also|further|even|still|consistently|clearly|directly|is|was)\s+)?" + rel_cue + r"\s+(?:(?:the|our|an?|both)\s+)?(?:(?:earlier|original|popular|standard|prior)\s+)?" + obj, text):
        c = votes.get(norm(m.group(1)))
        o = m.group(2)
        if o in rules.generic or o.split()[0] in rules.generic or o in rules.conf_acronyms or o.split()[0] in rules.organizations \
                or not re.search(r"[A-Z]|\d|\.", o) or o.lower() in rules.function_words:
            continue
        if c and c["Dataset"] > c["Method"]:
            vote(o, "Dataset", 3)
        elif (c and c["Method"]) or m.group(1).lower() == "it":
            vote(o, "Method", 2)
        else:
            continue
        cands.append((m.start(2), m.end(2), o))
    # a benchmark's or a corpus's name by its shape: "...Bench", "...QA", "...Eval", a size in thousands or
    # millions of items ("FairGrade-5K", "MovieLens-1M"); and "X, a set/split/suite of ...", "We construct X"
    for key, c in list(votes.items()):
        name = surface.get(key, "")
        if c["Method"] and not c["Dataset"] and (_DATASET_SHAPE.search(name) or re.split(r"-", name)[0] in rules.known_datasets):
            vote(name, "Dataset", 2)  # ... and variants of a known dataset: "ImageNet-R", "ImageNet-Sketch"
    for m in re.finditer(r"(?<![\w-])([A-Z][\w-]*),\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,3}?(?:set|re-split|resplit|split|subset|suite|collection)\s+of\b"
                         r"|\b(?:[Ww]e|[Tt]hey|[Tt]he\s+authors)\s+(?:also\s+)?(?:construct|collect|curate|annotate|crowdsource)\s+([A-Z][\w-]*)", text):
        name = m.group(1) or m.group(2)
        vote(name, "Dataset", 6)
        cands.append((m.start(1) if m.group(1) else m.start(2), m.end(1) if m.group(1) else m.end(2), name))
    for m in re.finditer(r"\b(?:using|uses|use|with)\s+(?:the\s+)?([A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)\s+as\s+(?:the|a|an|its|our|their)\s+"
                         r"(?:[\w-]+\s+){0,2}?(?:corpus|dataset|data\s+set|training\s+data|pre-?training\s+data|benchmark)\b", text):
        vote(m.group(1), "Dataset", 4)  # "using FineWeb-Edu as the pretraining corpus"
        cands.append((m.start(1), m.end(1), m.group(1)))
    for m in re.finditer(r"(?<![\w-])([A-Z][\w-]*)\s+(?:extends|is\s+an?\s+(?:extension|re-split|subset|variant)\s+of)\s+(?:the\s+)?([A-Z][\w-]*)", text):
        c = votes.get(norm(m.group(2)))
        if c and c["Dataset"] > c["Method"] and norm(m.group(1)) in votes:
            vote(m.group(1), "Dataset", 3)  # what extends a dataset is a dataset: "ChartStack extends ChartQA"
    # a name that the document shows as a method or dataset is that wherever it occurs
    out: list[Found] = []
    known = {k for k, c in votes.items() if c}
    finder = NameFinder(text, names=len(known))
    for key in known:
        name = surface[key]
        for a, b in finder.occurrences(name):
            if not text[a].isupper() and not name[0].islower():
                continue
            cands.append((a, b, text[a:b]))
    for a, b, w in cands:
        if any(x <= a < y for x, y in shouting):
            continue
        key = norm(w)
        if key not in votes and key.endswith("s") and key[:-1] in votes:
            key = key[:-1]
        if key not in votes:
            continue
        c = votes[key]
        cls = "Dataset" if c["Dataset"] > c["Method"] else "Method"
        canonical = surface[key]
        aliases = (surface[key + "#head"],) if key + "#head" in surface else ()
        out.append(Found(a, b, cls, canonical, aliases, "name.shape_or_context"))
    return out


class _Claimed:
    """Character spans that do not overlap, kept sorted: whether a new span overlaps one of them, by bisection."""

    __slots__ = ("starts", "ends")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlaps(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` overlaps a claimed span (``a < end and start < b``)."""
        k = bisect_left(self.starts, end) - 1  # the claimed span starting last before ``end`` ends last
        return k >= 0 and self.ends[k] > start

    def add(self, start: int, end: int) -> None:
        k = bisect_left(self.starts, start)
        self.starts.insert(k, start)
        self.ends.insert(k, end)


def _resolve_overlaps(found: list[Found]) -> list[Found]:
    """Keep mentions in rule-priority order; a later mention overlapping a kept one is dropped."""
    kept: list[Found] = []
    claimed = _Claimed()
    empty: list[Found] = []  # kept spans of no length (the bisection assumes spans with one)
    for f in found:
        if f.end <= f.start:
            if any(k.start < f.end and f.start < k.end for k in kept):
                continue
            empty.append(f)
        elif claimed.overlaps(f.start, f.end) or any(k.start < f.end and f.start < k.end for k in empty):
            continue
        else:
            claimed.add(f.start, f.end)
        kept.append(f)
    return kept


def _without_overlaps(found: list[Found], claimed: list[Found]) -> list[Found]:
    """The mentions of ``found`` overlapping none of ``claimed`` (which may overlap each other)."""
    if not claimed:
        return list(found)
    spans = sorted((c.start, c.end) for c in claimed)
    starts = [a for a, _ in spans]
    reach, best = [], -1  # the furthest end among the spans starting at or before each one
    for _, b in spans:
        best = max(best, b)
        reach.append(best)
    out = []
    for f in found:
        k = bisect_left(starts, f.end) - 1
        if k >= 0 and reach[k] > f.start and f.start < f.end:
            continue
        if f.start >= f.end and any(c.start < f.end and f.start < c.end for c in claimed):
            continue
        out.append(f)
    return out


@Language.factory("mlkg_mentions", assigns=["doc.spans"], requires=["token.is_sent_start"])
def make_mention_finder(nlp: Language, name: str) -> "MentionFinder":
    return MentionFinder(nlp.tokenizer)


class MentionFinder:
    """Find mentions of the six classes of the knowledge model with rules over text and parse."""

    def __init__(self, tokenizer=None) -> None:
        self.rules = load_rules()
        self.lexicon = _lexicon_matcher(tokenizer, self.rules) if tokenizer is not None else None

    def __call__(self, doc: Doc) -> Doc:
        text = doc_text(doc)
        budget.start(doc, text)
        sentences = [(s.start_char, s.end_char) for s in sentence_spans(doc, text)]
        lexicon = _lexicon_hits(self.lexicon, doc, text) if self.lexicon is not None else None
        rules = self.rules
        confs = _conference_mentions(text, rules)
        # a long name and the acronym inside it are one mention: keep the longest
        confs.sort(key=lambda f: (f.start, -(f.end - f.start)))
        confs = _resolve_overlaps(sorted(confs, key=lambda f: -(f.end - f.start)))
        workshops = _workshop_mentions(text, rules, confs)
        # a conference prefix before a workshop name ("ICML 2019 Workshop on ...") stays a conference
        venues = _resolve_overlaps(confs + sorted(workshops, key=lambda f: -(f.end - f.start)))
        venues += _venue_lists(text, sentences, rules, venues)
        venues = _fill_years(venues, doc)
        budget.check(doc, "the venue rules")
        hardware = _resolve_overlaps(_hardware_mentions(text, rules))
        orgs = _organization_mentions(text, rules, lexicon)
        budget.check(doc, "the hardware and organization rules")
        orgs_affinity = sorted((f for f in orgs if f.rule in {"org.affinity_group", "org.institution"}),
                               key=lambda f: -(f.end - f.start))  # the longest name of an organization wins
        # a company named as the maker of a device is no research actor: "NVIDIA H100", "Google's TPU v5e"
        orgs_lex = [f for f in orgs if f.rule == "org.lexicon"
                    and not any(0 <= h.start - f.end <= 3 and re.fullmatch(r"(?:'s|’s)?\s*", text[f.end:h.start])
                                or h.start <= f.start < h.end for h in hardware)]
        titles = _resolve_overlaps(sorted(_paper_titles(text, sentences, rules), key=lambda f: -(f.end - f.start)))
        budget.check(doc, "the title rules")
        first = _resolve_overlaps(venues + hardware + orgs_affinity)
        titles = _without_overlaps(titles, first)
        pairs = _acronym_pairs(text, rules)
        base = _resolve_overlaps(first + titles)
        pairs = _without_overlaps(pairs, base)
        budget.check(doc, "the acronym rules")
        names = _name_candidates(doc, text, sentences, rules, base + pairs, titles, lexicon)
        budget.check(doc, "the name rules")
        # acronyms defined in this document name their long form wherever they occur alone
        acr_map = {}
        for p in pairs:
            if not p.generic:
                acr_map[norm(p.aliases[0])] = p
        names = [
            replace(n, cls=acr_map[norm(n.canonical)].cls, canonical=acr_map[norm(n.canonical)].canonical,
                    aliases=acr_map[norm(n.canonical)].aliases)
            if norm(n.canonical) in acr_map else n
            for n in names
        ]
        generic_keys = {norm(p.aliases[0]) for p in pairs if p.generic}
        names = [n for n in names if norm(n.canonical) not in generic_keys]
        # names derived from a title prefix nest inside the title
        nested = [n for n in names if any(t.start <= n.start and n.end <= t.end for t in titles)]
        allm = _resolve_overlaps(base + sorted(pairs, key=lambda f: -(f.end - f.start)) + sorted(names, key=lambda f: -(f.end - f.start)) + orgs_lex)
        allm += [n for n in nested if n.start == next(t.start for t in titles if t.start <= n.start and n.end <= t.end)]
        spans = []
        for f in sorted(allm, key=lambda f: (f.start, f.end, f.cls)):
            if f.generic:
                continue
            span = doc.char_span(f.start, f.end, label=f.cls, alignment_mode="expand")
            if span is None:
                continue
            surface = text[span.start_char:span.end_char]  # span.text, without joining its tokens
            span._.mlkg_canonical = f.canonical
            span._.mlkg_aliases = tuple(a for a in f.aliases if a and norm(a) != norm(f.canonical)) + (
                (surface,) if norm(surface) != norm(f.canonical) else ())
            span._.mlkg_rule = f.rule
            spans.append(span)
        doc.spans[MENTIONS_KEY] = spans
        doc._.mlkg_event = _main_event(venues)
        return doc


def _fill_years(venues: list[Found], doc: Doc) -> list[Found]:
    """A conference named without its year takes the year the document gives it elsewhere."""
    years: dict[str, Counter] = defaultdict(Counter)
    for v in venues:
        parts = v.canonical.rsplit(" ", 1)
        if len(parts) == 2 and parts[1].isdigit():
            years[parts[0]][parts[1]] += 1
    out = []
    for v in venues:
        if v.canonical in years and years[v.canonical]:
            year = years[v.canonical].most_common(1)[0][0]
            out.append(replace(v, canonical=f"{v.canonical} {year}"))
        elif v.rule in {"venue.acronym", "venue.long_name"} and not re.search(r"\d{4}$", v.canonical):
            # a conference series with no year anywhere in the document is no one occurrence: claim, don't emit
            out.append(replace(v, generic=True))
        else:
            out.append(v)
    return out


def _main_event(venues: list[Found]) -> str | None:
    """The conference a post is about: the conference with a year named most often (at least twice)."""
    counts = Counter(v.canonical for v in venues if re.search(r"\d{4}$", v.canonical) and "Workshop" not in v.canonical
                     and v.rule.startswith("venue.") and v.rule in {"venue.acronym", "venue.long_name"})
    if not counts:
        return None
    (best, n), *rest = counts.most_common()
    if n < 2 or (rest and rest[0][1] == n):
        return None
    return best


# ----------------------------------------------------------------------------- relation rules

class VerbFrames:
    """"SUBJECT <verb> OBJECT" by the dependency parse: a verb of a relation with its ``nsubj`` and ``dobj``.

    What a spaCy ``DependencyMatcher`` with one three-node pattern per relation finds, in the same order
    (by relation, then by position), read straight from the verb's children: the DependencyMatcher matched every
    subject and object of the document and walked its ancestors, several times the cost. The pipeline runs no
    tagger or lemmatizer, so the verbs are listed by their forms, not their lemma.
    """

    def __init__(self, vocab, verbs: dict[str, list[str]]) -> None:
        self.relations_of: dict[int, list[str]] = {}  # a verb form may (in the data) stand for several relations
        for relation, forms in sorted(verbs.items()):
            for form in sorted({f.lower() for f in forms}):
                self.relations_of.setdefault(vocab.strings.add(form), []).append(relation)
        self._ids = numpy.array(sorted(self.relations_of), dtype="uint64")

    def __call__(self, doc: Doc) -> list[tuple[str, int, int, int]]:
        """``(relation, verb, subject, object)`` token indices, sorted by relation."""
        lower = doc.to_array(LOWER)
        out = []
        for i in numpy.flatnonzero(numpy.isin(lower, self._ids)).tolist():
            verb = doc[i]
            if verb.dep_ in {"amod", "compound"}:
                continue
            children = list(verb.children)
            objects = [c.i for c in children if c.dep_ == "dobj"]
            for relation in self.relations_of[int(lower[i])]:
                out += [(relation, i, c.i, o) for c in children if c.dep_ == "nsubj" for o in objects]
        out.sort(key=lambda m: m[0])
        return out


@Language.factory("mlkg_relations", assigns=["doc._.mlkg_relations"], requires=["doc.spans"])
def make_relation_finder(nlp: Language, name: str) -> "RelationFinder":
    return RelationFinder(nlp.vocab)


class RelationFinder:
    """Find relations between mentions from sentence-level cue patterns, the dependency parse and paragraph context."""

    def __init__(self, vocab=None) -> None:
        self.rules = load_rules()
        c = self.rules.cues
        self.re = {k: re.compile(r"\b(?:" + v + r")\b", re.I) for k, v in c.items() if k != "negation"}
        self.negation = re.compile(c["negation"], re.I)
        self.dependency = VerbFrames(vocab, self.rules.dependency_verbs) if vocab is not None else None
        self.known_names = frozenset(norm(n) for n in (*self.rules.known_methods, *self.rules.known_datasets))

    def __call__(self, doc: Doc) -> Doc:
        from .relations import find_relations

        budget.start(doc, doc_text(doc))
        doc._.mlkg_relations = find_relations(doc, self)
        return doc
