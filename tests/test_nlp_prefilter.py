"""Prefiltered patterns: skipped only where the pattern cannot match, so the answers are the pattern's own."""

import re

import pytest

from pipeline.nlp.components import RelationFinder
from pipeline.nlp.text import Prefiltered, _run_needles, _sre_parser, prefiltered


def needles(pattern: str, flags: int = 0):
    return _run_needles(_sre_parser.parse(pattern, flags))


def test_needles_of_a_sequence_an_alternation_and_a_repeat():
    assert needles(r"\bwill\s+(?:present|share)\b") == {"present", "share"}  # the set whose shortest is longest
    assert needles(r"(?:extends|builds\s+on)x") == {"extends", "builds"}
    assert needles(r"(?:ab)+cde") == {"cde"}
    assert needles(r"Model", re.I) == {"model"}  # lower-cased: the text is looked at lower-cased too


@pytest.mark.parametrize("pattern", [r"(?:abc)?", r"[A-Z]\w+", r"(?:foo|\w+)", r"(?=abc)\w", r"(?:abc|)"])
def test_no_needles_where_a_match_need_hold_none(pattern):
    assert needles(pattern) is None


def test_an_empty_branch_leaves_the_rest_of_the_sequence():
    assert needles(r"(?:abc|)def?") == {"de"}


def test_short_needles_give_the_pattern_itself():
    p = re.compile(r"\bin\s+X")
    assert prefiltered(p) is p
    assert isinstance(prefiltered(re.compile(r"a:\s"), shortest=1), Prefiltered)


TEXTS = [
    "Heron-2 builds upon the Conformer encoder and outperforms Whisper on LibriSpeech.",
    "It is BUILT ON top of Llama and BEATS GPT-4o.",
    "The model does not run on the Jetson Orin Nano; it may be deployed later.",
    "Evaluated on TriviaQA, it improves accuracy over the baseline by 3 points.",
    "Kite-UI is an adaptation of Kite to mobile screens.",
    "Die Ergebnisse übertreffen das Modell (uſes ſomething)",  # long s: re.IGNORECASE equates it with "s"
    "KELVIN \u212aeeps \u0130t uses",
    "",
]


def test_relation_cues_answer_as_their_patterns():
    from pipeline.nlp.relations.common import NEGATION

    finder = RelationFinder(None)
    for name, fast in [*finder.re.items(), ("negation", NEGATION)]:
        raw = fast.pattern if isinstance(fast, Prefiltered) else fast
        for text in TEXTS:
            assert [m.span() for m in fast.finditer(text)] == [m.span() for m in raw.finditer(text)], (name, text)
            assert bool(fast.search(text)) == bool(raw.search(text)), (name, text)


def test_a_letter_that_folds_to_ascii_is_never_skipped():
    p = prefiltered(re.compile(r"\buses\b", re.I))
    assert isinstance(p, Prefiltered)
    assert [m.group() for m in p.finditer("it uſes X")] == ["uſes"]
    assert p.search("it employs X") is None


def test_a_folded_pattern_finds_in_the_lower_cased_text_what_the_pattern_finds_ignoring_case():
    from pipeline.nlp.text import folded

    pattern = r"\b(?:FID|state[- ]of[- ]the[- ]art|improv\w*\s+(?:[\w@.%-]+\s+){1,7}?over|[^]a]x)\b"
    fast = re.compile(folded(pattern))
    for text in ["The FID of GANs", "STATE-OF-THE-ART results; it Improves accuracy by 2 points OVER the baseline",
                 "State of the Art, fid, Fid.", "a ]X b Zx"]:
        found = [m.span() for m in re.finditer(pattern, text, re.I)]
        assert found and [m.span() for m in fast.finditer(text.lower())] == found


@pytest.mark.parametrize("pattern", ["(?-i:[a-z])x", "(?P<n>a)", r"\x41", r"[A-Z]x", r"\N{DIGIT ONE}", r"(a)\1", "é"])
def test_no_folded_pattern_where_its_text_cannot_say_it_matches_the_same(pattern):
    from pipeline.nlp.text import folded

    assert folded(pattern) is None


def test_a_folded_pattern_reads_a_text_lower_cased_only_where_it_finds_the_same():
    from pipeline.nlp.text import folded, folded_text

    fast, pattern = re.compile(folded(r"\b(?:USES|Stra\w+)\b")), r"\b(?:USES|Stra\w+)\b"
    for text in ["Straße USES ΑΣ", "Ünïcödé uses it"]:
        assert [m.span() for m in fast.finditer(folded_text(text))] == [m.span() for m in re.finditer(pattern, text, re.I)]
    assert folded_text("İstanbul uses it") is None  # lower-cased, "İ" is two characters
    assert folded_text("Kelvin \u212a uses") is None  # re.IGNORECASE equates the Kelvin sign with "k"


def test_a_wider_pattern_reads_a_case_sensitive_group_case_blind():
    from pipeline.nlp.text import folded, wider

    assert folded("(?-i:[a-z])x") is None
    assert folded("(?-i:[a-z])X", widen=True) == "(?:[a-z])x"
    assert wider(r"\bab\b") is None  # folded as it is: no wider pattern needed
    assert wider(r"(?-i:[a-z])*") is None  # matches the empty string
    assert wider(r"(?-i:[A-Z])x") is None  # a capital in a class: not folded, widened or not


@pytest.mark.parametrize("text", [
    "We use a modified version of BERT. The Version of X; a Variant Of Y, an extension of it and One Variant of Z.",
    "It extends ResNet and builds on ViT, built on top of GPT: a fork of LLaMA, THE port of X.",
    "the the the version of A b C version of d e f g version of",
    "", "version", "no cue here at all"])
def test_a_screened_scan_finds_what_the_pattern_finds(text):
    from pipeline.nlp.text import folded_text, screened_finditer, wider

    pattern = (r"\b(?:(?:(?:a|an|the)\s+)?(?:(?-i:[a-z0-9])[\w-]*\s+){0,3}?(?:variant|extension|version|fork|port)\s+of"
               r"|extends|builds\s+(?:up)?on|built\s+(?:up)?on\s+top\s+of)\b")
    rx = re.compile(pattern, re.I)
    wide = wider(pattern)
    assert wide is not None
    found = [m.span() for m in screened_finditer(rx, wide, text, folded_text(text))]
    assert found == [m.span() for m in rx.finditer(text)]
