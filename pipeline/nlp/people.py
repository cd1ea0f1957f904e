"""People's names, which the organization rules (a person and their organization) and the title rules (an author
line is no title) both read: one person, a list of them, a line that opens with one."""

from __future__ import annotations

import re

from .rules import load_rules

__all__ = ["PERSON", "PEOPLE", "opens_with_people", "people_count"]

_CUES = load_rules().cue_patterns["people"]
PERSON = _CUES["person"]
"""One person's name, as a pattern's text (for the patterns built around it)."""
PEOPLE = _CUES["people_list"].replace("{person}", PERSON)
"""A list of people ("Ann Lee, Bo Chan and Cy Dee"), as a pattern's text."""
_PEOPLE_LINE = re.compile(r"[ \t]*(?:" + PEOPLE + ")")
_PERSON = re.compile(PERSON)


def people_count(text: str) -> int:
    """How many people's names ``text`` holds (a list of them is counted name by name)."""
    return len(_PERSON.findall(text))


def opens_with_people(line: str) -> bool:
    """Whether ``line`` opens with a list of two or more people ("Ann Lee, Bo Chan and Cy Dee ...")."""
    m = _PEOPLE_LINE.match(line)
    return bool(m) and people_count(m.group(0)) >= 2
