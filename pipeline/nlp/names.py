"""Method and dataset names: by shape, by lexicon, and by the words around them; their class by context votes."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter, defaultdict
from functools import lru_cache

from spacy.tokens import Doc

from .english import english
from .occurrences import NameFinder
from .rules import Found, NUMBERED_WORDS, is_strong_name, load_rules, norm
from .titles import is_label
from .text import CELL_BREAK, MONTHS, cue, line_end, regex

_CUES = load_rules().cue_patterns["names"]


@lru_cache(maxsize=64)
def _fill(pattern: str, **parts: str) -> str:
    """A cue pattern of cues.json with its ``{part}`` places filled in (the rule data's head-noun alternations and the
    shapes of a name, which the module builds). Remembered: the rules fill the same few for every document, and a
    filled pattern made again (thousands of characters) was hashed again by every cache it is looked up in."""
    for key, value in parts.items():
        pattern = pattern.replace("{" + key + "}", value)
    return pattern


_OPENERS = frozenset(_CUES["sentence_openers"].split("|"))
"""Words that open a demo list's item, not name it ("The", "Our")."""
_DETERMINERS = frozenset(_CUES["determiners"].split("|"))
_NOT_PROPOSED = frozenset(_CUES["not_proposed"].split("|"))
_APPOSITIVE_BEFORE = re.compile(_CUES["appositive_before"])

__all__ = ["name_candidates"]


@lru_cache(maxsize=8)
def _versioned_pattern(names: frozenset[str]) -> re.Pattern:
    """A known method followed by a version or a size ("NAME 3", "NAME 2.5 7B")."""
    first = "".join(sorted({re.escape(n[0]) for n in names}))  # a look-ahead on the first letters turns most positions away
    return re.compile(r"(?<![\w-])(?=[" + first + r"])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                      + r")((?:[ \t]+\d+(?:\.\d+)?)(?:[ \t]+\d+(?:\.\d+)?[BMK])?|[ \t]+\d+(?:\.\d+)?[BMK])(?![\w-])")


_MODEL_SIZE = re.compile(_CUES["model_size"])
_ADJECTIVE_SUFFIX = re.compile(_CUES["adjective_suffix"])
_DATASET_SHAPE = re.compile(_CUES["dataset_shape"])
_NAME_RE = re.compile(r"(?<![\w-])([A-Za-z][A-Za-z0-9]*(?:[-/.][A-Za-z0-9]+)*)(?![\w-])")
_LM_SUFFIX = re.compile(_CUES["lm_suffix"])
_VERSION_SUFFIX = re.compile(_CUES["version_suffix"])



_DS_WORD = r"(?:[A-Z]|[a-z]{1,6}[A-Z])[\w-]*"  # "MedQA", "iNaturalist", "nuScenes"
_DS_MORE = r"(?:\s+(?:[A-Z][\w-]*|\d{1,4}[kK]?|v\d+(?:\.\d+)?))"  # "... 2021", "LongBench v2"
_DS_ITEM = r"(?:[A-Z][a-z]{1,2}\.\s+)?[A-Z][\w-]*(?:\s+(?:[A-Z][\w-]*|\d{1,4}[kK]?)){0,3}"

# a dataset name: capitalised ("MedQA", "Long Range Arena"), or lower-case with a hyphen ("ogbg-molhiv")
_NAME_ITEM = (r"(?:(?:[A-Z]|\d[A-Za-z])[\w-]*(?:\.\d+)?(?:[ \t]+(?:[A-Z][\w-]*|\d{1,3}[kK]?(?![\w.%])|(?:19|20)\d{2}(?![\w.%])|v\d+(?:\.\d+)?)(?:\.\d+)?){0,3}"
              r"|[a-z]{1,6}[A-Z][\w-]*|[a-z][a-z0-9]*-[a-z0-9-]*[a-z0-9]|[a-z]{3,}\d+[a-z0-9]*)")
_SEP = _CUES["list_separator"]
_EVAL_CUE = re.compile(_CUES["eval_cue"])
_ON_LIST = re.compile(_fill(_CUES["on_list"], name_item=_NAME_ITEM, sep=_SEP))
_SPAN_LIST = re.compile(_fill(_CUES["span_list"], name_item=_NAME_ITEM, sep=_SEP))


class _Spans:
    """Character spans that may overlap: whether a position falls inside one, by bisection."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        spans = sorted(spans)
        self.starts = [a for a, _ in spans]
        self.reach: list[int] = []  # the furthest end among the spans starting at or before each one
        best = -1
        for _, b in spans:
            best = max(best, b)
            self.reach.append(best)

    def holds(self, at: int) -> bool:
        """Whether some span has ``start <= at < end``."""
        k = bisect_right(self.starts, at) - 1
        return k >= 0 and self.reach[k] > at


class _Votes:
    """What the name rules of one document share: the candidates found, the class votes by normalised name,
    the first surface form of each name, and the text the rules read."""

    def __init__(self, text: str, sentences, rules, titles: list[Found], lexicon: dict | None) -> None:
        self.text, self.rules, self.titles, self.lexicon = text, rules, titles, lexicon
        self.sent_starts = {s for s, _ in sentences}
        self.votes: dict[str, Counter] = defaultdict(Counter)
        self.surface: dict[str, str] = {}
        self.cands: list[tuple[int, int, str]] = []
        self.dheads = rules.dataset_heads_alternation
        self.mheads = rules.method_heads_alternation
        self.shouting = _Spans(_shouting(text))

    def vote(self, name: str, cls: str, w: int = 1) -> None:
        """One vote of weight ``w`` that ``name`` is of class ``cls`` (unless it is a generic word, an adjective,
        an organization...)."""
        rules, votes, surface = self.rules, self.votes, self.surface
        generic_norms = rules.generic_norms
        key = norm(name)
        if not key or "\n" in name or (sum(ch.isalpha() for ch in name) < 2 and not (cls == "Dataset" and re.fullmatch(r"[A-Z][1-9]\d?", name))):
            return
        first = re.split(r"[/-]", name)[0] if " " not in name else name
        if key in generic_norms or key.rstrip("s") in generic_norms or (norm(first) in generic_norms and not (
                cls == "Dataset" and _DATASET_SHAPE.search(name)) and name not in rules.known_methods
                and name not in rules.known_datasets):  # "SKU-110K" is a dataset and "RNN-T" a method, "SKU", "RNN" words
            return
        if name.lower() in rules.method_heads or name.lower() in rules.dataset_heads or _ADJECTIVE_SUFFIX.search(name):
            return  # "BEIR-style collections": an adjective, not a name
        if name in rules.organizations:
            return
        if name.split()[0] in rules.organizations and not is_strong_name(name.split()[-1], rules.generic) and not (
                cls == "Dataset" and w >= 4):  # "Google Research" is no method; "the Amazon Sports dataset" is a dataset
            return
        if w == 1:  # shape alone: one vote per name, however often it occurs
            votes[key][cls] = max(votes[key][cls], 1)
        else:
            votes[key][cls] += w
        surface.setdefault(key, name)


def _shouting(text: str) -> list[tuple[int, int]]:
    """Capitals that are typography, not names: all-caps heading lines ("ABOUT THE RESEARCH"), datelines
    ("TORONTO, August 4, 2025 --"), and people's names on author lines ("MacLeod", "DeVries")."""
    shouting = [(m.start(), m.end()) for m in cue(_CUES["caps_line"]).finditer(text)]
    shouting += [(m.start(), m.end(1)) for m in cue(_fill(_CUES["dateline"], months="|".join(MONTHS))).finditer(text)]
    shouting += [(m.start(1), m.end(1)) for m in cue(_CUES["caps_run"]).finditer(text)]  # "AUTUMN NEWSLETTER 2025"
    shouting += [(m.start(), m.end()) for m in cue(_CUES["byline"]).finditer(text)]
    return shouting


def name_candidates(doc: Doc, text: str, sentences, rules, taken: list[Found], titles: list[Found],
                    lexicon: dict | None = None) -> list[Found]:
    """Method and dataset names: by shape, by lexicon, and by the words around them; class by context votes."""
    v = _Votes(text, sentences, rules, titles, lexicon)
    for family in _FAMILIES:
        family(v)
    return _emit(v)


def _by_shape(v: _Votes) -> None:
    """Strong shapes and lexicon names, with a version, size or suffix written after them."""
    text, rules, vote, cands = v.text, v.rules, v.vote, v.cands
    shouting = v.shouting
    known_words = rules.known_words
    for m in _NAME_RE.finditer(text):
        w = m.group(1)
        if w.islower() and w.isalpha() and w not in known_words:
            continue  # a plain lower-case word ("the", "model"): no shape below holds for it, so it names nothing
        if shouting.holds(m.start()):
            continue
        w = w.rstrip(".")
        adj = _ADJECTIVE_SUFFIX.search(w)
        if adj and adj.start() >= 2:  # "FogForge-trained detectors", "LiDAR-free": the name is before the hyphen
            w = w[:adj.start()]
        end = m.start() + len(w)
        lm = _LM_SUFFIX.match(text, end)
        if lm and w.isupper() and len(w) >= 3:
            w, end = w + lm.group(0).replace("\t", " "), lm.end()
        # a version or size written after the name is part of it: "FastSpeech 2", "VideoMAE V2", "Mip-NeRF 360"
        ver = _VERSION_SUFFIX.match(text, end)
        base = w
        if ver and (is_strong_name(w, rules.generic) or w in rules.known_datasets) and (
                w not in rules.known_methods or ver.group(0).strip()[0] in "vV"):
            w, end = w + ver.group(0).replace("\t", " "), ver.end()
        if w in rules.conf_acronyms or w in rules.generic:
            continue
        # a parameter count or a size variant after a name makes it a model's: "Mixtral 8x22B", "Qwen3 1.7B",
        # "Llama 2 70B", "Whisper large-v3"
        size = _MODEL_SIZE.match(text, end)
        if size and w[0].isupper() and w not in NUMBERED_WORDS and w not in rules.known_datasets \
                and (size.group(1) or size.group(2) or is_strong_name(w, rules.generic) or w in rules.known_methods):
            w, end = w + size.group(0).replace("\t", " "), size.end()
            vote(w, "Method", 2)
        elif w in rules.known_datasets or base in rules.known_datasets:
            vote(w, "Dataset", 3)  # "AlpacaEval 2.0": a version of a known dataset
        elif w in rules.known_methods:
            vote(w, "Method", 3)
        elif is_strong_name(w, rules.generic):
            vote(w, "Method", 1)
        else:
            continue
        cands.append((m.start(), end, w))


def _known_names(v: _Votes) -> None:
    """Known methods with a version or size, and the lexicon's names of several words."""
    text, rules, vote, cands = v.text, v.rules, v.vote, v.cands
    lexicon = v.lexicon
    versioned = _versioned_pattern(frozenset(rules.known_methods))
    for m in versioned.finditer(text):
        vote(m.group(0), "Method", 3)
        cands.append((m.start(), m.end(), m.group(0)))
    if lexicon is not None:  # known names of several words, found by the PhraseMatcher
        for cls in ("Method", "Dataset"):
            for a, b in lexicon.get(cls, []):
                vote(text[a:b], cls, 3)
                cands.append((a, b, text[a:b]))
    else:
        for lex, cls in ((rules.known_methods, "Method"), (rules.known_datasets, "Dataset")):
            for name in sorted(lex):
                if " " in name and name in text:  # the pattern matches the name literally: absent, nothing to find
                    for m in regex(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])").finditer(text):
                        vote(name, cls, 3)
                        cands.append((m.start(), m.end(), name))


def _by_dataset_head(v: _Votes) -> None:
    """"X dataset", "the X and Y datasets", "datasets including X and Y", "X, a ... benchmark"."""
    text, rules, vote, cands = v.text, v.rules, v.vote, v.cands
    sent_starts, dheads, mheads, ds_word, ds_more, ds_item = v.sent_starts, v.dheads, v.mheads, _DS_WORD, _DS_MORE, _DS_ITEM
    for m in cue(_fill(_CUES["name_then_head"], ds_word=ds_word, ds_more=ds_more, dheads=dheads)).finditer(text):
        if m.start() in sent_starts and not any(is_strong_name(w, rules.generic) for w in m.group(1).split()):
            continue
        if _APPOSITIVE_BEFORE.search(text[max(0, m.start() - 80):m.start()]):
            continue  # "SwaText, the 48-billion-token Swahili corpus": the appositive names SwaText, not "Swahili"
        if m.group(2) and not m.group(3).endswith(("s", "corpora")) and text[m.end(1):m.start(2)].strip() == "and" \
                and not any(is_strong_name(w, rules.generic) for w in (m.group(1) + " " + m.group(2)).split()):
            # "the Tanks and Temples dataset": one name, a singular head noun after plain words
            vote(text[m.start(1):m.end(2)], "Dataset", 4)
            cands.append((m.start(1), m.end(2), text[m.start(1):m.end(2)]))
            continue
        for g in (1, 2):
            if m.group(g):
                vote(m.group(g), "Dataset", 4)
                cands.append((m.start(g), m.end(g), m.group(g)))
    for m in cue(_fill(_CUES["name_with_head"], ds_word=ds_word)).finditer(text):  # "the DeepSeekMath Corpus"
        words, a = m.group(1).split(), m.start(1)
        while len(words) > 1 and (words[0] in _OPENERS or words[0] in _DETERMINERS):  # "The DeepSeekMath Corpus holds"
            a = text.index(words[1], a + len(words[0]))
            words = words[1:]
        bare = " ".join(words[:-1])
        if len(words) > 1 and bare not in rules.known_datasets and any(is_strong_name(w, rules.generic) for w in words[:-1]):
            vote(text[a:m.end(1)], "Dataset", 4)  # (its name without the head noun is its other name)
            v.surface.setdefault(norm(text[a:m.end(1)]) + "#head", bare)
            cands.append((a, m.end(1), text[a:m.end(1)]))
    # a head noun before the name: "the hate speech corpus HateXplain" (a noun: "we benchmark X" is a verb)
    for m in cue(_fill(_CUES["head_then_name"], ds_word=ds_word)).finditer(text):
        if is_strong_name(m.group(1).split()[0], rules.generic) or m.group(1) in rules.known_datasets:
            vote(m.group(1), "Dataset", 4)
            cands.append((m.start(1), m.end(1), m.group(1)))
    # "three text classification datasets, SST-2, AG News and HateXplain": the list after a comma
    for m in cue(_fill(_CUES["datasets_then_list"], ds_word=ds_word, ds_more=ds_more)).finditer(text):
        for item in re.finditer(ds_word + ds_more + r"{0,2}", m.group(1)):
            vote(item.group(0), "Dataset", 4)
            cands.append((m.start(1) + item.start(), m.start(1) + item.end(), item.group(0)))
    ds_item = r"(?:[A-Z][a-z]{1,2}\.\s+)?[A-Z][\w-]*(?:\s+(?:[A-Z][\w-]*|\d{1,4}[kK]?)){0,3}"
    for m in cue(_fill(_CUES["heads_including"], dheads=dheads, ds_item=ds_item)).finditer(text):
        for item in re.finditer(ds_item, m.group(1)):
            vote(item.group(0), "Dataset", 4)
            cands.append((m.start(1) + item.start(), m.start(1) + item.end(), item.group(0)))
    for m in cue(_fill(_CUES["dataset_apposition"], dheads=dheads)).finditer(text):
        vote(m.group(1), "Dataset", 6)
    for m in cue(_fill(_CUES["method_apposition"], mheads=mheads)).finditer(text):
        if m.start() in sent_starts and not is_strong_name(m.group(1), rules.generic):
            continue
        vote(m.group(1), "Method", 2)
        cands.append((m.start(1), m.end(1), m.group(1)))


_DATASET_COLUMN = re.compile(_CUES["dataset_column"], re.I)
_DATASET_WORD = re.compile(r"(?<![\w-])(?:" + _CUES["dataset_column"] + r")(?![\w-])", re.I)
_SUMMARY_ROW = re.compile(_CUES["summary_row"])
_TABLE_RULE = re.compile(_CUES["table_rule"])
_CELL_WORD = r"(?:[A-Z\d][\w.+/-]*|[a-z]+[A-Z\d][\w.+/-]*|[a-z]{1,3})"
_CELL_NAME = re.compile(r"(?:[A-Z]|\d[A-Za-z]|[a-z]+[A-Z\d])[\w.+/-]*(?:[ \t]+" + _CELL_WORD + r"){0,5}")
"""A name in a table's cell: every word capitalised, with a digit or a capital inside ("enwik8", "mC4"), or a short
joining word ("Tanks and Temples"); "Harry Potter familiarity score" is a description."""


def _cells(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """The cells of the table row ``text[a:b]`` (cut at a ``|`` or a column gap), as offsets without the spaces and
    the outer bars around them."""
    while a < b and text[a] in " \t|":
        a += 1
    while b > a and text[b - 1] in " \t|":
        b -= 1
    cells, at = [], a
    for m in CELL_BREAK.finditer(text, a, b):
        if m.start() > at:
            cells.append((at, m.start()))
        at = m.end()
    if b > at:
        cells.append((at, b))
    return cells


def _by_table_column(v: _Votes) -> None:
    """The cells of a results table's column headed "benchmark", "dataset" or "task" name datasets, in a pipe table
    or one aligned by spaces ("dataset | WER", "Benchmark      score", then a row a line: "Common Voice 17.0 | 12.7")."""
    text = v.text
    heads = sorted({text.rfind("\n", 0, m.start()) + 1 for m in _DATASET_WORD.finditer(text)})
    done = -1
    for a in heads:  # each line with a column's word in it
        if a <= done:
            continue  # a row of a table already read
        b = line_end(text, a)
        head = _cells(text, a, b)
        cols = [j for j, (x, y) in enumerate(head) if _DATASET_COLUMN.fullmatch(text[x:y])]
        if len(head) >= 2 and len(cols) == 1:
            done = _table_rows(v, b, len(head), cols[0])


def _table_rows(v: _Votes, b: int, width: int, col: int) -> int:
    """Vote the cells of column ``col`` of the rows after the header line that ends at ``b``, up to a blank line or a
    line that is no row; the offset where the table ends."""
    text, vote, cands = v.text, v.vote, v.cands
    while b < len(text) and (a := b + 1) < len(text) and text[a] != "\n":  # rows follow line by line
        b = line_end(text, a)
        if _TABLE_RULE.fullmatch(text, a, b):
            continue
        row = _cells(text, a, b)
        if len(row) < 2 or (len(row) != width and col):
            return a
        x, y = row[col]
        y = x + len(re.sub(r"\s*(?:\([^()]*\)|\[[^\]]*\]|[*†‡]+)$", "", text[x:y]))  # "Free Music Archive (FMA)"
        for item in re.finditer(r"[^,;]+", text[x:y]):  # "BABEL, MLS, CommonVoice": one name a part
            w = item.group(0).strip()
            at = x + item.start() + item.group(0).index(w) if w else x
            if _CELL_NAME.fullmatch(w) and not _SUMMARY_ROW.fullmatch(w):
                vote(w, "Dataset", 4)
                cands.append((at, at + len(w), w))
    return b


def _by_evaluation(v: _Votes) -> None:
    """What is evaluated, demoed or run is a method; what results are reported on is a dataset."""
    text, rules, vote, cands = v.text, v.rules, v.vote, v.cands
    # "Evaluating Chronos-Bolt, TimesFM 2.0 and Moirai on X", "We benchmark A and B on X": what is evaluated on
    # a dataset is a method
    for m in cue(_CUES["evaluated_list"]).finditer(text):
        for item in re.finditer(r"[A-Z][\w.-]*(?:[ \t]+\d+(?:\.\d+)?)?", m.group(1)):
            w = item.group(0).rstrip(".")
            if w not in rules.generic and w not in rules.conf_acronyms and w not in rules.known_datasets and w not in rules.organizations:
                vote(w, "Method", 2)
                cands.append((m.start(1) + item.start(), m.start(1) + item.start() + len(w), w))
    # the items of a demo list ("... live demos at booth #412, including:\n- Parley: Parley is a voice
    # assistant ...") are named by their first word or words
    for m in cue(_CUES["demo_list"]).finditer(text):
        for item in re.finditer(r"(?m)^[ \t]*(?:[-•*][ \t]+)?([A-Z][\w.-]*(?:[ \t]+[A-Z0-9][\w.-]*){0,2})[ \t]*(?::|[–—]|[ \t]-[ \t])", m.group(1)):
            name = item.group(1)
            if name not in rules.generic and name.split()[0] not in rules.organizations and name.split()[0] not in _OPENERS:
                vote(name, "Method", 2)
                cands.append((m.start(1) + item.start(1), m.start(1) + item.end(1), name))
    # "edit pictures with Petal running entirely on a Pixel 10 Pro": a name running on something is a method;
    # "Lookout was demonstrated at ...", "we demoed Lookout on ...": so is a name demonstrated somewhere
    for m in (*cue(_CUES["running_on"]).finditer(text), *cue(_CUES["demoed_name"]).finditer(text)):
        name, at = m.group(m.lastindex), m.start(m.lastindex)  # the one name group that matched
        if name not in rules.generic and name.split()[0] not in rules.organizations and name.split()[0] not in _OPENERS \
                and name not in rules.conf_acronyms:
            vote(name, "Method", 2)
            cands.append((at, at + len(name), name))
    # evaluation contexts: "<number> for X", "on X" after a result cue
    for m in cue(_CUES["number_on"]).finditer(text):
        vote(m.group(1), "Dataset", 3)
    for m in cue(_CUES["result_on"]).finditer(text):
        vote(m.group(1), "Dataset", 3)


def _evaluated_on_lists(v: _Votes) -> None:
    """Lists of dataset names after "Experiments span", after a noun naming datasets ("tasks: A, B and C") and after
    "on" in a result's sentence."""
    text, rules, vote, cands = v.text, v.rules, v.vote, v.cands
    dheads, name_item, sep, eval_cue, on_list = v.dheads, _NAME_ITEM, _SEP, _EVAL_CUE, _ON_LIST
    # "Experiments span A, B and the C": a list of datasets after an experiments verb; "the GLUE tasks: A, B and C",
    # "the benchmarks A and B", "datasets such as A, B or C": after a noun that names datasets
    span_list = _SPAN_LIST
    for m in (*cue(_CUES["experiments_span"]).finditer(text), *cue(_CUES["dataset_noun_list"]).finditer(text)):
        lst = span_list.match(text, m.end())
        if lst and re.search(_CUES["and_or"], lst.group(1)):
            for item in re.finditer(name_item, lst.group(1)):
                w = item.group(0).rstrip(".")  # "... RTE and STS-B." ends the sentence
                vote(w, "Dataset", 3)
                cands.append((lst.start(1) + item.start(), lst.start(1) + item.start() + len(w), w))

    def in_eval_context(at: int) -> bool:
        """An "on X" at ``at`` opens its sentence or follows a result cue in the same sentence."""
        window = text[max(0, at - 90):at]
        window = re.split(r"[.;:](?!\d)\s|\n", window)[-1]
        return not window.strip() or bool(eval_cue.search(window))

    for m in on_list.finditer(text):
        if not in_eval_context(m.start()):
            continue
        items = list(re.finditer(name_item, m.group(1)))
        while len(items) > 1 and not re.search(_CUES["and_or"], m.group(1)[items[-2].end():items[-1].start()]):
            items.pop()  # a list ends "Y and Z": in "on X, Driftless reaches" the comma closes a fronted phrase
        for item in items:
            w = item.group(0).rstrip(".")
            after = text[m.start(1) + item.end():m.start(1) + item.end() + 12]
            if w[0].islower() and (not re.match(_CUES["item_end"], after)
                                   or re.match(_fill(_CUES["adjective_before_noun"], dheads=dheads),
                                               text[m.start(1) + items[-1].end():m.start(1) + items[-1].end() + 20])):
                continue  # "on large-scale data", "on real-world tasks": a lower-case word before a noun is an adjective
            if w in rules.conf_acronyms or re.match(_CUES["device_words"], w):
                continue
            vote(w, "Dataset", 3)
            cands.append((m.start(1) + item.start(), m.start(1) + item.start() + len(w), w))


def _by_method_cue(v: _Votes) -> None:
    """A method's head noun, class noun lists, "called X", "we propose X"."""
    text, rules, vote, surface, cands = v.text, v.rules, v.vote, v.surface, v.cands
    sent_starts, mheads = v.sent_starts, v.mheads
    # capitalised name + head noun: "the Adam optimizer", "Foundation Models framework"
    for m in cue(_fill(_CUES["name_then_method_head"], mheads=mheads)).finditer(text):
        if m.start() in sent_starts or m.group(1).split()[0] in _DETERMINERS:
            continue
        if all(not is_strong_name(w, rules.generic) for w in m.group(1).split()) and len(m.group(1).split()) == 1 and m.group(1) not in rules.known_methods:
            # a single plain capitalised word needs a stronger cue than a head noun
            # "the Adam optimizer", "a chunked Conformer encoder": an article, perhaps one lower-case modifier
            if not re.search(_CUES["article_before"], text[max(0, m.start() - 24):m.start()]):
                continue
        if m.group(1) in rules.generic or m.group(1).split()[-1] in rules.generic:
            continue
        vote(m.group(1), "Method", 2)
        cands.append((m.start(1), m.end(1), m.group(1)))
        surface.setdefault(norm(m.group(1)) + "#head", f"{m.group(1)} {m.group(2)}")
    # names in lists after a class noun: "SSMs like Mamba", "Transformers (Pythia, Mistral)"
    for m in cue(_CUES["methods_like"]).finditer(text):
        for item in re.finditer(r"[A-Z][\w.-]*", m.group(1)):
            w = item.group(0).rstrip(".")
            if w in rules.generic or w in rules.conf_acronyms:
                continue
            vote(w, "Method", 2)
            cands.append((m.start(1) + item.start(), m.start(1) + item.start() + len(w), w))
    # "called X", "named X", "dubbed X"
    for m in cue(_CUES["called"]).finditer(text):
        vote(m.group(1), "Method", 2)
        cands.append((m.start(1), m.end(1), m.group(1)))
    # "we propose/introduce/present X" where X is capitalised
    for m in cue(_CUES["we_propose"]).finditer(text):
        name = m.group(1)
        if name in rules.generic or name.split()[0] in _NOT_PROPOSED:
            continue
        if m.group(2) and not is_strong_name(name, rules.generic) and m.group(2).strip() not in rules.function_words \
                and m.group(2).strip() not in rules.method_heads and m.group(2).strip() not in rules.dataset_heads:
            name = name + m.group(2)
            vote(name, "Method", 2)
            cands.append((m.start(1), m.start(1) + len(name), name))
        else:
            vote(name, "Method", 2)
            cands.append((m.start(1), m.end(1), name))


def _title_prefixes(v: _Votes) -> None:
    """A title's prefix "Name: Subtitle" (or "Name - Subtitle", "Name — Subtitle") names a method or a dataset: a
    prefix with a word of a name's shape, one the text names again, or one word of its own (``_coined_prefix``)."""
    text, rules, vote, surface, cands = v.text, v.rules, v.vote, v.surface, v.cands
    titles, mheads = v.titles, v.mheads
    for t in titles:
        title = text[t.start:t.end]
        m = regex(_fill(_CUES["title_prefix"], mheads=mheads), re.I).match(title)
        if not m:
            continue
        name = m.group(1).strip()
        words = name.split()
        if any(w.lower() in rules.function_words for w in words) or is_label(words[0]):
            continue  # "Event: IJCB 2023, ...", "Block 2: HMR from RGB": a line's label
        key = norm(name)
        elsewhere = sum(1 for mm in re.finditer(re.escape(name), text, re.I) if not (t.start <= mm.start() < t.end))
        if any(is_strong_name(w, rules.generic) for w in words) or elsewhere or _coined_prefix(name, rules):
            # "Canopy: A Benchmark for Web Agents" names a dataset, "Quill: Learning to Prove" a method
            kind = "Dataset" if re.match(_CUES["dataset_subtitle"], title[m.end():], re.I) else "Method"
            vote(name, kind, 2 if kind == "Method" else 4)
            cands.append((t.start + m.start(1), t.start + m.start(1) + len(name), name))
            surface.setdefault(key, name)


_PREFIX_VERB_FORM = re.compile(_CUES["prefix_verb_form"])


def _coined_prefix(name: str, rules) -> bool:
    """Whether a title's one-word prefix names what the paper introduces though neither its shape nor a second
    mention says so ("Magellan: Autonomous Discovery of ...", "Orca: A Distributed Serving System ..."): a word that
    is no label of the item ("Demo: ", "Tutorial: ", ``titles.is_label``), no verb form that opens a title's phrase
    ("Scaling: ", "Revisited: ", ``prefix_verb_form``), no generic word, organization or conference, and capitalised
    unless no dictionary holds it ("fairseq: ..."). In the gold of the trained sets, a paper's one-word title prefix
    is a name it introduces 723 times in 738 (a prefix of two words 66 in 98: those still need a name's shape)."""
    if " " in name or len(name) < 2 or name in rules.generic or name in rules.organizations \
            or name in rules.conf_acronyms or is_label(name) or not any(map(str.isalpha, name)):
        return False
    if _PREFIX_VERB_FORM.fullmatch(name) and english(name.lower()):
        return False
    return name[0].isupper() or not english(name.lower())


def _by_relation(v: _Votes) -> None:
    """What a method or dataset extends, builds on, uses or beats is of its class; a dataset by its shape."""
    text, rules, vote, votes, surface, cands = v.text, v.rules, v.vote, v.votes, v.surface, v.cands
    # code names of a known method's companions: "MLX, mlx-lm and ..."
    for m in cue(r"(?<![\w-])([a-z][a-z0-9]*)([-_][a-z0-9]+)+(?![\w-])").finditer(text):
        if votes.get(norm(m.group(1)), Counter())["Method"] >= 1 and m.group(1) not in rules.function_words:
            vote(m.group(0), "Method", 2)
            cands.append((m.start(), m.end(), m.group(0)))
    # what a method or dataset extends, builds on, uses or beats is of its class: "Marrow extends MedQA" (datasets),
    # "DRAFTWISE extends Medusa", "it is a direct successor of our earlier Hydra" (methods)
    for m in cue(_CUES["related_name"]).finditer(text):
        c = votes.get(norm(m.group(1)))
        o = m.group(2)
        if o in rules.generic or o.split()[0] in rules.generic or o in rules.conf_acronyms or o.split()[0] in rules.organizations \
                or not re.search(r"[A-Z]|\d|\.", o) or o.lower() in rules.function_words:
            continue
        if c and c["Dataset"] > c["Method"]:
            vote(o, "Dataset", 3)
        elif (c and c["Method"]) or m.group(1).lower() == "it":
            vote(o, "Method", 2)
        else:
            continue
        cands.append((m.start(2), m.end(2), o))
    # a benchmark's or a corpus's name by its shape: "...Bench", "...QA", "...Eval", a size in thousands or
    # millions of items ("FairGrade-5K", "MovieLens-1M"); and "X, a set/split/suite of ...", "We construct X"
    for key, c in list(votes.items()):
        name = surface.get(key, "")
        if c["Method"] and not c["Dataset"] and (_DATASET_SHAPE.search(name) or re.split(r"-", name)[0] in rules.known_datasets):
            vote(name, "Dataset", 2)  # ... and variants of a known dataset: "ImageNet-R", "ImageNet-Sketch"
    for m in cue(_CUES["dataset_made"]).finditer(text):
        name = m.group(1) or m.group(2)
        vote(name, "Dataset", 6)
        cands.append((m.start(1) if m.group(1) else m.start(2), m.end(1) if m.group(1) else m.end(2), name))
    for m in cue(_CUES["used_as_data"]).finditer(text):
        vote(m.group(1), "Dataset", 4)  # "using FineWeb-Edu as the pretraining corpus"
        cands.append((m.start(1), m.end(1), m.group(1)))
    for m in cue(_CUES["extends_dataset"]).finditer(text):
        c = votes.get(norm(m.group(2)))
        if c and c["Dataset"] > c["Method"] and norm(m.group(1)) in votes:
            vote(m.group(1), "Dataset", 3)  # what extends a dataset is a dataset: "ChartStack extends ChartQA"


_LIST_ITEM = r"(?:[A-Z][\w+-]*(?:\.[\w+-]+)*(?:[ \t]+(?:[A-Z][\w+-]*(?:\.[\w+-]+)*|\d[\w]*(?:\.\d+)?))?|[a-z]{1,6}[A-Z\d][\w-]*(?:\.[\w-]+)*)"
"""One item: a dot only inside it ("Llama 3.1"): "RealWorldQA. On" ends a sentence."""
_LIST_RUN = re.compile(r"(?<![\w-])" + _LIST_ITEM + r"(?:,[ \t]+" + _LIST_ITEM + r")*")
_LIST_END = re.compile(r",?[ \t]+(?:and|or)[ \t]+(" + _LIST_ITEM + r")(?![\w-]|[ \t]+[A-Z])")
"""A coordinated list of names on one line: a run of names set apart by commas ("Cars, DTD, EuroSAT"), then "and" or
"or" and its last ("and GTSRB"; not the start of a longer name: "MLX and Sharp Monocular View Synthesis ..." is a
title); read in one pass over the text, the runs one after the other."""


_BARE_ITEMS = 3
_BARE_END = re.compile(r"[.;]?[ \t]*(?:\n|$)")
"""A list with no "and" before its last name is one when it holds three names and ends its line ("Training data:
COCO, AI Challenger, CrowdPose, MPII, Halpe"), with two of them shown as of one class."""


def _by_list_mates(v: _Votes) -> None:
    """The items of one coordinated list are of one class: a name listed with names the document shows as datasets
    (and none as methods) is a dataset, and the same way round for methods ("task vectors for Cars, DTD, EuroSAT,
    MNIST and SVHN", "outperforms Mamba2 and Gated DeltaNet"; ``_BARE_END``: a list closing its line needs no "and").
    A plain word needs a mate with more than its shape's vote."""
    text, rules, vote, votes, cands = v.text, v.rules, v.vote, v.votes, v.cands
    before = {k: (("Dataset" if c["Dataset"] > c["Method"] else "Method"), sum(c.values())) for k, c in votes.items() if c}
    skip = rules.function_words
    for run in _LIST_RUN.finditer(text):
        last = _LIST_END.match(text, run.end())
        items = [(run.start() + i.start(), run.start() + i.end()) for i in re.finditer(_LIST_ITEM, run.group(0))][-16:]
        if last is not None:
            items.append((last.start(1), last.end(1)))
        elif len(items) < _BARE_ITEMS or not _BARE_END.match(text, run.end()):
            continue
        known = [before.get(norm(text[a:b].rstrip("."))) for a, b in items]
        classes = {k[0] for k in known if k and k[1] >= 2}
        if len(classes) != 1:
            continue
        cls = classes.pop()
        sure = sum(1 for k in known if k and k[1] >= 2)
        if last is None and sure < 2:
            continue  # a list with no "and": two of its names say its class
        for (a, b), k in zip(items, known):
            w = text[a:b].rstrip(".")
            if k and k[1] >= 2 or w.lower() in skip or a in v.sent_starts or w in rules.organizations \
                    or w.split()[0] in _DETERMINERS or w.split()[0] in _OPENERS:
                continue
            if k is None and cls == "Dataset" and sure < 2:
                continue  # one dataset beside a plain word is not yet a list of datasets
            vote(w, cls, 2)
            cands.append((a, a + len(w), w))


def _emit(v: _Votes) -> list[Found]:
    """A name the document shows as a method or dataset is that wherever it occurs: every candidate and
    occurrence of a name with votes, of the class with more of them."""
    text, votes, surface, cands, shouting = v.text, v.votes, v.surface, v.cands, v.shouting
    out: list[Found] = []
    known = {k for k, c in votes.items() if c}
    finder = NameFinder(text, names=len(known))
    for key in known:
        name = surface[key]
        for a, b in finder.occurrences(name):
            if not text[a].isupper() and not name[0].islower():
                continue
            cands.append((a, b, text[a:b]))
    for a, b, w in cands:
        if shouting.holds(a):
            continue
        key = norm(w)
        if key not in votes and key.endswith("s") and key[:-1] in votes:
            key = key[:-1]
        if key not in votes:
            continue
        c = votes[key]
        cls = "Dataset" if c["Dataset"] > c["Method"] else "Method"
        canonical = surface[key]
        aliases = (surface[key + "#head"],) if key + "#head" in surface else ()
        out.append(Found(a, b, cls, canonical, aliases, "name.shape_or_context"))
    return out



_FAMILIES = (_by_shape, _known_names, _by_dataset_head, _by_table_column, _by_evaluation, _evaluated_on_lists, _by_method_cue, _title_prefixes,
             _by_relation, _by_list_mates)
"""The name rules in the order they vote (the first surface form of a name is the one kept)."""
