"""Hardware mentions: chips and devices by the naming patterns of hardware.json, and the two named together."""

from __future__ import annotations

import re

from .rules import Found, load_rules
from .text import regex

__all__ = ["hardware_mentions"]

_CUES = load_rules().cue_patterns["hardware"]
_MAKER = re.compile(_CUES["maker_prefix"])
_SPACES = re.compile(r"\s+")
_WORD = _CUES["head_noun_name"]
_KINDS = _CUES["head_noun"].replace("{device}", _CUES["head_noun_device"])
_HEAD_NOUN = re.compile(r"(?<![\w-])(?P<x>" + _WORD + r"(?:[ \t]+" + _WORD + r"){0,3})[ \t]+(?P<head>" + _KINDS
                        + r")(?![\w-])")
_DEVICE_KIND = re.compile(r"[ \t](?:" + _CUES["head_noun_device"] + r")s?$")
"""A device's kind ("the Booster T1 humanoid", "a OnePlus phone"): a known organization before it is its maker."""
_HW_MAKER = re.compile(_CUES["head_noun_maker"] + r"[ \t]+")
_SKIP = re.compile("(?:" + _CUES["head_noun_maker"] + "|" + _CUES["head_noun_skip"] + r")[ \t]+")
_BREAK = re.compile(r"(?<!\S)" + _CUES["head_noun_break"] + r"[ \t]+")
_TAIL = re.compile(r"[ \t]+" + _CUES["head_noun_tail"] + "$")
_ITEM = _WORD + r"(?:[ \t]+" + _WORD + r"){0,2}"
_HEAD_LIST = re.compile(r"(?<![\w-])(?P<items>" + _ITEM + r"(?:,[ \t]+" + _ITEM + r"){0,11}),?[ \t]+(?:and|or)[ \t]+" + _ITEM
                        + r"[ \t]+$")
"""A list of names before a plural kind: "the Selene, Perlmutter and JUWELS Booster supercomputers" (at most 13 names,
read back from the kind: a long list with no kind after it costs nothing)."""
_PLURAL_KIND = re.compile(r"(?<![\w-])(?:" + _KINDS + r")(?<=s)(?![\w-])")


def hardware_mentions(text: str, rules) -> list[Found]:
    chip = "(?:" + "|".join(rules.chips) + ")"
    device = "(?:" + "|".join(rules.devices) + ")"
    suffix = rules.hw_suffix
    code = r"(?:[ \t]+(?!" + chip + ")" + _CUES["model_code"] + ")?"  # "Jetson TX1": a member the catalogue does not list
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
    for m in regex(b + r"(?=[A-Z])(?P<x>" + chip + code + r")(?P<var>" + variant + r")(?P<suf>" + suffix + r")?" + e).finditer(text):
        aliases = (m.group(0),) if m.group("suf") or m.group("var") else ()
        chips.append(Found(m.start(), m.end(), "Hardware", canon(m.group("x")), aliases, "hardware.chip"))
    devices = [Found(m.start(), m.end(), "Hardware", canon(m.group("x")), (), "hardware.device")
               for m in regex(b + r"(?P<x>" + device + code + r")s?" + e).finditer(text)]
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
    chips, devices = _with_maker(text, chips), _with_maker(text, devices)
    # a kind's name that holds one known chip or device and more is that longer name ("Hexagon v62 DSP", "RTX 4070
    # Laptop GPU", "Mac i5 CPU"); any other only where no naming pattern found one
    named = chips + devices
    longer, rest = [], []
    known = regex("(?:" + chip + "|" + device + ")")
    for h in _head_noun_mentions(text, canon):
        if h.canonical in rules.organizations and _DEVICE_KIND.search(text, h.start, h.end):
            continue  # "a Google DeepMind robot": the maker's robot, unnamed
        inside = [f for f in named if h.start <= f.start and f.end <= h.end]
        if not inside and known.match(text, h.start):
            continue  # a known chip's name run into other letters ("A100-80GBX GPUs") is none
        # one known name inside, of a shorter span and another canonical name
        one = len(inside) == 1 and inside[0].canonical != h.canonical and (inside[0].start, inside[0].end) != (h.start, h.end)
        (longer if one else rest).append(h)
    return longer + out + chips + devices + rest


_MAKER_BEFORE = re.compile(r"(?<![\w-])" + _CUES["head_noun_maker"] + r"(?:['’]s)?[ \t]+$")


def _with_maker(text: str, found: list[Found]) -> list[Found]:
    """Each chip or device named after its maker with the maker's name among its other names ("Samsung Galaxy S23",
    "NVIDIA A100"): the name is the device's either way."""
    out = []
    for f in found:
        m = _MAKER_BEFORE.search(text, max(0, f.start - 16), f.start)
        if m:
            maker = text[m.start():f.start].replace("’s", "").replace("'s", "").strip()
            f = Found(f.start, f.end, f.cls, f.canonical, (*f.aliases, f"{maker} {f.canonical}"), f.rule, f.generic)
        out.append(f)
    return out


def _head_noun_mentions(text: str, canon) -> list[Found]:
    """"Blackwell GPU", "Xilinx ZCU102 board", "NVIDIA's Selene supercomputer": a name before a kind of hardware,
    the words that only say which kind or how many read off its start ("On 128 Tesla K40 GPUs": Tesla K40). The
    name without the kind is the canonical one ("Blackwell"), as the chip rules drop "GPU"; the whole phrase and
    the name with its maker are its other names."""
    out = []
    for m in _HEAD_NOUN.finditer(text):
        start, name, maker = m.start("x"), m.group("x") + " ", ""
        for cut in _BREAK.finditer(name):
            start, name = m.start("x") + cut.end(), m.group("x")[cut.end():] + " "
        while (skip := _SKIP.match(name)) is not None:
            maker = name[:skip.end()] if _HW_MAKER.fullmatch(name[:skip.end()]) else ""
            start, name = start + skip.end(), name[skip.end():]
        name = name.strip()
        while (tail := _TAIL.search(name)) is not None:
            name = name[:tail.start()]
        if not name or not any(ch.isalpha() for ch in name):
            continue
        aliases = tuple(dict.fromkeys(a for a in (text[start:m.end()], maker + name if maker else "") if a))
        out.append(Found(start, m.end(), "Hardware", canon(name), aliases, "hardware.head_noun"))
    # the items before the last of a list the plural kind closes: the last is the head noun's above
    for kind in _PLURAL_KIND.finditer(text):
        m = _HEAD_LIST.search(text, max(0, kind.start() - 400), kind.start())
        if m is None:
            continue
        for item in re.finditer(_ITEM, m.group("items")):
            name, a = item.group(0) + " ", m.start("items") + item.start()
            if _BREAK.match(name):
                continue
            while (skip := _SKIP.match(name)) is not None:  # "Intel Arc": the maker is no part of the name
                a, name = a + skip.end(), name[skip.end():]
            name = name.strip()
            if name:  # the name with its maker is its other name, as after the head-noun rule
                aliases = (item.group(0),) if item.group(0) != name else ()
                out.append(Found(a, a + len(name), "Hardware", canon(name), aliases, "hardware.head_noun_list"))
    return out
