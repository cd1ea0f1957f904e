"""The trained decision: which candidate names an entity of which class, and which pair stands in which relation.

Two models (one logistic output per class or property, over the string features of ``features.py``: linear, or
with a hidden layer beside the linear part, ``HiddenModel``) are read from ``patterns/weights.json``, a plain JSON
file that ``mlkg train`` writes. The ``mlkg_learned`` component
runs after the rules: it replaces ``doc.spans["mlkg_mentions"]`` with the mentions the model keeps and
``doc._.mlkg_relations`` with the relations it keeps, each with the model's probability as its confidence.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from pathlib import Path

import numpy
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import minibatch

from .candidates import (ALLOWED, Layout, MentionCandidate, PairCandidate, Typed, layout, lexicon, mention_candidates,
                         pair_candidates)
from ..names import norm
from ..vocab import RELATION_ENDS
from .collector import fewer_collections
from .components import MENTIONS_KEY
from .doc import set_mention_values, span_value
from .gazetteer import gazetteer
from .relations.common import negated_clause
from .subjects import coordinated
from .features import (COORDINATORS, conjuncts, known_classes, mentions_features, negated_between, own_features, pairs_features,
                       screen_features)

__all__ = ["LinearModel", "HiddenModel", "model_from_json", "Models", "load_models", "WEIGHTS", "Decision", "decide", "joint_probability", "select", "apply_decision",
           "screened", "screened_features", "SCREEN_BAR",
           "THRESHOLD", "REL_THRESHOLD", "RULE_THRESHOLD", "RULE_REL_BAR", "SUBJECT_MARGIN", "VETOED_PROPERTIES", "WEAK_BAR", "JOINT_BAR",
           "SHARED_PROPERTIES", "SHARE_FROM", "SHARE_BAR"]

WEIGHTS = Path(__file__).parent / "patterns" / "weights.json"
THRESHOLD = 0.8
"""A mention candidate the rules did not give is kept from this probability on."""
REL_THRESHOLD = 0.5
"""A relation the rules did not give is kept from this probability on. With labels from the gold's evidence
(``train.EVIDENCE_LABELS``) the model is surer of the pairs it learnt and shyer of the rest, so the bars sit 0.2
below those chosen for labels by name (0.7, ``REL_BARS`` 0.3 / 0.5 / 0.5 / 0.6), but for outperforms. Two grouped
folds over the readable real-* sets / the selection sets (real-ff, -gg, -hh each left out), one set of fits
(evidence labels before the rules' pairs of an unreached relation were learnt), relation F1: the old bars 0.5369 / 0.6039, 0.1 lower 0.5427 / 0.6104, 0.2 lower 0.5439 /
0.6142, 0.2 lower with outperforms at 0.5 0.5453 / 0.6154 (outperforms 0.550 / 0.429 at 0.3, 0.567 / 0.429 at 0.4,
0.573 / 0.462 at 0.5), the default at 0.45 0.5436 / 0.6108, uses at 0.3 0.5403 / 0.6066, presentedAt at 0.2 0.5442 /
0.6168 (not taken: 2 relations on the two folds)."""
WEAK_BAR = 0.5
"""A mention candidate the rules did not give, below ``THRESHOLD`` but from this bar on, is weak: it stays only as
the end of a relation the model is sure of (``JOINT_BAR``). Titles on a line of their own and organisations in
affiliation lines are often such names: the mention model doubts them, the relation to them is clear."""
JOINT_BAR = 0.5
"""A weak mention stays when its probability times its relation's reaches this (1.0: never). Leave-one-set-out over
all sets (an older model): pooled relation F1 0.718 without weak mentions, 0.720 at 0.6, 0.721 at 0.5 (which then
also kept a dated blog headline as a paper: tests/test_nlp_layouts.py). Measured again with the wider gazetteer and
the dictionary features, two grouped folds over the readable real-* sets / the selection sets (real-ff, -gg, -hh
each left out), 0.6 -> 0.5: entity F1 0.8098 -> 0.8103 / 0.8205 -> 0.8186, relation F1 0.5577 -> 0.5610 (recall
0.494 -> 0.503, partOf 0.455 -> 0.476) / 0.6409 -> 0.6385; the headline stays out."""
TITLE_WEAK_BAR = 0.2
"""The weak bar of a candidate the rules did not give whose most probable class is Paper: a title the mention model
doubts (an entry's title in a reading list, a programme or a quiz, written with a label, a number or a name before it)
stays when the relation model is sure of facts about two other names (``TITLE_REL_BAR``, ``TITLE_RELATIONS``). Out of
fold on the two folds (the models of each fold fixed), of the Paper candidates rated 0.2 to 0.5 whose best relation to
a name the model does not doubt reaches 0.9, 47 of 120 are gold titles; the rest are one-word labels ("summary",
"affiliations"), headlines and titles with a prefix ("QUANTIZERS: YOLO-World: ..."). Two folds, entity / relation F1
(the same fits throughout): 0.8116 / 0.5602 without; one sure relation, title / relation bars 0.3 / 0.9: 0.8115 /
0.5620, 0.3 / 0.97: 0.8118 / 0.5625, 0.3 / 0.99: 0.8120 / 0.5627; two related mentions, 0.2 / 0.9: 0.8120 / 0.5637
(tools/selection.py: selection sets 0.8190 / 0.6461 unchanged), but with the committed weights the corpus fell from
0.991 / 0.983 to 0.978 / 0.919: a blog's section heading, a bullet that repeats its name after the colon ("Name:
Name is a family of ...") and a figure caption, each tied to the blog's organization and venue, mentioned again and again. Counting names instead of
mentions, 0.2 / 0.9: 0.8120 / 0.5636 (corpus 0.982 / 0.929); 0.2 / 0.97: 0.8117 / 0.5627 (Paper 0.857 unchanged, tp
1221 -> 1230, fp 171 -> 181; affiliatedWith 0.726 -> 0.734, presentedAt 0.625 -> 0.628; corpus 0.991 / 0.983
unchanged; tools/selection.py: the same two folds, selection sets 0.8190 / 0.6461 unchanged: under the bar of
0.003); 0.2 / 0.99: 0.8116 / 0.5619. Requiring one of the relations to be stated in the title's sentence instead:
0.8115 / 0.5616."""
TITLE_REL_BAR = 0.97
"""How sure a relation must be to count for a doubted title (``TITLE_WEAK_BAR``)."""
TITLE_RELATIONS = 2
"""How many other names, none of them weak, a doubted title must be related to from ``TITLE_REL_BAR`` on: a title
carries several facts (its authors' institutions, its venue, what it introduces); a label or a headline near a venue
carries one."""
REL_BARS: dict[str, float] = {"affiliatedWith": 0.1, "outperforms": 0.5, "presentedAt": 0.3, "uses": 0.4}
"""Per-property bars where one differs from ``REL_THRESHOLD`` (each but outperforms 0.2 below its choice for labels by
name, see there; the history of those choices follows), chosen from the leave-one-set-out predictions of nine
training sets (corpus, real-dev, -a, -h, -k, -o, -s, -w, -x; each property scored at the bars 0.5 to 0.9, the best
kept, a flat stretch read as 0.7): pooled relation F1 0.474 -> 0.500 (recall 0.384 -> 0.433, precision 0.619 ->
0.593); outperforms 0.420 at 0.9 -> 0.568 at 0.5 (recall 0.33 -> 0.61 for precision 0.58 -> 0.54),
presentedAt 0.582 -> 0.623 at 0.5, introduces 0.548 -> 0.579 at 0.7, extends 0.420 -> 0.444 at 0.6,
evaluatedOn 0.375 -> 0.398 at 0.8 (0.394 at 0.7), runsOn 0.443 at 0.8 -> 0.460 at 0.7; affiliatedWith and uses
stay best at 0.6. Chosen on predictions partly scored too, so
optimistic; checked on 34 training sets (12 held out in turn, with three sets not used to choose): pooled 0.465 -> 0.482,
real-aa 0.388 -> 0.409, real-y 0.447 -> 0.452, real-z 0.413 -> 0.423 (corpus 0.972 -> 0.966, real-h 0.432 -> 0.419).
uses 0.6 -> 0.4 later (with the pair features of a preposition of several words, a copula's subject, a field line's
label, the names between the ends and an end named as a baseline): on 24 training sets outside the fixed CV subset
(two folds, pairs scored by name) uses 0.377 -> 0.421 at an unchanged pooled 0.645.
Chosen again for the pooled relation F1 (not each property's), which is what a user's graph is judged by: two
grouped folds over the readable real-* sets (the selection and held-out sets only ever trained on), each property's
bar from 0.3 to 0.9 with the others fixed, the best kept where it beat the old by more than 0.001: pooled 0.483 ->
0.495 (affiliatedWith 0.6 -> 0.3: 359 vs 328 found, for 114 vs 87 false; uses 0.4 -> 0.6: F1 0.332 -> 0.321
but 149 fewer false relations; evaluatedOn 0.8 -> 0.7; extends 0.6 -> 0.7). The selection sets (real-ff, -gg, -hh,
each left out, pooled), with the mention rules of 6cd2652: relation F1 0.547 -> 0.552 (precision 0.679 -> 0.695,
recall 0.458 unchanged: 5 false relations fewer), entity F1 0.779 unchanged. Checked again with 194 sets (two folds /
selection sets, relation F1): as they are 0.6077 / 0.6475; uses at 0.3 0.6059 / 0.6466; every property not listed at
0.4 instead of 0.5 (outperforms too) 0.6075 / 0.6408."""
_ONE_VALUED = frozenset({"presentedAt", "demoedAt"})
_ONE_SUBJECT = frozenset({"outperforms"})
"""The properties whose object, once the rules gave it a subject, the model gives no other: under ``REL_BARS``'s
0.5, "X, which builds on Y, outperforms Z" would have Y outperform Z too."""
RIVAL_MARGIN: float | None = 0.0
"""A relation the rules did not give goes when another subject of the same object mention and property, named in
the object's sentence, scores more than this above it (None: never): the per-pair model cannot compare competing
subjects, and most of its false relations had the right object and the wrong subject. Two grouped folds over the
readable real-* sets (with ``REL_BARS``): pooled relation F1 0.496 -> 0.504 (precision 0.569 -> 0.594, recall 0.440
-> 0.438); margin 0.1: 0.500, 0.2: 0.498; competitors from any pair, not just the sentence's: 0.501 (0.0), 0.503
(0.1); counting what the rules related as sure competitors: 0.499 (0.0), 0.501 (0.1). The selection sets (real-ff,
-gg, -hh, each left out, pooled, with ``REL_BARS``): relation F1 0.552 -> 0.556 (precision 0.695 -> 0.709, recall
unchanged: 4 false relations fewer; affiliatedWith 0.613 -> 0.622, evaluatedOn 0.495 -> 0.500, uses 0.308 -> 0.314),
entity F1 0.779 unchanged. Letting names of one list not compete ("A and B are trained on Z") scored 0.555."""
_RIVAL_ORIGINS = frozenset({"sentence", "wrapped"})
SHARED_OBJECT_CLASSES = frozenset({"Venue"})
"""The classes of object that many subjects share by nature: a venue holds many papers and many booth demos, so its
subjects do not compete (``SUBJECT_MARGIN``): a second demo at one booth, which the model is surer of, does not
unseat the first (corpus/004_: MLX and SHARP at ICLR 2026). Two grouped folds over the readable real-* sets / the
selection sets, with ``train.EVIDENCE_LABELS`` and the bars 0.2 lower: relation F1 0.5441 / 0.6142 with every object
contested, 0.5435 / 0.6142 with venues shared (presentedAt 0.629 -> 0.626, demoedAt 0.218 -> 0.209, partOf 0.440 ->
0.433: 4 relations), 0.5426 with organisations shared too (affiliatedWith 0.699 -> 0.694)."""
NEGATED_PROPERTIES = frozenset(p for p, ends in RELATION_ENDS.items() if ("Method", "Method") in ends)
"""The properties between two methods (a comparison, a variant, a dependency) whose relations of the model's are not
asserted when the clause that states them holds a negation or hedge ("X does not outperform Y", "X could be extended
to Y"): the rules' reader asks the same of its cue relations (``relations.common.negated_clause``), the model only
weighs such words as features. Two grouped folds over the readable real-* sets / the selection sets (real-ff, -gg,
-hh each left out), with ``train.EVIDENCE_LABELS`` and the bars 0.2 lower: relation F1 0.5441 / 0.6142 without the
veto, 0.5439 / 0.6142 with it (extends 0.498 -> 0.495: 1 relation), 0.5435 with runsOn, demoedOn and evaluatedOn
vetoed too (runsOn 0.437 -> 0.427: the model's "not" feature already weighs "does not run on")."""
SUBJECT_MARGIN: float | None = 0.2
"""A relation, the rules' or the model's, goes when a subject of another name and the same class, which the rules did
not relate to the same object mention by the same property and which was paired however (the paragraph's method for
"it", a list item's head, a table's row), scores more than this above it, unless the two are coordinated ("A and B
are evaluated on C"); a subject the rules stated for a one-valued property or a comparison then no longer blocks the
others (None: no such competition). The rules pick a subject by position ("It was applied to OPT-175B and evaluated
on LAMBADA": OPT-175B) and ``RIVAL_MARGIN`` compares only the subjects of the object's sentence; a paper and its
method may both be evaluated on one benchmark, so only a subject of the same class competes. Two grouped folds over
the readable real-* sets (each fold's model trained without it; real-xx only trained on): pooled relation F1 0.5148
-> 0.5193 (precision 0.625 -> 0.638, recall 0.438 unchanged: 51 false relations fewer, 1 right more; outperforms
0.509 -> 0.538, evaluatedOn 0.434 -> 0.440), entities unchanged. Parts: the rules' relations alone 0.5181 (0.5165
while their stated subjects still blocked others); margins 0.1 / 0.2 / 0.3 for the model's relations (the rules' at
0.2): 0.5188 / 0.5195 / 0.5187 (any class); the rules' at 0.15 / 0.2 / 0.25: 0.5182 / 0.5181 / 0.5180; subjects of
any class 0.5195 (a study paper's benchmark lost to the models it studies: tests/test_nlp_layouts.py);
coordination changed nothing there. A pair feature naming the clause subject's class (csubj=name_Method) scored
lower (0.5131 without the competition, 0.5178 with). The selection sets (real-ff, -gg, -hh, each left out, pooled):
relation F1 0.574 -> 0.582 (precision 0.730 -> 0.749, recall 0.473 -> 0.476: 152 right and 51 false against 151 and
56; evaluatedOn 0.569 -> 0.598, presentedAt 0.667 -> 0.687), entity F1 0.791 unchanged; the same with subjects of
any class."""
RULE_THRESHOLD = 0.0
"""A mention the rules gave is kept from this probability on. Leave-one-set-out scored every veto bar tried on
mentions and relations together (0.2, 0.1, 0.05, several model versions ago) below keeping all of it: the model may
give a rule mention another class, but does not remove it (except the name-shape rule's mentions it doubts:
``VETO``). A relation the rules gave has a bar of its own: ``RULE_REL_BAR``."""
RULE_REL_BAR = 0.2
"""A relation the rules gave of one of ``VETOED_PROPERTIES`` is kept from this probability on. The rules' cue
relations are often said of the wrong name (the venue of a conference post given to every paper in it, "X uses Y"
read across a clause, "It was applied to A and evaluated on B" given to A); with the clause-subject features the
model tells many of them. Two grouped folds over the readable real-* sets (each fold's model trained without it),
every property vetoed, pooled relation F1 at bars 0 / 0.1 / 0.2 / 0.3 / 0.4: 0.5064 / 0.5113 / 0.5112 / 0.5117 /
0.5121 (precision 0.599 -> 0.630 at 0.2, recall 0.439 -> 0.430), entities unchanged. The selection sets (real-ff,
-gg, -hh, each left out, pooled), with the clause-subject features: relation F1 0.579 -> 0.582 at 0.2 with every
property vetoed (precision 0.718 -> 0.739, recall 0.486 -> 0.480), 0.582 with five (these four and evaluatedOn),
0.578 with five at 0.1 (3 false relations more), 0.580 with these four at 0.2 (precision 0.732, recall 0.480:
153 right and 56 false against 155 and 61); entity F1 0.790 in each."""
VETOED_PROPERTIES = frozenset({"partOf", "presentedAt", "runsOn", "uses"})
"""The properties whose rule relations the model may veto (``RULE_REL_BAR``): the ones whose cue rules most often
name the wrong subject (out of fold on the readable sets, rated below 0.2: presentedAt 38 false for 5 right, uses 24
for 0, partOf 13 for 2, runsOn 13 for 2). Of the others the model cannot weigh what the rules read from the words
or the document: a comparison's direction ("X trails Y", "a higher error rate than Y": rated 0.02 to 0.05), a booth
demo (a few dozen training examples), a title's method, a study paper evaluated on the benchmarks of the models it
studies (rated 0.15; evaluatedOn.cue alone: 14 false for 1 right); tests/test_nlp_layouts.py holds these cases."""


_CHUNK = 2048


class _Rows(Mapping):
    """Feature -> its row of a weight matrix, made when asked for: what ``dict(zip(names, matrix))`` holds,
    without making the 90,000 row views (a tenth of loading the pipeline, which the decision never reads: it
    reads the matrix). ``names`` are in order (as :attr:`_FeatureTable._table` numbers them): a feature's row
    number is found by bisection (:meth:`getter`) until :data:`_LOOKUPS` look-ups, then from the dict of every
    name's number, made then (making it for the three models was a third of loading the weights, on the path of
    a one-document rebuild, whose document looks up a few thousand)."""

    def __init__(self, names: list[str], matrix: numpy.ndarray) -> None:
        self.names, self.matrix = names, matrix  # row 0 pads (_FeatureTable)
        self._index: dict[str, int] | None = None
        self._left = _LOOKUPS

    @property
    def index(self) -> dict[str, int]:
        """Feature -> its row number (from 1)."""
        if self._index is None:
            self._index = dict(zip(self.names, range(1, len(self.names) + 1)))
        return self._index

    def getter(self):
        """``index.get``: the dict's once made, else one by bisection (the same numbers), counted."""
        if self._index is not None or self._left <= 0:
            return self.index.get
        return self._bisected

    def _bisected(self, feature: str, default=None):
        self._left -= 1
        names = self.names
        i = bisect_left(names, feature)
        return i + 1 if i < len(names) and names[i] == feature else default

    def __getitem__(self, feature: str) -> numpy.ndarray:
        return self.matrix[self.index[feature]]

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


_LOOKUPS = 20_000
"""Look-ups a :class:`_Rows` answers by bisection before it makes its dict (a bisection costs about ten times a
dict's look-up; making the dict, about a hundred thousand of them)."""


class _FeatureTable:
    """A matrix with one row per feature (``weights``, a row of ``width`` numbers each) whose rows a row of features
    sums: what the linear and the hidden model share."""

    labels: tuple[str, ...]
    weights: Mapping[str, numpy.ndarray]

    @property
    def width(self) -> int:
        return len(self.labels)

    @cached_property
    def _table(self) -> tuple[dict[str, int], numpy.ndarray]:
        """Feature -> row of one weight matrix, whose first row (zeros) pads rows with no known feature (a loaded
        model's weights are that matrix's rows already). No feature's row is 0, so a row number is true exactly
        when the feature is known: :meth:`_sums` drops the unknown ones with C's truth test."""
        if isinstance(self.weights, _Rows):
            return self.weights.index, self.weights.matrix
        names = sorted(self.weights)
        matrix = numpy.zeros((len(names) + 1, self.width))
        for i, f in enumerate(names, 1):
            matrix[i] = self.weights[f]
        return {f: i for i, f in enumerate(names, 1)}, matrix

    @cached_property
    def _columns(self) -> numpy.ndarray:
        """The weight matrix of :attr:`_table` transposed (columns x features), each column's weights contiguous."""
        matrix = self.weights.matrix if isinstance(self.weights, _Rows) else self._table[1]  # (no index made)
        return numpy.ascontiguousarray(matrix.T)

    def _sums(self, rows: list[list[str]]) -> numpy.ndarray:
        """The sum of each row's features' weights (rows x width).

        Each column's sums are taken along its contiguous row of :attr:`_columns` (half the time of summing down
        the columns of the matrix): numpy sums a segment pairwise whatever its stride, over the same values in
        the same order, so the sums are the same to the last bit."""
        get = self.weights.getter() if isinstance(self.weights, _Rows) else self._table[0].get
        columns = self._columns
        out = []
        for k in range(0, len(rows), _CHUNK):  # rows are independent: a chunk at a time bounds the memory
            flat, starts = [], []
            for row in rows[k:k + _CHUNK]:
                starts.append(len(flat))
                flat.append(0)  # the padding row: a row with no known feature sums to zeros
                flat += filter(None, map(get, row))  # the rows of the known features, in order (C-level loops)
            # an array indexes faster than a list; fromiter makes it from the list of ints in less time than array()
            picked = columns.take(numpy.fromiter(flat, dtype=numpy.intp, count=len(flat)), axis=1)
            out.append(numpy.add.reduceat(picked, starts, axis=1).T)
        return out[0] if len(out) == 1 else numpy.concatenate(out)

    @staticmethod
    def _matrix(data: dict, width: int) -> tuple[list[str], numpy.ndarray]:
        """The feature names of JSON data and their weight matrix (the padding row first), made in one call from
        the lists: 25,000 arrays made one by one, then copied into the matrix, were a tenth of a one-document
        rebuild."""
        weights = data["weights"]
        names = sorted(weights)
        return names, numpy.array([[0.0] * width, *map(weights.__getitem__, names)], dtype=float).reshape(-1, width)


def _rounded(values) -> list[float]:
    return [round(float(x), 5) for x in values]


@dataclass(frozen=True)
class LinearModel(_FeatureTable):
    """One logistic output per label over string features: ``sigmoid(bias + sum of the features' weights)``."""

    labels: tuple[str, ...]
    weights: Mapping[str, numpy.ndarray]
    bias: numpy.ndarray

    def probs(self, rows: list[list[str]]) -> numpy.ndarray:
        """The probability of each label for each row of features (rows x labels)."""
        if not rows:
            return numpy.zeros((0, len(self.labels)))
        z = self._sums(rows) + self.bias
        return 1.0 / (1.0 + numpy.exp(-z))

    def to_json(self) -> dict:
        return {"labels": list(self.labels), "bias": _rounded(self.bias),
                "weights": {f: _rounded(v) for f, v in sorted(self.weights.items())}}

    @classmethod
    def from_json(cls, data: dict) -> "LinearModel":
        """The model of :meth:`to_json`'s data; each feature's weights are a row of its matrix (:attr:`_table`)."""
        labels = tuple(data["labels"])
        names, matrix = cls._matrix(data, len(labels))
        return cls(labels, _Rows(names, matrix), numpy.asarray(data["bias"], dtype=float))


@dataclass(frozen=True)
class HiddenModel(_FeatureTable):
    """A linear model with a hidden layer beside it ("wide and deep"): ``sigmoid(bias + sum of the features' linear
    weights + relu(hidden_bias + sum of the features' embeddings) @ out)``. Each feature's row holds its linear
    weights (one per label) and then its embedding (one per hidden unit): one sum gives both. The hidden layer can
    weigh features together (a cue that relates only on some path between some classes), which the linear part
    cannot."""

    labels: tuple[str, ...]
    weights: Mapping[str, numpy.ndarray]
    bias: numpy.ndarray
    hidden_bias: numpy.ndarray
    out: numpy.ndarray
    """Hidden units x labels."""

    @property
    def width(self) -> int:
        return len(self.labels) + len(self.hidden_bias)

    def probs(self, rows: list[list[str]]) -> numpy.ndarray:
        """The probability of each label for each row of features (rows x labels)."""
        if not rows:
            return numpy.zeros((0, len(self.labels)))
        sums, k = self._sums(rows), len(self.labels)
        hidden = numpy.maximum(sums[:, k:] + self.hidden_bias, 0.0)
        z = sums[:, :k] + self.bias
        for j in range(len(self.out)):  # unit by unit, not a BLAS product: the same sums on every machine
            z += hidden[:, j:j + 1] * self.out[j]
        return 1.0 / (1.0 + numpy.exp(-z))

    def to_json(self) -> dict:
        return {"kind": "hidden", "labels": list(self.labels), "bias": _rounded(self.bias),
                "hidden_bias": _rounded(self.hidden_bias), "out": [_rounded(r) for r in self.out],
                "weights": {f: _rounded(v) for f, v in sorted(self.weights.items())}}

    @classmethod
    def from_json(cls, data: dict) -> "HiddenModel":
        labels, hidden_bias = tuple(data["labels"]), numpy.asarray(data["hidden_bias"], dtype=float)
        names, matrix = cls._matrix(data, len(labels) + len(hidden_bias))
        out = numpy.asarray(data["out"], dtype=float).reshape(len(hidden_bias), len(labels))
        return cls(labels, _Rows(names, matrix), numpy.asarray(data["bias"], dtype=float), hidden_bias, out)


Model = LinearModel | HiddenModel


def model_from_json(data: dict) -> Model:
    """The linear or the hidden model of ``to_json``'s data (by its ``kind``)."""
    return HiddenModel.from_json(data) if data.get("kind") == "hidden" else LinearModel.from_json(data)


@dataclass(frozen=True)
class Models:
    """The mention model (labels: classes), the relation model (labels: properties) and the screen (labels:
    classes, over a candidate's own features only: ``screened``; None for weights trained without one)."""

    mentions: Model
    relations: Model
    screen: Model | None = None

    def to_json(self) -> dict:
        screen = {} if self.screen is None else {"screen": self.screen.to_json()}
        return {"format": 1, "mentions": self.mentions.to_json(), "relations": self.relations.to_json(), **screen}

    @classmethod
    def from_json(cls, data: dict) -> "Models":
        screen = model_from_json(data["screen"]) if "screen" in data else None
        return cls(model_from_json(data["mentions"]), model_from_json(data["relations"]), screen)


@lru_cache(maxsize=1)
def load_models(path: Path = WEIGHTS) -> Models | None:
    """The committed weights, or None when there are none yet (the rules' output then stands).

    Decoding the JSON (half a million numbers) and making the matrices took 0.12 s of CPU, a tenth of a
    one-document rebuild and on the critical path of every build (before the second process is forked): the
    models are also kept in a binary copy (:func:`_binary_path`, keyed by the JSON's digest, itself kept by the
    file's stat), which loads in a sixth of that, and read from it when it is there (the JSON is then not read)."""
    if not Path(path).is_file():
        return None
    from ..files import derived_copy

    try:
        return derived_copy("weights", _BINARY_FORMAT, path, _BINARY_KEPT, _from_binary,
                            lambda raw: Models.from_json(json.loads(raw.decode("utf-8"))), _to_binary)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):  # gone since
        return None


_BINARY_FORMAT = "mlkg-weights-5"
"""5: a third model, the screen, when the weights have one."""
_BINARY_KEPT = 8


def _binary_path(path: Path = WEIGHTS) -> Path:
    """Where the binary copy of the weights file ``path`` is kept (``files.derived_copy_path``)."""
    from ..files import derived_copy_path

    return derived_copy_path("weights", _BINARY_FORMAT, path)


def _to_binary(models: Models) -> bytes:
    """The models (two, or three with the screen) as plain bytes, nothing a loader could run: one line of JSON
    (format, labels, hidden units, the byte length of each part), then per model the feature names in matrix order as NUL-separated UTF-8, and the
    bias, the weight matrix, the hidden bias and the output matrix (none for a linear model) as raw little-endian
    float64."""
    parts, sizes = [], []
    for model in (models.mentions, models.relations, *([] if models.screen is None else [models.screen])):
        index, matrix = model._table
        arrays = [model.bias, matrix]
        if isinstance(model, HiddenModel):
            arrays += [model.hidden_bias, model.out]
        chunk = ["\0".join(index).encode("utf-8"), *(a.astype("<f8").tobytes() for a in arrays)]
        parts += chunk
        hidden = len(model.hidden_bias) if isinstance(model, HiddenModel) else None
        sizes.append({"labels": list(model.labels), "hidden": hidden, "rows": len(index), "bytes": [len(c) for c in chunk]})
    return json.dumps({"format": _BINARY_FORMAT, "models": sizes}).encode("utf-8") + b"\n" + b"".join(parts)


def _from_binary(data: bytes) -> Models:
    """The models of :func:`_to_binary`'s bytes (ValueError when they are not such bytes)."""
    at = data.find(b"\n") + 1  # the body is read where it lies in ``data``, not copied out of it
    head = json.loads(data[:at])
    if not isinstance(head, dict) or head.get("format") != _BINARY_FORMAT or len(head.get("models", ())) not in (2, 3):
        raise ValueError("not a binary copy of the weights")
    made, whole = [], memoryview(data)
    for m in head["models"]:
        n_names, *n_arrays = m["bytes"]
        names = str(whole[at:at + n_names], "utf-8").split("\0") if m["rows"] else []
        at += n_names
        arrays = []
        for n in n_arrays:
            if at + n > len(data):
                raise ValueError("a truncated binary copy of the weights")
            arrays.append(numpy.frombuffer(data, dtype="<f8", count=n // 8, offset=at))
            at += n
        hidden, labels = m["hidden"], tuple(m["labels"])
        if len(names) != m["rows"] or len(arrays) != (2 if hidden is None else 4):
            raise ValueError("a truncated binary copy of the weights")
        bias, matrix = arrays[0], arrays[1].reshape(len(names) + 1, len(labels) + (hidden or 0))
        rows = _Rows(names, matrix)
        if hidden is None:
            model = LinearModel(labels, rows, bias)
        else:
            model = HiddenModel(labels, rows, bias, arrays[2], arrays[3].reshape(hidden, len(labels)))
        made.append(model)
    return Models(*made)


@dataclass(frozen=True)
class Decision:
    """What the model kept of one document: typed mentions and (subject, property, object, probability, pair)."""

    typed: tuple[Typed, ...]
    relations: tuple[tuple[int, str, int, float, PairCandidate], ...]


VETO = 0.5
"""A mention of the name-shape rule stays only from this probability on (of the class the rule gave). Leave-one-set-out
over all 20 sets, without and with the veto (at 0.3): entity F1 pooled 0.863 -> 0.879, real-dev 0.742 -> 0.767, real-b
0.694 -> 0.744, real-c 0.800 -> 0.838, corpus 0.969 -> 0.960; relation F1 pooled 0.682 -> 0.687. Raised to 0.5 with the
table and score features (34 sets; one model trained without real-c, -d, -i, -n, -r, -x and real-dev, scored on those
seven, pooled): at 0.3 / 0.4 / 0.5 / 0.6 / 0.7 entity F1 0.802 / 0.804 / 0.807 / 0.804 / 0.803, relation F1 0.466 /
0.466 / 0.469 / 0.468 / 0.471 (Method precision 0.768 -> 0.804 at 0.5, recall 0.798 -> 0.778): the rule's common
capitalised words ("SSD", "LCD", "ARM", "PDT") are what the model doubts. On the fixed ten-set subset, left out in
turn (with the features, the lexicon's names still vetoed at 0.5): entity F1 0.739 -> 0.743 (Method precision 0.686
-> 0.731, recall 0.758 -> 0.723; Dataset 0.698 -> 0.690), relation F1 0.422 -> 0.426 (outperforms 0.478 -> 0.512,
extends 0.346 -> 0.372). Vetoing the title rules
too cost the generalisation sets more than it gave (generalisation5 0.965 -> 0.952), and a bar of 0.3 kept more of
the corpus than the per-name maximum over a document did."""
TITLE_LINE_VETO = 0.15
"""The bar of the title-line rule's mentions (``_VETOED``). Leave-one-set-out (26 sets, the models of each fold
unchanged), entity F1 without and with it: real-a 0.677 -> 0.688, real-k 0.803 -> 0.810, real-i 0.741 -> 0.743,
corpus, generalisation and real-b unchanged."""
KNOWN_VETO = 0.3
"""The bar of a name-shape mention whose name the rules' lexicon knows (``known_methods``, ``known_datasets``): a
curated name is not doubted as the rule's guesses from shape are ("fine-tuned Stable Diffusion on Google-scale
data": 0.47)."""
_VETOED: dict[str, float] = {"name.shape_or_context": VETO, "paper.title_line": TITLE_LINE_VETO, "hardware.head_noun": VETO}
"""The rules whose mentions the model may veto, and the probability each must reach: the name-shape rule types any
capitalised or digit-bearing word by its shape and context, and is what most false entities on documents in unseen
styles come from ("STATUS", "SRAM", "TikTok" as methods); the title-line rule takes a line with a colon for a
title, and a document's labelled lines ("Date: Sunday, June 19", "Subjects: Computer Vision (cs.CV)", "Q: What is
X?") are such lines too, which the model gives a few hundredths; the hardware head-noun rule takes the capitalised
words before "GPU", "board" or "supercomputer" for a device's name, a headline's words too ("Sparse Kernels GPU")."""


def _veto(c: MentionCandidate) -> float:
    """The probability a vetoable rule mention must reach: ``KNOWN_VETO`` for a name the lexicon knows."""
    if c.rule == _SHAPE_RULE and norm(c.canonical) in known_classes():
        return min(KNOWN_VETO, _VETOED[c.rule])
    return _VETOED[c.rule]


SPARED_REL_BAR: float | None = REL_THRESHOLD
"""A name-shape mention the model vetoes (below ``VETO``) that ``select`` spared as an end of a relation the rules
found stays only when a relation to it that the decision keeps is rated this probable, or is a rule's relation of
``SPARED_BY_RULES`` (None: it stays whatever the relation model says). The rules' relation spares the mention because a
sentence that relates a name says more than its shape; but the rules also relate page furniture and labels by their
cues ("MSc students built X, which runs on the NXP board": MSc runsOn; "LOCATION: <venue>, demo tables": a demo), and
the relation model, which weighs the sentence, rejects those (a relation of ``VETOED_PROPERTIES`` goes below
``RULE_REL_BAR``; the others stay whatever it says). Out of fold on the two folds over the readable sets (the models
of each fold fixed), the names of only such spared mentions: 199 false against 62 right; of the false ones 50 ended no
kept relation and 80 only relations rated under 0.5. Two folds, entity / relation F1 (the same fits throughout):
0.8106 / 0.5699 without; 0.8122 / 0.5699 when only a kept relation spares (bar 0); 0.8151 / 0.5729 at 0.5 (every
vetoable rule's mention; the title-line rule's spared titles then lost a study paper's evaluatedOn:
tests/test_nlp_layouts.py); the name-shape rule's alone, with the rules' comparisons kept: 0.8147 / 0.5727.
tools/selection.py (one set of fits, with and without): two folds 0.8106 / 0.5698 -> 0.8147 / 0.5726 (Method
0.780 -> 0.789: 97 false names fewer for 5 right; demoedAt 0.203 -> 0.261, evaluatedOn 0.501 -> 0.504); the
selection sets 0.8204 / 0.6486 -> 0.8233 / 0.6496."""
SPARED_BY_RULES = frozenset({"outperforms", "extends"})
"""The properties whose rule relation spares a doubted mention whatever the relation model says: a comparison's
direction ("X has a higher error rate than Y") is read from words the model does not weigh (``VETOED_PROPERTIES``),
and a copula with a noun names what a method is made from ("TideNet is a Fourier Neural Operator variant": the
variant's base, a name the mention model may doubt, stays whatever a fit rates the rule's relation). With the same
fits (194 sets), two folds 0.8036 / 0.6077 -> 0.8035 / 0.6076, the selection sets unchanged (on 197 sets: 0.8054 /
0.6090 and 0.6450 either way): neutral in the measure, and the construction no longer hangs on a fit's probability
near the bar (it fell to 0.456 in one retrain)."""


_TAKEN = b"\x01"
"""A token taken by a kept mention, in the bytearrays that mark them (:func:`select`, :func:`_list_members`)."""


def select(cands: list[MentionCandidate], probs: numpy.ndarray, labels: tuple[str, ...],
           threshold: float = THRESHOLD, rule_threshold: float = RULE_THRESHOLD,
           weak: float | None = None, related: frozenset[tuple[int, int]] = frozenset(),
           texts: list[str] | None = None, pinned: Mapping[tuple[int, int], frozenset[str]] = {}) -> list[Typed]:
    """The typed mentions: each candidate's most probable class above ``threshold``; of overlapping ones the most
    probable (then the longest) wins, except that a paper's title may hold other mentions. A forced candidate
    keeps its rule class. With ``weak``, a candidate the rules did not give is also kept from that lower bar (the
    caller decides whether such a weak mention stays). A rule's mention that is an end of a relation the rules
    found (its token span in ``related``) is not vetoed: a sentence that relates it says more than its shape.
    ``texts`` (the document's tokens) lets a longer organization replace a lexicon's (``_shorter``)."""
    picks = []
    best = numpy.argmax(probs, axis=1).tolist() if len(cands) else []
    rows = probs.tolist()  # Python floats: the same values as float(probs[k, j]), read without numpy per item
    for k, c in enumerate(cands):
        if c.forced:
            picks.append(Typed(c, c.rule_cls, 1.0))
            continue
        j = best[k]
        if rows[k][j] >= threshold or (weak is not None and not c.rule_cls and rows[k][j] >= _weak_bar(labels[j], weak)):
            picks.append(Typed(c, labels[j], rows[k][j]))
        elif c.rule_cls and (p := rows[k][labels.index(cls := _rule_class(c, rows[k], labels, pinned))]) >= (
                rule_threshold if c.rule not in _VETOED or (c.start, c.end) in related else max(rule_threshold, _veto(c))):
            picks.append(Typed(c, cls, p))
    variants = _variant_candidates(cands, rows, labels, picks, texts)
    extra = {id(t) for t in variants}
    picks = [t for t in _longer_names(picks + variants, threshold, texts) if id(t) not in extra]  # (unless it stood in)
    ranked = _outranking(picks, texts)  # a learned name the model rates clearly above the rules' overlapping span
    # what the rules found first (the model may change its class, not its span), then the most probable
    picks.sort(key=lambda t: (not t.cand.rule_cls and id(t) not in ranked, -t.prob, -(t.cand.end - t.cand.start), t.cand.start))
    size = max((t.cand.end for t in picks), default=0) + 1
    taken = {True: bytearray(size), False: bytearray(size)}  # (as in _list_members: bytearrays)
    out = []
    for t in picks:  # a paper's title may hold the names of what it is about: papers overlap only papers
        used = taken[t.cls == "Paper"]
        if t.cand.forced or used.find(1, t.cand.start, t.cand.end) < 0:
            used[t.cand.start:t.cand.end] = _TAKEN * (t.cand.end - t.cand.start)
            out.append(t)
    out = _list_members(cands, rows, labels, out, threshold, texts)
    out.sort(key=lambda t: (t.cand.start, t.cand.end, t.cls))
    return out


@dataclass(frozen=True)
class _RuleSpans:
    """The picks the rules gave, by start: what a span overlaps of them (:func:`_longer_names`, :func:`_outranking`)."""

    picks: list[Typed]
    starts: list[int]

    @classmethod
    def of(cls, picks: list[Typed]) -> "_RuleSpans":
        rules = sorted((t for t in picks if t.cand.rule_cls), key=lambda t: t.cand.start)
        return cls(rules, [t.cand.start for t in rules])

    def overlapping(self, c: MentionCandidate) -> list[Typed]:
        """The rule picks that share a token with ``c`` (a rule's span is at most a few names long: eight back)."""
        near = self.picks[max(0, bisect_left(self.starts, c.start) - 8):bisect_left(self.starts, c.end)]
        return [r for r in near if r.cand.start < c.end and c.start < r.cand.end]


OUTRANK_MARGIN = 0.1
"""How much more probable than every rule mention it overlaps a candidate the rules did not give must be to be ranked
with the rules' mentions (``_outranking``): the rules' span then has the wrong boundary ("Language backbone: Llama 2
7B", "Berkeley" of "University of California, Berkeley", "School of Informatics, University of Edinburgh").
Measured out of fold on the two folds over the readable sets (models of each fold fixed): of the 2,801 overlaps where
a rule mention beat a learned pick, the learned span was the gold one and the rule's not in 231, the reverse in 1,133;
where the learned one is rated higher by more than 0 / 0.1 / 0.2 / 0.3: 181 / 149 / 127 / 103 against 87 / 37 / 23 /
15. Scored (entity F1, relation F1), without it 0.8032 / 0.5467; at a margin of 0 / 0.05 / 0.1 / 0.15: 0.8034 / 0.5421,
0.8048 / 0.5455, 0.8056 / 0.5478, 0.8055 / 0.5478 (Organization 0.821 -> 0.830, Method 0.774 -> 0.776); the
learned candidate at 0.5 or at ``THRESHOLD`` (0.8) at least: 0.8048 / 0.5482 against 0.8045 / 0.5483; a rule
mention that ends a relation the rules found kept whatever the model says: 0.8048 / 0.5482."""
OUTRANK_BAR = 0.5
"""How probable such a candidate must itself be (the weak bar: a weak one still needs a relation to stay)."""
OUTRANK_HELD = frozenset({"Hardware"})
"""The classes whose rule mentions keep their span whatever the model says: the device rules read a chip's or a
board's name from a catalogue of makers and series (with it, Hardware F1 0.781 -> 0.787 on the two folds, entity F1
0.8056 -> 0.8059)."""


def _outranking(picks: list[Typed], texts: list[str] | None = None) -> set[int]:
    """The ids of the picks the rules did not give that are ranked with the rules' mentions in :func:`select`: each
    is at least ``OUTRANK_BAR`` probable and more probable by ``OUTRANK_MARGIN`` than every rule mention it overlaps
    (and there is one), none of them forced, of a class in ``OUTRANK_HELD`` or the same name with its short form in
    brackets (:func:`_with_short_form`) or with the mark that closes it (:func:`_with_closing_mark`). A paper's title overlaps only papers."""
    rules = _RuleSpans.of(picks)
    if not rules.picks:
        return set()
    out = set()
    for t in picks:
        c = t.cand
        if c.rule_cls or t.prob < OUTRANK_BAR:
            continue
        inside = [r for r in rules.overlapping(c) if (r.cls == "Paper") == (t.cls == "Paper")]
        if inside and not any(_labelled(c, r.cand, texts) for r in inside) and all(
                not r.cand.forced and r.cls not in OUTRANK_HELD and t.prob - r.prob >= OUTRANK_MARGIN
                and not _with_short_form(r.cand, c, texts) and not _with_closing_mark(r.cand, c, texts) for r in inside):
            out.add(id(t))
    return out


_LINE_LABEL = re.compile(r"[*_ \t]*([A-Za-z][\w-]*(?:[ \t]+[A-Za-z][\w-]*)?)([ \t]+\d{1,3}[a-z]?)?[ \t]*[*_]*[ \t]*:[ \t*_]*")
"""A line's label in tokens: a word or two, perhaps a number, then a colon, markdown emphasis around it ("Paper:",
"Talk 4:", "**Paper:**")."""


def _labelled(c: MentionCandidate, r: MentionCandidate, texts: list[str] | None) -> bool:
    """Whether the learned span ``c`` is the rule's span ``r`` with a line's label before it ("Paper: Effective
    Whole-body ...", "Talk 4: Name", "**Keynote:** Name"): a label of ``line_labels`` in ``features.json`` or a
    capitalised word with a number. The rule's span, which starts after the label, has the name's boundary."""
    if texts is None or not c.start < r.start <= c.end:
        return False
    m = _LINE_LABEL.fullmatch(" ".join(t for t in texts[c.start:r.start] if t.strip()))
    if not m:
        return False
    words = m.group(1).split()
    return (any(w.lower() in lexicon()["line_labels"] for w in words)
            or (m.group(2) is not None and len(words) == 1 and words[0][0].isupper()))


def _with_short_form(r: MentionCandidate, c: MentionCandidate, texts: list[str] | None) -> bool:
    """Whether the rule's span ``r`` is the name ``c`` followed by a bracket ("Masked Autoregressive Flows (MAFs)",
    "SHARP (Single-image High-Accuracy Real-time Parallax)"): the resolver reads the other form of the name from it."""
    return (texts is not None and r.start == c.start and r.end > c.end < len(texts) and texts[c.end] == "("
            and any(")" in t for t in texts[c.end + 1:r.end]))  # (a bracket's token may hold more: "):")


def _with_closing_mark(r: MentionCandidate, c: MentionCandidate, texts: list[str] | None) -> bool:
    """Whether the rule's span ``r`` is the name ``c`` with the question or exclamation mark that closes it ("Do LLMs
    Know Internally When They Follow Instructions?"): the mark is part of a title, and the rule read it as such."""
    return texts is not None and r.start == c.start and r.end == c.end + 1 and texts[c.end] in ("?", "!")


LIST_BAR = 0.3
"""How probable a candidate's class must be for it to join a list whose neighbouring item is of that class, sure
from ``THRESHOLD`` on ("evaluated on 3DPW, MPI-INF-3DHP and Human3.6M": the model is sure of the first, not of the
last; ``_list_members``). Two folds over the readable real-* sets, models fixed: entity F1 0.7985 -> 0.7990 / 0.7995 /
0.7989 at 0.2 / 0.3 / 0.4 (Dataset 0.745 -> 0.749 at 0.3), relation F1 0.4900 -> 0.4904."""
_LISTED = frozenset({"Dataset", "Method", "Organization", "Hardware"})
"""The classes a list lends to its items: lists of venues and papers hold dates and page numbers too."""


def _coordinated(texts: list[str], a: int, b: int) -> bool:
    """Whether the tokens ``[a, b)`` between two names only coordinate them (",", "and", ", and", "/" ...)."""
    return a < b and " ".join(t for t in texts[a:b] if t.strip(" \t")) in COORDINATORS


def _list_members(cands: list[MentionCandidate], rows: list[list[float]], labels: tuple[str, ...], out: list[Typed],
                  threshold: float, texts: list[str] | None) -> list[Typed]:
    """The kept mentions, and the candidates that stand in a coordination next to one of them (or next to one
    these added) whose class the model gives ``LIST_BAR`` at least, typed with it: the items of a list are of one
    kind, and the model is surer of some than of others. Each such mention is marked as the list's
    (``learned.list_member``) so that it is not dropped as a weak one."""
    if texts is None or not out:
        return out
    used = bytearray(len(texts) + 1)  # (a bytearray: read span by span, a numpy slice's any() costs more than the test)
    ends: dict[int, Typed] = {}
    starts: dict[int, Typed] = {}
    for t in out:
        used[t.cand.start:t.cand.end] = _TAKEN * (t.cand.end - t.cand.start)
        if t.cls in _LISTED and (t.prob >= threshold or t.cand.forced):
            ends[t.cand.end], starts[t.cand.start] = t, t
    if not ends:
        return out
    col = {cls: j for j, cls in enumerate(labels)}
    order = sorted((k for k, c in enumerate(cands) if not c.forced), key=lambda k: (-max(rows[k]), cands[k].start))
    added = True
    while added:
        added = False
        for k in order:
            c = cands[k]
            if used.find(1, c.start, c.end) >= 0:
                continue
            left = next((ends[e] for e in range(c.start - 1, max(-1, c.start - 4), -1)
                         if e in ends and _coordinated(texts, e, c.start)), None)
            right = next((starts[s] for s in range(c.end + 1, min(len(texts), c.end + 4))
                          if s in starts and _coordinated(texts, c.end, s)), None)
            for t in (left, right):
                if t is not None and rows[k][col[t.cls]] >= LIST_BAR:
                    got = Typed(replace(c, rule_cls=t.cls, rule="learned.list_member"), t.cls, rows[k][col[t.cls]])
                    out.append(got)
                    used[c.start:c.end] = _TAKEN * (c.end - c.start)
                    ends[c.end], starts[c.start] = got, got
                    added = True
                    break
    return out


def _rule_class(c: MentionCandidate, row: list[float], labels: tuple[str, ...],
                pinned: Mapping[tuple[int, int], frozenset[str]] = {}) -> str:
    """The class a rule mention keeps below ``THRESHOLD``: the rule's, but for the name-shape rule whichever of
    method and dataset the model rates higher. That rule types a name it has no cue for as a method ("Evaluated on
    e-SNLI, ANLI, CQA and SVAMP"): on two folds over the readable sets, of its Method mentions the model rated a
    dataset more (from 0.5 on), 14 were datasets and 2 were not; of its Dataset mentions rated a method more, 17
    were methods and 5 datasets. On the selection sets, without it: entity F1 0.783 -> 0.784 (Dataset 0.741 -> 0.769,
    Method 0.756 -> 0.751), relation F1 0.551 -> 0.548 (evaluatedOn 0.467 -> 0.457): kept for the relations.
    A relation the rules found pins the class where its ends allow only one of the two (``pinned``, from
    ``pinned_classes``): a demo list's "Loupe: our annotation tool ..." is the subject of demoedAt, so a method,
    however close the model rates a dataset."""
    if c.rule != _SHAPE_RULE or c.rule_cls not in _EXTENSIBLE:
        return c.rule_cls
    if len(allowed := _EXTENSIBLE & pinned.get((c.start, c.end), _EXTENSIBLE)) == 1:
        return next(iter(allowed))
    return max(sorted(_EXTENSIBLE), key=lambda cls: (row[labels.index(cls)], cls == c.rule_cls))


def pinned_classes(rels: Iterable) -> dict[tuple[int, int], frozenset[str]]:
    """Each rule relation end's token span -> the classes every rule relation it ends allows it (``RELATION_ENDS``)."""
    out: dict[tuple[int, int], frozenset[str]] = {}
    for s, prop, o, *_ in rels:
        ends = RELATION_ENDS.get(prop, frozenset())
        for span, side in ((s, 0), (o, 1)):
            key, classes = (span.start, span.end), frozenset(e[side] for e in ends)
            out[key] = out.get(key, classes) & classes
    return out


_SHAPE_RULE = "name.shape_or_context"
_EXTENSIBLE = frozenset({"Method", "Dataset"})
"""The classes whose name-shape mention (``_SHAPE_RULE``) a longer name of the same class may replace: a variant's
suffix ("Llama 2 13B Chat", "DeBERTa V2 XXLarge"). The other rules' spans are their own (a device, an acronym with
its long form), and a lexicon's organization but where ``_shorter`` says ("Apple" in "Apple ML researchers")."""


ORG_LONGER_BAR = 0.9
"""How sure the model must be of a longer organization to replace the lexicon's name it opens: a name the lexicon
knows is itself an organization, so only a sure longer one stands in for it (at the mention bar, the same document
read from .txt and from .md gave different organizations)."""

_ORG_PREFIX_RULES = frozenset({"org.lexicon"})
"""The organization rules whose name a longer organization the model is sure of may replace when it starts the
longer name: "<Company> AI Research" is its own organization, not "<Company>"."""


def _shorter(r: MentionCandidate, c: MentionCandidate, cls: str, texts: list[str] | None) -> bool:
    """Whether the rule mention ``r`` inside ``c`` is one a longer name of class ``cls`` stands in for: an
    organization only when the longer name ends on a word that names an organization ("Research", "Labs", "AI":
    ``name_words``), so "Apple ML researchers" keeps its "Apple"."""
    if cls in _EXTENSIBLE:
        return r.rule == _SHAPE_RULE
    return (texts is not None and r.rule in _ORG_PREFIX_RULES and r.start == c.start
            and texts[c.end - 1].lower() in lexicon()["name_words"])


def _joined(texts: list[str] | None, c: MentionCandidate) -> bool:
    """Whether the span ``c`` joins names rather than naming one: a connector, a copula, a possessive or a list's
    punctuation inside it ("Mamba-2 and Transformer", "ESM-2 is a Transformer", "Mamba-3's SISO", "A / B")."""
    if texts is None:
        return False
    words = _joining_words()
    return any(texts[k].lower() in words for k in range(c.start + 1, c.end - 1))


@lru_cache(maxsize=1)
def _joining_words() -> frozenset[str]:
    lex = lexicon()
    return frozenset({*lex["phrase_enders"], *lex["copulas"], "'s", "’s", ",", ";", "/"})


VARIANT_BAR = 0.1
"""How probable a candidate the rules did not give must be to stand in for the picks of its class it extends by a
variant's suffix alone (``_variant_suffix``: "GPT-2 Large" for "GPT-2", "Stable Diffusion v1.4", "Llama 2 70b
Chat"), whatever the rules or the model gave the shorter name: the words after a name that say which of its
versions, sizes or editions is meant are part of the name. Out of fold (the graphs of main's two folds), of the
1,169 core methods missed, 146 had a candidate of their own name that lost to a kept overlapping mention, 89 of them
to the name without its variant's suffix. Under the weak bar (``WEAK_BAR``), such a candidate is weighed too
(``_variant_candidates``): the model that doubts "Grounding DINO 1.5 Edge" as a name of its own is surer of
"Grounding DINO", and the suffix says the longer name is meant. tools/selection.py against main's (base66) 0.8048 /
0.5941 on the two folds: 0.8050 / 0.5946 at 0.3, 0.8050 / 0.5950 at 0.1 (Method 4,215 -> 4,225 right, 1,294 -> 1,300
false; extends, outperforms, evaluatedOn, runsOn a few more); the selection sets unchanged (0.8259 / 0.6448): within
the noise, so the lever is small out of fold (the fold models rate these variants lower than the committed ones)."""
_VERSION_TOKEN = re.compile(r"[vV]?\d{1,3}(?:\.\d+)*[a-zA-Z]?|\d+(?:\.\d+)?[BMTKbmtk]|\d+x\d+(?:\.\d+)?[BMbm]")
"""A version or a size as one token: "2", "v1.4", "2.0", "70b", "1.1B", "8x22B" (not a year: "GelSight 2017")."""
_EDITION = re.compile(r"(?:19|20)\d\d")
"""A year, which names a dataset's edition ("BraTS 2018", "CoNLL 2003", "MovieLens 2015"), not a method's version."""
_UNIT = frozenset("BMTKbmtk")
"""A size's unit the tokenizer splits from its number ("20M": "20", "M"), read back as one token."""
_VARIANT_WORDS = 4
"""At most this many tokens of a variant's suffix ("7B Twin 2T" is not one)."""


def _variant_suffix(texts: list[str], a: int, b: int, cls: str = "") -> bool:
    """Whether the tokens ``[a, b)`` after a name only say which variant of it is meant: versions, sizes and the size
    or edition words of ``variant_words`` ("Large", "70b Chat", "Lite Micro", "V1 50"), and a dataset's year. With
    split sizes and datasets' years (tools/selection.py, 197 sets): two folds 0.8045 / 0.6093 -> 0.8047 / 0.6093
    (Dataset 1,798 -> 1,804 right, 447 -> 448 false), the selection sets unchanged."""
    words = lexicon()["variant_words"]
    pieces = _sizes_joined(texts[a:b])
    return 0 < len(pieces) <= _VARIANT_WORDS and all(
        _VERSION_TOKEN.fullmatch(w) or w.lower() in words or (cls == "Dataset" and _EDITION.fullmatch(w)) for w in pieces)


def _sizes_joined(pieces: list[str]) -> list[str]:
    """The tokens with a size's unit joined back to its number ("MovieLens 20M", "Pile 1.2T")."""
    out: list[str] = []
    for w in pieces:
        if w in _UNIT and out and out[-1].replace(".", "", 1).isdigit():
            out[-1] += w
        else:
            out.append(w)
    return out


def _by_start(picks: list[Typed]) -> dict[int, list[Typed]]:
    out: dict[int, list[Typed]] = defaultdict(list)
    for t in picks:
        out[t.cand.start].append(t)
    return out


def _bases(by_start: dict[int, list[Typed]], c: MentionCandidate, cls: str, texts: list[str]) -> list[Typed]:
    """The picks of class ``cls`` that ``c`` extends by a variant's suffix alone: they start where it starts, none
    forced."""
    return [r for r in by_start.get(c.start, ()) if r.cand.end < c.end and r.cls == cls and not r.cand.forced
            and _variant_suffix(texts, r.cand.end, c.end, cls)]


def _variant_candidates(cands: list[MentionCandidate], rows: list[list[float]], labels: tuple[str, ...],
                        picks: list[Typed], texts: list[str] | None) -> list[Typed]:
    """The candidates the rules did not give and ``select`` did not pick, whose most probable class, one of
    ``_EXTENSIBLE``, is ``VARIANT_BAR`` probable and that extend a pick of that class by a variant's suffix, typed
    with it for ``_longer_names`` to weigh (none while ``VARIANT_BAR`` is not under the weak bar: they are picks)."""
    if texts is None or not picks:
        return []
    picked = {id(t.cand) for t in picks}
    by_start = _by_start(picks)
    out = []
    for k, c in enumerate(cands):
        if c.rule_cls or c.forced or id(c) in picked or c.start not in by_start:
            continue
        j = max(range(len(labels)), key=rows[k].__getitem__)
        if labels[j] in _EXTENSIBLE and rows[k][j] >= VARIANT_BAR and _bases(by_start, c, labels[j], texts):
            out.append(Typed(c, labels[j], rows[k][j]))
    return out


def _variant_bases(picks: list[Typed], texts: list[str] | None) -> dict[int, list[Typed]]:
    """Each pick the rules did not give, of a class in ``_EXTENSIBLE`` and ``VARIANT_BAR`` probable (by id), and
    the picks of its class it extends by a variant's suffix alone (``_bases``) where no pick it overlaps reaches
    outside it ("Kite 2 13B" is no variant's name inside "Kite 2 13B Chat")."""
    if texts is None:
        return {}
    by_start = _by_start(picks)
    out = {}
    for t in picks:
        c = t.cand
        if c.rule_cls or t.cls not in _EXTENSIBLE or t.prob < VARIANT_BAR:
            continue
        bases = _bases(by_start, c, t.cls, texts)
        if bases and not any(r.cand.start < c.end and c.start < r.cand.end and (r.cand.start < c.start or c.end < r.cand.end)
                             for r in picks):
            out[id(t)] = bases
    return out


def _longer_names(picks: list[Typed], threshold: float, texts: list[str] | None = None) -> list[Typed]:
    """The picks, where a candidate the rules did not give, sure from ``threshold`` on, holds one or more
    name-shape mentions of its own class and overlaps no other rule mention: it stands in for them (a name the
    shape rule cut short), and is ranked with the rules' mentions. A lexicon's organization that opens a longer
    organization is replaced the same way (``_shorter``); a variant's name its base's from ``VARIANT_BAR``
    (``_variant_bases``)."""
    rules = _RuleSpans.of(picks)
    variants = _variant_bases(picks, texts)
    if not rules.picks and not variants:
        return picks
    drop: set[int] = set()
    out = []
    for t in picks:
        c = t.cand
        if id(t) in variants:
            drop |= {id(r) for r in variants[id(t)]}
            out.append(replace(t, cand=replace(c, rule_cls=t.cls, rule="learned.variant_name")))
            continue
        bar = max(threshold, ORG_LONGER_BAR) if t.cls == "Organization" else threshold
        if c.rule_cls or t.prob < bar or (t.cls not in _EXTENSIBLE and t.cls != "Organization"):
            out.append(t)
            continue
        inside = rules.overlapping(c)
        if inside and not _joined(texts, c) and all(c.start <= r.cand.start and r.cand.end <= c.end and (r.cand.start, r.cand.end) != (c.start, c.end)
                          and r.cls == t.cls and _shorter(r.cand, c, t.cls, texts) for r in inside):
            drop |= {id(r) for r in inside}
            out.append(replace(t, cand=replace(c, rule_cls=t.cls, rule="learned.longer_name")))
        else:
            out.append(t)
    return [t for t in out if id(t) not in drop]


SCREEN_BAR = 0.1
"""A candidate the rules did not give goes on to the mention model only when the screen (a linear model over its own
features, ``features.own_features``, and a few cheap ones of its context, ``features.screen_features``) rates some
class this probable: the full features (the words around it, the document's other occurrences, lists, tables) are
computed for the survivors only. Before the screen, of the
candidates of 300 generated documents (``mlkg generate``) 75.0% were ones no rule gave, and the mention model rated
73% of those below 0.05 for every class (54.9% of all; ``WEAK_BAR`` 0.5 and ``LIST_BAR`` 0.3 keep none of them).
With the screen, 1,000 generated documents: 29,085 of 61,591 candidates survive (47.2%); on the 300, of the
candidates it drops the old model rated 1,487 at 0.05 or more for some class and kept none, and 4,624 of 4,630 typed
mentions are the same. The mention stage (features and model) of 1,000 documents, both ways in one process,
interleaved, eight passes each: 3.29 -> 1.87 s of CPU (medians 3.44 -> 2.16). The selection protocol
(``tools/selection.py``, each fold's screen and models trained with it), without -> with the screen: two folds entity
F1 0.8113 -> 0.8120, relation F1 0.5598 -> 0.5620; the selection sets 0.8186 -> 0.8186, 0.6385 -> 0.6448. The bar at 0.1
rather than 0.05, on 197 sets: two folds 0.8054 / 0.6090 -> 0.8045 / 0.6093, the selection sets 0.8296 / 0.6450 ->
0.8349 / 0.6559 (at 0.2: 0.8033 / 0.6067, 0.6430); the decision of 344 documents 4.68 -> 4.28 s of CPU."""


def screened(cands: list[MentionCandidate], own_rows: list[list[str]], screen: Model | None) -> list[int]:
    """The indices of the candidates that survive the screen: every one a rule gave, and those the screen rates
    ``SCREEN_BAR`` at least for some class (all of them without a screen), from their rows ``own_rows``
    (``features.screen_features``: their own features and a few of their context's). The build and training both
    call it."""
    if screen is None:
        return list(range(len(cands)))
    free = [k for k, c in enumerate(cands) if not c.rule_cls]
    best = screen.probs([own_rows[k] for k in free]).max(axis=1, initial=0.0).tolist()
    passed = {k for k, p in zip(free, best) if p >= SCREEN_BAR}
    return [k for k, c in enumerate(cands) if c.rule_cls or k in passed]


def screened_features(doc: Doc, lay: Layout, cands: list[MentionCandidate], screen: Model | None,
                      own_rows: list[list[str]] | None = None,
                      keep: list[int] | None = None) -> tuple[list[int], list[list[str]]]:
    """The survivors of ``screened`` (``keep``, when the caller has them already) and their full features
    (``features.mentions_features`` over the survivors alone: what the build decides on and what the mention model is
    trained on)."""
    if own_rows is None:
        own_rows = [own_features(lay, c) for c in cands]
    if keep is None:
        keep = screened(cands, own_rows if screen is None else screen_features(lay, cands, own_rows), screen)
    return keep, mentions_features(doc, lay, [cands[k] for k in keep], [own_rows[k] for k in keep])


def decide(doc: Doc, models: Models, lay: Layout | None = None, cands: list[MentionCandidate] | None = None,
           mfeats: list[list[str]] | None = None, rule_rels: list | None = None,
           threshold: float = THRESHOLD, rule_threshold: float = RULE_THRESHOLD,
           rel_threshold: float | dict[str, float] | None = None, weak_bar: float = WEAK_BAR, joint_bar: float = JOINT_BAR,
           rule_rel_bar: float = RULE_REL_BAR, spared_bar: float | None = SPARED_REL_BAR) -> Decision:
    """Run the candidates through the models: the screen, then the mention model over the survivors, then the
    relation model over their pairs (what was computed already may be passed in: with ``mfeats``, ``cands`` are
    decided as they are, unscreened)."""
    lay = lay or layout(doc)
    if cands is None:
        cands = mention_candidates(doc, lay)
    if mfeats is None:
        keep, mfeats = screened_features(doc, lay, cands, models.screen)
        cands = [cands[k] for k in keep]
    rels = list(doc._.mlkg_relations or ()) if rule_rels is None else rule_rels
    related = frozenset((span.start, span.end) for s, _, o, *_ in rels for span in (s, o))
    typed = select(cands, models.mentions.probs(mfeats), models.mentions.labels, threshold, rule_threshold,
                   weak_bar if joint_bar < 1.0 else None, related, lay.texts, pinned_classes(rels))
    pairs = pair_candidates(doc, lay, typed, rels)
    probs = models.relations.probs(pairs_features(doc, lay, typed, pairs))
    col = {p: k for k, p in enumerate(models.relations.labels)}
    bars = _bars(rel_threshold)
    rows = probs.tolist()
    sc = _Scored.of(typed, pairs, rows, col)
    challengers = _challengers(sc)
    kept = _kept_rules(lay, typed, sc, rule_rel_bar, challengers)
    # a paper's venue the rules stated is not second-guessed by another the layout suggests
    stated = {(p.s, prop) for i, p in enumerate(pairs) for prop, _ in p.rules if prop in _ONE_VALUED and (i, prop) in kept}
    # nor is the subject of a comparison the rules read from the verb ("X, which builds on Y, outperforms Z": not Y)
    stated |= {(("o", p.o), prop) for i, p in enumerate(pairs) for prop, _ in p.rules if prop in _ONE_SUBJECT and (i, prop) in kept}
    rule_pairs = _rule_properties(typed, pairs)  # a pair of names the rules related keeps their property
    out = []
    rivals = _subjects_of(sc)
    joint = _joint_probs(sc)
    for i, pair in enumerate(pairs):
        # an untitled paper is known only by what the rules say of it: the model adds nothing to it
        forced = typed[pair.s].cand.forced
        names = sc.names[i]
        for prop, pr in sc.scores[i]:
            if (i, prop) in kept or (
                    not forced and joint.get((i, prop), pr) >= bars[prop] and (pair.s, prop) not in stated and (("o", pair.o), prop) not in stated
                    and pair.origin != "heading"
                    and not _rule_pair_of(pair, typed, rule_pairs, prop)
                    and not _outscored(rivals.get((pair.o, prop), ()), names[0], pr)
                    and not _challenged(lay, typed, challengers.get((pair.o, prop), ()), pair, pr)
                    and not (prop in NEGATED_PROPERTIES and _negated(lay, typed, pair))):
                out.append((pair.s, prop, pair.o, pr, pair))
    out += _shared(lay, typed, pairs, rows, col, out)
    return _without_weak(typed, out, threshold, joint_bar, spared_bar)


SHARED_PROPERTIES = frozenset(p for p, ends in RELATION_ENDS.items() if all(o in {"Dataset", "Hardware"} for _, o in ends))
"""The properties whose relation one conjunct of a coordination lends the others (``SHARE_FROM``): a benchmark or a
device is a setting every name of a list is placed in alike ("A, B and C were evaluated on X", "runs on X, Y and Z"),
where of two methods one conjunct may stand in a role the other does not ("X builds on A and differs from B")."""
SHARE_FROM: float | None = 0.5
"""A relation of one of ``SHARED_PROPERTIES`` stated in one sentence, kept from this probability on, is given to the
other names of the same class coordinated with either end in that sentence (``features.conjuncts``) whose own pair
the model rates ``SHARE_BAR`` at least, with that pair's probability as its confidence and "shared" added to its
origin, unless a negation stands between the two conjuncts ("runs on X but not on Y"); None: never. The per-pair model
reads each conjunct's distance and words apart and often rates the far end of a list below the bar. Out of fold on
the readable real-* sets (two grouped folds, pairs matched to the gold by name), of the gold relations missed with
both ends found (about 2,800) only 56 had a coordinated sibling that got the relation; sharing every kept relation
over both kinds of coordination added 57 right and 155 false relations; within one sentence, from 0.5, to pairs from
0.1 and for these properties: 22 right and 15 false (the same for all properties: 28 and 35; for pairs across sentences
too: 23 and 45). The rivals of one object (``RIVAL_MARGIN``) are what most often dropped such a conjunct: "BERT, GPT-2,
RoBERTa and XLNet were evaluated on GLUE" rates each subject above 0.85, and only the highest stays. Two grouped folds
over the readable real-* sets: relation F1 0.5273 -> 0.5288 (precision 0.632 -> 0.631, recall 0.452 -> 0.455;
evaluatedOn 0.459 -> 0.466, runsOn 0.411 -> 0.422; 0.5287 with ``conj`` arcs alone); the selection sets (real-ff, -gg,
-hh each left out) 0.6085 unchanged; entities unchanged."""
SHARE_BAR = 0.1


def _shared(lay: Layout, typed: list[Typed], pairs: list[PairCandidate], rows: list[list[float]], col: dict[str, int],
            out: list) -> list:
    """The relations ``out``'s sure ones lend the conjuncts of their ends (``SHARE_FROM``), found in turn from the
    ones lent too ("A and B run on X and Y": B on Y)."""
    if SHARE_FROM is None:
        return []
    index = {(p.s, p.o): i for i, p in enumerate(pairs)}
    have = {(s, prop, o) for s, prop, o, *_ in out}
    todo = [(s, prop, o) for s, prop, o, pr, pair in out
            if prop in SHARED_PROPERTIES and pr >= SHARE_FROM and "sentence" in pair.origin.split("+")]
    if not todo:
        return []
    sibs = conjuncts(lay, typed)
    got = []
    while todo:
        s, prop, o = todo.pop(0)
        for a, b, near, far in [(x, o, s, x) for x in sibs[s]] + [(s, y, o, y) for y in sibs[o]]:
            i = index.get((a, b))
            if i is None or (a, prop, b) in have or typed[a].cand.forced:
                continue
            pair, pr = pairs[i], rows[i][col[prop]]
            if pr < SHARE_BAR or "sentence" not in pair.origin.split("+") or negated_between(lay, typed[near].cand, typed[far].cand):
                continue
            have.add((a, prop, b))
            got.append((a, prop, b, pr, replace(pair, origin=pair.origin + "+shared")))
            todo.append((a, prop, b))
    return got


JOINT_SHARE = 0.5
"""How much of the gap to the noisy-or of a name pair's pairs its strongest pair takes: a relation said twice weakly
is likelier than once (``None``: each pair alone). Two grouped folds over the readable real-* sets / the selection
sets (real-ff, -gg, -hh each left out), relation F1 0.5335 / 0.5819 -> 0.5355 / 0.5851 (`uses` 0.281 -> 0.288 and
0.353 -> 0.385, `evaluatedOn` 0.453 -> 0.461)."""


def joint_probability(probs: list[float], share: float) -> float:
    """The strongest of ``probs`` moved ``share`` of the way to their noisy-or (one minus the product of misses)."""
    best, miss = max(probs), 1.0
    for p in probs:
        miss *= 1.0 - p
    return best + share * (1.0 - miss - best)


@dataclass(frozen=True)
class _Scored:
    """The pair candidates of one document with what the decision reads of each again and again: the names of its
    two ends (``_names``), the properties its classes allow (``ALLOWED``) with the model's probability of each, and
    the properties the rules gave it; made once, not per property in each of the decision's passes."""

    pairs: list[PairCandidate]
    names: list[tuple[str, str]]
    scores: list[tuple[tuple[str, float], ...]]
    ruled: list[frozenset[str]]

    @classmethod
    def of(cls, typed: list[Typed], pairs: list[PairCandidate], rows: list[list[float]], col: dict[str, int]) -> "_Scored":
        keys = [_name_key(t.cand) for t in typed]
        scores = []
        for pair, row in zip(pairs, rows):
            scores.append(tuple((prop, row[col[prop]]) for prop in ALLOWED[(typed[pair.s].cls, typed[pair.o].cls)]))
        return cls(pairs, [(keys[p.s], keys[p.o]) for p in pairs], scores,
                   [frozenset(prop for prop, _ in p.rules) for p in pairs])


def _joint_probs(sc: _Scored) -> dict[tuple[int, str], float]:
    """For the strongest pair of each (subject name, property, object name) said more than once, the
    ``joint_probability`` of all its pairs."""
    if JOINT_SHARE is None:
        return {}
    groups: dict[tuple, list[tuple[float, int]]] = defaultdict(list)
    for i, (names, scores) in enumerate(zip(sc.names, sc.scores)):
        for prop, pr in scores:
            groups[(names[0], prop, names[1])].append((pr, i))
    return {(max(members)[1], key[1]): joint_probability([p for p, _ in members], JOINT_SHARE)
            for key, members in groups.items() if len(members) > 1}


def _subjects_of(sc: _Scored) -> dict[tuple[int, str], list[tuple[float, str, int]]]:
    """For each object mention and property, the probability, name and mention of each subject candidate named in
    the object's sentence: the per-pair model scores each subject alone, the decision compares them."""
    if RIVAL_MARGIN is None:
        return {}
    near = [bool(_RIVAL_ORIGINS.intersection(pair.origin.split("+"))) for pair in sc.pairs]
    return _subject_scores(sc, near, [frozenset()] * len(sc.pairs))


def _subject_scores(sc: _Scored, counts: list[bool], barred: list[frozenset[str]]) -> dict[tuple[int, str], list[tuple[float, str, int]]]:
    """For each object mention and property, the probability, name and mention of each subject of a pair that counts
    (``counts``, per pair) for a property not ``barred`` to it: what the rival subjects of one object are compared on."""
    out: dict[tuple[int, str], list[tuple[float, str, int]]] = defaultdict(list)
    for pair, names, scores, count, no in zip(sc.pairs, sc.names, sc.scores, counts, barred):
        if count:
            for prop, pr in scores:
                if prop not in no:
                    out[(pair.o, prop)].append((pr, names[0], pair.s))
    return out


def _kept_rules(lay: Layout, typed: list[Typed], sc: _Scored, rule_rel_bar: float, challengers: dict) -> set[tuple[int, str]]:
    """The (pair, property) of each relation the rules gave that the model keeps: all of an untitled paper's, the
    others unless vetoed (``RULE_REL_BAR``) or outscored by a subject the rules did not give (``SUBJECT_MARGIN``)."""
    kept = set()
    for i, pair in enumerate(sc.pairs):
        if not pair.rules:
            continue
        forced = typed[pair.s].cand.forced
        scores = dict(sc.scores[i])
        for prop in sorted({p for p, _ in pair.rules if p in scores}):
            pr = scores[prop]
            if forced or (pr >= rule_rel_bar or prop not in VETOED_PROPERTIES) and \
                    not _challenged(lay, typed, challengers.get((pair.o, prop), ()), pair, pr):
                kept.add((i, prop))
    return kept


def _challengers(sc: _Scored) -> dict[tuple[int, str], list[tuple[float, str, int]]]:
    """For each object mention and property, the probability, name and mention of each subject candidate the rules
    did not relate to it by that property, however it was paired (``SUBJECT_MARGIN``)."""
    return _subject_scores(sc, [True] * len(sc.pairs), sc.ruled)


def _challenged(lay: Layout, typed: list[Typed], challengers, pair: PairCandidate, pr: float) -> bool:
    """Whether a subject of another name and the same class, not coordinated with the pair's, scores more than
    ``SUBJECT_MARGIN`` above ``pr`` (never for an object many subjects share: ``SHARED_OBJECT_CLASSES``)."""
    if SUBJECT_MARGIN is None or typed[pair.o].cls in SHARED_OBJECT_CLASSES:
        return False
    name = _names(typed, pair)[0]
    cls = typed[pair.s].cls
    return any(p > pr + SUBJECT_MARGIN and n != name and typed[k].cls == cls
               and not coordinated(lay, typed[pair.s], typed[k]) for p, n, k in challengers)


def _negated(lay: Layout, typed: list[Typed], pair: PairCandidate) -> bool:
    """Whether the clause of the later end's sentence, from the earlier end (or the sentence's start when that end
    stands in another sentence) to the later, holds a negation or hedge (``NEGATED_PROPERTIES``)."""
    first, second = sorted((typed[pair.s].cand, typed[pair.o].cand), key=lambda c: c.start)
    k = lay.sent_of(second.start)
    a = lay.sent_starts[k]
    b = lay.sent_starts[k + 1] if k + 1 < len(lay.sent_starts) else len(lay.idx)
    start, end = lay.idx[a], lay.idx[b] if b < len(lay.idx) else len(lay.text)
    return negated_clause(lay.text, start, end, first.end_char if first.start >= a else start, second.start_char)


def _outscored(rivals, name: str, pr: float) -> bool:
    """Whether another subject of the same object and property scores more than ``RIVAL_MARGIN`` above ``pr``."""
    return RIVAL_MARGIN is not None and any(p > pr + RIVAL_MARGIN for p, n, _ in rivals if n != name)


def _bars(rel_threshold: float | dict[str, float] | None) -> dict[str, float]:
    """The bar of each property: ``REL_BARS`` over ``REL_THRESHOLD`` by default, one number for all, or a table."""
    if rel_threshold is None:
        rel_threshold = REL_BARS
    if isinstance(rel_threshold, dict):
        return defaultdict(lambda: REL_THRESHOLD, rel_threshold)
    return defaultdict(lambda: float(rel_threshold))


def _weak_bar(cls: str, weak: float) -> float:
    """The weak bar of a candidate whose most probable class is ``cls``: ``TITLE_WEAK_BAR`` for a paper's title."""
    return min(weak, TITLE_WEAK_BAR) if cls == "Paper" else weak


TITLE_FAR_ORIGINS = frozenset({"wrapped"})
"""The pair origins that do not vouch for a doubted title (``_without_weak``, ``_sure_titles``): a line read as
wrapping onto the next ties a heading to what the paragraph under it names ("New Methods for Text-to-Image
Generation" over "The Apple ML research work to be presented at ICLR ..."), which says nothing of the heading."""


def _far_title(t: Typed, pair: PairCandidate) -> bool:
    """Whether ``t`` is a paper and ``pair`` relates it only through a ``TITLE_FAR_ORIGINS`` origin."""
    return t.cls == "Paper" and bool(TITLE_FAR_ORIGINS & set(pair.origin.split("+")))


def _sure_titles(typed: list[Typed], rels: list, weak: set[int]) -> set[int]:
    """The weak titles related from ``TITLE_REL_BAR`` on to ``TITLE_RELATIONS`` other names (not mentions: a blog's
    organization named in every paragraph is one), none of them weak."""
    others: dict[int, set[str]] = defaultdict(set)
    for s, _, o, pr, pair in rels:
        for i, other, name in ((s, o, 1), (o, s, 0)):
            if (i in weak and other not in weak and typed[i].cls == "Paper" and pr >= TITLE_REL_BAR
                    and not _far_title(typed[i], pair)):
                others[i].add(_names(typed, pair)[name])
    return {i for i, got in others.items() if len(got) >= TITLE_RELATIONS}


def _spared(typed: list[Typed]) -> set[int]:
    """The name-shape mentions the model vetoes (below ``_veto``'s bar) that ``select`` kept as an end of a rule's
    relation (the only way such a mention is kept)."""
    return {i for i, t in enumerate(typed) if t.cand.rule == _SHAPE_RULE and not t.cand.forced and t.prob < _veto(t.cand)}


def _without_weak(typed: list[Typed], rels: list, threshold: float, joint_bar: float,
                  spared_bar: float | None = SPARED_REL_BAR) -> Decision:
    """The decision without the weak mentions (below ``threshold``, not the rules') that are not the end of a
    relation whose probability times the mention's reaches ``joint_bar`` and whose other end is not weak: a name
    the mention model doubts stays when the relation model is sure of what it does. Nor the vetoed rule mentions
    spared as a rule relation's end (``_spared``) that end no relation the model rates ``spared_bar`` at least
    (None: all stay)."""
    weak = {i for i, t in enumerate(typed) if not t.cand.forced and not t.cand.rule_cls and t.prob < threshold}
    spared = _spared(typed) if spared_bar is not None else set()
    if not weak and not spared:
        return Decision(tuple(typed), tuple(rels))
    kept = {i for s, _, o, pr, pair in rels for i, other in ((s, o), (o, s))
            if i in weak and other not in weak and pr * typed[i].prob >= joint_bar and not _far_title(typed[i], pair)}
    kept |= _sure_titles(typed, rels, weak)
    kept |= {i for s, p, o, pr, pair in rels for i in (s, o) if i in spared and (
        pr >= spared_bar or (p in SPARED_BY_RULES and any(q == p for q, _ in pair.rules)))}
    index, out = {}, []
    for i, t in enumerate(typed):
        if (i not in weak and i not in spared) or i in kept:
            index[i] = len(out)
            out.append(t)
    return Decision(tuple(out), tuple((index[s], p, index[o], pr, replace(pair, s=index[s], o=index[o]))
                                      for s, p, o, pr, pair in rels if s in index and o in index))


def _names(typed: list[Typed], pair: PairCandidate) -> tuple[str, str]:
    return _name_key(typed[pair.s].cand), _name_key(typed[pair.o].cand)


def _name_key(c: MentionCandidate) -> str:
    """What the decision tells a mention's name by: its normalised canonical form, else its position."""
    return norm(c.canonical) or str(c.start)


def _rule_properties(typed: list[Typed], pairs: list[PairCandidate]) -> dict[tuple[str, str], set[str]]:
    """The properties the rules gave each pair of names (subject, object), over all their mention pairs."""
    props: dict[tuple[str, str], set[str]] = {}
    for p in pairs:
        if p.rules:
            props.setdefault(_names(typed, p), set()).update(prop for prop, _ in p.rules)
    return props


def _rule_pair_of(pair: PairCandidate, typed: list[Typed], rule_pairs: dict[tuple, set], prop: str) -> bool:
    """Whether the rules related the pair itself, its two names the other way round ("A has a higher error rate than
    B": the rules' B outperforms A is not contradicted by the model), or its two names by another property than
    ``prop``. Another mention pair of the same names the rules related by ``prop`` is the model's to judge: the rules'
    pair may have been vetoed where it stood (out of fold, a paper's venue rated 0.99 on its own line was dropped because
    the rules' pair of the same names in another sentence was rated 0.09)."""
    names = _names(typed, pair)
    return bool(pair.rules) or names[::-1] in rule_pairs or (names in rule_pairs and prop not in rule_pairs[names])


def apply_decision(doc: Doc, lay: Layout, decision: Decision) -> Doc:
    """Write a decision into ``doc``: its mentions as ``doc.spans["mlkg_mentions"]``, its relations as
    ``doc._.mlkg_relations`` (subject, property, object, sentence, rule summary, confidence)."""
    text = lay.text
    spans = []
    for t in decision.typed:
        c = t.cand
        span = doc[c.start:c.end]
        span.label_ = t.cls
        surface = text[c.start_char:c.end_char]
        set_mention_values(span, c.canonical or surface, c.aliases, c.rule or f"learned.{c.source}")
        spans.append(span)
    doc.spans[MENTIONS_KEY] = spans
    n = len(doc)
    rels = []
    best: dict[tuple, int] = {}
    for s, prop, o, pr, pair in sorted(decision.relations, key=lambda r: -r[3]):
        ends = (spans[s], spans[o])
        anchor = ends[0] if "sentence" in pair.origin or "rule" in pair.origin else ends[1]
        si = lay.sent_of(anchor.start)
        a = lay.sent_starts[si]
        b = lay.sent_starts[si + 1] if si + 1 < len(lay.sent_starts) else n
        # one statement per sentence: the same names may be paired twice in it (two mentions of one name)
        key = (norm(span_value(spans[s], "mlkg_canonical", "")), spans[s].label_, prop, norm(span_value(spans[o], "mlkg_canonical", "")),
               spans[o].label_, a, b)
        if key in best:
            continue
        best[key] = len(rels)
        rule = "learned." + pair.origin + ("(" + ",".join(r for _, r in pair.rules) + ")" if pair.rules else "")
        rels.append((spans[s], prop, spans[o], doc[a:b], rule, round(pr, 3)))
    rels.sort(key=lambda r: (r[0].start, r[2].start, r[1]))
    doc._.mlkg_relations = rels
    return doc


@Language.factory("mlkg_learned", assigns=["doc.spans", "doc._.mlkg_relations"], requires=["doc.spans"])
def make_learned(nlp: Language, name: str) -> "Learned":
    return Learned()


class Learned:
    """The trained decision over the broad candidates (a no-op while no weights exist)."""

    def __init__(self, models: Models | None = None) -> None:
        self.models = models if models is not None else load_models()
        if self.models is not None:
            gazetteer()  # built with the pipeline, before a second process is forked from this one, not in each

    def __call__(self, doc: Doc) -> Doc:
        if self.models is None or not len(doc):
            return doc
        with fewer_collections():
            lay = layout(doc)
            return apply_decision(doc, lay, decide(doc, self.models, lay))

    def pipe(self, docs: Iterable[Doc], batch_size: int = 16) -> Iterator[Doc]:
        """``Language.pipe``'s way in: the documents a batch at a time, each decided on its own and in order (no
        decision reads another document), so that the decision's tables and code stay in the processor's caches
        over the parser's batch rather than being read again after the rules of every document. The 200 first
        bench documents, the whole pipeline's CPU time, six runs: median 4.22 -> 4.08 s, best 4.02 -> 3.92 s.
        (The rule components are left one document at a time: a document's time budget runs from the start of
        its mention rules to the end of its relation rules, and would count the other documents' rules.)"""
        for batch in minibatch(docs, batch_size):
            yield from [self(doc) for doc in batch]  # (a list: the whole batch decided before any goes on)
