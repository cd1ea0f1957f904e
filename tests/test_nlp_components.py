"""Rule families of the mention and relation components, on short sentences: what each catches and what it must not."""

import pytest


def _mentions(doc):
    return {(s.label_, s._.mlkg_canonical) for s in doc.spans["mlkg_mentions"]}


def _relations(doc):
    return {(s._.mlkg_canonical, p, o._.mlkg_canonical) for s, p, o, *_ in doc._.mlkg_relations}


@pytest.mark.parametrize("text,expected", [
    ("Our team will attend NeurIPS 2024 in Vancouver.", ("Venue", "NeurIPS 2024")),
    ("This week, the Fortieth International Conference on Machine Learning (ICML) takes place.", ("Venue", "ICML 2023")),
    ("Presented at the 35th Conference on Neural Information Processing Systems (NeurIPS 2021).", ("Venue", "NeurIPS 2021")),
    ("We will be at CVPR 2026. Visit us at CVPR.", ("Venue", "CVPR 2026")),
])
def test_nlp_components_venue_with_year(extract_text, text, expected):
    assert expected in _mentions(extract_text(text))


@pytest.mark.parametrize("text,workshop,conference", [
    ("This paper was accepted at the Workshop on Efficient Reasoning at NeurIPS 2025.", "Workshop on Efficient Reasoning", "NeurIPS 2025"),
    ("Presented at the Safe Agents Workshop, ICML 2024, Vienna, Austria", "Safe Agents Workshop", "ICML 2024"),
    ("Presented at the ICLR 2023 Workshop on Trustworthy Models", "Workshop on Trustworthy Models", "ICLR 2023"),
])
def test_nlp_components_workshop_part_of_conference(extract_text, text, workshop, conference):
    doc = extract_text(text)
    assert ("Venue", workshop) in _mentions(doc)
    assert (workshop, "partOf", conference) in _relations(doc)


@pytest.mark.parametrize("text,expected", [
    ("Training took two days on 64 A100 GPUs.", ("Hardware", "A100")),
    ("The demo runs on an iPhone 15 Pro.", ("Hardware", "iPhone 15 Pro")),
    ("Inference on a MacBook Air with the M3 chip is fast.", ("Hardware", "MacBook Air")),
    ("Inference on a MacBook Air with the M3 chip is fast.", ("Hardware", "M3")),
    ("We benchmark on Apple silicon.", ("Hardware", "Apple silicon")),
])
def test_nlp_components_hardware(extract_text, text, expected):
    assert expected in _mentions(extract_text(text))


@pytest.mark.parametrize("text,expected", [
    ("In this paper, we propose Sparse Routing Attention (SRA), a method for long inputs.", ("Method", "Sparse Routing Attention")),
    ("We release QuillBench, a new benchmark of handwriting questions.", ("Dataset", "QuillBench")),
    ("Results on CIFAR-100 improve by two points.", ("Dataset", "CIFAR-100")),
    ("We train with the AdamW optimizer.", ("Method", "AdamW")),
])
def test_nlp_components_method_and_dataset_names(extract_text, text, expected):
    assert expected in _mentions(extract_text(text))


@pytest.mark.parametrize("text", [
    "Machine learning (ML) and reinforcement learning (RL) are popular.",
    "Additionally, the new method is shown to be fast.",
])
def test_nlp_components_generic_terms_are_not_entities(extract_text, text):
    assert not [m for m in _mentions(extract_text(text)) if m[0] in {"Method", "Dataset"}]


@pytest.mark.parametrize("text,title", [
    ("At NeurIPS, researchers will present Fast Kernels for Sparse Attention: A Study of Routing, which explores sparsity.",
     "Fast Kernels for Sparse Attention: A Study of Routing"),
    ("Our team will also share Learning to Rank with Tiny Models at the conference.", "Learning to Rank with Tiny Models"),
])
def test_nlp_components_paper_titles(extract_text, text, title):
    assert ("Paper", title) in _mentions(extract_text(text))


@pytest.mark.parametrize("text,relation", [
    ("QuillNet is a lightweight variant of ResNet for handwriting.", ("QuillNet", "extends", "ResNet")),
    ("FastRoute yields a 2x speed-up over FlashAttention-2 on H100 GPUs.", ("FastRoute", "outperforms", "FlashAttention-2")),
    ("FastRoute yields a 2x speed-up over FlashAttention-2 on H100 GPUs.", ("FastRoute", "runsOn", "H100")),
    ("We evaluate QuillNet on MNIST. QuillNet achieves 99% accuracy on MNIST.", ("QuillNet", "evaluatedOn", "MNIST")),
])
def test_nlp_components_relation_cues(extract_text, text, relation):
    assert relation in _relations(extract_text(text))


@pytest.mark.parametrize("text,relation", [
    ("QuillNet does not outperform ResNet on this task.", ("QuillNet", "outperforms", "ResNet")),
    ("We plan to extend QuillNet as a variant of ResNet later.", ("QuillNet", "extends", "ResNet")),
])
def test_nlp_components_negated_or_hedged_not_asserted(extract_text, text, relation):
    assert relation not in _relations(extract_text(text))


def test_nlp_components_untitled_abstract_introduces_and_presented_at(extract_text):
    doc = extract_text("In this paper, we propose GraphMix, a framework for sparse graphs.\n\n"
                       "Presented at the Workshop on Graph Learning, ICML 2024")
    rels = _relations(doc)
    assert ("Paper introducing GraphMix", "introduces", "GraphMix") in rels
    assert ("Paper introducing GraphMix", "presentedAt", "Workshop on Graph Learning") in rels


def test_nlp_components_name_occurrences_match_the_regular_expression():
    # the str.find search stands in for a pattern compiled per name: it must find exactly what the pattern finds
    import re
    from itertools import product

    from pipeline.nlp.components import name_occurrences

    names = ["Vision Transformer", "ViT", "Mip-NeRF 360", "GPT-4o", "T5", "s", "Sam", "ogbg-molhiv", "Résumé Net"]
    texts = [
        "The Vision Transformer (ViT) and vision-transformers beat VisionTransformer; ViTs, not ViTa or x-ViT.",
        "Mip-NeRF 360, mip nerf-360 and Mip-NeRF360s; MipNeRF 3600 is another. GPT-4o, gpt-4os, GPT-4o-mini.",
        "T5 and t5s but not T5x; Sam, SAMs, sams_, Sam-2. ogbg-molhiv ogbg molhiv ogbgmolhiv.",
        "Kelvin: \u212aelvin, long s: \u017fam, dotless: \u0131, Résumé Net and résumé-net. İstanbul T5.",
        "", "s", "ss s-s s_s",
    ]
    for name, text in product(names, texts):
        pattern = re.compile(r"(?<![\w-])" + r"[\s-]?".join(re.escape(p) for p in re.split(r"[\s-]+", name))
                             + r"s?(?![\w-])", re.I)
        assert name_occurrences(name, text) == [m.span() for m in pattern.finditer(text)], (name, text)
    assert name_occurrences("Mip-NeRF 360", texts[1]) == [(0, 12), (14, 26), (31, 43)]


@pytest.mark.parametrize("text, found", [
    ("Programme\n11:00  Oral: zip2zip: Token Merging for Long Audio\n", "zip2zip: Token Merging for Long Audio"),
    ('Links\nTechnical report: "Kite Technical Report: Small Models on Phones" (Wrenco)\n',
     "Kite Technical Report: Small Models on Phones"),
])
def test_a_title_line_after_a_label_is_the_title_without_it(nlp, text, found):
    doc = nlp(text, disable=["mlkg_learned"])
    papers = {s.text for s in doc.spans["mlkg_mentions"] if s.label_ == "Paper"}
    assert found in papers, papers


def test_a_labelled_line_with_no_title_after_its_label_is_no_paper(nlp):
    doc = nlp("Programme\n10:00  Room: East Exhibition Hall A\nRelease: April 23, 2024\n", disable=["mlkg_learned"])
    assert not [s.text for s in doc.spans["mlkg_mentions"] if s.label_ == "Paper"]


def test_universities_named_with_at_and_with_a_leading_the(nlp):
    doc = nlp("Kite (Wrenfield University and University at Quillby). Researchers at The University of Ternhall (UTH) "
              "helped; UTH also shared data.", disable=["mlkg_learned"])
    orgs = {(s.text, s._.mlkg_canonical) for s in doc.spans["mlkg_mentions"] if s.label_ == "Organization"}
    assert {("University at Quillby", "University at Quillby"), ("UTH", "University of Ternhall")} <= orgs, orgs


@pytest.mark.parametrize("text,phrase", [
    ("## Evolutionary Algorithms\n\nThis section compares the search methods.\n", "Evolutionary Algorithms"),
    ("Results\n\nMethod | Chemical Science | Accuracy\n--- | --- | ---\nours | yes | 91.0\n", "Chemical Science"),
])
def test_nlp_components_a_heading_of_common_words_is_no_name(extract_text, text, phrase):
    assert not [m for m in _mentions(extract_text(text)) if m[1] == phrase]
