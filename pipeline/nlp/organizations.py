"""Organization mentions: affinity groups, institutions by their naming patterns, names given a role, the lexicon."""

from __future__ import annotations

import re

from .lexicon import longest_first
from .rules import Found, load_rules
from .text import cue, regex

__all__ = ["organization_mentions"]

_CUES = load_rules().cue_patterns["organizations"]
_AFFILIATION_LINE = re.compile(_CUES["affiliation_line"])
_NUMBERED = re.compile(_CUES["numbered_affiliations"])
_PIECE_END = re.compile(_CUES["piece_end"])
_PIECE_START = re.compile(_CUES["piece_start"])
_ACRONYM_AFTER = re.compile(r"\s*\([A-Z][A-Za-z0-9]{1,9}\)$")
"""An acronym in brackets after a piece's name ("Allen Institute for AI (AI2)"): the name is the piece without it."""
_AFFINITY = cue(_CUES["affinity_group"])
_INSTITUTION = cue(_CUES["institution"])
_NOT_A_NAME = frozenset(_CUES["not_a_name"].split("|"))
"""The words that open a sentence, not an institution's name ("The", "Our", "At")."""
_ROLE_LINE = cue(_CUES["role_line"])
_ORG_WORD = re.compile(r"(?<![\w-])(?:" + _CUES["org_word"] + r")(?![\w-])")
_LEAD_SPLIT = re.compile(_CUES["lead_split"])
_LINE_MARKER = re.compile(r"^[ \t]*(?:[-*•>]+[ \t]*)?")
_ROLE_LINE_SPLIT = re.compile(_CUES["role_line_split"])
_ORG_NAME = r"((?:[A-Z][\w&-]*(?:\.[\w&-]+)*[ \t]+){0,3}[A-Z][\w&-]*(?:\.[\w&-]+)*)"
_ROLE_CUE = cue(_CUES["role_cue"].replace("{name}", _ORG_NAME))


def _affiliations(text: str) -> set[str]:
    """The organizations of affiliation lines, one a piece: "Affiliations: A; B", a model card's "Developed by: A,
    with B" field (also as a table row), "(1) A; (2) B" under an author line, "1 A, 2 B", "A, B"."""
    out = set()
    for m in (*_AFFILIATION_LINE.finditer(text), *_NUMBERED.finditer(text)):
        body = next(g for g in m.groups() if g is not None)
        body = re.sub(r"\s*\([a-z][^()]*\)", "", body)  # "(code under mit-han-lab)"
        if m.re is _AFFILIATION_LINE and m.group(1) is None:  # a field's value is prose: "A and B"
            body = re.sub(r"\s+and\s+(?=[A-Z])", ", ", body)
        for piece in _PIECE_END.split(body):
            name = _ACRONYM_AFTER.sub("", _PIECE_START.sub("", piece).strip(" .,;"))
            if name[:1].isupper() and len(name.split()) <= 8 and not re.search(r"\d{4}|[()]", name):
                out.add(name)
    return out


_PIECE_OPEN = re.compile(r"(?:[,;(|]|\band)[ \t]*$")
_PIECE_TAIL = re.compile(r"(?:[ \t]+(?:[A-Z][\w'’-]*(?:\.[\w-]+)*|of|de|du|the|for)){1,3}?(?=[ \t]*(?:[,;)|\n]|\.(?:\s|$)|$|[ \t]+and[ \t]))")


def _whole_pieces(text: str, found: list[Found]) -> list[Found]:
    """Each organization that opens a piece of a list ("; X", "(X", "| X", not a line's start: a headline) and is followed by up to three
    more capitalised words up to the piece's end is the whole piece: "(Leiden University Medical Center)", "; Naver
    Labs Europe.", "| Microsoft Research Asia"."""
    out = []
    for f in found:
        m = _PIECE_TAIL.match(text, f.end)
        # a company's name and a product's ("Intel Gaudi", "Google Drive") are no organization: a lexicon's name
        # grows only into one that holds a word naming an organization ("Microsoft Research Asia")
        if m and _PIECE_OPEN.search(text, max(0, f.start - 6), f.start) and "\n" not in m.group(0) \
                and m.group(0).split()[-1] not in _NOT_A_NAME \
                and (f.rule != "org.lexicon" or _ORG_WORD.search(text, f.start, m.end())):
            name = text[f.start:m.end()]
            f = Found(f.start, m.end(), f.cls, name, (*f.aliases, f.canonical), f.rule, f.generic)
        out.append(f)
    return out


def _lead_lists(text: str, function_words: set[str]) -> set[str]:
    """The organizations of lines that open with a list of names most of which hold a word naming an organization
    ("Stanford University, Caltech, University at Buffalo. Rather than ..."): every piece of such a list."""
    out = set()
    for line in text.split("\n"):
        body = line[_LINE_MARKER.match(line).end():]
        if "," not in body[:200]:
            continue
        stop = body.find(". ")
        head = body[:stop] if stop >= 0 else body.rstrip(". ")
        pieces = [p.strip() for p in _LEAD_SPLIT.split(head)]
        if not 2 <= len(pieces) <= 12 or re.search(r"\d{4}|[()\[\]:]", head):
            continue
        if not all(p[:1].isupper() and len(p.split()) <= 6 and all(w[:1].isupper() or w in function_words for w in p.split())
                   for p in pieces):
            continue
        if 2 * sum(bool(_ORG_WORD.search(p)) for p in pieces) > len(pieces):
            out.update(p.split(None, 1)[1] if p.split()[0] in _NOT_A_NAME and " " in p else p for p in pieces)
    return out


def organization_mentions(text: str, rules, lexicon: dict | None = None) -> list[Found]:
    out: list[Found] = []
    for m in _AFFINITY.finditer(text):
        aliases = (m.group(2),) if m.group(2) else ()
        out.append(Found(m.start(), m.end(), "Organization", m.group(1), aliases, "org.affinity_group"))
    # universities and institutes by their naming patterns (names do not run across a line break: "University of
    # X\nNews" is the university); "the University at ICML" names no university
    for m in _INSTITUTION.finditer(text):
        words = m.group(1).split()
        if words[0] in _NOT_A_NAME or words[-1] in rules.conf_acronyms:
            continue
        out.append(Found(m.start(1), m.end(1), "Organization", m.group(1), (), "org.institution"))
    # organizations named by their role: affiliations in "Authors: A, B (Org); C (Org)" lines, and the
    # names after "colleagues at", "researchers from", "written with the payments processor"; each is then
    # found wherever it occurs
    named: set[str] = set()
    for line in _ROLE_LINE.finditer(text):
        for g in re.finditer(r"\(([A-Z][^()\n]{1,60})\)", line.group(1)):
            named.update(x.strip() for x in _ROLE_LINE_SPLIT.split(g.group(1)) if x.strip()[:1].isupper())
    named |= _affiliations(text) | _lead_lists(text, rules.function_words)
    for m in _ROLE_CUE.finditer(text):
        name = (m.group(1) or m.group(2)).rstrip(".")
        if name.split()[0] not in rules.conf_acronyms and not re.search(r"\d{4}", name):
            named.add(name)
    for name in sorted(named, key=len, reverse=True):
        for m in re.finditer(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text):
            out.append(Found(m.start(), m.end(), "Organization", name, (), "org.institution"))
    if lexicon is not None:
        for a, b in longest_first(lexicon.get("Organization", [])):
            out.append(Found(a, b, "Organization", text[a:b], (), "org.lexicon"))
    elif rules.organizations:
        pat = regex(r"(?<![\w-])(" + "|".join(re.escape(o) for o in sorted(rules.organizations, key=len, reverse=True)) + r")(?![\w-])")
        for m in pat.finditer(text):
            out.append(Found(m.start(), m.end(), "Organization", m.group(1), (), "org.lexicon"))
    return _whole_pieces(text, out)
