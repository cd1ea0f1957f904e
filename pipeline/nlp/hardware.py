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
    variant = "(?:" + rules.hw_variant + "){0,2}"  # "A100-80GB", "A100-SXM4-80GB": the chip with its memory
    out: list[Found] = []

    def canon(s: str) -> str:
        s = regex(suffix + r"$").sub("", s)
        s = _MAKER.sub("", s, count=1)
        s = _SPACES.sub(" ", s).strip()
        return "Apple silicon" if s.lower() == "apple silicon" else s

    # a name ends before a word or a hyphen that goes on naming ("Cortex-X4"), not before a compound's
    # lower-case tail ("Snapdragon 8 Gen 3-powered")
    b, e = r"(?<![\w-])", r"(?!\w|-[\w-](?<![a-z]))"
    # chips and devices alone first: a chip-and-device phrase needs both, so most texts skip those two scans
    # (the results keep the order of priority: phrases, then chips, then devices)
    chips = []
    # every chip pattern starts with a capital: the look-ahead turns most positions away before the alternation
    for m in regex(b + r"(?=[A-Z])(?P<x>" + chip + r")(?P<var>" + variant + r")(?P<suf>" + suffix + r")?" + e).finditer(text):
        aliases = (m.group(0),) if m.group("suf") or m.group("var") else ()
        chips.append(Found(m.start(), m.end(), "Hardware", canon(m.group("x")), aliases, "hardware.chip"))
    devices = [Found(m.start(), m.end(), "Hardware", canon(m.group("x")), (), "hardware.device")
               for m in regex(b + r"(?P<x>" + device + r")s?" + e).finditer(text)]
    if chips and devices:
        for m in regex(b + r"(?=[A-Z])(?P<chip>" + chip + r")\s+(?:\d+\s*GB\s+)?(?P<dev>" + device + r")" + e).finditer(text):
            out.append(Found(m.start("dev"), m.end("dev"), "Hardware", canon(m.group("dev")), (m.group(0),), "hardware.chip_device"))
            out.append(Found(m.start("chip"), m.end("chip"), "Hardware", canon(m.group("chip")), (), "hardware.chip"))
        # a device named with its chip is that device ("MacBook M1 Pro")
        for m in regex(b + r"(?P<dev>" + device + r")\s+(?P<chip>" + chip + r")" + e).finditer(text):
            out.append(Found(m.start(), m.end(), "Hardware", f'{canon(m.group("dev"))} {canon(m.group("chip"))}', (), "hardware.chip_device"))
        for m in regex(b + r"(?P<dev>" + device + r")\s+with\s+(?:the\s+|an?\s+)?(?P<chip>" + chip + r")(?P<suf>\s+chips?)?" + e).finditer(text):
            out.append(Found(m.start("dev"), m.end("dev"), "Hardware", canon(m.group("dev")), (m.group(0),), "hardware.device_with_chip"))
            out.append(Found(m.start("chip"), m.end("chip") if not m.group("suf") else m.end("suf"), "Hardware", canon(m.group("chip")), (), "hardware.chip"))
    return out + chips + devices
