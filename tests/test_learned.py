"""The trained extractor: candidates and features for each construction, deterministic training, committed weights."""

from __future__ import annotations

import json

import numpy
import pytest

from pipeline.nlp.candidates import layout, mention_candidates, pair_candidates, Typed
from pipeline.nlp.classify import WEIGHTS, Models, load_models
from pipeline.nlp.extract import doc_of
from pipeline.nlp.features import doc_context, list_heads, mention_features, pair_features


@pytest.fixture(scope="module")
def parse(nlp):
    """Parse a text with the rules but without the trained decision: what the candidates are built from."""
    def run(text):
        return nlp(doc_of(nlp, text), disable=["mlkg_learned"])
    return run


def _cand(doc, lay, surface):
    for c in mention_candidates(doc, lay):
        if lay.text[c.start_char:c.end_char] == surface:
            return c
    raise AssertionError(f"no candidate {surface!r} among " + repr(
        sorted({lay.text[c.start_char:c.end_char] for c in mention_candidates(doc, lay)})))


def _pair(parse, text, s, s_cls, o, o_cls, others=()):
    """The features of the pair candidate (s, o), with both (and ``others``: (name, class)) typed as given."""
    doc = parse(text)
    lay = layout(doc)
    typed = [Typed(_cand(doc, lay, s), s_cls), Typed(_cand(doc, lay, o), o_cls)]
    typed += [Typed(_cand(doc, lay, n), c) for n, c in others]
    pairs = [p for p in pair_candidates(doc, lay, typed, []) if (p.s, p.o) == (0, 1)]
    assert pairs, f"{s} -> {o} is no pair candidate"
    return pairs[0], pair_features(doc, lay, typed, pairs[0], list_heads(lay, typed))


def test_passive_venue_phrase_governs_the_venue(parse):
    _, f = _pair(parse, "Glint: Sparse Attention for Long Videos was accepted to CVPR 2025.",
                 "Glint: Sparse Attention for Long Videos", "Paper", "CVPR 2025", "Venue")
    assert "o_prep=to_accept" in f and "s_dep=nsubjpass" in f


def test_title_after_a_venue_phrase_is_a_candidate(parse):
    doc = parse("Accepted to CVPR 2025, Glint: Sparse Attention for Long Videos addresses long inputs.")
    _cand(doc, layout(doc), "Glint: Sparse Attention for Long Videos")


def test_coordination_list_members_share_the_governing_verb(parse):
    text = "Kestrel is evaluated on TriviaQA, HotpotQA and PIQA."
    names = ("TriviaQA", "HotpotQA", "PIQA")
    for name in names:
        _, f = _pair(parse, text, "Kestrel", "Method", name, "Dataset",
                     [(n, "Dataset") for n in names if n != name])
        assert "o_prep=on_evaluat" in f, (name, f)


def test_apposition_of_a_benchmark(parse):
    doc = parse("We test on Quorra, a benchmark of long documents.")
    lay = layout(doc)
    c = _cand(doc, lay, "Quorra")
    f = mention_features(doc, lay, c, doc_context(doc, lay, mention_candidates(doc, lay)))
    assert "n1=," in f and "n2=a" in f


def test_copula_with_a_noun_is_on_the_path(parse):
    _, f = _pair(parse, "Osprey-7B is a variant of the Mistral 7B architecture.", "Osprey-7B", "Method",
                 "Mistral 7B", "Method")
    assert "o_prep=of_variant" in f


def test_relative_clause(parse):
    _, f = _pair(parse, "We release Lark, which runs on the Jetson Orin Nano.", "Lark", "Method",
                 "Jetson Orin Nano", "Hardware")
    assert "o_prep=on_run" in f or "o_prep=on_runs" in f


def test_it_refers_to_the_paragraphs_method(parse):
    pair, f = _pair(parse, "Heron is a small speech model. It runs on the Raspberry Pi 5.", "Heron", "Method",
                    "Raspberry Pi 5", "Hardware")
    assert "anaphor" in pair.origin and "cross_sent" in f


def test_the_model_refers_to_the_paragraphs_method(parse):
    pair, _ = _pair(parse, "Heron is a small speech model. The model runs on the Raspberry Pi 5.", "Heron",
                    "Method", "Raspberry Pi 5", "Hardware")
    assert "anaphor" in pair.origin


def test_negation(parse):
    _, f = _pair(parse, "Heron does not run on the Raspberry Pi 5.", "Heron", "Method", "Raspberry Pi 5", "Hardware")
    assert "neg" in f and "hedge" not in f


def test_hedge(parse):
    _, f = _pair(parse, "Heron may be deployed on the Raspberry Pi 5.", "Heron", "Method", "Raspberry Pi 5",
                 "Hardware")
    assert "hedge" in f and "neg" not in f


def test_a_sentence_naming_no_method_is_said_of_the_one_in_focus(parse):
    text = "Heron is a small speech model for phones. We benchmarked it on LibriSpeech and TED-LIUM."
    pair, f = _pair(parse, text, "Heron", "Method", "TED-LIUM", "Dataset", [("LibriSpeech", "Dataset")])
    assert "focus" in pair.origin and "o_scope=evaluate" in f
    pair, _ = _pair(parse, "Heron is a small speech model for phones. Evaluated on LibriSpeech.", "Heron", "Method",
                    "LibriSpeech", "Dataset")
    assert "focus" in pair.origin


@pytest.mark.parametrize("text, obj, cls, others", [
    ("Heron is a small speech model for phones. Wren was evaluated on LibriSpeech.", "LibriSpeech", "Dataset",
     (("Wren", "Method"),)),  # the sentence names its own method
    ("Heron is a small speech model for phones. Training runs used 64 H200 GPUs.", "H200", "Hardware", ()),  # a device
])
def test_no_focus_pair(parse, text, obj, cls, others):
    doc = parse(text)
    lay = layout(doc)
    typed = [Typed(_cand(doc, lay, n), c) for n, c in (("Heron", "Method"), (obj, cls), *others)]
    assert not [p for p in pair_candidates(doc, lay, typed, []) if (p.s, p.o) == (0, 1) and "focus" in p.origin]


_TRAIN_EVAL = "Heron is pretrained on LibriSpeech and evaluated on TED-LIUM."


@pytest.mark.parametrize("text, obj, cls, others, present, absent", [
    # training data is in the scope of training, not of an evaluation, in the sentence or across sentences
    (_TRAIN_EVAL, "LibriSpeech", "Dataset", [("TED-LIUM", "Dataset")], ["o_scope=train", "Method>Dataset|o_scope=train"], []),
    (_TRAIN_EVAL, "TED-LIUM", "Dataset", [("LibriSpeech", "Dataset")], ["o_scope=evaluate"], []),
    ("Heron is a small model. It was fine-tuned on LibriSpeech.", "LibriSpeech", "Dataset", [], ["o_scope=train", "cross_sent"], []),
    # hardware in the scope of a run, stated, negated or hedged
    ("Heron is deployed on the Raspberry Pi 5.", "Raspberry Pi 5", "Hardware", [], ["o_scope=run"],
     ["o_neg_before", "o_hedged_sent"]),
    ("Heron is a small speech model. It does not run on a Raspberry Pi 5.", "Raspberry Pi 5", "Hardware", [],
     ["o_neg_before", "cross_sent"], []),
    ("Heron is a small speech model. It may be deployed on a Raspberry Pi 5.", "Raspberry Pi 5", "Hardware", [],
     ["o_hedged_sent"], ["o_neg_before"]),
])
def test_the_scope_an_object_is_said_in(parse, text, obj, cls, others, present, absent):
    _, f = _pair(parse, text, "Heron", "Method", obj, cls, others)
    assert all(x in f for x in present) and not any(x in f for x in absent), [x for x in f if "scope" in x or "neg" in x]


def test_a_short_stem_of_the_scope_cues_is_a_whole_word():
    from pipeline.nlp.features import scope_class

    assert scope_class("ran") == "run" and scope_class("random") is None and scope_class("pretrained") == "train"


def test_table_row(parse):
    doc = parse("Results\n\nMMLU | 69.0\nGSM8K | 80.1\n")
    lay = layout(doc)
    c = _cand(doc, lay, "MMLU")
    f = mention_features(doc, lay, c, doc_context(doc, lay, mention_candidates(doc, lay)))
    assert "line=table" in f and "line_start" in f


def test_list_item_and_heading_venue(parse):
    text = "Our papers at NeurIPS 2024\n\n- Sparse High Rank Adapters (poster). It adapts models.\n"
    pair, _ = _pair(parse, text, "Sparse High Rank Adapters", "Paper", "NeurIPS 2024", "Venue")
    assert "heading" in pair.origin


def test_entry_and_its_affiliation_line(parse):
    text = "[1] Scaling Flow Transformers for Image Synthesis\nAffiliations: Stability AI\n\nAn abstract.\n"
    pair, f = _pair(parse, text, "Scaling Flow Transformers for Image Synthesis", "Paper", "Stability AI",
                    "Organization")
    assert "entry" in pair.origin and "o_line_first=affiliations" in f


def test_names_are_never_lexical_features(parse):
    doc = parse("Kestrel outperforms Heron on TriviaQA.")
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    ctx = doc_context(doc, lay, cands)
    feats = {f for c in cands for f in mention_features(doc, lay, c, ctx)}
    assert not any(n in f.lower() for f in feats for n in ("kestrel", "heron", "triviaqa"))


def test_committed_weights_load():
    assert WEIGHTS.is_file(), "run `mlkg train` and commit pipeline/nlp/patterns/weights.json"
    models = load_models()
    assert isinstance(models, Models)
    assert set(models.relations.labels) >= {"presentedAt", "uses", "affiliatedWith"}
    assert all(numpy.isfinite(v).all() for v in models.mentions.weights.values())
    data = json.loads(WEIGHTS.read_text("utf-8"))
    assert "trained_on" in data and "corpus" in data["trained_on"]


def test_training_is_deterministic(nlp):
    from pipeline.train import annotated_sets, fit_models, prepare

    sets = [s for s in annotated_sets() if s.name == "generalisation"]
    prepared = prepare(sets, nlp=nlp)
    one = json.dumps(fit_models(prepared.docs).to_json(), sort_keys=True)
    again = json.dumps(fit_models(prepare(sets, nlp=nlp).docs).to_json(), sort_keys=True)
    assert one == again


def test_every_feature_lexicon_key_is_read():
    from pathlib import Path

    import pipeline.nlp.candidates as candidates
    import pipeline.nlp.features as features
    import pipeline.nlp.subjects as subjects

    source = "".join(Path(m.__file__).read_text("utf-8") for m in (candidates, features, subjects))
    keys = json.loads((Path(candidates.__file__).parent / "patterns" / "features.json").read_text("utf-8"))
    for key in keys:
        if not key.startswith("_"):
            assert f'"{key}"' in source or f"'{key}'" in source, key


def test_table_row_head_pairs_with_the_header(parse):
    text = "Results\n\nbenchmark | Kestrel | Heron\nMMLU | 69.0 | 70.1\n"
    pair, f = _pair(parse, text, "Kestrel", "Method", "MMLU", "Dataset", [("Heron", "Method")])
    assert "table" in pair.origin and "o_line=table" in f


def test_columns_aligned_by_spaces_are_a_table(parse):
    text = "Zero-shot results:\n\n  model        BoolQ  PIQA\n  Kestrel-7B   77.4   78.8\n"
    pair, f = _pair(parse, text, "Kestrel-7B", "Method", "PIQA", "Dataset", [("BoolQ", "Dataset")])
    assert "table" in pair.origin and "s_line=table" in f


def test_list_item_under_the_documents_method(parse):
    doc = parse("Kestrel is a small model for phones. Kestrel combines:\n  - SwiGLU activations;\n  - rotary embeddings.\n")
    lay = layout(doc)
    k1, k2 = [c for c in mention_candidates(doc, lay) if lay.text[c.start_char:c.end_char] == "Kestrel"]
    typed = [Typed(k1, "Method"), Typed(k2, "Method"), Typed(_cand(doc, lay, "SwiGLU"), "Method")]
    pairs = {(p.s, p.o): p.origin for p in pair_candidates(doc, lay, typed, [])}
    assert "topic" in pairs[(0, 2)]


def test_it_refers_to_the_method_of_an_earlier_paragraph(parse):
    pair, _ = _pair(parse, "Heron is a small speech model.\n\nIt runs on the Raspberry Pi 5.", "Heron", "Method",
                    "Raspberry Pi 5", "Hardware")
    assert "anaphor" in pair.origin


def test_held_out_sets_are_not_trained_on(tmp_path):
    from pipeline.train import HELD_OUT, annotated_sets

    for name in ("real-x", *sorted(HELD_OUT)):
        (tmp_path / "tests" / "data" / name / "docs").mkdir(parents=True)
        (tmp_path / "tests" / "data" / name / "gold.json").write_text('{"entities": [], "relations": []}')
    assert [s.name for s in annotated_sets(tmp_path)] == ["real-x"]


def test_common_words_inside_a_name_say_what_it_names(parse):
    doc = parse("Affiliations: Corvid University; Tern Research")
    lay = layout(doc)
    ctx = doc_context(doc, lay, mention_candidates(doc, lay))
    assert "cw_last=university" in mention_features(doc, lay, _cand(doc, lay, "Corvid University"), ctx)
    assert "cw=research" in mention_features(doc, lay, _cand(doc, lay, "Tern Research"), ctx)


def test_a_quote_marker_gives_a_line_initial_span_the_context_of_none(parse):
    feats = []
    for text in ("Teasers\n> Sparse Adapters for Tiny Phones\n[Accepted to ICLR 2025]\n",
                 "Teasers\nSparse Adapters for Tiny Phones\n[Accepted to ICLR 2025]\n"):
        doc = parse(text)
        lay = layout(doc)
        c = _cand(doc, lay, "Sparse Adapters for Tiny Phones")
        feats.append(sorted(mention_features(doc, lay, c, doc_context(doc, lay, mention_candidates(doc, lay)))))
    assert feats[0] == feats[1]



def test_a_weak_mention_stays_only_as_the_end_of_a_sure_relation():
    """A name the mention model doubts (below the mention bar) stays when a relation the model is sure of joins
    it to a name it does not doubt; otherwise it goes, and so do the relations to it."""
    from pipeline.nlp.candidates import MentionCandidate, PairCandidate
    from pipeline.nlp.classify import _without_weak

    def typed(i, cls, prob, rule_cls=""):
        return Typed(MentionCandidate(i, i + 1, 10 * i, 10 * i + 5, "shape", rule_cls), cls, prob)

    ts = [typed(0, "Paper", 0.95), typed(1, "Organization", 0.7), typed(2, "Method", 0.55), typed(3, "Method", 0.6, "Method")]
    rels = [(0, "affiliatedWith", 1, 0.95, PairCandidate(0, 1, "sentence")),  # 0.7 * 0.95 >= 0.5: stays
            (0, "uses", 2, 0.85, PairCandidate(0, 2, "sentence"))]  # 0.55 * 0.85 < 0.5: goes
    d = _without_weak(ts, rels, 0.8, 0.5)
    assert [t.cls for t in d.typed] == ["Paper", "Organization", "Method"]  # the rules' mention is never weak
    assert [(s, p, o, pair.s, pair.o) for s, p, o, _, pair in d.relations] == [(0, "affiliatedWith", 1, 0, 1)]
    assert _without_weak(ts, rels, 0.8, 1.0).typed == tuple(ts[:1] + ts[3:])


def test_a_title_after_a_bracketed_tag_is_a_candidate(parse):
    doc = parse("Teasers\n[MLSys 2024 Best Paper] Kite: Sparse Weights for Small Phones\nKite prunes weights.\n")
    _cand(doc, layout(doc), "Kite: Sparse Weights for Small Phones")


def test_a_title_after_a_time_and_a_label_is_a_candidate(parse):
    doc = parse("Programme\n10:30  Oral: Wren: Token Merging for Long Audio\n11:00  Coffee break\n")
    _cand(doc, layout(doc), "Wren: Token Merging for Long Audio")


def test_a_title_in_brackets_or_quotes_on_its_line_is_a_candidate(parse):
    for text in ("Reading list\n- [Sparse Adapters for Tiny Phones] (2024)\n", 'Papers\n"Sparse Adapters for Tiny Phones", 2024\n'):
        doc = parse(text)
        _cand(doc, layout(doc), "Sparse Adapters for Tiny Phones")


def test_the_characters_framing_a_name_in_an_affiliation_line(parse):
    doc = parse("Kite: Sparse Weights for Small Phones\nAuthors: Ann Lee (1), Bo Chan (2)\n(1) Wrenfield Institute; (2) Quill Labs\n")
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    f = mention_features(doc, lay, _cand(doc, lay, "Quill Labs"), doc_context(doc, lay, cands))
    assert {"lb=)", "rb=$", "seg_whole", "prev_first=authors"} <= set(f), f
    f = mention_features(doc, lay, _cand(doc, lay, "Wrenfield Institute"), doc_context(doc, lay, cands))
    assert {"lb=)", "rb=;", "seg_whole"} <= set(f), f
    assert any(x.startswith("line_caps=") for x in f)


def test_the_words_near_a_name_say_what_kind_of_thing_it_names(parse):
    doc = parse("Kite keeps the cache in on-chip QRAM memory, on chips from the foundry WRC.")
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    ctx = doc_context(doc, lay, cands)
    assert {"ctx_b=Hardware", "ctx_a=Hardware"} <= set(mention_features(doc, lay, _cand(doc, lay, "QRAM"), ctx))
    assert "ctx_b=Organization" in mention_features(doc, lay, _cand(doc, lay, "WRC"), ctx)


@pytest.mark.parametrize("text", ["Kite is tuned on the Quill tasks: Wrenbank, TRX-2, PLQ and HBX.",
                                  "On the interactive benchmarks Wrenbank, PLQ and HBX it beats imitation.",
                                  "It is scored on datasets such as Wrenbank, PLQ or HBX."])
def test_a_list_after_a_noun_naming_datasets_lists_datasets(parse, text):
    doc = parse(text)
    got = {s.text: s.label_ for s in doc.spans["mlkg_mentions"]}
    assert all(got.get(n) == "Dataset" for n in ("Wrenbank", "PLQ", "HBX")), got


def test_we_benchmark_a_list_of_methods_is_no_list_of_datasets(parse):
    doc = parse("We benchmark Wrenformer, PLQ-Net and HBX-Large on Ternset.")
    assert not {s.text for s in doc.spans["mlkg_mentions"] if s.label_ == "Dataset"} & {"Wrenformer", "PLQ-Net"}


def test_a_list_member_hears_the_classes_of_the_whole_list(parse):
    text = "Kite is tuned on the Quill tasks: Wrenbank, TRX-2, Ternset, PLQ and HBX. Bo Chan wrote it."
    doc = parse(text)
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    ctx = doc_context(doc, lay, cands)
    f = mention_features(doc, lay, _cand(doc, lay, "HBX"), ctx)
    # the rule classes of its siblings, however far along the list, and none from the next sentence
    rc = {c.rule_cls for c in cands if c.rule_cls and text.index("Wrenbank") <= c.start_char < text.index("HBX")}
    assert rc and {f"ls_rc={x}" for x in rc} <= set(f), (rc, f)
    assert not any(x.startswith("ls_") and "Bo" in x for x in f)


def test_a_programme_line_gives_the_title_after_its_time_and_label(parse):
    doc = parse("Programme\n\n10:30  Oral: Wren: Token Merging for Long Audio\nAuthors: Ann Lee\n")
    spans = {(s.label_, s.text) for s in doc.spans["mlkg_mentions"]}
    assert ("Paper", "Wren: Token Merging for Long Audio") in spans, spans


def test_a_name_listed_next_to_a_university_hears_of_it(parse):
    doc = parse("Kite (Wrenfield University, Quillby and Tern Institute of Technology). Kite prunes weights.\n")
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    f = mention_features(doc, lay, _cand(doc, lay, "Quillby"), doc_context(doc, lay, cands))
    assert {"nb_cw=university", "nb_cw=institute"} <= set(f), f


def test_the_model_vetoes_only_the_name_shape_rules_doubtful_mentions():
    """A mention of the name-shape rule that the model gives less than ``VETO`` goes; another rule's stays."""
    from pipeline.nlp.candidates import MentionCandidate
    from pipeline.nlp.classify import VETO, select

    labels = ("Paper", "Method", "Dataset", "Venue", "Hardware", "Organization")
    cands = [MentionCandidate(0, 1, 0, 6, "rule", "Method", "name.shape_or_context", "STATUS"),
             MentionCandidate(2, 3, 10, 14, "rule", "Method", "name.shape_or_context", "Kite"),
             MentionCandidate(4, 5, 20, 26, "rule", "Venue", "venue.acronym", "ICLR")]
    probs = numpy.full((3, len(labels)), 0.01)
    probs[0, 1] = VETO / 2
    probs[1, 1] = VETO + 0.1
    probs[2, 3] = VETO / 2
    kept = [t.cand.canonical for t in select(cands, probs, labels)]
    assert kept == ["Kite", "ICLR"]


def test_a_title_line_the_model_doubts_goes():
    """A labelled line taken for a title ("Date: Sunday, June 19") that the model gives a few hundredths goes; a
    title line it gives more stays."""
    from pipeline.nlp.candidates import MentionCandidate
    from pipeline.nlp.classify import TITLE_LINE_VETO, select

    labels = ("Paper", "Method", "Dataset", "Venue", "Hardware", "Organization")
    cands = [MentionCandidate(0, 4, 0, 20, "rule", "Paper", "paper.title_line", "Date: Sunday, June 19"),
             MentionCandidate(5, 9, 21, 40, "rule", "Paper", "paper.title_line", "Kite: Sparse Weights")]
    probs = numpy.full((2, len(labels)), 0.01)
    probs[0, 0] = TITLE_LINE_VETO / 2
    probs[1, 0] = TITLE_LINE_VETO + 0.1
    assert [t.cand.canonical for t in select(cands, probs, labels)] == ["Kite: Sparse Weights"]


@pytest.mark.parametrize("text, names", [
    ("Kite: Sparse Weights\nAffiliations: Wrenfield University; Quill Labs; Tern AI\n",
     {"Wrenfield University", "Quill Labs", "Tern AI"}),
    ("Kite: Sparse Weights\nAuthors: Ann Lee (1,2), Bo Chan (2)\n(1) Wrenfield, Quillby; (2) Ternia\n",
     {"Wrenfield", "Quillby", "Ternia"}),
    ("Kite: Sparse Weights\nAffiliations: 1 Quill Research, 2 Tern Institute\n", {"Quill Research", "Tern Institute"}),
    # a model card's field, as a line or a table row: "A and B", "A (ACR), with B"
    ("Model details\n- Developed by: Quill Research and Tern Institute\n", {"Quill Research", "Tern Institute"}),
    ("| Field | Value |\n| Developed by | Wrenfield Institute for AI (WIA), with Tern AI |\n",
     {"Wrenfield Institute for AI (WIA)", "Tern AI"}),  # the acronym is its alias
    # a line that opens with a list of names most of which name organizations, under a title
    ("> Kite: Sparse Weights\nQuill Research, Ternia, Wrenfield University. Kite prunes weights early.\n",
     {"Quill Research", "Ternia", "Wrenfield University"}),
])
def test_each_piece_of_an_affiliation_line_is_an_organization(parse, text, names):
    doc = parse(text)
    orgs = {s.text for s in doc.spans["mlkg_mentions"] if s.label_ == "Organization"}
    assert names <= orgs, orgs


@pytest.mark.parametrize("text, name", [
    ("Kite: Sparse Weights\nAnn Lee, Bo Chan (Wrenfield University Medical Center)\n", "Wrenfield University Medical Center"),
    ("Kite: Sparse Weights\nAuthors' labs: Quill Labs; Wrenfield University Tern Campus\n", "Wrenfield University Tern Campus"),
])
def test_an_organization_is_the_whole_piece_of_its_list(parse, text, name):
    doc = parse(text)
    assert name in {s.text for s in doc.spans["mlkg_mentions"] if s.label_ == "Organization"}


def test_a_byline_of_people_is_no_list_of_organizations(parse):
    doc = parse("> Kite: Sparse Weights\nAnn Lee, Bo Chan, Wrenfield University. Kite prunes weights early.\n")
    orgs = {s.text for s in doc.spans["mlkg_mentions"] if s.label_ == "Organization"}
    assert not orgs & {"Ann Lee", "Bo Chan"}, orgs


def test_entry_title_after_a_line_label(parse):
    text = "[1] arXiv:2309.00001\nTitle: Sparse Registers for Tiny Vision Models\nAffiliations: Corvid University\n"
    pair, _ = _pair(parse, text, "Sparse Registers for Tiny Vision Models", "Paper", "Corvid University",
                    "Organization")
    assert "entry" in pair.origin


def test_its_refers_to_the_paragraphs_method(parse):
    pair, _ = _pair(parse, "Heron is a small vision model. Its backbone is ResNet-50.", "Heron", "Method",
                    "ResNet-50", "Method")
    assert "anaphor" in pair.origin


def test_it_refers_to_the_method_just_named_whatever_its_role(parse):
    pair, _ = _pair(parse, "In a new paper, the team presents Heron. It pairs a ResNet-50 backbone with a small decoder.",
                    "Heron", "Method", "ResNet-50", "Method")
    assert "antecedent" in pair.origin


def test_governing_verb_class_carries_over_between_verbs(parse):
    for text in ("Kestrel adopts the Heron encoder.", "Kestrel borrows the Heron encoder."):
        _, f = _pair(parse, text, "Kestrel", "Method", "Heron", "Method")
        assert "o_gov_class=uses" in f, (text, f)
    _, f = _pair(parse, "Kestrel is evaluated on TriviaQA.", "Kestrel", "Method", "TriviaQA", "Dataset")
    assert "o_gov_class=evaluatedOn" in f and "o_gov_class=uses" not in f


def test_the_paragraphs_lead_method_pairs_with_later_sentences(parse):
    pair, f = _pair(parse, "Kestrel builds on large vision models. The team fine-tuned Heron-5 on robot data.",
                    "Kestrel", "Method", "Heron-5", "Method")
    assert "paragraph" in pair.origin and "cross_sent" in f and "o_sent_first=the" in f


def test_list_members_hear_the_verb_that_governs_the_list(parse):
    doc = parse("Kestrel is evaluated on TriviaQA, HotpotQA and PIQA.")
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    ctx = doc_context(doc, lay, cands)
    assert "g_prep=on_evaluat" in mention_features(doc, lay, _cand(doc, lay, "TriviaQA"), ctx)
    for name in ("TriviaQA", "HotpotQA", "PIQA"):  # the parser hangs the later members elsewhere: the verb still governs
        assert "g_gov_class=evaluatedOn" in mention_features(doc, lay, _cand(doc, lay, name), ctx), name


def test_a_longer_name_of_the_same_class_stands_in_for_the_shape_rules_shorter_one():
    """A candidate the model is sure of that holds a name-shape mention of its own class ("Kite 2 13B Chat" around
    "Kite 2") replaces it; one around another rule's mention (a lexicon's organization) does not."""
    from pipeline.nlp.candidates import MentionCandidate
    from pipeline.nlp.classify import select

    labels = ("Paper", "Method", "Dataset", "Venue", "Hardware", "Organization")
    cands = [MentionCandidate(0, 2, 0, 6, "rule", "Method", "name.shape_or_context", "Kite 2"),
             MentionCandidate(0, 4, 0, 15, "shape"),
             MentionCandidate(5, 6, 30, 35, "rule", "Organization", "org.lexicon", "Wrenco"),
             MentionCandidate(5, 7, 30, 40, "shape")]
    probs = numpy.full((4, len(labels)), 0.01)
    probs[0, 1] = probs[1, 1] = 0.95
    probs[2, 5] = probs[3, 5] = 0.95
    kept = [(t.cand.start, t.cand.end, t.cls) for t in select(cands, probs, labels)]
    assert kept == [(0, 4, "Method"), (5, 6, "Organization")]


def test_a_variants_name_stands_in_for_its_bases_from_the_variant_bar():
    """"Kite 2 70b Chat beats Wren Large": the candidates that add only a size, a version or an edition word to a
    kept name of their class ("Kite 2", the shape rule's; "Wren", the model's) replace it from ``VARIANT_BAR``, below
    the mention bar; one that adds another word ("Wren Labs") does not, nor one under the bar."""
    from pipeline.nlp.candidates import MentionCandidate
    from pipeline.nlp.classify import THRESHOLD, VARIANT_BAR, select

    labels = ("Paper", "Method", "Dataset", "Venue", "Hardware", "Organization")
    texts = ["Kite", "2", "70b", "Chat", "beats", "Wren", "Large", "and", "Wren", "Labs", "."]
    cands = [MentionCandidate(0, 2, 0, 6, "rule", "Method", "name.shape_or_context", "Kite 2"),
             MentionCandidate(0, 4, 0, 16, "shape"),
             MentionCandidate(5, 6, 23, 27, "shape"),
             MentionCandidate(5, 7, 23, 33, "shape"),
             MentionCandidate(8, 9, 38, 42, "shape"),
             MentionCandidate(8, 10, 38, 47, "shape")]
    probs = numpy.full((6, len(labels)), 0.01)
    probs[0, 1] = probs[2, 1] = probs[4, 1] = 0.95
    probs[1, 1] = probs[3, 1] = probs[5, 1] = (VARIANT_BAR + THRESHOLD) / 2
    kept = [(t.cand.start, t.cand.end) for t in select(cands, probs, labels, weak=0.5, texts=texts)]
    assert kept == [(0, 4), (5, 7), (8, 9)]
    probs[1, 1] = probs[3, 1] = VARIANT_BAR + 0.05  # under the weak bar: not a pick, but weighed as a variant's name
    kept = [(t.cand.start, t.cand.end) for t in select(cands, probs, labels, weak=0.5, texts=texts)]
    assert kept == [(0, 4), (5, 7), (8, 9)]
    probs[1, 1] = probs[3, 1] = VARIANT_BAR - 0.05
    kept = [(t.cand.start, t.cand.end) for t in select(cands, probs, labels, weak=0.5, texts=texts)]
    assert kept == [(0, 2), (5, 6), (8, 9)]


def test_a_variants_name_inside_a_longer_kept_name_stands_in_for_nothing():
    """"Kite 2 13B Chat": the model's "Kite 2 13B" extends the rule's "Kite 2", but the rule's "Kite 2 13B Chat" reaches
    past it, and stays."""
    from pipeline.nlp.candidates import MentionCandidate
    from pipeline.nlp.classify import select

    labels = ("Paper", "Method", "Dataset", "Venue", "Hardware", "Organization")
    texts = ["Kite", "2", "13B", "Chat", "is", "out", "."]
    cands = [MentionCandidate(0, 2, 0, 6, "rule", "Method", "name.shape_or_context", "Kite 2"),
             MentionCandidate(0, 4, 0, 15, "rule", "Method", "name.shape_or_context", "Kite 2 13B Chat"),
             MentionCandidate(0, 3, 0, 10, "shape")]
    probs = numpy.full((3, len(labels)), 0.01)
    probs[0, 1], probs[1, 1], probs[2, 1] = 0.9, 0.95, 0.99
    assert [(t.cand.start, t.cand.end) for t in select(cands, probs, labels, weak=0.5, texts=texts)] == [(0, 4)]


def test_a_variant_suffix_is_versions_sizes_and_edition_words():
    from pipeline.nlp.classify import _variant_suffix

    for words in (["Large"], ["v1.4"], ["70b", "Chat"], ["Lite", "Micro"], ["V1", "50"], ["8x22B"], ["2.0"]):
        assert _variant_suffix(words, 0, len(words)), words
    for words in (["2017"], ["Labs"], ["beats"], ["7B", "Twin", "2T"], ["1", "2", "3", "4", "5"], ["86.4%"]):
        assert not _variant_suffix(words, 0, len(words)), words
    # a size the tokenizer split ("MovieLens 20M": "20", "M") is one piece; a year names a dataset's edition only
    for words in (["20", "M"], ["1.2", "T"]):
        assert _variant_suffix(words, 0, len(words)), words
    assert _variant_suffix(["2018"], 0, 1, "Dataset") and not _variant_suffix(["2018"], 0, 1, "Method")
    assert not _variant_suffix(["M"], 0, 1)


def test_a_rule_span_with_a_label_prefix_loses_to_the_sure_learned_name():
    """"Language backbone: Kite 2 7B": the name-shape rule took the label's word in; the model doubts that span and is
    sure of the name inside it, which then wins the overlap."""
    from pipeline.nlp.candidates import MentionCandidate
    from pipeline.nlp.classify import OUTRANK_MARGIN, select

    labels = ("Paper", "Method", "Dataset", "Venue", "Hardware", "Organization")
    cands = [MentionCandidate(0, 6, 0, 30, "rule", "Method", "name.shape_or_context", "Language backbone: Kite 2 7B"),
             MentionCandidate(3, 6, 19, 30, "shape")]
    probs = numpy.full((2, len(labels)), 0.01)
    probs[0, 1] = 0.55
    probs[1, 1] = 0.55 + OUTRANK_MARGIN + 0.3
    assert [(t.cand.start, t.cand.end) for t in select(cands, probs, labels)] == [(3, 6)]


def test_a_rule_span_the_model_rates_near_the_learned_one_is_kept():
    """"Wrenfield University Press": the rule's "Wrenfield University" stays when the model rates the longer span
    about as high, and loses when the model rates the longer one clearly higher."""
    from pipeline.nlp.candidates import MentionCandidate
    from pipeline.nlp.classify import OUTRANK_MARGIN, select

    labels = ("Paper", "Method", "Dataset", "Venue", "Hardware", "Organization")
    cands = [MentionCandidate(0, 2, 0, 20, "rule", "Organization", "org.institution", "Wrenfield University"),
             MentionCandidate(0, 3, 0, 26, "shape")]
    probs = numpy.full((2, len(labels)), 0.01)
    probs[0, 5] = 0.85
    probs[1, 5] = 0.85 + OUTRANK_MARGIN / 2
    assert [(t.cand.start, t.cand.end) for t in select(cands, probs, labels)] == [(0, 2)]
    probs[0, 5] = 0.55
    probs[1, 5] = 0.95
    assert [(t.cand.start, t.cand.end) for t in select(cands, probs, labels)] == [(0, 3)]


def test_a_sentence_wrapped_over_lines_pairs_its_names(parse):
    text = ("Programme\n\nThe talk presents Kestrel, an open-source deep learning library for anomaly detection that\n"
            "bundles Heron and Wren among its models, with a common interface.\n")
    pair, f = _pair(parse, text, "Kestrel", "Method", "Heron", "Method", [("Wren", "Method")])
    assert "sentence" in pair.origin.split("+") and "cross_sent" not in f  # a soft line break: one sentence


def test_a_sentence_broken_over_lines_off_the_width_pairs_its_names_as_one(parse):
    """A line broken within a sentence where no formatter wraps (the text's width is that of longer lines) is two
    sentences to the parser, read as one by ``wrapped_sentences``."""
    long = ("The workshop brings together researchers from machine learning, signal processing and systems who build "
            "detectors for logs and metrics in production.")
    text = (f"Programme\n\n{long}\n{long}\nThe talk presents Kestrel, an open-source deep learning library built by "
            "Orion Labs\nHeron and Wren ship as its models, with a common interface.\n")
    pair, f = _pair(parse, text, "Kestrel", "Method", "Heron", "Method", [("Wren", "Method")])
    assert "wrapped" in pair.origin and "cross_sent" not in f


def test_a_heading_without_a_full_stop_is_not_wrapped_into_the_next_line(parse):
    from pipeline.nlp.candidates import wrapped_sentences

    doc = parse("Kestrel and Heron at the workshop\nKestrel uses Heron for long inputs.\n")
    lay = layout(doc)
    assert len(set(wrapped_sentences(lay))) == len(lay.sent_starts)


def _typed_at(doc, lay, surface, cls, nth=0):
    """``surface``'s ``nth`` occurrence in the text, typed ``cls`` (whatever the mention candidates are)."""
    from pipeline.nlp.candidates import MentionCandidate

    at = -1
    for _ in range(nth + 1):
        at = lay.text.index(surface, at + 1)
    span = doc.char_span(at, at + len(surface))
    return Typed(MentionCandidate(span.start, span.end, at, at + len(surface), "shape"), cls)


def _origins(parse, text, ends):
    """The origin of each pair candidate (indices into ``ends``: (surface, class, nth occurrence))."""
    doc = parse(text)
    lay = layout(doc)
    typed = [_typed_at(doc, lay, surface, cls, nth) for surface, cls, nth in ends]
    return {(p.s, p.o): p.origin for p in pair_candidates(doc, lay, typed, [])}


def test_a_method_before_a_titles_colon_heads_its_entry(parse):
    text = ("[3]  Kestrel: A Scalable Optimizer for Language Model Pre-training\n     Venue: ICLR 2024\n\n"
            "The method divides the gradient by a curvature estimate.\n     Code: builds on Heron; implemented in Wren.\n")
    origins = _origins(parse, text, [("Kestrel", "Method", 0), ("Heron", "Method", 0), ("Wren", "Method", 0)])
    assert "entry" in origins[(0, 1)] and "entry" in origins[(0, 2)]


def test_the_model_refers_to_the_method_a_sentence_introduced(parse):
    text = "This technical report presents Kestrel-2, the successor of Kestrel-1. The model is a Heron pre-trained as an autoencoder."
    pair, _ = _pair(parse, text, "Kestrel-2", "Method", "Heron", "Method", [("Kestrel-1", "Method")])
    assert "anaphor" in pair.origin


def test_the_paragraphs_lead_is_its_first_method_named_as_a_subject(parse):
    text = ("2. Web knowledge meets robot actions (Quill Labs, Kestrel, July 2023)\n\n"
            "Kestrel builds on large vision-language models. Quill Labs co-fine-tuned Heron-5 on robot data.\n")
    origins = _origins(parse, text, [("Kestrel", "Method", 0), ("Kestrel", "Method", 1), ("Heron-5", "Method", 0)])
    assert "paragraph" in origins[(1, 2)]


def test_a_list_item_naming_two_methods_pairs_with_the_documents_method(parse):
    doc = parse("Kestrel is a robot model. Kestrel is small.\n\n- Vision encoder: fuses features from Heron and Wren\n")
    lay = layout(doc)
    k1, k2 = [c for c in mention_candidates(doc, lay) if lay.text[c.start_char:c.end_char] == "Kestrel"]
    typed = [Typed(k1, "Method"), Typed(k2, "Method"), Typed(_cand(doc, lay, "Heron"), "Method"),
             Typed(_cand(doc, lay, "Wren"), "Method")]
    pairs = {(p.s, p.o): p.origin for p in pair_candidates(doc, lay, typed, [])}
    assert "topic" in pairs[(0, 2)] and "topic" in pairs[(0, 3)]


def test_the_word_where_the_paths_meet_gives_its_relation_class(parse):
    _, f = _pair(parse, "Kestrel combines Heron with a small decoder.", "Kestrel", "Method", "Heron", "Method")
    assert {"lca_class=uses", "roles=nsubj>dobj", "lca_roles=uses_nsubj>dobj"} <= set(f), f


def test_the_noun_a_name_modifies_gives_its_relation_class(parse):
    _, f = _pair(parse, "Kestrel pairs a Heron backbone with a light decoder.", "Kestrel", "Method", "Heron", "Method")
    assert {"o_np=backbone", "o_np_class=uses"} <= set(f), f


def test_what_governs_an_anaphors_object_is_read_with_the_pairs_origin(parse):
    _, f = _pair(parse, "Heron is a small model. It relies on Kestrel for retrieval.", "Heron", "Method", "Kestrel",
                 "Method")
    assert "x_anaphor_uses" in f, f


def test_a_table_header_over_a_rule_of_dashes_and_pluses_pairs_with_its_rows(parse):
    text = "Results\n\n  benchmark   | shots | Kestrel-7B\n  ------------+-------+-----------\n  HellaSwag   | 0     | 81.2%\n"
    origins = _origins(parse, text, [("Kestrel-7B", "Method", 0), ("HellaSwag", "Dataset", 0)])
    assert "table" in origins[(0, 1)]


def test_a_tables_caption_pairs_with_the_first_name_of_each_row(parse):
    text = "Quorra val results from the official repository:\n\nModel | Params | AP\nKestrel-N | 2.3M | 38.5%\nKestrel-X | 29.5M | 54.4%\n"
    origins = _origins(parse, text, [("Quorra", "Dataset", 0), ("Kestrel-N", "Method", 0), ("Kestrel-X", "Method", 0)])
    assert "caption" in origins[(1, 0)] and "caption" in origins[(2, 0)]


def test_a_table_of_datasets_pairs_with_the_method_its_heading_names(parse):
    text = "## Kestrel-7B word error rate\n\n| dataset | WER |\n|---|---|\n| Quorra | 10.9 |\n| Tarn | 7.9 |\n"
    origins = _origins(parse, text, [("Kestrel-7B", "Method", 0), ("Quorra", "Dataset", 0), ("Tarn", "Dataset", 0)])
    assert "caption" in origins[(0, 1)] and "caption" in origins[(0, 2)]


def test_a_caption_is_not_read_past_prose_or_into_a_later_cell(parse):
    text = ("Quorra is a benchmark for parsing and it has many documents in it, all of them long.\n"
            "Kestrel was tested there.\nAnd then more was said.\n\nModel | Params | Tarn\nHeron | 2.3M | 38.5%\n")
    origins = _origins(parse, text, [("Quorra", "Dataset", 0), ("Heron", "Method", 0), ("Tarn", "Dataset", 0)])
    assert "caption" not in origins.get((1, 0), "")


def test_a_sentence_naming_no_method_pairs_with_the_documents_method(parse):
    text = "Kestrel is a vision model. Kestrel is small.\n\nFrozen features were evaluated on Quorra and Tarn.\n"
    origins = _origins(parse, text, [("Kestrel", "Method", 0), ("Kestrel", "Method", 1), ("Quorra", "Dataset", 0),
                                     ("Tarn", "Dataset", 0)])
    assert "orphan" in origins[(0, 2)] and "orphan" in origins[(0, 3)]


@pytest.mark.parametrize("text, s, o, kin", [
    ("Kite-2 builds on our earlier Kite model.", "Kite-2", "Kite", "kin=s_holds_o"),
    ("Wren Turbo builds on Wren and is trained with a new loss.", "Wren Turbo", "Wren", "kin=s_holds_o"),
    ("Distil-Heron builds on Heron large-v2.", "Distil-Heron", "Heron large-v2", "kin=word"),
])
def test_a_name_built_from_the_other_says_so(parse, text, s, o, kin):
    """A successor named after what it builds on ("Kite-2" on "Kite") is its variant (extends), where a tool it is
    built with ("built on the PEFT library") is used: the pair's features say whether one name holds the other."""
    _, f = _pair(parse, text, s, "Method", o, "Method")
    assert kin in f and not any(x.startswith("kin=") and x != kin for x in f)


def test_a_name_unlike_the_other_has_no_kinship(parse):
    _, f = _pair(parse, "Kite builds on the Quill library.", "Kite", "Method", "Quill", "Method")
    assert not any(x.startswith("kin=") for x in f)


def test_the_governing_words_class_is_also_read_with_the_pairs_classes(parse):
    """"built on" says uses between two methods and between a paper and a method, but the paper's output and the
    method's share one weight unless a feature joins the verb's class with the pair's classes."""
    _, f = _pair(parse, "Kite is built on the Quill library.", "Kite", "Method", "Quill", "Method")
    assert "o_prep=on_built" in f and "Method>Method|o_gov_class=uses" in f


def test_a_name_joined_by_a_hyphen_to_what_it_is_used_as(parse):
    _, f = _pair(parse, "Heron is a LoRA-based adapter for speech models.", "Heron", "Method", "LoRA", "Method")
    assert "o_hyphen=based" in f and "o_prev=a" in f


def test_an_organization_in_the_sentence_before_a_title_is_paired_with_it(parse):
    text = ('Wrenfield Labs took another road. In "Sparse Kites for Small Phones", the team prunes weights.\n')
    pair, f = _pair(parse, text, "Sparse Kites for Small Phones", "Paper", "Wrenfield Labs", "Organization")
    assert "para" in pair.origin and "cross_sent" in f


def _featurer(parse, text):
    """The candidates of ``text`` and a function giving the mention features of one of them."""
    doc = parse(text)
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    ctx = doc_context(doc, lay, cands)
    return lay, cands, lambda c: set(mention_features(doc, lay, c, ctx))


def _mention_feats(parse, text, surface):
    lay, cands, feats = _featurer(parse, text)
    return feats(next(c for c in cands if lay.text[c.start_char:c.end_char] == surface))


@pytest.mark.parametrize("text, name, want", [
    # a table's first column under "Benchmark" lists datasets; the names of its header are the models scored
    ("Results\n\n  Benchmark    | Kite-7B\n  -------------+--------\n  Wrenbank     | 84.2\n  PLQ          | 89.5\n",
     "Wrenbank", {"tab=row_first", "tab_key=row_first_Dataset"}),
    ("Results\n\n  Benchmark    | Kite-7B\n  -------------+--------\n  Wrenbank     | 84.2\n", "Kite-7B",
     {"tab=head_other", "tab_key=head_other_Dataset"}),
    # under "model" the rows are models and the header's other cells the datasets they are scored on
    ("| model | Wrenbank | PLQ |\n|---|---|---|\n| Kite 7B | 77.4 | 78.8 |\n", "Kite 7B",
     {"tab=row_first", "tab_key=row_first_Method"}),
    ("| model | Wrenbank | PLQ |\n|---|---|---|\n| Kite 7B | 77.4 | 78.8 |\n", "PLQ",
     {"tab=head_other", "tab_key=head_other_Method"}),
    # a cell of another column hears its own column's header
    ("| result | datasets |\n|---|---|\n| +7.4 BLEU over 21 directions | Wrenbank-2 |\n", "Wrenbank-2",
     {"tab=row_other", "tab_col=Dataset"}),
])
def test_where_a_name_stands_in_a_table(parse, text, name, want):
    f = _mention_feats(parse, text, name)
    assert want <= f, sorted(x for x in f if x.startswith("tab"))


def test_a_name_in_prose_has_no_table_features(parse):
    f = _mention_feats(parse, "Kite reaches 84.2 on Wrenbank | a note.\nKite is trained on PLQ and Wrenbank.\n", "PLQ")
    assert not any(x.startswith("tab") for x in f)


@pytest.mark.parametrize("text, name", [("Kite reaches 53.0% AP on Wrenbank and 26.1 mean AP on PLQ.", "Wrenbank"),
                                        ("Kite reaches 53.0% AP on Wrenbank and 26.1 mean AP on PLQ.", "PLQ"),
                                        ("It scores 74.2 on the PLQ benchmark.", "PLQ")])
def test_a_score_before_on_says_what_it_was_measured_on(parse, text, name):
    assert "score_prep=on" in _mention_feats(parse, text, name)


_SCORED = "It also helps on WSC (90.1%), Wrenbank (93.1%) and PLQ (85.6%). Gains: GSM8K (+17.9%), Quill (+12.2%)."
_UNSCORED = "Kite (2023) extends Wren (7B) and Mole (1.3B params). Vole (see Table 2) is fast."


@pytest.mark.parametrize("text, name, want", [
    (_SCORED, "Wrenbank", True), (_SCORED, "Quill", True),
    ("Kite scores Wrenbank = 65.9 and PLQ = 70.2 in this run.", "Wrenbank", True),
    ("| Wrenbank | 91% |\n", "Wrenbank", True),
    # a year, a size or a note in brackets is no score
    (_UNSCORED, "Kite", False), (_UNSCORED, "Wren", False), (_UNSCORED, "Mole", False), (_UNSCORED, "Vole", False),
])
def test_a_score_right_after_a_name(parse, text, name, want):
    assert ("score_after" in _mention_feats(parse, text, name)) == want


def test_a_device_after_runs_on_has_no_score(parse):
    assert not any(x.startswith("score_prep") for x in _mention_feats(parse, "Kite runs on Jetson Orin in 4 ms.", "Jetson Orin"))


def test_a_piece_of_code_is_unbalanced_a_name_in_brackets_is_not(parse):
    text = 'Load it with Wren (7B):\n    tok = AutoTokenizer.from_pretrained("Quill/Kite-7B")\n'
    lay, cands, feats = _featurer(parse, text)
    code = [c for c in cands if lay.text[c.start_char:c.end_char].startswith("AutoTokenizer.from_pretrained(")]
    assert code and all("unbalanced" in feats(c) for c in code)
    assert "unbalanced" not in _mention_feats(parse, text, "Load it with Wren (7B):")


def test_an_enumerator_letter_is_no_candidate(parse):
    doc = parse("(B) Kite: Sparse Weights for Small Phones\n(C) Wren: Token Merging\n")
    lay = layout(doc)
    surfaces = {lay.text[c.start_char:c.end_char] for c in mention_candidates(doc, lay)}
    assert not {"B", "C"} & surfaces and "Wren: Token Merging" in surfaces


def test_a_spaced_plus_joins_two_names_not_one(parse):
    doc = parse("The best entry pairs ViT-g + UperHead with C++ kernels.")
    lay = layout(doc)
    surfaces = {lay.text[c.start_char:c.end_char] for c in mention_candidates(doc, lay)}
    assert {"ViT-g", "UperHead", "C++"} <= surfaces and not any(s.startswith("ViT-g +") for s in surfaces), surfaces


def test_a_subject_outscored_by_another_of_the_sentence_goes():
    """Of the subjects named in the object's sentence, the one the model scores highest keeps the relation; a
    subject found only across sentences does not compete."""
    from pipeline.nlp.candidates import MentionCandidate, PairCandidate
    from pipeline.nlp.classify import _outscored, _Scored, _subjects_of

    def typed(i, cls, name):
        return Typed(MentionCandidate(i, i + 1, 10 * i, 10 * i + 5, "shape", canonical=name), cls, 0.9)

    ts = [typed(0, "Method", "Kestrel"), typed(1, "Method", "Falcon"), typed(2, "Method", "Heron"), typed(3, "Dataset", "PIQA")]
    pairs = [PairCandidate(0, 3, "sentence"), PairCandidate(1, 3, "sentence"), PairCandidate(2, 3, "paragraph")]
    col = {"evaluatedOn": 0, "uses": 1}
    rows = [[0.9, 0.1], [0.75, 0.1], [0.95, 0.1]]
    rivals = _subjects_of(_Scored.of(ts, pairs, rows, col))[(3, "evaluatedOn")]
    assert not _outscored(rivals, "kestrel", 0.9)  # Heron's 0.95 came from another sentence
    assert _outscored(rivals, "falcon", 0.75)


def _typed_in(parse, text, names):
    """The parse of ``text`` and its candidates ``names`` ((surface, class), in order) typed as given."""
    doc = parse(text)
    lay = layout(doc)
    return lay, [Typed(_cand(doc, lay, n), c) for n, c in names]


def test_a_rule_subject_outscored_by_the_paragraphs_method_goes(parse):
    """"It was applied to X and evaluated on Z": the rules give Z to X, the model scores the paragraph's method (the
    "it") far higher, and the rules' subject goes; scored close to it, the rules' subject stays."""
    from pipeline.nlp.candidates import PairCandidate
    from pipeline.nlp.classify import _challengers, _kept_rules, _Scored

    lay, ts = _typed_in(parse, "Kestrel is a small language model. It was applied to Heron-7B and evaluated on Wrenbank.",
                        [("Kestrel", "Method"), ("Heron-7B", "Method"), ("Wrenbank", "Dataset")])
    pairs = [PairCandidate(1, 2, "rule+sentence", (("evaluatedOn", "evaluatedOn.cue"),)), PairCandidate(0, 2, "anaphor")]
    col = {"evaluatedOn": 0}
    for rows, kept in (([[0.4], [0.9]], set()), ([[0.8], [0.9]], {(0, "evaluatedOn")})):
        sc = _Scored.of(ts, pairs, rows, col)
        assert _kept_rules(lay, ts, sc, 0.2, _challengers(sc)) == kept


def test_a_subject_the_rules_also_gave_does_not_challenge(parse):
    """Two subjects the rules both related to the object (a list of papers at one venue) do not compete."""
    from pipeline.nlp.candidates import PairCandidate
    from pipeline.nlp.classify import _challengers, _kept_rules, _Scored

    lay, ts = _typed_in(parse, "Kestrel and Heron were presented at ICML 2024. Wren was too.",
                        [("Kestrel", "Paper"), ("Wren", "Paper"), ("ICML 2024", "Venue")])
    rule = (("presentedAt", "presentedAt.cue"),)
    pairs = [PairCandidate(0, 2, "rule+sentence", rule), PairCandidate(1, 2, "rule", rule)]
    rows, col = [[0.3], [0.95]], {"presentedAt": 0}
    sc = _Scored.of(ts, pairs, rows, col)
    assert _kept_rules(lay, ts, sc, 0.2, _challengers(sc)) == {(0, "presentedAt"), (1, "presentedAt")}


def test_two_demos_at_one_booth_are_both_kept(parse):
    """A venue holds many demos: a second demo at the booth, which the model is far surer of, does not unseat the one
    the rules read (``SHARED_OBJECT_CLASSES``), as it would for an object one subject holds."""
    from pipeline.nlp.candidates import PairCandidate
    from pipeline.nlp.classify import _challengers, _kept_rules, _Scored

    lay, ts = _typed_in(parse, "At ICLR 2026, our booth shows live demos. Kestrel runs on a laptop. Heron is shown too.",
                        [("ICLR 2026", "Venue"), ("Kestrel", "Method"), ("Heron", "Method")])
    pairs = [PairCandidate(1, 0, "heading+rule", (("demoedAt", "demoedAt.demo_sentence"),)), PairCandidate(2, 0, "heading")]
    rows, col = [[0.5], [0.95]], {"demoedAt": 0}
    sc = _Scored.of(ts, pairs, rows, col)
    assert _kept_rules(lay, ts, sc, 0.2, _challengers(sc)) == {(0, "demoedAt")}


@pytest.mark.parametrize("text, coordinated_", [
    ("Kestrel and Heron are evaluated on Wrenbank.", True),
    ("Kestrel, Heron and Falcon are evaluated on Wrenbank.", True),
    ("Kestrel was applied to Heron and evaluated on Wrenbank.", False),
])
def test_coordinated_subjects_do_not_compete(parse, text, coordinated_):
    """"A and B are evaluated on C" says it of both: however differently the model scores them, neither outscores
    the other."""
    from pipeline.nlp.candidates import PairCandidate
    from pipeline.nlp.classify import _challenged, _challengers, _Scored
    from pipeline.nlp.subjects import coordinated

    lay, ts = _typed_in(parse, text, [("Kestrel", "Method"), ("Heron", "Method"), ("Wrenbank", "Dataset")])
    assert coordinated(lay, ts[0], ts[1]) == coordinated(lay, ts[1], ts[0]) == coordinated_
    pairs = [PairCandidate(0, 2, "sentence"), PairCandidate(1, 2, "rule+sentence", (("evaluatedOn", "evaluatedOn.cue"),))]
    rows, col = [[0.95], [0.3]], {"evaluatedOn": 0}
    assert _challenged(lay, ts, _challengers(_Scored.of(ts, pairs, rows, col))[(2, "evaluatedOn")], pairs[1], 0.3) != coordinated_


def test_a_subject_from_another_sentence_competes_by_a_margin(parse):
    """A subject paired across sentences (the paragraph's method) outscores one of the object's sentence only by
    more than ``SUBJECT_MARGIN``."""
    from pipeline.nlp.candidates import PairCandidate
    from pipeline.nlp.classify import SUBJECT_MARGIN, _challenged, _challengers, _Scored

    lay, ts = _typed_in(parse, "Heron is our model. Kestrel beats Falcon on Wrenbank.",
                        [("Heron", "Method"), ("Kestrel", "Method"), ("Falcon", "Method"), ("Wrenbank", "Dataset")])
    pairs = [PairCandidate(0, 3, "paragraph"), PairCandidate(1, 3, "sentence"), PairCandidate(2, 3, "sentence")]
    rows, col = [[0.95], [0.9], [0.5]], {"evaluatedOn": 0}
    rivals = _challengers(_Scored.of(ts, pairs, rows, col))[(3, "evaluatedOn")]
    assert not _challenged(lay, ts, rivals, pairs[1], 0.9)
    assert _challenged(lay, ts, rivals, pairs[2], 0.5) and 0.95 - 0.5 > SUBJECT_MARGIN


def _csubj(parse, text, s, s_cls, o, o_cls, others=()):
    """The clause-subject features (``subjects.py``) of the pair (s, o)."""
    _, f = _pair(parse, text, s, s_cls, o, o_cls, others)
    return {x for x in f if x.startswith("csubj")}


@pytest.mark.parametrize("text, s, o, want", [
    # the pair's subject is the clause's: plain, through a coordinated verb, a relative clause, a participle
    ("Kestrel is evaluated on Wrenbank.", "Kestrel", "Wrenbank", "csubj=s|same"),
    ("Kestrel was trained on web text and evaluated on Wrenbank.", "Kestrel", "Wrenbank", "csubj=s|same"),
    ("We release Kestrel, a model that runs on the Jetson Orin Nano.", "Kestrel", "Jetson Orin Nano", "csubj=s|same"),
    ("Kestrel, trained on Wrenbank, beats every baseline.", "Kestrel", "Wrenbank", "csubj=s|same"),
    ("Kestrel and Heron are evaluated on Wrenbank.", "Heron", "Wrenbank", "csubj=s|same"),
])
def test_the_subject_of_the_objects_clause_is_the_pairs_subject(parse, text, s, o, want):
    cls = "Hardware" if "Jetson" in o else "Dataset"
    assert want in _csubj(parse, text, s, "Method", o, cls)


@pytest.mark.parametrize("text", [
    "It was applied to Heron-7B and evaluated on Wrenbank.",
    "Paired with Heron-7B, it reaches 92.5% on Wrenbank.",
    "Unlike Heron-7B, the model is tested on Wrenbank.",
    "Next to Heron-7B, our method is tested on Wrenbank.",
])
def test_an_anaphor_subject_is_not_the_other_name_of_the_sentence(parse, text):
    f = _csubj(parse, text, "Heron-7B", "Method", "Wrenbank", "Dataset")
    assert "csubj=anaphor|same" in f and "csubj=s|same" not in f


def test_an_anaphor_subject_speaks_of_the_paragraphs_method(parse):
    text = "Kestrel is a small language model. It was applied to Heron-7B and evaluated on Wrenbank."
    f = _csubj(parse, text, "Kestrel", "Method", "Wrenbank", "Dataset", [("Heron-7B", "Method")])
    assert "csubj=anaphor|cross" in f


def test_a_name_as_the_clauses_subject_is_another_name(parse):
    f = _csubj(parse, "Heron beats Kestrel on Wrenbank.", "Kestrel", "Method", "Wrenbank", "Dataset", [("Heron", "Method")])
    assert "csubj=name|same" in f


def _flat_models(pr):
    """Models that rate every pair ``pr`` for every property (and every mention alike)."""
    import math

    from pipeline.nlp.candidates import ALLOWED
    from pipeline.nlp.classify import LinearModel, Models

    props = tuple(sorted({p for ps in ALLOWED.values() for p in ps}))
    classes = ("Dataset", "Hardware", "Method", "Organization", "Paper", "Venue")
    return Models(LinearModel(classes, {}, numpy.zeros(len(classes))),
                  LinearModel(props, {}, numpy.full(len(props), math.log(pr / (1 - pr)))))


@pytest.mark.parametrize("text, negated", [
    ("KestrelNet does not outperform HeronFormer on WrenQA.", True),
    ("KestrelNet never uses HeronFormer in its encoder.", True),
    ("KestrelNet could be extended from HeronFormer later.", True),
    ("KestrelNet outperforms HeronFormer on WrenQA.", False),
    ("KestrelNet is not only faster but also better than HeronFormer.", False),
])
def test_a_negated_model_comparison_is_not_asserted(nlp, text, negated):
    """The model's relations between two methods are not asserted where the clause that would state them is negated
    or hedged, as the rules' are not (``NEGATED_PROPERTIES``, one rule: ``relations.common.negated_clause``)."""
    from pipeline.nlp.classify import decide

    doc = nlp(doc_of(nlp, text), disable=["mlkg_learned"])
    got = {p for _, p, _, _, _ in decide(doc, _flat_models(0.99)).relations}
    assert bool(got & {"outperforms", "uses", "extends"}) != negated, got


def test_a_negation_in_the_later_ends_sentence_vetoes_a_pair_across_sentences(parse):
    from pipeline.nlp.candidates import PairCandidate
    from pipeline.nlp.classify import _negated

    lay, ts = _typed_in(parse, "Heron is a small speech model. It does not run on the Raspberry Pi 5.",
                        [("Heron", "Method"), ("Raspberry Pi 5", "Hardware")])
    assert _negated(lay, ts, PairCandidate(0, 1, "anaphor"))
    lay, ts = _typed_in(parse, "Heron is not a large model. It runs on the Raspberry Pi 5.",
                        [("Heron", "Method"), ("Raspberry Pi 5", "Hardware")])
    assert not _negated(lay, ts, PairCandidate(0, 1, "anaphor"))


def test_a_rule_relation_the_model_doubts_goes(nlp):
    """A relation the rules gave stays from ``RULE_REL_BAR`` on: below it the model vetoes it (the mentions stay); a
    comparison's direction is the rules' to read ("X trails Y")."""
    from pipeline.nlp.classify import RULE_REL_BAR, decide

    models = _flat_models
    doc = nlp(doc_of(nlp, "KestrelNet uses the HeronFormer encoder."), disable=["mlkg_learned"])
    assert [(p, rule) for _, p, _, _, rule, _ in doc._.mlkg_relations] == [("uses", "uses.cue")]
    sure = decide(doc, models(RULE_REL_BAR + 0.05))
    assert [p for _, p, _, _, _ in sure.relations] == ["uses"]
    doubted = decide(doc, models(RULE_REL_BAR - 0.05))
    assert doubted.relations == () and len(doubted.typed) == len(sure.typed) == 2
    doc = nlp(doc_of(nlp, "On WrenQA, KestrelNet trails HeronFormer by two points."), disable=["mlkg_learned"])
    assert ("outperforms", "outperforms.outperformed_by") in {(p, r) for _, p, _, _, r, _ in doc._.mlkg_relations}
    assert "outperforms" in {p for _, p, _, _, _ in decide(doc, models(0.01)).relations}


_XOR_ROWS = [["a", "b"], ["a"], ["b"], []] * 20
"""A label that holds with one of two features but not with both: no sum of the two features' weights gives it."""
_XOR_Y = numpy.array([[0.0], [1.0], [1.0], [0.0]] * 20)


def _hidden_models():
    from pipeline.train import _fit

    y = numpy.concatenate([_XOR_Y, 1.0 - _XOR_Y], axis=1)
    linear = _fit(_XOR_ROWS, y, numpy.ones_like(y), ("x", "y"))
    hidden = _fit(_XOR_ROWS, y, numpy.ones_like(y), ("x", "y"), hidden=8, hidden_lr=0.05, init=0.5)
    return Models(linear, hidden)


def test_a_hidden_layer_learns_what_a_linear_model_cannot():
    from pipeline.nlp.classify import HiddenModel

    models = _hidden_models()
    assert isinstance(models.relations, HiddenModel)
    rows = [["a", "b"], ["a"], ["b"], [], ["unseen"]]
    linear, hidden = models.mentions.probs(rows)[:, 0], models.relations.probs(rows)[:, 0]
    assert numpy.abs(linear[:4] - 0.5).max() < 0.05  # the best a sum of weights does: one half everywhere
    assert (hidden[[1, 2]] > 0.9).all() and (hidden[[0, 3, 4]] < 0.1).all()
    assert models.relations.probs([]).shape == (0, 2)


def test_hidden_training_is_deterministic():
    one, again = _hidden_models().to_json(), _hidden_models().to_json()
    assert json.dumps(one, sort_keys=True) == json.dumps(again, sort_keys=True)
    assert one["relations"]["kind"] == "hidden" and "kind" not in one["mentions"]


def test_a_hidden_model_round_trips_through_json_and_the_binary_copy():
    from pipeline.nlp.classify import _from_binary, _to_binary

    models = _hidden_models()
    rows = [["a", "b"], ["a"], ["b"], [], ["unseen", "a"]]
    read = Models.from_json(json.loads(json.dumps(models.to_json())))
    copied = _from_binary(_to_binary(read))
    for other in (read, copied):
        assert other.to_json() == models.to_json()
        for x, y in ((models.mentions, other.mentions), (models.relations, other.relations)):
            assert type(x) is type(y) and x.labels == y.labels
            assert numpy.allclose(x.probs(rows), y.probs(rows), atol=1e-4)  # the JSON's numbers are rounded
    assert numpy.array_equal(read.relations.probs(rows), copied.relations.probs(rows))
    with pytest.raises(ValueError):
        _from_binary(_to_binary(read)[:-8])


def test_a_relations_evidence_is_found_through_markup_and_line_breaks():
    from pipeline.train import _evidence_spans

    text = "## Results\n\n**Foo-2** was evaluated\n  on `Bar` and Baz.\nFoo-2 was evaluated on Qux."
    spans = _evidence_spans(text, {("m", "evaluatedOn", "d"): ["Foo-2 was evaluated on Bar and Baz."],
                                   ("m", "evaluatedOn", "x"): ["Foo-2 was tested on Quux."]})
    (start, end), = spans[("m", "evaluatedOn", "d")]
    assert text[start:end] == "Foo-2** was evaluated\n  on `Bar` and Baz."
    assert ("m", "evaluatedOn", "x") not in spans  # not in the text: the pair is labelled by name, as before


def test_only_the_pairs_inside_the_evidence_learn_a_relation(nlp, monkeypatch):
    from pipeline import train
    from pipeline.train import AnnotatedSet, prepare, PROPERTIES

    monkeypatch.setattr(train, "EVIDENCE_LABELS", True)  # on by default; set here so that the test holds either way

    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        (docs / "a.txt").write_text("Heron-2 uses FlashAttention for speed.\n\nHeron-2 and FlashAttention were both "
                                    "shown in the poster hall.\n", "utf-8")
        gold = {"documents": ["a.txt"],
                "entities": [{"id": "m:h", "type": "Method", "label": "Heron-2", "aliases": [], "core": True, "docs": ["a.txt"]},
                             {"id": "m:f", "type": "Method", "label": "FlashAttention", "aliases": [], "core": True, "docs": ["a.txt"]}],
                "relations": [{"s": "m:h", "p": "uses", "o": "m:f", "core": True, "doc": "a.txt",
                               "evidence": "Heron-2 uses FlashAttention for speed."}]}
        (Path(tmp) / "gold.json").write_text(json.dumps(gold), "utf-8")
        pd, = prepare([AnnotatedSet("t", docs, Path(tmp) / "gold.json")], nlp=nlp).docs
    uses = PROPERTIES.index("uses")
    assert pd.plabels[:, uses].sum() == 1  # the first sentence's pair
    assert (pd.pmask[:, uses] == 0).any()  # the second sentence's pair of the same names counts neither way


def test_a_relation_said_twice_weakly_is_likelier_than_once():
    from pipeline.nlp.classify import joint_probability

    assert joint_probability([0.4], 0.5) == pytest.approx(0.4)
    assert joint_probability([0.4, 0.4], 0.5) == pytest.approx(0.4 + 0.5 * (0.64 - 0.4))
    assert joint_probability([0.9, 0.1], 0.5) < 0.95


def _shared_of(parse, text, names, sure):
    """The relations ``_shared`` lends from the relations ``sure`` ((subject, property, object) indices into
    ``names``, each kept at 0.9), every other pair rated 0.3."""
    from pipeline.nlp.classify import _shared

    doc = parse(text)
    lay = layout(doc)
    ts = [Typed(_cand(doc, lay, n), c) for n, c in names]
    pairs = [p for p in pair_candidates(doc, lay, ts, []) if "sentence" in p.origin]
    col = {"evaluatedOn": 0, "runsOn": 1, "uses": 2}
    rows = [[0.3, 0.3, 0.3] for _ in pairs]
    index = {(p.s, p.o): i for i, p in enumerate(pairs)}
    out = [(s, prop, o, 0.9, pairs[index[(s, o)]]) for s, prop, o in sure]
    return {(names[s][0], prop, names[o][0]) for s, prop, o, _, pair in _shared(lay, ts, pairs, rows, col, out)
            if pair.origin.endswith("+shared")}


def test_a_coordinated_list_of_subjects_shares_the_benchmark(parse):
    """"A, B, C and D were evaluated on X": every name of the list is evaluated on X."""
    names = [("Kestrel", "Method"), ("Heron", "Method"), ("Wren", "Method"), ("Finch", "Method"), ("Wrenbank", "Dataset")]
    got = _shared_of(parse, "Kestrel, Heron, Wren and Finch were evaluated on Wrenbank.", names, [(0, "evaluatedOn", 4)])
    assert got == {(n, "evaluatedOn", "Wrenbank") for n in ("Heron", "Wren", "Finch")}


def test_both_ends_coordinated_share_every_combination(parse):
    """"A and B were evaluated on C and D": each of A and B on each of C and D, from the one pair the model is sure of."""
    names = [("Kestrel", "Method"), ("Heron", "Method"), ("Wrenbank", "Dataset"), ("FinchQA", "Dataset")]
    got = _shared_of(parse, "Kestrel and Heron were evaluated on Wrenbank and FinchQA.", names, [(0, "evaluatedOn", 2)])
    assert got == {("Heron", "evaluatedOn", "Wrenbank"), ("Kestrel", "evaluatedOn", "FinchQA"),
                   ("Heron", "evaluatedOn", "FinchQA")}


def test_a_list_of_devices_after_determiners_shares_the_model(parse):
    """"on the X, the Y and the Z": the determiners hide the list from the text between names, the parse finds it."""
    from pipeline.nlp.features import conjuncts

    text = "We ran Kestrel on the Jetson Orin Nano, the Raspberry Pi 5 and the Pixel 8."
    names = [("Kestrel", "Method"), ("Jetson Orin Nano", "Hardware"), ("Raspberry Pi 5", "Hardware"), ("Pixel 8", "Hardware")]
    lay, ts = _typed_in(parse, text, names)
    assert conjuncts(lay, ts)[1] == (2, 3)
    assert _shared_of(parse, text, names, [(0, "runsOn", 1)]) == {("Kestrel", "runsOn", "Raspberry Pi 5"),
                                                                   ("Kestrel", "runsOn", "Pixel 8")}


def test_a_negation_inside_a_list_does_not_spread(parse):
    """"runs on X but not on Y": Y is no device it runs on."""
    names = [("Kestrel", "Method"), ("Jetson Orin Nano", "Hardware"), ("Raspberry Pi 5", "Hardware")]
    assert _shared_of(parse, "Kestrel runs on the Jetson Orin Nano but not on the Raspberry Pi 5.", names,
                      [(0, "runsOn", 1)]) == set()


def test_only_a_setting_is_shared_across_a_list(parse):
    """A method's relation to another method is not lent to its conjuncts ("X builds on A and differs from B")."""
    names = [("Kestrel", "Method"), ("Heron", "Method"), ("Wren", "Method")]
    assert _shared_of(parse, "Kestrel uses Heron and Wren.", names, [(0, "uses", 1)]) == set()


def test_a_comma_with_no_space_after_it_is_no_list(parse):
    """"For single step diffusion,Kestrel improves ... on Wrenbank": a typing slip, not "diffusion and Kestrel"; what
    Kestrel is evaluated on is not lent to the word before the comma."""
    from pipeline.nlp.features import conjuncts

    text = "For single step diffusion,Kestrel improves FID on Wrenbank."
    names = [("diffusion", "Method"), ("Kestrel", "Method"), ("Wrenbank", "Dataset")]
    lay, ts = _typed_in(parse, text, names)
    assert conjuncts(lay, ts)[0] == () and conjuncts(lay, ts)[1] == ()
    assert _shared_of(parse, text, names, [(1, "evaluatedOn", 2)]) == set()
    spaced = "For diffusion, Kestrel and Heron improve FID on Wrenbank."
    lay, ts = _typed_in(parse, spaced, [("Kestrel", "Method"), ("Heron", "Method")])
    assert conjuncts(lay, ts)[0] == (1,)


def test_a_venue_named_in_the_sentence_after_a_paper_is_paired_with_it(parse):
    pair, f = _pair(parse, 'Lab news\nThe team released "Glint: Sparse Attention for Long Videos" last week. Reviewers at CVPR 2025 '
                    'liked the work.', "Glint: Sparse Attention for Long Videos", "Paper", "CVPR 2025", "Venue")
    assert pair.origin == "near" and "sent_gap=1" in f and "para_gap=0" in f
    assert "o_names=1" in f and "Paper>Venue|o_names=1" in f


def test_a_paper_under_a_venue_paragraph_is_paired_with_the_venue(parse):
    pair, f = _pair(parse, 'Lab news\nCVPR 2025 accepted two of our papers this year.\n\nOur paper "Glint: Sparse Attention for Long '
                    'Videos" is one of them.', "Glint: Sparse Attention for Long Videos", "Paper", "CVPR 2025", "Venue")
    assert "near" in pair.origin and "para_gap=1" in f and "o_first" in f


def test_it_is_evaluated_on_after_a_method_named_sentences_before(parse):
    pair, f = _pair(parse, "Lab news\nThe demo used Heron, a speech model. Training took a week. Whisper served as the teacher, and the "
                    "student beats it on LibriSpeech.", "Heron", "Method", "LibriSpeech", "Dataset", [("Whisper", "Method")])
    assert "near" in pair.origin and "sent_gap=2" in f and "bn_s=1" in f


def _near(parse, text, names):
    doc = parse(text)
    lay = layout(doc)
    typed = [Typed(_cand(doc, lay, n), c) for n, c in names]
    return {(p.s, p.o): p.origin for p in pair_candidates(doc, lay, typed, [])}


def test_only_the_nearest_name_of_a_class_before_is_paired(parse):
    pairs = _near(parse, "Lab news\nThe demo used Heron on phones. We also tried Kestrel on servers. Reviewers at "
                  "Acme praised Heron-Lite on LibriSpeech.", [("Heron", "Method"), ("Kestrel", "Method"), ("LibriSpeech", "Dataset"), ("Heron-Lite", "Method")])
    assert pairs.get((1, 2)) == "near" and "near" not in pairs.get((0, 2), "")


def _sentences_apart(n: int) -> str:
    filler = " ".join(f"The lab moved to building {k + 2}." for k in range(n - 1))
    return f"Lab news\nThe demo used Heron on phones. {filler} Reviewers liked the numbers on LibriSpeech."


def test_a_name_far_before_is_not_paired_by_nearness(parse):
    from pipeline.nlp.pairs import NEAR_PARAGRAPHS, NEAR_SENTENCES

    names = [("Heron", "Method"), ("LibriSpeech", "Dataset")]
    assert _near(parse, _sentences_apart(NEAR_SENTENCES), names).get((0, 1)) == "near"
    assert "near" not in _near(parse, _sentences_apart(NEAR_SENTENCES + 1), names).get((0, 1), "")
    breaks = "\n\nA paragraph between.\n\n" * NEAR_PARAGRAPHS
    assert "near" not in _near(parse, f"Lab news\nThe demo used Heron on phones.{breaks}Reviewers liked the numbers on "
                               "LibriSpeech.", names).get((0, 1), "")


_ZEROED = "ZeroED: Hybrid Zero-shot Error Detection"


def test_an_affiliation_line_leads_the_paper_under_it(parse):
    """Every organization of an affiliation line between an entry's heading and its title sentence, not only the
    nearest."""
    pairs = _near(parse, f"Data cleaning digest\n\n[2025] Ni, Zhang and Miao\nParties: Zhejiang University; City "
                  f"University of Hong Kong; Fudan University.\nHeld: \"{_ZEROED}\" labels only a few rows.",
                  [(_ZEROED, "Paper"), ("Zhejiang University", "Organization"),
                   ("City University of Hong Kong", "Organization"), ("Fudan University", "Organization")])
    assert all("lead" in pairs.get((0, k), "") for k in (1, 2, 3)), pairs


def test_a_venue_label_line_leads_the_title_under_it(parse):
    pairs = _near(parse, f"Reading list\n\n[Accepted to CVPR 2019]\n{_ZEROED}\nA method for tables.",
                  [(_ZEROED, "Paper"), ("CVPR 2019", "Venue")])
    assert "lead" in pairs.get((0, 1), ""), pairs


def test_a_line_under_another_title_leads_neither(parse):
    """An affiliation line between two titles may as well close the entry above: no lead of the one under it."""
    pairs = _near(parse, f"Reading list\n\nSparse Kernels for Graphs\nFudan University; Zhejiang University\n{_ZEROED}\n",
                  [("Sparse Kernels for Graphs", "Paper"), ("Fudan University", "Organization"),
                   ("Zhejiang University", "Organization"), (_ZEROED, "Paper")])
    assert "lead" not in pairs.get((3, 1), "") + pairs.get((3, 2), ""), pairs
    assert "entry" in pairs.get((0, 1), "") and "lead" not in pairs.get((0, 1), ""), pairs


def test_a_heading_that_names_the_method_leads_its_paper(parse):
    pairs = _near(parse, f"Field guide\n\nKestrel (CVPR 2024)\nIdentification: \"{_ZEROED}\" presents a detector.\n",
                  [(_ZEROED, "Paper"), ("Kestrel", "Method"), ("CVPR 2024", "Venue")])
    assert "lead" in pairs.get((0, 1), "") and "lead" in pairs.get((0, 2), ""), pairs


def test_a_tagged_byline_leads_the_title_under_it(parse):
    """A listing whose entries open with a bracketed tag and the authors, the title on the line below."""
    text = (f"Program repair\n[i5] Ann Lee [Fudan University]:\n     Sparse Kernels for Graphs. CoRR\n"
            f"     note: a benchmark of kernels.\n[i6] Xin Yin [Zhejiang University], et al.:\n     {_ZEROED}. CoRR\n")
    pairs = _near(parse, text, [(_ZEROED, "Paper"), ("Zhejiang University", "Organization"),
                                ("Fudan University", "Organization"), ("Sparse Kernels for Graphs", "Paper")])
    assert "lead" in pairs.get((0, 1), "") and "lead" not in pairs.get((0, 2), "") and "lead" in pairs.get((3, 2), ""), pairs


def test_a_lead_stops_at_a_blank_line(parse):
    pairs = _near(parse, f"Fudan University\n\n{_ZEROED} labels rows.", [(_ZEROED, "Paper"), ("Fudan University", "Organization")])
    assert "lead" not in pairs.get((0, 1), ""), pairs


def test_a_lead_reads_at_most_its_lines(parse):
    from pipeline.nlp.pairs import LEAD_LINES

    filler = "".join(f"Note {k}: tables and rows\n" for k in range(LEAD_LINES))
    names = [(_ZEROED, "Paper"), ("Fudan University", "Organization")]
    assert "lead" in _near(parse, f"Fudan University\nNote: tables\n{_ZEROED}\n", names).get((0, 1), "")
    assert "lead" not in _near(parse, f"Fudan University\n{filler}{_ZEROED}\n", names).get((0, 1), "")


def test_the_documents_names_by_class_and_place(parse):
    from pipeline.nlp.pairs import doc_roles

    doc = parse("Heron at CVPR 2025\n\nHeron is a small model. Heron beats Kestrel on LibriSpeech and TriviaQA.")
    lay = layout(doc)
    h1, h2, h3 = [c for c in mention_candidates(doc, lay) if lay.text[c.start_char:c.end_char] == "Heron"][:3]
    typed = [Typed(h1, "Method"), Typed(_cand(doc, lay, "CVPR 2025"), "Venue"), Typed(h2, "Method"), Typed(h3, "Method"),
             Typed(_cand(doc, lay, "Kestrel"), "Method"), Typed(_cand(doc, lay, "LibriSpeech"), "Dataset"),
             Typed(_cand(doc, lay, "TriviaQA"), "Dataset")]
    roles = doc_roles(lay, typed)
    assert roles[0] == ("names=2", "top", "title") and roles[1] == ("names=1", "title")
    assert roles[4] == ("names=2",) and roles[5] == ("names=2",)


def test_an_object_whose_sentence_names_another_of_the_subjects_class_has_a_rival(parse):
    _, f = _pair(parse, "Lab news\nThe demo used Heron on phones. Kestrel runs on the Pixel 8.", "Heron", "Method",
                 "Pixel 8", "Hardware", [("Kestrel", "Method")])
    assert "o_sent_rival" in f and "s_sent_rival" not in f


def test_a_coined_name_is_no_english_word():
    """A name's words against the dictionary (``patterns/english_words.txt``): a capitalised word it does not hold
    is coined, a mixed-case one of dictionary words a blend, a plural rebuilt from its singular."""
    from pipeline.nlp.english import runs, word_kind

    assert word_kind("Vorplex") == ("cap", "coined") and word_kind("Science") == ("cap", "word")
    assert word_kind("QuickLens") == ("mixed", "blend") and word_kind("Algorithms") == ("cap", "plural")
    assert word_kind("studies") == ("lower", "plural") and word_kind("zorbkit") == ("lower", "coined")
    assert runs("TV-L1 Zyntra-Net") == ["TV", "Zyntra", "Net"]


def test_the_english_features_read_each_token_once_as_from_its_runs():
    """``features._english`` reads each token's runs of letters from a cache per token (``_token_kinds``): the same
    kinds, in the same order, as the runs of every token of the span read one by one, function words left out."""
    from pipeline.nlp import features
    from pipeline.nlp.candidates import lexicon
    from pipeline.nlp.english import runs, word_kind

    fw = lexicon()["function_words"]
    for texts in (("TV-L1", "of", "Zyntra-Net"), ("QuickLens",), ("the", "of"), ("Llama", "2"), ("Studies", "in", "AI")):
        expected = [word_kind(r) for t in texts for r in runs(t) if r.lower() not in fw]
        assert [k for t in texts for k in features._token_kinds(t)] == expected
        assert bool(features._english(texts)) == bool(expected)
    assert features._english(("GLM-4",)) == ("eng1=upper_coined", "eng1d=upper_coined")


def test_the_words_of_a_name_say_whether_it_is_coined(parse):
    """A coined single word in an unusual context ("Vorplex runs at 700 FPS"), against a capitalised common phrase
    in a heading ("Evolutionary Algorithms") and a coined word beside a dictionary word ("Hybrid Vorplex")."""
    doc = parse("## Evolutionary Algorithms\n\nVorplex runs at 700 FPS on a CPU, inspired by Hybrid Vorplex.\n")
    lay = layout(doc)
    ctx = doc_context(doc, lay, mention_candidates(doc, lay))
    assert "eng1=cap_coined" in mention_features(doc, lay, _cand(doc, lay, "Vorplex"), ctx)
    heading = mention_features(doc, lay, _cand(doc, lay, "Evolutionary Algorithms"), ctx)
    assert {"engm=all", "engm_cap=all", "eng_last=cap_plural"} <= set(heading)
    hybrid = mention_features(doc, lay, _cand(doc, lay, "Hybrid Vorplex"), ctx)
    assert {"engm=some", "eng_first=cap_word", "eng_last=cap_coined"} <= set(hybrid)


def test_the_decision_rates_a_coined_name_above_a_dictionary_word(parse):
    """The same sentence with a coined name ("Vorplex") and with a dictionary word ("Harbor") in its place: only
    the ``eng1=`` feature differs, and the trained decision rates the coined one a method more often (needs weights
    trained with the feature). The decision is the screen (own features), then the mention model over the candidates
    it lets through (a candidate it drops is rated 0: it never reaches the model). The mention model learns from the
    survivors only, among which few capitalised dictionary words remain, so the dictionary's say is the screen's:
    there ``eng1=cap_word`` weighs against a method, in the mention model it no longer does."""
    from pipeline.nlp.classify import screened_features
    from pipeline.nlp.features import own_features

    models = load_models()
    method = models.mentions.labels.index("Method")
    got, screen = {}, {}
    for name in ("Vorplex", "Harbor"):
        doc = parse(f"We compare against {name}, which runs at 700 FPS on a CPU.")
        lay = layout(doc)
        cands = mention_candidates(doc, lay)
        k = cands.index(_cand(doc, lay, name))
        keep, rows = screened_features(doc, lay, cands, models.screen)
        got[name] = models.mentions.probs([rows[keep.index(k)]])[0, method] if k in keep else 0.0
        screen[name] = models.screen.probs([own_features(lay, cands[k])])[0, method]
    assert got["Vorplex"] > got["Harbor"] + 0.1, got
    assert screen["Vorplex"] > screen["Harbor"], screen


def test_a_rule_span_with_the_short_form_in_brackets_keeps_it():
    """"Lumen Flow Nets (LFNs):": the rule's span holds the short form the resolver makes an alternative label of,
    so the learned "Lumen Flow Nets" does not outrank it however sure the model is; without the bracket it would."""
    from pipeline.nlp.candidates import MentionCandidate
    from pipeline.nlp.classify import OUTRANK_MARGIN, select

    labels = ("Paper", "Method", "Dataset", "Venue", "Hardware", "Organization")
    texts = ["of", "Lumen", "Flow", "Nets", "(", "LFNs", "):", "it", "runs"]
    cands = [MentionCandidate(1, 7, 3, 33, "rule", "Method", "name.shape_or_context", "Lumen Flow Nets (LFNs):"),
             MentionCandidate(1, 4, 3, 18, "shape")]
    probs = numpy.full((2, len(labels)), 0.01)
    probs[0, 1] = 0.55
    probs[1, 1] = 0.55 + OUTRANK_MARGIN + 0.3
    assert [(t.cand.start, t.cand.end) for t in select(cands, probs, labels, texts=texts)] == [(1, 7)]
    plain = [*texts[:4], "is", "new", ".", "it", "runs"]
    assert [(t.cand.start, t.cand.end) for t in select(cands, probs, labels, texts=plain)] == [(1, 4)]


def test_a_rule_relation_pins_a_name_shape_mention_to_the_class_its_ends_allow(parse):
    """A demo list's item is the subject of demoedAt: a method however the model rates it; an evaluatedOn object
    is a dataset; a name no rule relates is not pinned."""
    from pipeline.nlp.classify import pinned_classes
    doc = parse("At CVPR 2026 we demo Loupe.\nKestrel is evaluated on Wren.\n")
    span = {t.text: doc[t.i:t.i + 1] for t in doc}
    pins = pinned_classes([(span["Loupe"], "demoedAt", span["CVPR"]), (span["Kestrel"], "evaluatedOn", span["Wren"])])
    assert pins[(span["Loupe"].start, span["Loupe"].end)] == frozenset({"Method"})
    assert pins[(span["Wren"].start, span["Wren"].end)] == frozenset({"Dataset"})
    assert pins[(span["Kestrel"].start, span["Kestrel"].end)] == frozenset({"Method", "Paper"})
    assert (span["we"].start, span["we"].end) not in pins


def test_the_rules_pair_of_two_names_blocks_another_property_not_the_same_one_elsewhere():
    """The rules related "Kite" and "NeurIPS 2025" by presentedAt in one sentence (a pair the decision may veto there):
    the model's own presentedAt between the same names on another line is its to judge; another property between
    them, or the names the other way round, stay blocked, as does the rules' pair itself."""
    from pipeline.nlp.candidates import MentionCandidate, PairCandidate
    from pipeline.nlp.classify import _rule_pair_of, _rule_properties

    def typed(start: int, name: str, cls: str) -> Typed:
        return Typed(MentionCandidate(start, start + 1, start * 10, start * 10 + 5, "shape", canonical=name), cls)

    mentions = [typed(0, "Kite", "Paper"), typed(5, "NeurIPS 2025", "Venue"), typed(20, "Kite", "Paper"),
                typed(25, "NeurIPS 2025", "Venue")]
    rules = PairCandidate(0, 1, "sentence", (("presentedAt", "venue.accepted_to"),))
    elsewhere, backwards = PairCandidate(2, 3, "entry"), PairCandidate(3, 2, "entry")
    props = _rule_properties(mentions, [rules, elsewhere])
    assert not _rule_pair_of(elsewhere, mentions, props, "presentedAt")
    assert _rule_pair_of(elsewhere, mentions, props, "demoedAt")
    assert _rule_pair_of(backwards, mentions, props, "presentedAt")
    assert _rule_pair_of(rules, mentions, props, "presentedAt")
