"""The screen before the mention model (``classify.screened``): a linear model over a candidate's own features that
lets through every rule candidate and those it rates ``SCREEN_BAR`` at least for some class; only those get their
full features and reach the mention model."""

from __future__ import annotations

import json
import math

import numpy
import pytest

from pipeline.nlp.candidates import MentionCandidate, layout, mention_candidates
from pipeline.nlp.classify import (SCREEN_BAR, LinearModel, Models, _from_binary, _to_binary, decide, load_models,
                                   screened, screened_features)
from pipeline.nlp.extract import doc_of
from pipeline.nlp.features import mentions_features, own_features, screen_features

CLASSES = ("Dataset", "Hardware", "Method", "Organization", "Paper", "Venue")


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def _screen(base: float, lifted: dict[str, tuple[int, float]] = {}) -> LinearModel:
    """A screen that rates every class ``base``, and the class of each feature of ``lifted`` (feature -> (class
    index, probability)) that probability."""
    weights = {}
    for feature, (j, p) in lifted.items():
        row = numpy.zeros(len(CLASSES))
        row[j] = _logit(p) - _logit(base)
        weights[feature] = row
    return LinearModel(CLASSES, weights, numpy.full(len(CLASSES), _logit(base)))


def _cand(k: int, rule_cls: str = "") -> MentionCandidate:
    return MentionCandidate(k, k + 1, 4 * k, 4 * k + 3, "rule" if rule_cls else "shape", rule_cls,
                            "name.shape_or_context" if rule_cls else "")


def test_every_rule_candidate_survives_however_low_the_screen_rates_it():
    cands = [_cand(0, "Method"), _cand(1), _cand(2, "Dataset"), _cand(3)]
    assert screened(cands, [[]] * 4, _screen(0.001)) == [0, 2]


def test_a_candidate_below_the_bar_for_every_class_is_dropped():
    screen = _screen(SCREEN_BAR * 0.8, {"one_class": (2, SCREEN_BAR * 1.2)})
    cands = [_cand(0), _cand(1), _cand(2)]
    rows = [["one_class"], ["unknown"], []]
    assert screened(cands, rows, screen) == [0]  # one class above the bar is enough; below it for all, dropped
    assert screened(cands, rows, _screen(SCREEN_BAR * 1.01)) == [0, 1, 2]
    assert screened(cands, rows, None) == [0, 1, 2]  # no screen: every candidate
    assert screened([], [], screen) == []


@pytest.fixture(scope="module")
def parse(nlp):
    def run(text):
        return nlp(doc_of(nlp, text), disable=["mlkg_learned"])
    return run


_TEXT = ("# Heron: Fast Speech on Small Devices\n\nWe compare Heron-2 against Vorplex on LibriSpeech and WrenQA. "
         "Heron-2 runs on the Raspberry Pi 5 and was built at Corvid University, where the team presented it at "
         "Interspeech 2025. It uses FlashAttention and outperforms Whisper by two points.\n")


def _same(a, b) -> None:
    assert [(t.cand, t.cls, t.prob) for t in a.typed] == [(t.cand, t.cls, t.prob) for t in b.typed]
    assert [r[:4] for r in a.relations] == [r[:4] for r in b.relations]


def test_weights_without_a_screen_decide_as_before(parse):
    """Weights without a screen (as every one before it): every candidate gets its full features, the decision is
    the one made from all the candidates' features, and the JSON has no screen either way round."""
    models = load_models()
    plain = Models(models.mentions, models.relations)
    assert "screen" not in plain.to_json() and Models.from_json(plain.to_json()).screen is None
    doc = parse(_TEXT)
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    before = decide(doc, plain, lay, cands, mentions_features(doc, lay, cands))
    _same(decide(doc, plain, lay), before)
    assert before.typed


def test_full_features_are_computed_for_the_survivors_only_and_start_with_their_own(parse):
    doc = parse(_TEXT)
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    keep, rows = screened_features(doc, lay, cands, _screen(0.001))
    assert keep == [k for k, c in enumerate(cands) if c.rule_cls] and len(rows) == len(keep)
    for k, row in zip(keep, rows):
        own = own_features(lay, cands[k])
        assert row[:len(own)] == own and len(row) > len(own)
    every = screened_features(doc, lay, cands, None)
    assert every[0] == list(range(len(cands))) and every[1] == mentions_features(doc, lay, cands)


def test_a_screen_that_passes_nothing_leaves_the_rules_mentions(parse):
    doc = parse(_TEXT)
    models = load_models()
    shut = Models(models.mentions, models.relations, _screen(0.001))
    got = decide(doc, shut)
    assert got.typed and all(t.cand.rule_cls for t in got.typed)


def test_the_screen_round_trips_through_json_and_the_binary_copy():
    screen = _screen(0.02, {"acronym": (2, 0.3), "gaz=Organization": (3, 0.6)})
    mentions = _screen(0.1, {"acronym": (2, 0.9)})
    models = Models(mentions, _screen(0.2), screen)
    read = Models.from_json(json.loads(json.dumps(models.to_json())))
    copied = _from_binary(_to_binary(read))
    rows = [["acronym"], [], ["gaz=Organization", "acronym", "unknown"]]
    for other in (read, copied):
        assert other.to_json() == models.to_json() and other.screen is not None
        assert numpy.allclose(other.screen.probs(rows), screen.probs(rows), atol=1e-4)
    assert numpy.array_equal(read.screen.probs(rows), copied.screen.probs(rows))
    assert _from_binary(_to_binary(Models(mentions, _screen(0.2)))).screen is None
    with pytest.raises(ValueError):
        _from_binary(_to_binary(read)[:-8])


def test_the_committed_weights_have_a_screen():
    """``mlkg train`` writes the screen beside the two models (retrain when this fails)."""
    models = load_models()
    assert models.screen is not None and models.screen.labels == models.mentions.labels


def _screen_rows(parse, text: str) -> dict[str, list[list[str]]]:
    """Each candidate's screen context (``features.screen_features`` past its own features), by its text."""
    doc = parse(text)
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    owns = [own_features(lay, c) for c in cands]
    out: dict[str, list[list[str]]] = {}
    for c, own, row in zip(cands, owns, screen_features(lay, cands, owns)):
        assert row[:len(own)] == own  # a screen row starts with the candidate's own features
        out.setdefault(lay.text[c.start_char:c.end_char], []).append(row[len(own):])
    return out


def test_the_screen_reads_the_noun_of_an_apposition(parse):
    rows = _screen_rows(parse, "The kit ships with Poetoid Lyricam, a camera that prints poems.")
    assert "sx_appos_noun=camera" in rows["Poetoid Lyricam"][0]


def test_the_screen_reads_the_kind_noun_a_name_modifies(parse):
    rows = _screen_rows(parse, "The team wrote the Clang compiler.")
    assert "sx_np=compiler" in rows["Clang"][0]


def test_the_screen_reads_the_preposition_and_word_governing_a_name(parse):
    rows = _screen_rows(parse, "The documents are re-ranked with Elasticsearch.")
    got = rows["Elasticsearch"][0]
    assert "sx_p1=with" in got and any(f.startswith("sx_prep=with_") for f in got)


def test_the_screen_reads_the_classes_of_the_other_items_of_a_list(parse):
    rows = _screen_rows(parse, "We compare BERT, Tune and Katib on GLUE.")
    assert "sx_ls=rc=Method" in rows["Tune"][0]
    # a span across two items is no item of the list
    assert not any(f.startswith("sx_ls=") for f in rows["Tune and Katib"][0])


def test_the_kind_words_of_one_occurrence_reach_the_others(parse):
    rows = _screen_rows(parse, "The team wrote the Clang compiler. Later Clang grew.")
    first, second = rows["Clang"]
    assert "sx_np=compiler" in first and "sx_any_np=compiler" not in first  # (not twice)
    assert "sx_np=compiler" not in second and "sx_any_np=compiler" in second


def test_a_name_whose_context_the_screen_trusts_reaches_the_mention_model(parse):
    """A candidate the rules did not give, whose own features the screen rates low, passes on its context."""
    doc = parse("The kit ships with Poetoid Lyricam, a camera that prints poems.")
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    k = next(k for k, c in enumerate(cands) if lay.text[c.start_char:c.end_char] == "Poetoid Lyricam")
    assert not cands[k].rule_cls
    assert k not in screened_features(doc, lay, cands, _screen(0.001))[0]
    keep, rows = screened_features(doc, lay, cands, _screen(0.001, {"sx_appos_noun=camera": (1, 0.5)}))
    assert k in keep
    # the mention model's rows are the full features, without the screen's context
    assert not any(f.startswith("sx_") for f in rows[keep.index(k)])
