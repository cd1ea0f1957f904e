"""Name identity: how a name is normalised, cleaned and keyed. Shared by extraction (``nlp/rules.py``) and
resolution (``resolve.py``), so that neither imports the other."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .vocab import local_name

__all__ = ["norm", "clean", "entity_key", "is_acronym_of"]

ACRONYM_MAX = 8
"""A normalised alias at most this long, other than the name itself, is read as an acronym of the name."""


@lru_cache(maxsize=1 << 15)  # called for every name of every mention, several times: pure, so remember
# (32,768 names: a document's names are normalised together, so a bounded cache keeps them, and memory stays flat)
def norm(name: str) -> str:
    """Normalise a name for identity: NFKC, case-folded, no leading "the", letters and digits only.

    Examples
    --------
    >>> norm("The FlashAttention-2") == norm("FLASHATTENTION2")
    True
    >>> norm("Mix-of-Adapters") == norm("Mix of Adapters")
    True
    """
    s = (name if name.isascii() else unicodedata.normalize("NFKC", name)).casefold().strip()  # ASCII is NFKC already
    return _NOT_ALNUM.sub("", _THE.sub("", s, count=1))


_THE = re.compile(r"^the\s+")
_NOT_ALNUM = re.compile(r"[\W_]+")
"""What ``norm`` drops: every character ``str.isalnum`` says no to (``\w`` is alphanumeric or "_")."""


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
