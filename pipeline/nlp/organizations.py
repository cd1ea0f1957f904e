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


def _affiliations(text: str) -> set[str]:
    """The organizations of affiliation lines, one a piece: "Affiliations: A; B", "(1) A; (2) B" under an author
    line, "1 A, 2 B", "A, B"."""
    out = set()
    for m in (*_AFFILIATION_LINE.finditer(text), *_NUMBERED.finditer(text)):
        body = re.sub(r"\s*\([a-z][^()]*\)", "", m.group(1))  # "(code under mit-han-lab)"
        for piece in _PIECE_END.split(body):
            name = _PIECE_START.sub("", piece).strip(" .,;")
            if name[:1].isupper() and len(name.split()) <= 8 and not re.search(r"\d{4}|[()]", name):
                out.add(name)
    return out


def organization_mentions(text: str, rules, lexicon: dict | None = None) -> list[Found]:
    out: list[Found] = []
    for m in cue(r"(?<![\w-])((?:[A-Z][\w]*\s+){1,3}in\s+(?:AI|Machine\s+Learning|ML|NLP|Computer\s+Vision|Robotics))"
                         r"(?:\s*\(([A-Za-z]+)\))?").finditer(text):
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
    for m in cue(r"(?<![\w-])(?:the\s+)?(" + inst + r")(?![\w-])").finditer(text):
        if m.group(1).split()[0] in {"The", "A", "An", "Our", "This", "About", "At", "In", "From", "With", "By", "For"}:
            continue
        out.append(Found(m.start(1), m.end(1), "Organization", m.group(1), (), "org.institution"))
    # organizations named by their role: affiliations in "Authors: A, B (Org); C (Org)" lines, and the
    # names after "colleagues at", "researchers from", "written with the payments processor"; each is then
    # found wherever it occurs
    named: set[str] = set()
    for line in cue(r"(?m)^[ \t]*(?:Authors?|Affiliations?)\s*:(.*)$").finditer(text):
        for g in re.finditer(r"\(([A-Z][^()\n]{1,60})\)", line.group(1)):
            named.update(x.strip() for x in re.split(r";|\s+and\s+", g.group(1)) if x.strip()[:1].isupper())
    named |= _affiliations(text)
    org_name = r"((?:[A-Z][\w&-]*(?:\.[\w&-]+)*[ \t]+){0,3}[A-Z][\w&-]*(?:\.[\w&-]+)*)"
    for m in cue(r"\b(?:colleagues|researchers|collaborators|scientists|engineers|partners)\s+(?:at|from)\s+(?:the\s+)?" + org_name
                         + r"|\b(?:written|joint\s+work|co-authored|in\s+collaboration)\s+with\s+(?:the\s+)?(?:[a-z][\w-]*\s+){0,3}" + org_name).finditer(text):
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
    return out
