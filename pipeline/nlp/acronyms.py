"""Acronyms with their long forms: "Long Form (LF)", "LF (Long Form)" and "Long Form LF", one mention naming both."""

from __future__ import annotations

import re
from dataclasses import replace

from .rules import Found, acronym_long_form

__all__ = ["acronym_pairs", "organization_acronyms"]


_GROUP_NOUNS = frozenset({"Group", "Lab", "Laboratory", "Team", "Center", "Centre", "Institute", "Department", "Division",
                          "Initiative", "Consortium", "Foundation", "Society", "Association", "Council", "Agency"})


def acronym_pairs(text: str, rules) -> list[Found]:
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


_AFTER_NAME = re.compile(r"[ \t]*\(([A-Z][A-Za-z]{1,9})\)")


def organization_acronyms(text: str, orgs: list[Found]) -> tuple[list[Found], dict[str, Found]]:
    """An organization's name followed by an acronym in brackets ("University of Hong Kong (HKU)") names both,
    whether or not the letters spell the name: each such mention with its span over the bracket and the acronym
    as an alias (other mentions as they are), and each acronym with its mention."""
    out, acronyms = [], {}
    for f in orgs:
        m = _AFTER_NAME.match(text, f.end)
        if m and sum(ch.isupper() for ch in m.group(1)) >= 2:
            f = replace(f, end=m.end(), aliases=(*f.aliases, m.group(1), text[f.start:m.end()]))
            acronyms[m.group(1)] = f
        out.append(f)
    return out, acronyms
