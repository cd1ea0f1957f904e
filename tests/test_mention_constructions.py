"""Mention candidates and features for constructions the name-shape rules cannot see: a list after "the X tasks:",
an apposition that says what a name is, a longer organization over a lexicon's, a title line's authors, a
workshop's name inside a bracketed tag."""

from __future__ import annotations

import numpy
import pytest

from pipeline.nlp.candidates import MentionCandidate, Typed, layout, mention_candidates
from pipeline.nlp.classify import select
from pipeline.nlp.extract import doc_of
from pipeline.nlp.features import doc_context, mention_features, mentions_features
from pipeline.nlp.mentions import MENTIONS_KEY


@pytest.fixture(scope="module")
def parse(nlp):
    def run(text):
        return nlp(doc_of(nlp, text), disable=["mlkg_learned"])
    return run


def _features(parse, text: str) -> dict[str, tuple[MentionCandidate, list[str]]]:
    doc = parse(text)
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    ctx = doc_context(doc, lay, cands)
    return {lay.text[c.start_char:c.end_char]: (c, mention_features(doc, lay, c, ctx)) for c in cands}


def _phrases(got: dict) -> dict[str, tuple[str, ...]]:
    return {t: c.licences for t, (c, _) in got.items() if c.source == "phrase"}


def test_a_lower_case_phrase_needs_a_context_that_names_it(parse):
    """Lower-case phrases are candidates only where their context licenses them: taken everywhere, they found as
    many names the annotators do not list as ones they do. A verb ends a phrase ("outperforms")."""
    got = _phrases(_features(parse, "The student reaches high accuracy on phones and runs in real time."))
    assert got == {}, got
    got = _phrases(_features(parse, "Consistency distillation outperforms existing pruning."))
    assert not any("outperforms" in t for t in got), got


@pytest.mark.parametrize("text, phrases, licence, other, none", [
    # an acronym in brackets after it; a bracket of plain words licenses nothing
    ("Each layer uses grouped-query attention (GQA) to keep the cache small.", ["grouped-query attention"], "acronym",
     "Each layer keeps the key cache (see below) small.", "key cache"),
    # a citation in brackets after it
    ("It compares favourably with prefix tuning (Li and Liang, 2021) on every task.", ["prefix tuning"], "cite",
     "It compares favourably with every task (all of them) in the table.", "every task"),
    # a list with a name in it, item after item; a name after a phrase with no separator is no list
    ("The library ships implementations of PPO, best-of-n sampling and expert iteration.",
     ["best-of-n sampling", "expert iteration"], "list", "In streaming settings StreamingLLM is fast.", "streaming settings"),
    # a kind noun after it: the words before the noun; a determiner is no technique
    ("StreamingLLM outperforms the sliding window recomputation baseline by far.", ["sliding window recomputation"], "kind",
     "StreamingLLM outperforms the new baseline by far.", "new"),
    # a cue before a whole item of two words or more; a plain word after it is none
    ("Wanda is a variant of magnitude pruning: it scores weights by activations.", ["magnitude pruning"], "cue",
     "The model was trained with data from the web crawl.", "data"),
])
def test_a_context_licenses_a_lower_case_phrase(parse, text, phrases, licence, other, none):
    got = _phrases(_features(parse, text))
    for phrase in phrases:
        assert licence in got.get(phrase, ()), got
    got = _phrases(_features(parse, other))
    assert none not in got and not any(licence in lic for lic in got.values()), got


def test_a_name_the_lexicon_knows_is_told_from_a_shape_guess(parse):
    got = _features(parse, "We fine-tune BERT and Kestrelnet on GSM8K, SVAMP and AQuA.")
    assert "lex=Method" in got["BERT"][1] and not any(f.startswith("lex") for f in got["Kestrelnet"][1])
    assert "ls_lex=Dataset" in got["SVAMP"][1], got["SVAMP"][1]
    got = _features(parse, "We visited Kestrel, Heron and Wren.")
    assert not any(f.startswith(("ls_lex", "lex")) for f in got["Heron"][1]), got["Heron"][1]


def test_a_list_after_a_colon_knows_its_intro_noun(parse):
    got = _features(parse, "We fine-tune on the eight GLUE tasks: MNLI, SST-2, QNLI and QQP.")
    for name in ("MNLI", "QNLI"):
        f = got[name][1]
        assert "intro=task" in f and "intro_class=Dataset" in f, f


def test_an_apposition_names_the_kind_of_thing(parse):
    got = _features(parse, "Kestrelware, a Canadian robotics start-up, showed the arm at the fair.")
    assert "appos_noun=start-up" in got["Kestrelware"][1]


def test_a_longer_organization_replaces_the_lexicon_name_it_starts_with(parse):
    doc = parse("Google AI Research released the model, and Apple ML researchers tested it.")
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    text = lay.text

    def row(c):
        surface = text[c.start_char:c.end_char]
        # the model is sure of both longer spans; only the one ending on an organization's word replaces "Google"
        # (the lexicon's names rated about as high: a longer span rated clearly higher wins anyway, ``OUTRANK_MARGIN``)
        sure = surface in {"Google AI Research", "Apple ML"}
        return [0.0, 0.0, 0.0, 0.0, 0.0, 0.95 if sure else (0.9 if c.rule_cls == "Organization" else 0.0)]

    labels = ("Paper", "Method", "Dataset", "Venue", "Hardware", "Organization")
    kept = {text[t.cand.start_char:t.cand.end_char] for t in
            select(cands, numpy.asarray([row(c) for c in cands]), labels, texts=lay.texts) if t.cls == "Organization"}
    assert "Google AI Research" in kept and "Google" not in kept
    assert "Apple" in kept and "Apple ML" not in kept


def test_a_lead_of_names_before_the_first_full_stop_is_a_byline(parse):
    text = ("> Skip-Steps for Efficient Video Processing\n"
            "Kestrel AI Research, Heron National University. Video models recompute every frame.\n")
    got = _features(parse, text)
    assert "in_lead_nw" in got["Kestrel AI Research"][1]
    assert "in_lead_nw" in got["Heron National University"][1]
    assert "next_lead_nw" in got["Skip-Steps for Efficient Video Processing"][1]
    assert not any(f.startswith("in_lead") for f in got["Skip-Steps for Efficient Video Processing"][1])


def test_a_speaker_line_is_a_labelled_line(parse):
    got = _features(parse, "Learning Rules with Language Models\nSpeaker: Ann Lee\n")
    assert "next_first=speaker" in got["Learning Rules with Language Models"][1]


def test_a_title_line_ends_before_its_authors_in_parentheses(parse):
    doc = parse("Papers at the conference:\n- Kite: Sparse Weights for Small Models (Ann Lee, Bo Chan, Cy Dunn)\n"
                "- Tern: Fast Decoding (Spotlight)\n")
    titles = {s.text for s in doc.spans["mlkg_mentions"] if s.label_ == "Paper"}
    assert "Kite: Sparse Weights for Small Models" in titles, titles


def test_a_workshop_name_ends_at_the_bracket_that_closes_its_tag(parse):
    doc = parse("* [Best paper, Workshop on Tiny Robots] Kite: Sparse Weights for Small Models\n")
    venues = {s.text for s in doc.spans["mlkg_mentions"] if s.label_ == "Venue"}
    assert "Workshop on Tiny Robots" in venues, venues


def test_what_is_said_right_after_a_name_says_its_class(parse):
    got = _features(parse, "MADLAD-400 is a manually audited, document-level monolingual dataset. Kestrel is fast.")
    assert "cop_class=Dataset" in got["MADLAD-400"][1] and not any(f.startswith("cop_class") for f in got["Kestrel"][1])
    got = _features(parse, "ClimSim-Online: A Large Multi-scale Dataset for Hybrid Physics\nHeroNet: Fast Inference at Scale\n")
    assert "colon_class=Dataset" in got["ClimSim-Online"][1], got["ClimSim-Online"][1]
    assert not any(f.startswith("colon_class") for f in got["HeroNet"][1]), got["HeroNet"][1]
    got = _features(parse, "Scores drop on N3-Reuters-128 (58.1) and on Kestrel (see below).")
    assert "score_after" in got["N3-Reuters-128"][1] and "score_after" not in got["Kestrel"][1]


def test_a_list_marker_on_a_later_line_is_skipped_before_a_phrase(parse):
    """A list item's first word may be capitalised however far down the document it stands: the marker before it is
    skipped on every line, not only on the first ("^" does not match at a line's offset in the whole text)."""
    for text in ("- Knowledge distillation and PPO are combined.",
                 "The recipe has two parts.\n- Knowledge distillation and PPO are combined.",
                 "The recipe has two parts.\n\n  2. Knowledge distillation and PPO are combined."):
        got = _phrases(_features(parse, text))
        assert "list" in got.get("Knowledge distillation", ()), (text, got)


@pytest.mark.parametrize("text, name", [
    # a name ends before a possessive
    ("It is 12 times faster than Together AI's GPU implementation.", "Together AI"),
    ("The demo ran on Qualcomm's newest phone.", "Qualcomm"),
    # a long run of capitalised words joined by connectors is read as a title, and its pieces as names
    ("It takes full advantage of the Hexagon Processor in the Snapdragon 8 Gen 2's AI Engine.", "Hexagon Processor"),
    ("It takes full advantage of the Hexagon Processor in the Snapdragon 8 Gen 2's AI Engine.", "AI Engine"),
])
def test_a_name_before_a_possessive_or_a_connector_is_a_candidate(parse, text, name):
    assert name in _features(parse, text)


def test_a_title_run_gives_no_piece_across_its_connectors(parse):
    got = _features(parse, "It takes full advantage of the Hexagon Processor in the Snapdragon 8 Gen 2's AI Engine.")
    assert "Processor in the Snapdragon" not in got and "Gen 2's AI" not in got, sorted(got)


@pytest.mark.parametrize("text, name, not_name", [
    ("Model              Score\nKiteNet-7           60.2\nWrenFormer         46.7\n", "KiteNet-7", "KiteNet-7           60.2"),
    ("Model\tParams\nWrenFormer\t109M\n", "WrenFormer", "WrenFormer\t109M"),
])
def test_a_version_or_size_after_a_column_gap_is_another_cell(parse, text, name, not_name):
    """In a plain-text table a name's cell ends at the gap: the number in the next column is a score, not the
    version or size of the name ("Kite 2", "Kite 70B" in prose)."""
    doc = parse(text)
    rule = {s.text for s in doc.spans["mlkg_mentions"]}
    assert name in rule and not_name not in rule, rule
    prose = parse("We compare Kite 2 70B with Wren.")
    assert "Kite 2 70B" in {s.text for s in prose.spans["mlkg_mentions"]}


@pytest.mark.parametrize("text, name", [
    ("It runs on Kite 3.1 8B Instruct and beats Wren.", "Kite 3.1 8B Instruct"),  # a size and a variant
    ("KiteFormer Large v3 is the largest.", "KiteFormer Large v3"),
    ("The student matches KiteFormer Medium.", "KiteFormer Medium"),  # at the end of a sentence
    ("The agent is powered by KiteGPT-4 Turbo.", "KiteGPT-4 Turbo"),
    ("We fine-tune Kite 2 70B.", "Kite 2 70B"),
])
def test_a_size_or_variant_after_a_name_is_part_of_it(parse, text, name):
    doc = parse(text)
    assert name in {s.text for s in doc.spans["mlkg_mentions"]}


@pytest.mark.parametrize("text, name", [
    ("KiteFormer Large Language Models are many.", "KiteFormer"),  # a capitalised word after the size: a title's
    ("KiteFormer medium.en is smaller.", "KiteFormer"),  # a suffix the pattern does not know: the name alone
])
def test_a_size_word_before_more_words_is_not_part_of_the_name(parse, text, name):
    doc = parse(text)
    assert name in {s.text for s in doc.spans["mlkg_mentions"]}


@pytest.mark.parametrize("text, joined", [
    ("We compare Kestrel-2 and Wrenformer on long inputs.", "Kestrel-2 and Wrenformer"),
    ("Here Kestrel-2 is a Wrenformer of four layers.", "Kestrel-2 is a Wrenformer"),
    ("We ablate Kestrel-3's Wrenformer block.", "Kestrel-3's Wrenformer"),
])
def test_a_longer_candidate_that_joins_two_names_does_not_replace_them(parse, text, joined):
    """A sure candidate over name-shape mentions replaces them only when it names one thing ("Kite 2 13B Chat"):
    a connector, a copula or a possessive inside it says it joins names."""
    doc = parse(text)
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    surface = lambda c: lay.text[c.start_char:c.end_char]  # noqa: E731
    if joined not in {surface(c) for c in cands}:  # the span the candidates may give: made here if they do not
        a = lay.text.index(joined)
        toks = [t for t in doc if a <= t.idx < a + len(joined)]
        cands.append(MentionCandidate(toks[0].i, toks[-1].i + 1, a, a + len(joined), "shape"))
    labels = ("Paper", "Method", "Dataset", "Venue", "Hardware", "Organization")
    probs = numpy.full((len(cands), len(labels)), 0.01)
    for k, c in enumerate(cands):
        probs[k, 1] = 0.95 if surface(c) == joined or c.rule_cls == "Method" else 0.01
    kept = {surface(t.cand) for t in select(cands, probs, labels, texts=lay.texts)}
    assert joined not in kept and any(joined.startswith(k) for k in kept), kept


def test_a_name_closed_by_a_capitalised_dataset_head_is_a_dataset(parse):
    """"The QuorraMath Corpus holds ...": the whole name, its words before the head noun its other name."""
    doc = parse("The QuorraMath Corpus holds 120B tokens. It releases the MarrowNet Drone Dataset too.")
    found = {(s.text, s.label_) for s in doc.spans[MENTIONS_KEY]}
    assert {("QuorraMath Corpus", "Dataset"), ("MarrowNet Drone Dataset", "Dataset")} <= found, found
    assert not {s.text for s in parse("A New Benchmark For Agents. The Dataset.").spans[MENTIONS_KEY]}


def test_a_list_that_closes_its_line_takes_the_class_of_its_known_names(parse):
    """"Training data: A, B, C, D" with no "and": a list when it ends its line and two of its names are datasets."""
    doc = parse("Results on Marrowset and Tessel-7 are strong.\nTraining data: Marrowset, Tessel-7, Vintra, Quorra9\nMore later.")
    found = {(s.text, s.label_) for s in doc.spans[MENTIONS_KEY]}
    assert {("Vintra", "Dataset"), ("Quorra9", "Dataset")} <= found, found
    doc = parse("Results on Marrowset are strong.\nTraining data: Marrowset, Vintra, Quorra9\nMore later.")
    assert "Vintra" not in {s.text for s in doc.spans[MENTIONS_KEY]}


@pytest.mark.parametrize("text, sure, listed", [
    ("Quillnet is evaluated on Marrowset, Tessel-7 and Vintra.", "Marrowset", {"Tessel-7", "Vintra"}),
    ("We compare against Kestrel, Wrenformer and Sparrow-2.", "Sparrow-2", {"Kestrel", "Wrenformer"}),
])
def test_the_items_of_a_list_take_the_class_of_a_sure_item(parse, text, sure, listed):
    """A candidate coordinated with a mention the model is sure of ("on A, B and C") is kept with its class from
    ``LIST_BAR`` on, and so is the next item after it; below that bar, or without a sure item, it is not."""
    doc = parse(text)
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    surface = lambda c: lay.text[c.start_char:c.end_char]  # noqa: E731
    assert {sure, *listed} <= {surface(c) for c in cands}
    labels = ("Paper", "Method", "Dataset", "Venue", "Hardware", "Organization")
    def kept(p_sure: float, p_listed: float) -> set[str]:
        probs = numpy.full((len(cands), len(labels)), 0.01)
        for k, c in enumerate(cands):
            probs[k, 2] = p_sure if surface(c) == sure else p_listed if surface(c) in listed else 0.01
        return {surface(t.cand) for t in select(cands, probs, labels, texts=lay.texts) if t.cls == "Dataset"}
    assert kept(0.95, 0.4) == {sure, *listed}
    assert kept(0.95, 0.1) == {sure}
    assert not kept(0.6, 0.4) & listed  # an item kept below THRESHOLD (a rule's) lends nothing


def test_what_one_occurrence_says_of_a_name_holds_for_the_others(parse):
    """The typing features of one occurrence of a name ("the Marrowset dataset") are given to every occurrence
    of it in the document (``occ_``), so that a bare "Marrowset" elsewhere is read as that dataset."""
    doc = parse("We release the Marrowset dataset.\n\nQuillnet reaches 81.2 on Marrowset and Tessel.")
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    feats = mentions_features(doc, lay, cands)
    got = [f for c, f in zip(cands, feats) if lay.text[c.start_char:c.end_char] == "Marrowset"]
    assert len(got) == 2 and all("occ_ctx_a=Dataset" in f for f in got)
    assert "ctx_a=Dataset" in got[0] and "ctx_a=Dataset" not in got[1]


def test_a_name_shape_mention_takes_the_likelier_of_method_and_dataset(parse):
    """The name-shape rule types a name it has no cue for as a method; below the bar of a sure class, its mention
    keeps whichever of method and dataset the model rates higher (from the rule's veto bar on)."""
    doc = parse("We compare Quillnet-7 with two baselines.")
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    k = next(k for k, c in enumerate(cands) if lay.text[c.start_char:c.end_char] == "Quillnet-7")
    assert (cands[k].rule, cands[k].rule_cls) == ("name.shape_or_context", "Method")
    labels = ("Paper", "Method", "Dataset", "Venue", "Hardware", "Organization")
    def kept(p_method: float, p_dataset: float) -> list[str]:
        probs = numpy.full((len(cands), len(labels)), 0.01)
        probs[k, 1], probs[k, 2] = p_method, p_dataset
        return [t.cls for t in select(cands, probs, labels, texts=lay.texts) if t.cand.start == cands[k].start]
    assert kept(0.3, 0.6) == ["Dataset"]
    assert kept(0.6, 0.3) == ["Method"]
    assert kept(0.3, 0.4) == []


def test_a_title_after_any_list_marker_is_taken_without_it(parse):
    """A list marker is any run of symbols ("▶", "~~"), not only "-" or "*"; one that closes the line as it opened
    it is no part of the title either."""
    doc = parse("Reading list\n\n▶ Lag-Llama: Towards Foundation Models for Probabilistic Time Series Forecasting\n"
                "~~ XMem: Long-Term Video Object Segmentation with an Atkinson-Shiffrin Memory Model ~~\n")
    lay = layout(doc)
    assert lay.line_kind[2:4] == ["item", "item"]
    spans = {lay.text[c.start_char:c.end_char] for c in mention_candidates(doc, lay)}
    assert "Lag-Llama: Towards Foundation Models for Probabilistic Time Series Forecasting" in spans
    assert "XMem: Long-Term Video Object Segmentation with an Atkinson-Shiffrin Memory Model" in spans
    titles = {s.text for s in doc.spans["mlkg_mentions"] if s.label_ == "Paper"}
    assert "XMem: Long-Term Video Object Segmentation with an Atkinson-Shiffrin Memory Model" in titles


def test_a_title_after_an_outline_number_or_a_numbered_label_is_taken_without_it(parse):
    """What opens a title's line before it is no part of it: an outline number ("B.1 "), a numbered label and a
    middle dot ("Pick 3 · "), a label and a dash before "Name: Subtitle" ("Poster - "), one plain word and a colon
    before one ("Held: ")."""
    doc = parse("Reading notes\n\nB.1 Torvik: Direct Monocular Mapping for Small Robots\nAnn Lee, Bo Chan\n\n"
                "Pick 3 · Kestrel: Sparse Caches Know What Matters Before Decoding\nKestrel keeps few keys.\n\n"
                "Poster - Wrenfold: Learning Folded Attention for Long Inputs\n\n"
                "Held: Quillon: Zero-shot Error Detection through Model Reasoning\n")
    lay = layout(doc)
    spans = {lay.text[c.start_char:c.end_char] for c in mention_candidates(doc, lay)}
    titles = {s.text for s in doc.spans["mlkg_mentions"] if s.label_ == "Paper"}
    for title in ("Torvik: Direct Monocular Mapping for Small Robots",
                  "Kestrel: Sparse Caches Know What Matters Before Decoding"):
        assert title in spans and title in titles, (title, titles)
    assert not any(t.startswith(("B.1", "Pick 3", "Poster", "Held")) for t in titles), titles


def test_a_title_with_a_number_or_a_dash_of_its_own_keeps_it(parse):
    """A title that opens with a digit ("3D ..."), or holds a dash with no name and colon after it, is whole."""
    from pipeline.nlp.titles import ENUMERATOR

    for title in ("3D Gaussian Splatting for Real-Time Rendering", "Image Titles - Variations on Show and Tell",
                  "Mamba: Linear-Time Sequence Modeling", "Llama 2: Open Foundation Models"):
        assert ENUMERATOR.match(title) is None, title


def _sources(got: dict) -> dict[str, tuple[str, ...]]:
    return {t: (c.source, *c.also) for t, (c, _) in got.items()}


def test_a_title_in_quotes_wrapped_over_lines_is_a_candidate_with_its_words_on_one_line(parse):
    got = _features(parse, 'The group returned with "Unbiased Scene Graph Generation from Biased\n'
                           '    Training", written with colleagues at Kestrel University.\n')
    c, _ = got["Unbiased Scene Graph Generation from Biased\n    Training"]
    assert "quote" in (c.source, *c.also) and c.canonical == "Unbiased Scene Graph Generation from Biased Training"
    # two quotes of one line each are no wrapped title; nor are quotes with a blank line between
    got = _features(parse, 'He said "yes".\nShe said "no" then.\n\n"Open a\n\nnew line" is no title.\n')
    assert not any("\n" in t and "quote" in s for t, s in _sources(got).items()), _sources(got)


@pytest.mark.parametrize("text, piece", [
    # a table cell in sentence case
    ("| 3 | Solving olympiad geometry without human demonstrations | Kestrel Lab | [Nature 2024] |\n",
     "Solving olympiad geometry without human demonstrations"),
    # a field between double colons
    ("Nature 2023 :: De novo design of protein structure with diffusion :: A model built by fine-tuning.\n",
     "De novo design of protein structure with diffusion"),
    # a value after leader dots, and after a two-letter tag and a dash
    ("  Paper title ............ Heron: densely connected networks for sound separation\n  Status ..... preprint\n",
     "Heron: densely connected networks for sound separation"),
    ("TI  - Supervised learning with enhanced feature spaces\nAU  - Lee, Ann\n",
     "Supervised learning with enhanced feature spaces"),
])
def test_a_piece_of_a_line_between_column_separators_is_a_candidate(parse, text, piece):
    got = _sources(_features(parse, text))
    assert "cell" in got.get(piece, ()), got
    f = dict(_features(parse, text))[piece][1]
    assert "words=6-10" in f or "words=3-5" in f, f


def test_a_line_without_separators_gives_no_piece(parse):
    got = _sources(_features(parse, "We trained the model on two machines for a week.\n"))
    assert not any("cell" in s for s in got.values()), got


def test_a_lower_case_name_written_as_code_is_a_candidate(parse):
    got = _sources(_features(parse, "Data come through ir_datasets and whisper.cpp, from facebook/bart-large-cnn, "
                                    "and the Wiener filter is implemented with the norbert library."))
    for name in ("ir_datasets", "whisper.cpp", "facebook/bart-large-cnn", "norbert"):
        assert "code" in got.get(name, ()), got
    # a web address, an abbreviation and a function word are none ("the standard library": a candidate the
    # decision reads as a common word)
    got = _sources(_features(parse, "See https://kestrel.org/docs, e.g. the new library, for details."))
    assert not any("code" in s for t, s in got.items() if t in {"e.g", "the", "new", "kestrel.org/docs"}), got


def test_a_title_says_how_it_is_written(parse):
    from pipeline.nlp.features import _title_shape

    assert set(_title_shape("Heron: densely connected networks for sound separation")) >= {"name_colon", "caps=few"}
    assert "caps=all" in _title_shape("Unbiased Scene Graph Generation from Biased Training")
    assert "name_colon" not in _title_shape("results of the study: we find")


def test_a_programme_time_of_day_is_no_part_of_a_title(parse):
    doc = parse('Talk: "14:20 - A Novel System for Extractive Note Summarization"\n\n14:40 - Kite: Sparse Weights for Small Models\n')
    titles = {s.text for s in doc.spans["mlkg_mentions"] if s.label_ == "Paper"}
    assert {"A Novel System for Extractive Note Summarization", "Kite: Sparse Weights for Small Models"} <= titles, titles


def test_a_name_wrapped_over_two_lines_of_prose_is_a_candidate(parse):
    got = _features(parse, "The authors of the paper are from the University of Kestrel and Carnegie Mellon\n"
                           "University, and they did a lot of things together.\n")
    c, f = got["Carnegie Mellon\nUniversity"]
    assert c.canonical == "Carnegie Mellon University" and "wrapped" in f
    assert not any(t.startswith(("the ", "from ")) for t in got), list(got)
    # a title line and the names under it are no wrapped name
    got = _features(parse, "Kite: Sparse Weights for Small Models\nAnn Lee, Bo Chan\n")
    assert not any("\n" in t for t in got), list(got)


def test_a_title_wrapped_under_its_list_marker_is_a_candidate_whole(parse):
    got = _features(parse, "[4] Kite v2: Sparse Lexical and Expansion Models for Information\n    Retrieval\n"
                           "    Ann Lee, Bo Chan\n")
    names = {c.canonical: (c.source, *c.also) for c, _ in got.values() if c.canonical}
    assert "title" in names.get("Kite v2: Sparse Lexical and Expansion Models for Information Retrieval", ()), names
    assert not any("Ann Lee" in n for n in names), names  # a short line under it is no wrapped part
