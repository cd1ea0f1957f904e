"""Venue mentions: conference acronyms and long names (with ordinals and years), workshops, venue lists; the document's event."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import replace
from functools import lru_cache

from spacy.tokens import Doc

from .organizations import names_organization
from .rules import ORDINAL, Found, load_rules, ordinal_value, scan_title
from .text import MONTHS, SPACE, TW

__all__ = ["conference_mentions", "workshop_mentions", "venue_lists", "fill_years", "main_event"]

_CUES = load_rules().cue_patterns["venues"]


@lru_cache(maxsize=None)
def _acronym_pattern(acrs: tuple[str, ...]) -> re.Pattern:
    return re.compile(
        r"(?<![\w-])(" + "|".join(re.escape(a) for a in acrs) + r")(?:(?:\s+|-|\s*')((?:19|20)\d{2}|\d{2})|((?:19|20)\d{2}))?(?![\w-])"
    )
"""A conference's acronym, with its year after a space, a hyphen or an apostrophe, or glued to it ("#EMNLP2020")."""


@lru_cache(maxsize=None)
def _long_name_patterns(long: str) -> tuple[re.Pattern, re.Pattern]:
    """The long name alone, and with its optional ordinal, "the", "Annual", publisher, acronym and year."""
    body = r"\s*".join(re.escape(w) for w in long.split())
    pat = re.compile(_CUES["long_name"].replace("{ord}", ORDINAL).replace("{body}", body), re.I)
    return re.compile(body, re.I), pat



@lru_cache(maxsize=None)
def _squeezed(long: str) -> str:
    return SPACE.sub("", long).casefold()

_PREFIX_WORDS = 6
"""Words a long conference name's pattern may read before the name itself: "the Twenty First Annual IEEE/CVF"."""


def _long_name_matches(text: str, body_re: re.Pattern, pat: re.Pattern):
    """``pat.finditer(text)``, where every match of ``pat`` holds a match of ``body_re`` after at most
    :data:`_PREFIX_WORDS` words: each search starts a few words before the next occurrence of the name itself
    (or of "workshop on") rather than trying the pattern's optional ordinals and years at every character of the
    text."""
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


def conference_mentions(text: str, rules) -> list[Found]:
    """Conference acronyms with or without a year, and long conference names with ordinals."""
    out: list[Found] = []
    acr_re = _acronym_pattern(tuple(sorted(rules.conf_acronyms, key=len, reverse=True)))
    for m in acr_re.finditer(text):
        acr = rules.conf_acronyms[m.group(1)]
        year = m.group(2) or m.group(3)
        if year and len(year) == 2:
            year = "20" + year
        canonical = f"{acr} {year}" if year else acr
        out.append(Found(m.start(), m.end(), "Venue", canonical, (), "venue.acronym"))
    # every match holds the long name itself, its words separated by nothing but whitespace, in any case:
    # so a long name whose letters do not occur in a row in the text, white space removed, cannot match
    squeezed = SPACE.sub("", text).casefold()
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
                surface = _LEADING_THE.sub("", m.group(0))
                aliases = {surface, re.sub(r"\s*\([^)]*\)", "", surface).strip()}
                out.append(Found(m.start(), m.end(), "Venue", canonical, tuple(sorted(aliases)), "venue.long_name"))
    return out


_WORKSHOP = re.compile(_CUES["workshop"], re.I)
_WORKSHOP_ON = re.compile(_CUES["workshop_on"].replace("{ord}", ORDINAL), re.I)
_WORKSHOP_ON_BODY = re.compile("[Ww]orkshop" + _CUES["workshop_on"].split("[Ww]orkshop", 1)[1], re.I)
"""What every match of ``_WORKSHOP_ON`` holds after its ordinal (two words at most): "workshop on ". The pattern is
searched a few words before each (:func:`_long_name_matches`), not tried at every character with its ordinals
ignoring case (the workshop rules over 200 generated documents: 0.038 -> 0.021 s of CPU)."""
_WORKSHOP_STOP = frozenset({_CUES["workshop_stop"]})
"""The word that ends a workshop's name ("Workshop on X at NeurIPS")."""
_COMMA_NAME = re.compile(_CUES["workshop_comma_name"])
_ARTICLES = frozenset(_CUES["articles"].split("|"))
_NAME_WORKSHOP_LOWER = re.compile(_CUES["name_workshop_lower"])
_NAME_END_WORDS = frozenset(_CUES["name_end_words"].split("|"))
_WORKSHOP_PAPER_AT = re.compile(_CUES["workshop_paper_at"], re.I)
_PRESENTED_AT = re.compile(_CUES["presented_at"], re.I)
_LIST_JOINER = re.compile(_CUES["list_joiner"])
_LIST_WORDS = frozenset(_CUES["list_words"].split("|"))
_LIST_END = re.compile(_CUES["list_end"])
"""What ends a list of venues: "by" and the authors after it."""
_LEADING_THE = re.compile(_CUES["leading_the"], re.I)
_PUBLICATION_LEAD = re.compile(_CUES["publication_lead"])
_DAY_MONTH = re.compile(r"\d{1,2}\s+(?:" + "|".join(sorted(m[:3] for m in MONTHS)) + r")[a-z]*\.?\Z")
"""A date, which names no workshop ("17 Jun   Workshop day")."""
_NAME_BREAK = re.compile(_CUES["workshop_name_break"])
"""What a workshop's name never runs across: the bracket that closes a tag it stands in."""
MAX_NAME_WORDS = 20
"""The longest workshop name read before the word "Workshop", in words."""


_EVENT_YEAR = re.compile(_CUES["event_year"])
_EVENT_NAME = re.compile(_CUES["event_name"])
_EVENT_BEFORE = re.compile("(?:" + _CUES["event_before"] + ")$")
_EVENT_AFTER = re.compile(_CUES["event_after"])
_EVENT_HEAD = re.compile(_CUES["event_head"])
"""A name that says it is an event by its last word: "Flower Summit", "BlizzCon", "AI Engineer World's Fair"."""
_SHOWN_AT = re.compile(_CUES["shown_at"])
"""An event named without a year after a word that places something there and then said to be one: "at the
AI Engineer World's Fair", "at the Lowlands festival", "at Pollutec, the French trade show"."""
_ACRONYM_WORKSHOP = re.compile(_CUES["acronym_workshop"])


def _events(text: str, rules, confs: list[Found]) -> list[Found]:
    """Events named with their year that are no conference of the rule data: "at Computex 2024", "during
    COMPUTEX 2024 week", "the VAND 2023 challenge", "WWDC 2022 and WWDC 2023"."""
    out: list[Found] = []
    for y in _EVENT_YEAR.finditer(text):  # a year, then the name just before it (years are rarer than capitals)
        m = _EVENT_NAME.search(text, max(0, y.start() - 120), y.start())
        if not m:
            continue
        name, year, start, end = m.group(1), y.group(1), m.start(1), y.end()
        words = name.split()
        if any(w in MONTHS or w in rules.known_words or len(re.findall(r"[^\W\d_]", w)) < 2 for w in words) \
                or any(c.start < end and start < c.end for c in confs):
            continue
        if not (_EVENT_BEFORE.search(text, max(0, start - 30), start) or _EVENT_AFTER.match(text, end)
                or _EVENT_HEAD.search(name)):
            continue
        out.append(Found(start, end, "Venue", f"{name} {year}", (), "venue.event_year"))
    taken = [(f.start, f.end) for f in (*out, *confs)]
    for m in _SHOWN_AT.finditer(text):  # events without a year: "at the Lowlands festival"
        name = m.group("name") or m.group("named")
        start = m.start("name") if m.group("name") else m.start("named")
        end = m.end("head") if m.group("head") else start + len(name)
        if name.split()[0] in rules.known_words or any(a < end and start < b for a, b in taken):
            continue
        out.append(Found(start, end, "Venue", text[start:end], (), "venue.event_name"))
    return out


def _acronym_workshops(text: str, rules) -> list[Found]:
    """A workshop named by one capitalised token before a lower-case "workshop": "the PSML workshop"."""
    out = []
    for m in _ACRONYM_WORKSHOP.finditer(text):
        name = m.group(1)
        if name in rules.conf_acronyms or name in rules.generic:
            continue
        out.append(Found(m.start(1), m.end(0), "Venue", name, (f"{name} workshop", f"{name} Workshop"), "venue.acronym_workshop"))
    return out


def workshop_mentions(text: str, rules, confs: list[Found]) -> list[Found]:
    """Workshops ("Workshop on X", "X Workshop", "workshop paper at CONF (X)", "the X workshop") and other events
    named with their year ("at Computex 2024")."""
    out: list[Found] = _events(text, rules, confs)
    if not _WORKSHOP.search(text):  # each pattern below needs the word: most documents have none
        return out
    out += _acronym_workshops(text, rules)
    fw = rules.function_words - _WORKSHOP_STOP
    for m in _long_name_matches(text, _WORKSHOP_ON_BODY, _WORKSHOP_ON):
        span = scan_title(text, m.end(), fw, min_words=1, stop_words=_WORKSHOP_STOP,
                          fail_words=frozenset(rules.conf_acronyms))
        if not span:
            continue
        end = span[1]
        # a comma or "at the" inside the name when an acronym in parentheses closes it:
        # "Workshop on Tiny Models, Big Questions (TinyQ)", "Workshop on Data Streams at the Edge (DSE)"
        more = _COMMA_NAME.match(text[end:])
        if more and not any(w in rules.conf_acronyms for w in more.group(0).split()):
            end += more.end()
        name = text[span[0]:end]
        cut = _NAME_BREAK.search(name)  # "[..., Workshop on Autonomous Driving] Title": the bracket closes the name
        if cut:
            end = span[0] + len(name[:cut.start()].rstrip())
            name = text[span[0]:end]
        if not name or name.split()[0] in MONTHS or ")" in name:
            continue
        if "\n" in name and len(text[text.rfind("\n", 0, m.start()) + 1:m.start()].split()) <= 3:
            # a heading's name ends with its line ("1st ICML Workshop on X\nHeld at ...")
            end = span[0] + name.index("\n")
            name = text[span[0]:end].rstrip()
            end = span[0] + len(name)
        aliases = {text[m.start():end]}
        acr = re.match(r"\s*\(([A-Za-z][\w-]*)\)", text[end:])
        if acr and not any(c.start <= end + acr.start(1) < c.end for c in confs):
            aliases.add(acr.group(1))
            aliases.add(f"Workshop on {name} ({acr.group(1)})")
            end = end + acr.end()
        out.append(Found(m.start(), end, "Venue", f"Workshop on {' '.join(name.split())}", tuple(sorted(aliases)), "venue.workshop_on"))
    # at most MAX_NAME_WORDS words before "Workshop": unbounded, a text of title-case words was backtracked from each word
    for m in _name_workshop().finditer(text):
        leads = list(_PUBLICATION_LEAD.finditer(m.group(1)))
        start = m.start() + (leads[-1].end() if leads else 0)
        name = text[start:m.end(1)]
        if not name or name.split()[0].lower() in _ARTICLES or _DAY_MONTH.match(name):
            continue
        out.append(Found(start, m.end(), "Venue", text[start:m.end()], (name,), "venue.name_workshop"))
    # "the Tackling Climate Change with Machine Learning workshop at ICLR 2026": a title-case name before a
    # lower-case "workshop", after "the"
    for m in _NAME_WORKSHOP_LOWER.finditer(text):
        name = m.group(1)
        if name.split()[-1] in _NAME_END_WORDS or any(w in rules.conf_acronyms for w in name.split()) \
                or len(name.split()) < 2:
            continue
        out.append(Found(m.start(1), m.end(0), "Venue", name, (f"{name} workshop", f"{name} Workshop"), "venue.name_workshop_lower"))
    for m in _WORKSHOP_PAPER_AT.finditer(text):
        out.append(Found(m.start(1), m.end(1), "Venue", m.group(1), (), "venue.workshop_paper_at"))
    return out


@lru_cache(maxsize=1)
def _name_workshop() -> re.Pattern:
    """A title-case name of at most MAX_NAME_WORDS words before "Workshop"."""
    return re.compile(_CUES["name_workshop"].replace("{tw}", TW).replace("{max}", str(MAX_NAME_WORDS - 1)))


def venue_lists(text: str, sentences, rules, taken: list[Found]) -> list[Found]:
    """In "Presented at A and B, CONF": title-case items that are not yet venues are workshops. The list ends at
    "by" (the authors follow: "presented in \"X\" by Ann Lee, Bo Chan and Cy Dee"), and an item opens with a
    capital ("(EMS '24) in Sydney" is a place)."""
    out: list[Found] = []
    cue = _PRESENTED_AT
    for s_start, s_end in sentences:
        sent = text[s_start:s_end]
        m = cue.search(sent)
        if not m:
            continue
        pos = s_start + m.end()
        stop = _LIST_END.search(text, pos, s_end)
        end = stop.start() if stop else s_end
        for item in re.finditer(r"[^,;()]+(?:\([^)]*\))?", text[pos:end]):
            a, b = pos + item.start(), pos + item.end()
            for chunk in _LIST_JOINER.split(text[a:b]):
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
                words = _name_words(text[c0:c1].split())
                if words:  # the item's end: the end of its last word that names the venue
                    c1 = c0 + [m.end() for m in re.finditer(r"\S+", text[c0:c1])][len(words) - 1]
                # (_name_words keeps only capitalised words and list words)
                if words and words[0][0].isupper() and (2 <= len(words) <= 8 or _dated(text[c1:end])) \
                        and not names_organization(text[c0:c1]):
                    out.append(Found(c0, c1, "Venue", text[c0:c1], (), "venue.presented_at_list"))
            else:
                continue
            break
    return out


def _name_words(words: list[str]) -> list[str]:
    """The words of a list item that can name a venue: up to the first that is not capitalised or a list word, or is
    a month ("the Journal of Sensors (2022)", "Nature Medicine on October 2"), without the list words it ends on.
    With it and ``_dated`` (tools/selection.py, 197 sets): two folds 0.8045 / 0.6093 -> 0.8046 / 0.6094 (Venue 1,626
    -> 1,631 right, 352 -> 356 false; presentedAt 1,040 -> 1,045 right), the selection sets 0.8349 / 0.6559 ->
    0.8359 / 0.6571."""
    out: list[str] = []
    for w in words:
        if w in MONTHS or not (w[0].isupper() or w in _LIST_WORDS):
            break
        out.append(w)
    while out and out[-1] in _LIST_WORDS:
        out.pop()
    return out


_DATED = re.compile(_CUES["dated_after"])
"""A year right after a venue's name: "(2025)", ", 2023", "in 2022"."""


def _dated(rest: str) -> bool:
    """Whether a one-word venue is followed by its year ("published in AgriEngineering (2025)", "in Drones in 2023"):
    a single capitalised word after "published in" is a journal only so ("presented in Section 3" is none)."""
    return bool(_DATED.match(rest))


def fill_years(venues: list[Found], doc: Doc) -> list[Found]:
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


def main_event(venues: list[Found]) -> str | None:
    """The conference a post is about: the conference with a year named most often (at least twice)."""
    counts = Counter(v.canonical for v in venues if re.search(r"\d{4}$", v.canonical) and "Workshop" not in v.canonical
                     and v.rule.startswith("venue.") and v.rule in {"venue.acronym", "venue.long_name"})
    if not counts:
        return None
    (best, n), *rest = counts.most_common()
    if n < 2 or (rest and rest[0][1] == n):
        return None
    return best
