"""A paper title's extent where the layout wraps it or sets something beside it: a title wrapped under itself
(a hanging indent after a programme's code, a catalogue's column), a quoted title closed on the next line, a tagged
entry's second line, authors in parentheses or an archive identifier after it; and the features that tell the
trained decision a candidate stands where a line wraps (each with a case that must not change)."""

from __future__ import annotations

import pytest

from pipeline.nlp.candidates import layout, mention_candidates
from pipeline.nlp.rules import load_rules
from pipeline.nlp.titles import paper_titles
from pipeline.nlp.wraps import furniture_features, wrap_features
from test_learned import parse  # noqa: F401  (parse: the fixture the tests pass on)


def _cand(doc, lay, surface):
    return next((c for c in mention_candidates(doc, lay) if lay.text[c.start_char:c.end_char] == surface), None)


def _titles(text: str) -> set[str]:
    lines, pos = [], 0
    for line in text.split("\n"):  # one sentence a line: what the parse gives these texts
        lines.append((pos, pos + len(line)))
        pos += len(line) + 1
    return {" ".join(text[f.start:f.end].split()) for f in paper_titles(text, lines, load_rules())}


BOOKLET = ("Session C: localization\n"
           "B3  Sparse Attention Kernels for Streaming Speech Recognition on Small\n"
           "    Microcontroller Boards and Sensors\n"
           "    Ann Lee, Bo Chan, Cara Diaz\n"
           "    Trains a streaming recognizer that fits in 256 KB of memory.\n")


def test_a_title_wrapped_under_itself_after_a_programmes_code_is_whole():
    got = _titles(BOOKLET)
    assert "Sparse Attention Kernels for Streaming Speech Recognition on Small Microcontroller Boards and Sensors" in got
    assert "Microcontroller Boards and Sensors" not in got and not any("Ann Lee" in t for t in got)


def test_a_catalogues_title_wrapped_to_its_column_is_whole():
    text = ("Record 7\n"
            "  Title ........... Graph Transformers for Molecular Property Prediction at Scale with\n"
            "                    Sparse Positional Encodings\n"
            "  Authors ......... Ann Lee; Bo Chan\n")
    assert "Graph Transformers for Molecular Property Prediction at Scale with Sparse Positional Encodings" \
        in _titles(text)


def test_a_line_under_a_title_that_is_a_byline_or_affiliations_is_not_part_of_it():
    text = ("* Quantized Retrieval: Agent Interfaces Enable Automated Dataset Curation Workflows\n"
            "  Northfield Institute for Data, Northfield University\n"
            "  Introduces a retrieval agent that curates datasets.\n")
    assert "Quantized Retrieval: Agent Interfaces Enable Automated Dataset Curation Workflows" in _titles(text)
    text = ("Papers by our group\n"
            "    Lightweight Depth Completion: A Survey of Methods for Embedded Robots\n"
            "    by Ann Lee, Bo Chan, Cara Diaz\n")
    assert not any("Ann Lee" in t for t in _titles(text))


def test_a_quoted_title_closed_on_the_next_line_is_whole():
    text = ('Accepted papers\n'
            '    - "Private Federated Gradient Boosting for Credit Scoring in Regional Banking\n'
            '      Networks" - Ann Lee, Bo Chan\n')
    assert "Private Federated Gradient Boosting for Credit Scoring in Regional Banking Networks" in _titles(text)


def test_a_tagged_entrys_second_line_is_part_of_its_title():
    text = ("[Accepted to NAACL 2024] Cross-lingual Transfer for Morphologically Rich Low-resource Language\n"
            "Understanding Benchmarks\n"
            "  Evaluates transfer from English to twelve languages.\n")
    assert "Cross-lingual Transfer for Morphologically Rich Low-resource Language Understanding Benchmarks" \
        in _titles(text)


def test_authors_in_parentheses_and_an_archive_identifier_are_not_part_of_a_title():
    got = _titles("**Paper:** Fast Sparse Decoding for Speech Models (Ann Lee, Bo Chan, Cara Diaz)\n")
    assert "Fast Sparse Decoding for Speech Models" in got
    got = _titles("[3] Ann Lee, Bo Chan:\n"
                  "     Can Small Models Repair Programs: An Empirical Study? CoRR abs/2405.01234\n")
    assert "Can Small Models Repair Programs: An Empirical Study?" in got


def test_a_new_item_under_a_programmes_line_is_no_continuation():
    text = ("16:55  Session 6 - Comparing cheap tactile fingertips on robots\n"
            "       Paper: TouchNet: A Hybrid Tactile Sensor for Comparing Low-Cost Robot Touch\n"
            "       Authors: Ann Lee, Bo Chan\n")
    assert "TouchNet: A Hybrid Tactile Sensor for Comparing Low-Cost Robot Touch" in _titles(text)


def test_wrap_features_mark_a_cut_title_and_its_second_half(parse):
    doc = parse(BOOKLET)
    lay = layout(doc)
    cut = _cand(doc, lay, "Sparse Attention Kernels for Streaming Speech Recognition on Small")
    rest = _cand(doc, lay, "Microcontroller Boards and Sensors")
    assert cut is not None and rest is not None
    assert "wrap_next=hang" in wrap_features(lay, cut) and "wrap_prev=hang" in wrap_features(lay, rest)
    whole = _cand(doc, lay, "Sparse Attention Kernels for Streaming Speech Recognition on Small\n    Microcontroller Boards and Sensors")
    assert whole is not None and "wrap_in" in wrap_features(lay, whole)


def test_wrap_features_leave_a_short_line_alone(parse):
    doc = parse("Keynote\nScaling Laws for Sparse Models\nAnn Lee gives the talk at noon.\n")
    lay = layout(doc)
    c = _cand(doc, lay, "Scaling Laws for Sparse Models")
    assert c is not None and not any(f.startswith("wrap_") for f in wrap_features(lay, c))


@pytest.mark.parametrize("text, feature", [
    ("Event Type: Workshop", "fur=label"),
    ("Paper: TouchNet: A Hybrid Tactile Sensor for Robot Touch", "fur=two_colons"),
    ("214 Sparse Mixtures of Experts for Speech Translation", "fur=number"),
    ("Contact author, Sparse Mixtures of Experts", "fur=comma"),
    ("Powered by Hugo · Theme: Wowchemy", "fur=dot"),
    ("PHONES THAT READ THE WORLD: MODELS MOVE ONTO THE DEVICE", "fur=caps"),
])
def test_furniture_features_name_what_a_candidate_holds_beside_a_title(text, feature):
    assert feature in furniture_features(text)


@pytest.mark.parametrize("text", [
    "TouchNet: A Hybrid Tactile Sensor for Comparing Low-Cost Robot Touch",
    "2019 Sparse Mixtures of Experts for Speech Translation",
    "Scaling Laws for Sparse Models",
])
def test_a_whole_title_holds_no_furniture(text):
    assert furniture_features(text) == []


READING_LIST = ("Reading list for the seminar. Each entry gives the title, the groups of the\n"
                "authors and a teaser; entries were copied from the listing as wrapped.\n"
                "\n"
                "[1] Lantern: Fast Cross-Domain Singing Tone Transfer with Feature-wise\n"
                "    Linear Modulation\n"
                "    Ann Lee, Bo Chan, Cara Diaz\n"
                "    Teaser: a light-weight transfer system that keeps the content of the\n"
                "    source and the timbre of the target, in real time on one core.\n"
                "\n"
                "[2] Quillwork: Sparse Retrieval for Long Legal Documents With Hierarchical\n"
                "    Northfield Institute for Data, Northfield University\n"
                "    Teaser: retrieval over sections rather than whole documents, so that\n"
                "    long contracts are read piece by piece and the pieces ranked at once.\n")


def test_a_title_the_text_wraps_at_its_width_goes_on_over_the_next_line():
    got = _titles(READING_LIST)
    assert "Lantern: Fast Cross-Domain Singing Tone Transfer with Feature-wise Linear Modulation" in got
    # a line of organizations (a comma in it) under a title as long as the widest line is the entry's next field
    assert not any("Northfield" in t for t in got)
