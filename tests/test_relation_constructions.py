"""Relation constructions that carry across styles, on short sentences: the pair features that read them and the
rule guards for the method a comparison names as its baseline (each with a sentence where it must not fire)."""

from __future__ import annotations

import pytest

from test_learned import _pair, parse  # noqa: F401  (parse: the fixture _pair's callers pass on)


def _rule_relations(doc):
    return {(s.text, p, o.text) for s, p, o, *_ in doc._.mlkg_relations}


@pytest.mark.parametrize("text,o", [
    ("Strand Splatting renders hair strands. It is built on top of 3D Gaussian Splatting (3DGS).", "3DGS"),
    ("Ledger is an open-source tool built on top of vLLM for error analysis.", "vLLM"),
])
def test_a_preposition_of_several_words_is_read_past(parse, text, o):
    s = text.split(" is" if text.startswith("Ledger") else " renders")[0]
    _, f = _pair(parse, text, s, "Method", o, "Method")
    assert "o_gov2=built" in f and "o_gov_class=uses" in f


def test_a_plain_comparison_has_no_word_above_its_preposition(parse):
    _, f = _pair(parse, "Strand Splatting renders hair strands. It is compared with 3D Gaussian Splatting (3DGS).",
                 "Strand Splatting", "Method", "3DGS", "Method")
    assert not [x for x in f if x.startswith("o_gov2=")] and "o_gov_class=uses" not in f


@pytest.mark.parametrize("text,word,other,feature", [
    # the subject of a copula says what its complement is: "Its backbone is X" reads like "a X backbone"
    ("YOLOv8 lives in the ultralytics package. Its backbone is CSPDarknet53, with partial connections.", "backbone",
     "rival", "o_cop_subj="),
    # the label of a field line: "Backbone: X"
    ("Model card\n\n- Backbone: CSPDarknet53, as in YOLOv8\n- License: AGPL\n", "Backbone", "Baseline", "o_field="),
])
def test_a_noun_that_names_the_role_of_the_object(parse, text, word, other, feature):
    _, f = _pair(parse, text, "YOLOv8", "Method", "CSPDarknet53", "Method")
    assert feature + word.lower() in f and "o_np_class=uses" in f
    _, f = _pair(parse, text.replace(word, other), "YOLOv8", "Method", "CSPDarknet53", "Method")
    assert feature + other.lower() in f and "o_np_class=uses" not in f


def test_an_end_named_as_what_is_compared_against(parse):
    text = "FastViT is 3.5x faster than CMT and EfficientNet on ImageNet."
    others = [("CMT", "Method"), ("FastViT", "Method")]
    _, f = _pair(parse, text, "EfficientNet", "Method", "ImageNet", "Dataset", others)
    assert "s_compared" in f  # the list after "than" is compared against
    _, f = _pair(parse, text, "FastViT", "Method", "ImageNet", "Dataset", [("CMT", "Method"), ("EfficientNet", "Method")])
    assert "s_compared" not in f


def test_names_of_the_ends_classes_between_the_ends(parse):
    text = "Kestrel beats Wren on PIQA."
    _, f = _pair(parse, text, "Kestrel", "Method", "PIQA", "Dataset", [("Wren", "Method")])
    assert "bn_s=1" in f and "bn_o=0" in f
    _, f = _pair(parse, text, "Wren", "Method", "PIQA", "Dataset", [("Kestrel", "Method")])
    assert "bn_s=0" in f


def test_a_baseline_is_not_evaluated_on_the_winners_dataset(parse):
    got = _rule_relations(parse("YOLOv10 achieves a higher mAP than YOLOv9 and YOLOv8 on MS COCO."))
    assert ("YOLOv10", "evaluatedOn", "MS COCO") in got
    assert ("YOLOv9", "evaluatedOn", "MS COCO") not in got and ("YOLOv8", "evaluatedOn", "MS COCO") not in got
    got = _rule_relations(parse("We benchmarked CLIP and DINOv2 on ImageNet."))
    assert {("CLIP", "evaluatedOn", "ImageNet"), ("DINOv2", "evaluatedOn", "ImageNet")} <= got


def test_a_baseline_does_not_run_on_the_winners_hardware(parse):
    got = _rule_relations(parse("Mamba-3 is faster than Mamba-2 at prefill on an H100."))
    assert ("Mamba-3", "runsOn", "H100") in got and ("Mamba-2", "runsOn", "H100") not in got


def test_one_baseline_does_not_outperform_the_next(parse):
    got = _rule_relations(parse("FastViT is 3.5x faster than CMT, 4.9x faster than EfficientNet and 1.9x faster than ConvNeXt."))
    assert ("FastViT", "outperforms", "EfficientNet") in got and ("FastViT", "outperforms", "ConvNeXt") in got
    assert ("CMT", "outperforms", "EfficientNet") not in got and ("EfficientNet", "outperforms", "ConvNeXt") not in got
    got = _rule_relations(parse("FastViT beats MobileOne at similar latency."))
    assert ("FastViT", "outperforms", "MobileOne") in got


@pytest.mark.parametrize("text, paper", [
    ('We read "Quillfeather: Sparse Routing for Long Documents" this week. Quillfeather routes tokens to experts.',
     "Quillfeather: Sparse Routing for Long Documents"),
    ('We read "Quillfeather — Sparse Routing for Long Documents" this week. Quillfeather routes tokens to experts.',
     "Quillfeather — Sparse Routing for Long Documents"),
])
def test_a_quoted_title_introduces_the_name_before_its_colon_or_dash(parse, text, paper):
    assert (paper, "introduces", "Quillfeather") in _rule_relations(parse(text))


def test_a_quoted_sentence_introduces_nothing(parse):
    doc = parse('He said "Quillfeather: this is not a drill" twice. Quillfeather routes tokens to experts.')
    assert not [r for r in _rule_relations(doc) if r[1] == "introduces"]


@pytest.mark.parametrize("text, s, o, other", [
    # "builds on X" between methods is uses in the annotation guides (extends only where it is called a variant)
    ("DINOv2 builds on iBOT and adds a KoLeo regulariser.", "DINOv2", "iBOT", "DINOv2 is compared with iBOT on ImageNet."),
    # a part the method owns ("whose code") is no subject of its own
    ("FinchTTS is a speech model whose inference code is built on MLX.", "FinchTTS", "MLX",
     "FinchTTS is a speech model, and the demo app is built on MLX."),
])
def test_builds_on_says_uses(parse, text, s, o, other):
    assert (s, "uses", o) in _rule_relations(parse(text))
    assert (s, "uses", o) not in _rule_relations(parse(other))


def test_a_cue_verb_with_a_subject_of_its_own(parse):
    # the name nearest before "is built on" is not what is built on it when the verb has a subject of its own
    got = _rule_relations(parse("FogForge relies on Marigold for depth, and every detector in the paper is built on RT-DETR."))
    assert ("FogForge", "uses", "Marigold") in got and ("Marigold", "uses", "RT-DETR") not in got
    got = _rule_relations(parse("FogForge, which is built on RT-DETR, removes haze."))
    assert ("FogForge", "uses", "RT-DETR") in got


@pytest.mark.parametrize("text, orgs", [
    # a labelled line under its entry's title: "Affil.:", "Authors' organizations:", a people line and its dash
    ("Programme\n\n1. Sparse Kites for Small Phones\n   Affil.: Halvard University; Brightline Robotics Inc.\n",
     {"Halvard University", "Brightline Robotics Inc."}),
    ("Programme\n\n1. Sparse Kites for Small Phones\n   Authors' organizations: Halvard University; Brightline Labs.\n",
     {"Halvard University", "Brightline Labs"}),
    ("Programme\n\n1. Sparse Kites for Small Phones\n   Ann Lee; Bo Chan — Halvard University\n", {"Halvard University"}),
])
def test_an_authors_line_under_a_title(parse, text, orgs):
    got = {o for s, p, o in _rule_relations(parse(text)) if p == "affiliatedWith" and s == "Sparse Kites for Small Phones"}
    assert got == orgs


def test_a_line_of_people_and_prose_after_its_dash_is_no_authors_line(parse):
    text = "Programme\n\n1. Sparse Kites for Small Phones\n   Ann Lee; Bo Chan — a study of kites at Halvard University\n"
    assert not [r for r in _rule_relations(parse(text)) if r[1] == "affiliatedWith"]


@pytest.mark.parametrize("text, orgs", [
    ('The paper "Sparse Kites for Small Phones" was written by researchers at Halvard University, Brightline '
     'Robotics and the Ostmark Institute.', {"Halvard University", "Brightline Robotics", "Ostmark Institute"}),
    ('"Sparse Kites for Small Phones" was written by Ann Lee, Bo Chan and Cy Dee at Halvard University and '
     'published in Nature.', {"Halvard University"}),
])
def test_every_organization_of_a_cued_list_is_the_papers(parse, text, orgs):
    got = {o for s, p, o in _rule_relations(parse(text)) if p == "affiliatedWith"}
    assert got == orgs


def test_organizations_a_paper_compares_are_not_its_own(parse):
    text = 'The paper "Sparse Kites for Small Phones" compares models of Halvard University and the Ostmark Institute.'
    assert not [r for r in _rule_relations(parse(text)) if r[1] == "affiliatedWith"]


@pytest.mark.parametrize("text", [
    "Osprey-7B is a language model. Pretraining ran on 128 NVIDIA A100 GPUs.",
    "Osprey-7B is a language model. Inference runs on one NVIDIA A100 GPU.",
])
def test_a_run_of_the_method_named_before_runs_on_the_hardware(parse, text):
    got = {(s, o) for s, p, o in _rule_relations(parse(text)) if p == "runsOn"}
    assert got and {s for s, _ in got} == {"Osprey-7B"}
    # not when negated, nor from the paragraph before
    for other in (text.replace("ran on 128", "did not run on").replace("runs on one", "does not run on one"),
                  text.replace(". ", ".\n\n", 1)):
        assert not [r for r in _rule_relations(parse(other)) if r[1] == "runsOn"]


def test_trained_with_a_method_says_uses(parse):
    got = _rule_relations(parse("Guanaco-7B is a chat model trained with QLoRA on one GPU."))
    assert ("Guanaco-7B", "uses", "QLoRA") in got


def test_demonstrated_at_a_venue_on_a_device_is_a_demo(parse):
    got = _rule_relations(parse("At CVPR 2025 we demonstrated KiteSeg running on a Pixel 8."))
    assert {("KiteSeg", "demoedAt", "CVPR 2025"), ("KiteSeg", "demoedOn", "Pixel 8")} <= got
    got = _rule_relations(parse("At CVPR 2025 we demonstrated that KiteSeg runs fast on a Pixel 8."))
    assert not [r for r in got if r[1].startswith("demoed")]


@pytest.mark.parametrize("text,s,o", [
    # a name said to be demonstrated somewhere is a method, demoed there
    ("Lookout was announced and demonstrated at Google I/O 2018.", "Lookout", "Google I/O 2018"),
    ("Magenta was demonstrated live at NeurIPS 2016, and attendees played with it.", "Magenta", "NeurIPS 2016"),
    ("Richard Allen demonstrated MyShake at the AAAS 2016 annual meeting in Washington DC.", "MyShake", "AAAS 2016"),
])
def test_a_name_demonstrated_at_an_event_is_a_demoed_method(parse, text, s, o):
    assert (s, "demoedAt", o) in _rule_relations(parse(text))


_EVENT = "Meet us at CVPR 2023 in Vancouver. Our CVPR 2023 booth is 1212.\n\n"
"""A post about an event (a conference named twice with its year): the demos it names are at it."""


def test_a_demo_is_at_the_venue_its_sentence_names_not_the_posts_event(parse):
    got = _rule_relations(parse(_EVENT + "At MWC 2023 Qualcomm demonstrated Stable Diffusion running "
                                "locally on a Snapdragon 8 Gen 2 smartphone."))
    assert ("Stable Diffusion", "demoedAt", "MWC 2023") in got
    assert ("Stable Diffusion", "demoedAt", "CVPR 2023") not in got
    # of two venues, the one nearest the demo word
    got = _rule_relations(parse("CrossGaussian streams 360° video; it appears in the ACM UIST 2025 Adjunct and was "
                                "shown as a research demonstration at IEEE ISMAR 2025."))
    assert ("CrossGaussian", "demoedAt", "ISMAR 2025") in got and ("CrossGaussian", "demoedAt", "UIST 2025") not in got


@pytest.mark.parametrize("text", [
    "PocketLM is a deployed system, so there is no booth demo; it runs on a Pixel 8.",  # said not to be demoed
    "The project page links a recorded demo video of PocketLM.",  # a recording, not a showing at the event
])
def test_no_demo_at_the_posts_event(parse, text):
    assert ("PocketLM", "demoedAt", "CVPR 2023") in _rule_relations(parse(_EVENT + "PocketLM is demoed at our booth."))
    got = _rule_relations(parse(_EVENT + text))
    assert not [r for r in got if r[1] == "demoedAt"]


@pytest.mark.parametrize("text,s,o", [
    # an event without a conference's name, said to be one by its last word, by a lower-case kind after it, or by
    # what follows it
    ("MAX-AI was shown in a live demonstration at Pollutec, the French trade show in Lyon.", "MAX-AI", "Pollutec"),
    ("Moondream was demonstrated live at the AI Engineer World's Fair, describing a webcam feed.", "Moondream",
     "AI Engineer World's Fair"),
    ("Poetoid was demonstrated live at the Lowlands festival.", "Poetoid", "Lowlands festival"),
])
def test_a_demo_at_an_event_named_without_a_year(parse, text, s, o):
    assert (s, "demoedAt", o) in _rule_relations(parse(text))


def test_an_event_named_by_its_last_word_needs_no_word_before_its_year(parse):
    doc = parse("Flower Summit 2023, a hybrid event held in Cambridge, mixed talks with demos.")
    assert ("Flower Summit 2023", "Venue") in {(m.text, m.label_) for m in doc.spans["mlkg_mentions"]}
    doc = parse("The Flower 2023 release notes list three fixes.")
    assert not [m for m in doc.spans["mlkg_mentions"] if m.label_ == "Venue"]
