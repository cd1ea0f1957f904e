"""Name identity: how a name is normalised, cleaned and keyed. Shared by extraction (``nlp/rules.py``) and
resolution (``resolve.py``), so that neither imports the other."""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

from .vocab import local_name

__all__ = ["norm", "clean", "entity_key", "is_acronym_of", "variants", "first_release", "looks_like_acronym", "PLURAL", "ORG_SUFFIX", "VARIANT", "INITIALS",
           "LEADING"]

ACRONYM_MAX = 8
"""A normalised alias at most this long, other than the name itself, is read as an acronym of the name."""


@lru_cache(maxsize=1 << 15)  # called for every name of every mention, several times: pure, so remember
# (32,768 names: a document's names are normalised together, so a bounded cache keeps them, and memory stays flat)
def norm(name: str) -> str:
    """Normalise a name for identity: NFKC without accents, case-folded, no leading "the", letters and digits only.

    Examples
    --------
    >>> norm("The FlashAttention-2") == norm("FLASHATTENTION2")
    True
    >>> norm("Mix-of-Adapters") == norm("Mix of Adapters")
    True
    >>> norm("ETH Zürich") == norm("ETH Zurich")
    True
    """
    s = (name if name.isascii() else _unaccented(name)).casefold().strip()  # ASCII has nothing to fold
    return _NOT_ALNUM.sub("", _THE.sub("", s, count=1))


def _unaccented(name: str) -> str:
    """NFKC without accents: the letters of "ETH Zürich", "Université de Montréal", "Technische Universität
    München" as the same names are written in ASCII ("ETH Zurich"), so both spellings are one entity."""
    return unicodedata.normalize("NFKC", "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c)))


_THE = re.compile(r"^the\s+")
_NOT_ALNUM = re.compile(r"[\W_]+")
r"""What ``norm`` drops: every character ``str.isalnum`` says no to (``\w`` is alphanumeric or "_")."""


@lru_cache(maxsize=1 << 17)
def clean(label: str) -> str:
    """A name as written, with runs of white space made one space and the ends trimmed.

    >>> clean("  Flash\\n Attention ")
    'Flash Attention'
    """
    return re.sub(r"\s+", " ", label).strip()


def entity_key(cls, label: str) -> str:
    """The identity of an entity: its class and normalised canonical label.

    Examples
    --------
    >>> from pipeline.vocab import MLKG
    >>> entity_key(MLKG.Venue, "ICLR 2025")
    'Venue/iclr2025'
    """
    return f"{local_name(cls)}/{norm(label)}"


def is_acronym_of(alias_norm: str, name_norm: str) -> bool:
    """Whether a normalised alias reads as an acronym of a mention's normalised name (short, and not the name).

    >>> is_acronym_of("cce", "cutcrossentropy"), is_acronym_of("cutcrossentropy", "cce")
    (True, False)
    """
    return alias_norm != name_norm and len(alias_norm) <= ACRONYM_MAX


# Variants: the names a spelling is another form of ------------------------------------------------------------
PLURAL, ORG_SUFFIX, VARIANT, INITIALS, LEADING = "plural", "organisation-suffix", "variant-suffix", "initials", "leading-word"
"""The rules of :func:`variants` (their meanings are ``model.MERGE_RULES``)."""

_CUES = json.loads(Path(__file__).with_name("resolution.json").read_text("utf-8"))
_RULES_OF: dict[str, frozenset] = {}
for _rule, _key in ((PLURAL, "plural_classes"), (VARIANT, "version_classes"), (LEADING, "leading_word_classes"),
                    (INITIALS, "initials_classes")):
    for _cls in _CUES[_key]:
        _RULES_OF[_cls] = _RULES_OF.get(_cls, frozenset()) | {_rule}
_RULES_OF["Organization"] = _RULES_OF.get("Organization", frozenset()) | {ORG_SUFFIX}
_ORG_SUFFIXES = sorted((tuple(c.split()) for c in _CUES["organisation_suffixes"]), key=len, reverse=True)
_STOP = frozenset(_CUES["initials_stop_words"])
_TOKEN = re.compile(r"[\s\-_/]+")
_VERSION = re.compile(r"v\d+(?:\.\d+)*|\d+\.\d+", re.I)
_FIRST_RELEASE = re.compile(r"v1(?:\.0)*|1\.0(?:\.0)*")
"""A version ending that names a first release ("v1", "v1.0", "1.0"): a later one ("v2", "1.5") is another entity,
and so, often, is a model's size ("7B" and "70B", even alone), which is no variant here."""


def first_release(tag: str) -> bool:
    """Whether a variant's tag (:func:`variants`) is a first release's version, which names the bare name's entity.

    >>> first_release("v1.0"), first_release("1.0"), first_release("v2")
    (True, True, False)
    """
    return bool(_FIRST_RELEASE.fullmatch(tag))


_DIGIT = re.compile(r"\d")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def _initials(tokens: list[str]) -> str:
    """The initials of the words: a word in capitals or with digits counts whole ("Sparse Graph Net V3": sgnv3)."""
    out = []
    for t in tokens:
        if t.casefold() in _STOP:
            continue
        out.append(t if t.isupper() or _DIGIT.search(t) else t[0])
    return norm("".join(out))


@lru_cache(maxsize=1 << 17)
def variants(cls_name: str, spelling: str) -> tuple[tuple[str, str, str], ...]:
    """The other names a spelling of class ``cls_name`` may be a form of: ``(rule, normalised name, tag)``, the tag
    being what tells the form apart (a variant's suffix); ``resolve.NameTable`` joins them only when that name is
    an entity of the class too (and, for some rules, only when nothing else claims it).

    >>> variants("Organization", "Brevik National Laboratories")
    (('organisation-suffix', 'brevik', ''), ('initials', 'bnl', ''))
    >>> variants("Dataset", "FooBench v1.0"), variants("Method", "Quokka 2 7B")
    ((('variant-suffix', 'foobench', 'v1.0'), ('initials', 'fv10', '')), (('initials', 'q27b', ''),))
    >>> variants("Method", "GigaNets")
    (('plural', 'giganet', ''), ('initials', 'gn', ''))
    """
    tokens = [t for t in _TOKEN.split(clean(spelling)) if t]
    if len(tokens) > 1 and tokens[0].casefold() == "the":
        tokens = tokens[1:]
    if not tokens:
        return ()
    out = []
    rules = _RULES_OF.get(cls_name, ())
    if PLURAL in rules:
        last = tokens[-1]
        if len(last) > 3 and last[-1] == "s" and last[-2].isalpha() and last[-2] not in "sS" and not last.isupper():
            out.append((PLURAL, norm(" ".join(tokens)[:-1]), ""))
    if ORG_SUFFIX in rules:
        rest = low = [t.casefold() for t in tokens]
        while True:
            cut = next((c for c in _ORG_SUFFIXES if len(rest) > len(c) and tuple(rest[-len(c):]) == c), None)
            if cut is None:
                break
            rest = rest[:-len(cut)]
        if len(rest) < len(low):
            out.append((ORG_SUFFIX, norm(" ".join(rest)), ""))
    if VARIANT in rules and len(tokens) > 1 and _VERSION.fullmatch(tokens[-1]):
        out.append((VARIANT, norm(" ".join(tokens[:-1])), tokens[-1].casefold()))  # every version: a later one keeps v1 apart
    if LEADING in rules and len(tokens) > 1 and tokens[0][:1].isupper():
        rest = tokens[1:]  # a maker's or a product line's name before a product's: "Zentrix Zyrn Z9", "Zyrn Z9"
        if len(rest) > 1 or _DIGIT.search(rest[0]):  # not a bare class word ("Zentrix GPU")
            out.append((LEADING, norm(" ".join(rest)), ""))
    if INITIALS in rules and len(tokens) <= ACRONYM_MAX:
        words = tokens if len(tokens) > 1 else _CAMEL.findall(tokens[0]) if not tokens[0][1:].islower() else ()
        if len(words) > 1:
            out.append((INITIALS, _initials(words), ""))
    return tuple(dict.fromkeys(v for v in out if v[1]))


def looks_like_acronym(spelling: str) -> bool:
    """Whether a spelling reads as an acronym: two capitals or more, and no more small letters than capitals.

    >>> looks_like_acronym("WIR"), looks_like_acronym("SGv3"), looks_like_acronym("Zyrn")
    (True, True, False)
    """
    upper = sum(c.isupper() for c in spelling)
    return upper >= 2 and upper >= sum(c.islower() for c in spelling)
