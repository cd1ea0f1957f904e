"""The gazetteer of general-knowledge names (pipeline/nlp/gazetteer.py): where a document writes one, a mention
candidate with the name's classes as features, never a decision."""

from __future__ import annotations

import json

import pytest

from pipeline.nlp.candidates import layout, mention_candidates
from pipeline.nlp.extract import doc_of
from pipeline.nlp.features import mentions_features
from pipeline.nlp.gazetteer import (GAZETTEER, LISTS, _from_binary, _to_binary, gazetteer, gazetteer_classes,
                                    gazetteer_key)


@pytest.fixture(scope="module")
def found(nlp):
    """The gazetteer's candidates of a text (span text -> their gazetteer features and sources)."""
    def run(text):
        doc = nlp(doc_of(nlp, text), disable=["mlkg_learned"])
        lay = layout(doc)
        cands = mention_candidates(doc, lay)
        return {lay.text[c.start_char:c.end_char]: ([x for x in f if x.startswith("gaz")], (c.source, *c.also))
                for c, f in zip(cands, mentions_features(doc, lay, cands))}
    return run


def test_every_list_of_the_gazetteer_is_read():
    data = json.loads(GAZETTEER.read_text("utf-8"))
    assert {k for k in data if not k.startswith("_")} == {k for k, _ in LISTS}


def test_a_key_keeps_case_and_drops_spacing_and_punctuation():
    assert gazetteer_key("SQuAD 2.0") == gazetteer_key("SQuAD2.0") == "SQuAD20"
    assert gazetteer_key("XLM-RoBERTa") == "XLMRoBERTa" != gazetteer_key("xlm-roberta")


def test_the_binary_copy_holds_the_same_names():
    gz = gazetteer()
    assert _from_binary(_to_binary(gz.classes, gz.heads, gz.folded)) == (gz.classes, gz.heads, gz.folded)
    with pytest.raises(ValueError):
        _from_binary(b'{"format": "other", "groups": []}')


def test_a_run_of_words_stops_where_no_name_goes_on():
    gz = gazetteer()
    key = gazetteer_key("University of Chinese Academy of Sciences")
    assert all(gz.opens(key[:k]) for k in range(1, len(key) + 1))
    assert not gz.opens(key + "Zzqx") and not gz.opens("Zzqxwv")


def test_the_spans_of_names_in_a_line_of_words():
    from pipeline.nlp.gazetteer import gazetteer_spans

    text = "At the University of Chinese Academy of Sciences we ran XLM-RoBERTa on HellaSwag twice"
    texts = text.replace("-", " - ").split()  # (tokens, with offsets below)
    idx, at = [], 0
    for t in texts:
        at = text.index(t, at)
        idx.append(at)
        at += len(t)
    spans = {" ".join(texts[a:b]) for a, b in gazetteer_spans(text, texts, idx, [0] * len(texts))}
    assert {"University of Chinese Academy of Sciences", "XLM - RoBERTa", "HellaSwag"} <= spans


def test_names_of_the_world_are_classed():
    assert gazetteer_classes("University of Chinese Academy of Sciences") == ("Organization",)
    assert "Method" in gazetteer_classes("XLM-RoBERTa")
    assert "Dataset" in gazetteer_classes("HellaSwag")
    assert gazetteer_classes("the results") == ()


def test_a_multiword_organization_is_a_candidate_with_its_class(found):
    got = found("The authors are with the University of Chinese Academy of Sciences, Beijing.")
    feats, sources = got["University of Chinese Academy of Sciences"]
    assert "gaz=Organization" in feats and "gaz" in sources


def test_a_single_word_name_is_told_apart(found):
    got = found("We tune the hyperparameters with Optuna and evaluate on HellaSwag.")
    assert "gaz1=Method" in got["Optuna"][0]
    assert "gaz1=Dataset" in got["HellaSwag"][0]


def test_no_name_inside_a_longer_word_or_compound(found):
    got = found("Meta-learning helps, and so does Optunaplus on data.")
    assert not any("gaz" in sources for text, (_, sources) in got.items() if text.startswith(("Meta", "Optuna")))


def test_a_span_that_starts_or_ends_with_a_name_says_so(found):
    from pipeline.nlp.features import _gazetteer_parts

    words = ("Department", "of", "Physics", ",", "University", "of", "Chinese", "Academy", "of", "Sciences")
    assert _gazetteer_parts(words) == ("gaz_tail=Organization",)
    assert _gazetteer_parts(("University", "of", "Chinese", "Academy", "of", "Sciences")) == ()  # the whole: gaz=
    got = found("Results on HellaSwag v2 are in Table 2.")
    assert "gaz_head=Dataset" in got["HellaSwag v2"][0]


def test_a_list_member_next_to_a_known_name_hears_of_it(nlp):
    from pipeline.nlp.features import doc_context, mention_features

    doc = nlp(doc_of(nlp, "Affiliations: Zorblax Institute, University of Chinese Academy of Sciences, Quux Labs"),
              disable=["mlkg_learned"])
    lay = layout(doc)
    cands = mention_candidates(doc, lay)
    ctx = doc_context(doc, lay, cands)
    c = next(c for c in cands if lay.text[c.start_char:c.end_char] == "Zorblax Institute")
    assert "nb_gaz=Organization" in mention_features(doc, lay, c, ctx)


def test_a_name_written_in_another_case_is_a_weaker_feature(found):
    """The gazetteer matches names as listed; a name in another case ("hellaswag", "OPTUNA") is read as ``gazi=``,
    apart from ``gaz=``, so the decision learns how far to trust it."""
    from pipeline.nlp.gazetteer import gazetteer_classes_folded

    assert "Dataset" in gazetteer_classes_folded("hellaswag") and gazetteer_classes_folded("HellaSwag") == ()
    assert gazetteer_classes_folded("the results") == ()
    got = found("We tune the hyperparameters with OPTUNA and evaluate on HellaSwag.")
    assert "gazi=Method" in got["OPTUNA"][0] and not any(f.startswith("gaz1") for f in got["OPTUNA"][0])
    assert "gaz1=Dataset" in got["HellaSwag"][0] and not any(f.startswith("gazi") for f in got["HellaSwag"][0])


def test_paper_titles_and_hardware_are_classed(found):
    """Titles of papers (the model zoos' and data sets' citations) and hardware (a GPU list, the model zoos'
    training resources) are lists of their own, each class a feature of its own."""
    assert "Paper" in gazetteer_classes("Deep Residual Learning for Image Recognition")
    assert "Hardware" in gazetteer_classes("NVIDIA A100") and "Hardware" in gazetteer_classes("A100")
    got = found("All models are trained on NVIDIA A100 GPUs with Deep Residual Learning for Image Recognition.")
    assert "gaz=Hardware" in got["NVIDIA A100"][0]
    assert "gaz=Paper" in got["Deep Residual Learning for Image Recognition"][0]


def _tool():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "tools" / "gazetteer.py"
    spec = importlib.util.spec_from_file_location("gazetteer_tool", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_model_index_gives_methods_data_sets_papers_and_hardware():
    tool = _tool()
    got = tool.model_index_names(
        "Collections:\n  - Name: Faster R-CNN\n    Metadata:\n      Training Data: COCO\n"
        "      Training Techniques:\n        - SGD with Momentum\n      Training Resources: 8x V100 GPUs\n"
        "      Architecture:\n        - FPN\n    Paper:\n      Title: 'Faster R-CNN: Towards Real-Time Object'\n"
        "Models:\n  - Name: faster_rcnn_r50\n    Results:\n      - Dataset: Pascal VOC\n")
    assert got["methods"] == {"Faster R-CNN", "SGD with Momentum", "FPN"}
    assert got["datasets"] == {"COCO", "Pascal VOC"}
    assert got["papers"] == {"Faster R-CNN: Towards Real-Time Object"}
    assert got["hardware"] == {"V100", "V100 GPU"}
    assert tool._devices("8x GPUs") == set() and tool._devices("4x NVIDIA Titan Xp GPUs (b64)") == {
        "NVIDIA Titan Xp", "NVIDIA Titan Xp GPU"}


def test_a_zoo_readme_title_is_a_method_or_a_data_set():
    tool = _tool()
    got = tool.zoo_readme_names("# PointPillars: Fast Encoders\n\n> [PointPillars: Fast Encoders](https://x)\n\n"
                                "<!-- [ALGORITHM] -->\n")
    assert got == {"methods": {"PointPillars"}, "datasets": set(), "papers": {"PointPillars: Fast Encoders"}}
    assert tool.zoo_readme_names("# COCO (ECCV'2014)\n\n<!-- [DATASET] -->\n")["datasets"] == {"COCO"}


def test_a_data_set_builder_is_named_as_its_description_writes_it():
    tool = _tool()
    assert tool._dataset_name_as_written("cifar10", "The CIFAR-10 dataset consists of cifar10 images.") == {"CIFAR-10"}
    assert tool._dataset_name_as_written("squad", "Stanford Question Answering Dataset (SQuAD) is ...") == {"SQuAD"}
    assert tool.keep_title("Deep Residual Learning for Image Recognition") and not tool.keep_title("ResNet")


def test_a_card_name_its_long_form_and_a_device_and_its_chip():
    tool = _tool()
    assert tool._expanded("MATH (Mathematics Aptitude Test of Heuristics)") == {
        "MATH (Mathematics Aptitude Test of Heuristics)", "MATH", "Mathematics Aptitude Test of Heuristics"}
    assert tool._expanded("PersiNLU (Reading Comprehension)") == {"PersiNLU (Reading Comprehension)", "PersiNLU"}
    assert tool._GENERIC_TITLE.fullmatch("Image-to-image") and tool._GENERIC_TITLE.fullmatch("ControlNet with Flux.1")
    assert not tool._GENERIC_TITLE.fullmatch("Stable Diffusion XL")
    line = ('Device("iPadAir3", "Device is an [iPad Air (3rd generation)](https://x)", "https://y.jpg", ["iPad11,3"], '
            '10.5, (3, 4), "iPad Air (3rd generation)", 264, False, 1, "a12XBionic", False)')
    m = tool._APPLE_DEVICE.search(line)
    assert m.group(1) == "iPad Air (3rd generation)" and m.group(2) == "a12XBionic"


def test_a_model_list_and_a_title_give_names():
    tool = _tool()
    assert tool._sizes("Qwen2-0.5B|1.5B|7B") == {"Qwen2", "Qwen2-0.5B", "Qwen2-1.5B", "Qwen2-7B"}
    assert tool._sizes("Pythia-1|2.8|12B") == {"Pythia", "Pythia-1B", "Pythia-2.8B", "Pythia-12B"}
    methods, datasets = tool.title_names({"LIMA: Less Is More for Alignment", "SQuAD: 100,000+ Questions for "
                                          "Machine Comprehension of Text, a Dataset", "Attention Is All You Need",
                                          "Scaling laws: a study"})
    assert methods == {"LIMA"} and datasets == {"SQuAD"}


def test_the_binary_copy_reads_as_the_json_by_bisection_then_by_a_dict(monkeypatch):
    import json

    from pipeline.nlp import gazetteer as g

    classes, heads, folded = g._built(json.loads(GAZETTEER.read_text("utf-8")))
    monkeypatch.setattr(g, "_LOOKUPS", 5000)  # (five per key below)
    read, read_heads, read_folded = _from_binary(_to_binary(classes, heads, folded))
    assert isinstance(read, g._SortedMap) and read._dict is None
    assert read_heads == heads and list(read) == sorted(classes) and len(read) == len(classes)
    keys = sorted(classes)[::97]
    for key in keys[:900]:  # by bisection, as a one-document rebuild looks them up
        assert read.get(key) == classes[key] and key in read and read[key] == classes[key]
        assert read.get(key + "\x00") is None and (key + "\x00") not in read
    assert read._dict is None
    assert dict(read) == classes and dict(read_folded) == folded  # (and from here by the dict it made)
    assert read._dict is not None and all(read.get(k) == classes[k] for k in keys)
