"""Hardware mentions: chips and devices by the naming patterns of hardware.json, and the two named together."""

from __future__ import annotations

import re

from .rules import Found, load_rules
from .text import regex

__all__ = ["hardware_mentions"]

_CUES = load_rules().cue_patterns["hardware"]
_MAKER = re.compile(_CUES["maker_prefix"])
_SPACES = re.compile(r"\s+")


def hardware_mentions(text: str, rules) -> list[Found]:
    chip = "(?:" + "|".join(rules.chips) + ")"
    device = "(?:" + "|".join(rules.devices) + ")"
    suffix = rules.hw_suffix
    out: list[Found] = []

    def canon(s: str) -> str:
        s = regex(suffix + r"$").sub("", s)
        s = _MAKER.sub("", s, count=1)
        s = _SPACES.sub(" ", s).strip()
        return "Apple silicon" if s.lower() == "apple silicon" else s

    b, e = r"(?<![\w-])", r"(?![\w-])"
    # chips and devices alone first: a chip-and-device phrase needs both, so most texts skip those two scans
    # (the results keep the order of priority: phrases, then chips, then devices)
    chips = []
    # every chip pattern starts with a capital: the look-ahead turns most positions away before the alternation
    for m in regex(b + r"(?=[A-Z])(?P<x>" + chip + r")(?P<suf>" + suffix + r")?" + e).finditer(text):
        aliases = (m.group(0),) if m.group("suf") else ()
        chips.append(Found(m.start(), m.end(), "Hardware", canon(m.group("x")), aliases, "hardware.chip"))
    devices = [Found(m.start(), m.end(), "Hardware", canon(m.group("x")), (), "hardware.device")
               for m in regex(b + r"(?P<x>" + device + r")s?" + e).finditer(text)]
    if chips and devices:
        for m in regex(b + r"(?=[A-Z])(?P<chip>" + chip + r")\s+(?:\d+\s*GB\s+)?(?P<dev>" + device + r")" + e).finditer(text):
            out.append(Found(m.start("dev"), m.end("dev"), "Hardware", canon(m.group("dev")), (m.group(0),), "hardware.chip_device"))
            out.append(Found(m.start("chip"), m.end("chip"), "Hardware", canon(m.group("chip")), (), "hardware.chip"))
        for m in regex(b + r"(?P<dev>" + device + r")\s+with\s+(?:the\s+|an?\s+)?(?P<chip>" + chip + r")(?P<suf>\s+chips?)?" + e).finditer(text):
            out.append(Found(m.start("dev"), m.end("dev"), "Hardware", canon(m.group("dev")), (m.group(0),), "hardware.device_with_chip"))
            out.append(Found(m.start("chip"), m.end("chip") if not m.group("suf") else m.end("suf"), "Hardware", canon(m.group("chip")), (), "hardware.chip"))
    return out + chips + devices
