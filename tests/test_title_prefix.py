"""A paper's own name before its title's colon ("Magellan: Autonomous Discovery of ..."): a method mention of the
rules when the title is one of theirs, a candidate of its own when only a run or a table cell reads it as a title,
and a pair feature that says the paper's title opens with the object's name (each with a case that must give none)."""

from __future__ import annotations

import pytest

from pipeline.nlp.candidates import Typed, _entry_head, layout, mention_candidates
from pipeline.nlp.names import _coined_prefix
from pipeline.nlp.rules import load_rules
from pipeline.nlp.titles import is_label
from test_learned import _cand, _pair, parse  # noqa: F401  (parse: the fixture the tests pass on)


@pytest.mark.parametrize("word, coined", [
    ("Magellan", True), ("Orca", True), ("fairseq", True), ("Mip-Splatting", True),
    ("Demo", False), ("Tutorial", False), ("Project", False), ("Scaling", False), ("Revisited", False),
    ("2024", False), ("learning", False), ("Two Words", False),
])
def test_a_one_word_prefix_is_a_name_unless_a_label_or_a_verb_form(word, coined):
    assert _coined_prefix(word, load_rules()) is coined


def test_labels_of_fields_and_items_are_labels():
    assert is_label("Speaker") and is_label("Abstract") and is_label("Keynote") and not is_label("Magellan")


def _rule_names(doc) -> dict[str, str]:
    return {s.text: s.label_ for s in doc.spans["mlkg_mentions"] if s.label_ in {"Method", "Dataset"}}


def test_a_plain_word_before_a_titles_colon_is_a_method(parse):
    """Said once, in the title only: neither its shape nor a second mention names it."""
    doc = parse('The programme opens with "Magellan: Autonomous Discovery of Novel Compiler Heuristics" by Ann Lee.')
    assert _rule_names(doc).get("Magellan") == "Method"
    doc = parse('The programme opens with "Canopy: A Benchmark for Web Agents" by Ann Lee.')
    assert _rule_names(doc).get("Canopy") == "Dataset"


@pytest.mark.parametrize("text", [
    'The programme opens with "Attention Is All You Need for Compiler Heuristics" by Ann Lee.',
    'The programme opens with "Scaling: Laws of Neural Compiler Heuristics" by Ann Lee.',
    'The programme opens with "Demo: Novel Compiler Heuristics on Phones" by Ann Lee.',
])
def test_no_method_from_a_title_without_a_prefix_or_with_a_label_or_verb_before_its_colon(parse, text):
    assert not {"Attention", "Scaling", "Demo"} & set(_rule_names(parse(text)))


def _prefixes(parse, text: str) -> set[str]:
    doc = parse(text)
    lay = layout(doc)
    return {lay.text[c.start_char:c.end_char] for c in mention_candidates(doc, lay)
            if c.source == "prefix" or "prefix" in c.also}


def test_the_name_before_a_table_rows_title_is_a_candidate(parse):
    text = ("TICKET A1  Orca: A Distributed Serving System for Generative Models  [Accepted to OSDI 2022]\n"
            "TICKET A2  Instant Policy - In-Context Imitation Learning via Graph Diffusion  [Accepted to ICLR 2025]\n")
    got = _prefixes(parse, text)
    assert {"Orca", "Instant Policy"} <= got, got


@pytest.mark.parametrize("text", [
    "Speaker: Ann Lee From Veltro Labs And Partners\n",
    "Reading group: Notes On Sparse Models For Phones\n",
    "BENCH NOTES: Two Runs On The New Board Today\n",
])
def test_no_candidate_from_a_label_or_a_phrase_before_a_colon(parse, text):
    assert _prefixes(parse, text) == set()


def test_a_paper_whose_title_opens_with_the_name_introduces_it(parse):
    text = "Magellan: Autonomous Discovery of Compiler Heuristics\n\nMagellan tunes compilers with search."
    title = "Magellan: Autonomous Discovery of Compiler Heuristics"
    _, f = _pair(parse, text, title, "Paper", "Magellan", "Method")
    assert "kin=title_prefix" in f and "Paper>Method|kin=title_prefix" in f
    text = "Hyena Hierarchy: Towards Larger Convolutional Models\n\nHyena replaces attention."
    _, f = _pair(parse, text, "Hyena Hierarchy: Towards Larger Convolutional Models", "Paper", "Hyena", "Method")
    assert "kin=s_holds_o" in f and "kin=title_prefix" not in f


def test_a_title_after_two_tags_heads_its_entry(parse):
    text = "1. [Accepted to OSDI 2022] [Oral] Orca: A Distributed Serving System for Generative Models\n"
    doc = parse(text)
    lay = layout(doc)
    paper = Typed(_cand(doc, lay, "Orca: A Distributed Serving System for Generative Models"), "Paper")
    assert _entry_head(lay, paper)


@pytest.mark.parametrize("lead", ["(A) ", 'Paper: "', '- Paper: "', "[ ] 1.  ", "☐ “9. "])
def test_a_title_after_a_letter_a_check_box_or_an_opening_quote_heads_its_entry(parse, lead):
    """An entry's title behind a letter label, a check box or an opening quote heads its entry: the
    lines under it (its abstract, its venue note) are paired with it."""
    title = "Orca: A Distributed Serving System for Generative Models"
    close = {'"': '"', "“": "”"}.get(lead.rstrip()[-1:], "")
    doc = parse(f"{lead}{title}{close}\nAuthors: Ann Lee\n")
    lay = layout(doc)
    assert _entry_head(lay, Typed(_cand(doc, lay, title), "Paper"))


def test_a_prefix_of_plain_words_and_a_title_in_capitals_are_told_apart(parse):
    """A prefix of dictionary words is introduced about as often as not ("Snap Video", "Hyena Hierarchy"): the pair
    says so; a heading in capitals is no title's prefix at all."""
    text = "Snap Video: Scaled Spatiotemporal Transformers for Synthesis\n\nSnap Video renders clips."
    _, f = _pair(parse, text, "Snap Video: Scaled Spatiotemporal Transformers for Synthesis", "Paper", "Snap Video",
                 "Method")
    assert "kin=title_prefix" in f and "kin=title_prefix_plain" in f
    text = "APPLE: THE QUIET INCUMBENT OF PHONES\n\nAPPLE ships models."
    _, f = _pair(parse, text, "APPLE: THE QUIET INCUMBENT OF PHONES", "Paper", "APPLE", "Method")
    assert "kin=title_prefix" not in f
    assert _prefixes(parse, "TICKET A1  ORCA: A DISTRIBUTED SERVING SYSTEM FOR MODELS\n") == set()
