"""Rule families for page layouts and phrasings beyond the bundled corpus: titles on their own lines, venues
named as a paper's, demo paragraphs, reversed comparisons, named variants, studies of other models, name shapes.

Each case is a short invented text: what the rule must catch, and next to it what it must not.
"""

import pytest

from pipeline.nlp.rules import is_strong_name

from data import CORPUS_DIR as CORPUS


def _mentions(doc):
    return {(s.label_, s._.mlkg_canonical) for s in doc.spans["mlkg_mentions"]}


def _relations(doc):
    return {(s._.mlkg_canonical, p, o._.mlkg_canonical) for s, p, o, *_ in doc._.mlkg_relations}


_LISTING = (
    "Kestrel Lab\n\nPublications\n\n"
    "Sparse Adapters for Low-Resource Speech Recognition\n"
    "Speech recognisers are weak on languages with little transcribed audio. We propose TernAdapt, which inserts "
    "sparse adapters into a frozen encoder and trains them on a few hours of speech. TernAdapt lowers word error "
    "rate on FLEURS by four points.\n"
    "Accepted at Interspeech 2026.\n\n"
    "Efficient Attention on Small Devices\n"
    "Kestrel researchers will present Pocket Attention: Tiling for Phones, which shows that tiling attention "
    "blocks halves memory on phones. The paper was written with two partner teams.\n"
)


def test_nlp_layouts_title_line_opening_its_abstract(extract_text):
    doc = extract_text(_LISTING)
    mentions, rels = _mentions(doc), _relations(doc)
    title = "Sparse Adapters for Low-Resource Speech Recognition"
    assert ("Paper", title) in mentions
    assert (title, "introduces", "TernAdapt") in rels
    assert (title, "presentedAt", "Interspeech 2026") in rels
    # a section heading opens a paragraph presenting another paper by its title: it is no paper itself
    assert ("Paper", "Efficient Attention on Small Devices") not in mentions
    assert ("Paper", "Pocket Attention: Tiling for Phones") in mentions
    # the lab's name and the page's heading are no papers either
    assert not [m for m in mentions if m[0] == "Paper" and m[1] in {"Kestrel Lab", "Publications"}]


def test_nlp_layouts_dated_headline_is_not_a_paper(extract_text):
    doc = extract_text("Heron: A Small Model for Field Forms\nMarch 3, 2026\n\n"
                       "Heron reads forms. We present Heron, a compact model, which is accepted at ICDAR 2026.\n")
    assert ("Paper", "Heron: A Small Model for Field Forms") not in _mentions(doc)


_GAITS = ("Learning Gaits from Video\nRobot policies that predict one action per control step are slow to train and "
          "hard to scale to long tasks, and video of people walking is cheap. ")


@pytest.mark.parametrize("text,relation", [
    (_GAITS + "Our CoRL 2026 paper introduces GaitTok, a tokenizer that merges frequent motion chunks.\n",
     ("Learning Gaits from Video", "presentedAt", "CoRL 2026")),
    (_GAITS + "Our CoRL 2026 paper introduces GaitTok, a tokenizer that merges frequent motion chunks.\n",
     ("Learning Gaits from Video", "introduces", "GaitTok")),
    (_GAITS + "GaitTok turns motion into tokens for policies. The work will be presented at CoRL 2026.\n",
     ("Learning Gaits from Video", "introduces", "GaitTok")),
    (_GAITS + "GaitTok turns motion into tokens for policies. The work will be presented at CoRL 2026.\n",
     ("Learning Gaits from Video", "presentedAt", "CoRL 2026")),
    ("An AISTATS 2026 paper from our theory team introduces HaloSampler, a sampler for discrete spaces.",
     ("Paper introducing HaloSampler", "presentedAt", "AISTATS 2026")),
])
def test_nlp_layouts_venue_of_the_paper_in_focus(extract_text, text, relation):
    assert relation in _relations(extract_text(text))


def test_nlp_layouts_submission_is_not_a_presentation(extract_text):
    doc = extract_text(_GAITS + "GaitTok turns motion into tokens. We have not submitted it to CoRL 2026 yet and "
                                "might present it later.\n")
    assert ("Learning Gaits from Video", "presentedAt", "CoRL 2026") not in _relations(doc)


def test_nlp_layouts_workshop_before_lower_case_word(extract_text):
    doc = extract_text("Paper accepted at the Machine Learning for Ocean Science workshop at ICML 2026.")
    assert ("Venue", "Machine Learning for Ocean Science") in _mentions(doc)
    assert ("Machine Learning for Ocean Science", "partOf", "ICML 2026") in _relations(doc)


_BOOTH = ("Visitors to NeurIPS 2026 can try two live demos at our booth. The first shows PocketLM answering "
          "questions offline on a Pixel 10 Pro. We plan to bring a PocketLM demo to the Apple Vision Pro next year.")


def test_nlp_layouts_demo_paragraph(extract_text):
    rels = _relations(extract_text(_BOOTH))
    assert ("PocketLM", "demoedAt", "NeurIPS 2026") in rels
    assert ("PocketLM", "demoedOn", "Pixel 10 Pro") in rels
    assert ("PocketLM", "demoedOn", "Apple Vision Pro") not in rels  # planned, not shown


@pytest.mark.parametrize("text,relation", [
    ("On MMMU, QuillVL trails InternVL3-2B by two points.", ("InternVL3-2B", "outperforms", "QuillVL")),
    ("QuillVL answers more accurately than both MiniCPM-V and SmolVLM2.", ("QuillVL", "outperforms", "SmolVLM2")),
    ("QuillVL improves mIoU by 2.8 points over FlashOcc.", ("QuillVL", "outperforms", "FlashOcc")),
    ("CORALINE is a modification of the Muon optimizer for large batches.", ("CORALINE", "extends", "Muon")),
    ("TideNet is a Fourier Neural Operator variant for coastlines.", ("TideNet", "extends", "Fourier Neural Operator")),
])
def test_nlp_layouts_comparison_and_variant_cues(extract_text, text, relation):
    assert relation in _relations(extract_text(text))


def test_nlp_layouts_reversed_comparison_is_not_read_forwards(extract_text):
    assert ("QuillVL", "outperforms", "InternVL3-2B") not in _relations(
        extract_text("On MMMU, QuillVL trails InternVL3-2B by two points."))


def test_nlp_layouts_study_of_other_models_is_evaluated_on(extract_text):
    text = ("Do Small Models Count Well?\nCounting objects in a photograph is easy for people and surprisingly hard for "
            "small models. The authors benchmark Qwen3-4B and Phi-4-mini on CountBench and TallyQA and find both weak.\n")
    rels = _relations(extract_text(text))
    assert ("Do Small Models Count Well?", "evaluatedOn", "CountBench") in rels
    assert ("Do Small Models Count Well?", "evaluatedOn", "TallyQA") in rels


def test_nlp_layouts_paper_with_its_own_method_is_not_a_study(extract_text):
    text = ("Counting with Prompts\nCounting objects in a photograph is easy for people and surprisingly hard for "
            "small models. We propose TallyNet. We evaluate TallyNet on CountBench and compare it with Qwen3-4B.\n")
    rels = _relations(extract_text(text))
    assert ("TallyNet", "evaluatedOn", "CountBench") in rels
    assert ("Counting with Prompts", "evaluatedOn", "CountBench") not in rels


@pytest.mark.parametrize("text,expected", [
    ("Experiments on ShelfScan-2K and MovieLens-1M show large gains for TernRec.", ("Dataset", "ShelfScan-2K")),
    ("This paper tests code models on RepoBench and BigCodeBench.", ("Dataset", "RepoBench")),
    ("We construct FieldVQA, a set of 2,000 photographed forms.", ("Dataset", "FieldVQA")),
    pytest.param("The team trained it using FineText-Edu as the pretraining corpus.", ("Dataset", "FineText-Edu"),
                 marks=pytest.mark.xfail(strict=True, reason="a known miss of the committed weights (trained on 197 sets "
                                         "with the screen's bar at 0.1): 'FineText-Edu' is rated Dataset 0.48, just under "
                                         "the bar (0.50 and 0.51 with earlier weights: a case on the edge, not hidden)")),
    ("The model runs on the Hexagon NPU of the Snapdragon 8 Elite Gen 5.", ("Hardware", "Snapdragon 8 Elite Gen 5")),
    ("It was trained on 72 NVIDIA GB300 superchips and served from B300 GPUs.", ("Hardware", "GB300")),
    ("It runs in real time on an Ethos-U55 microNPU.", ("Hardware", "Ethos-U55")),
    ("This was joint work with researchers at Universidad de Chile.", ("Organization", "Universidad de Chile")),
])
def test_nlp_layouts_names_by_shape_and_context(extract_text, text, expected):
    assert expected in _mentions(extract_text(text))


def test_nlp_layouts_no_method_names_on_author_lines(extract_text):
    doc = extract_text("Authors: Ewan MacLeod, Anna DeVries (University of Kestrel)\n")
    assert not [m for m in _mentions(doc) if m[0] == "Method"]


@pytest.mark.parametrize("word,strong", [
    ("RNNoise", True), ("MLPerf", True), ("Phi-4-mini", True), ("Llama-3", True), ("BERT4Rec", True), ("Mask2Former", True),
    ("Table-2", False), ("Top-1", False), ("Model", False), ("Non-Linear", False),
])
def test_nlp_layouts_strong_name_shapes(word, strong):
    assert is_strong_name(word, frozenset({"LLM"})) is strong


@pytest.mark.xfail(strict=True, reason="a known miss of the committed weights (trained on 142 sets): 'EchoSpeech' is rated "
                   "Method 0.35 after 'We pretrain', under the bar, so it has no relation at all (with 130 sets it was typed)")
def test_nlp_layouts_training_data_is_not_an_evaluation(extract_text):
    rels = _relations(extract_text("We pretrain EchoSpeech on LibriSpeech mixed with noise from the MUSAN corpus, "
                                   "and evaluate it on the CHiME-4 benchmark."))
    assert ("EchoSpeech", "evaluatedOn", "CHiME-4") in rels
    assert ("EchoSpeech", "evaluatedOn", "LibriSpeech") not in rels


def test_nlp_layouts_a_training_run_that_is_the_test_counts(extract_text):
    # for an optimizer, training on a dataset is how it is evaluated: no evaluation verb follows
    rels = _relations(extract_text("We present Zephyr, an optimizer. When training ResNet-50 on ImageNet, Zephyr "
                                   "reaches the target loss in 30% fewer steps than AdamW."))
    assert ("Zephyr", "evaluatedOn", "ImageNet") in rels


def test_nlp_layouts_dependency_parse_names_the_verbs_subject(extract_text):
    # the name nearest the cue is in a relative clause: the parse gives the verb's own subject
    rels = _relations(extract_text("QuillNet, which builds on ResNet, clearly outperforms ViT on ImageNet."))
    assert ("QuillNet", "outperforms", "ViT") in rels
    assert ("ResNet", "outperforms", "ViT") not in rels


def test_nlp_layouts_dependency_matcher_reads_subject_verb_object(nlp):
    finder = nlp.get_pipe("mlkg_relations")
    doc = nlp("In our tests, the QuillNet model consistently beats the ResNet baseline.")
    found = {(r, doc[v].text, doc[s].text, doc[o].text) for r, v, s, o in finder.dependency(doc)}
    assert ("outperforms", "beats", "model", "baseline") in found
    assert ("QuillNet", "outperforms", "ResNet") in _relations(doc)


def _dependency_frames(nlp, verbs: dict[str, list[str]], doc):
    """What spaCy's DependencyMatcher finds with one "SUBJECT <verb> OBJECT" pattern per relation: the reference."""
    from spacy.matcher import DependencyMatcher

    matcher = DependencyMatcher(nlp.vocab)
    for relation, forms in sorted(verbs.items()):
        matcher.add(relation, [[
            {"RIGHT_ID": "verb", "RIGHT_ATTRS": {"LOWER": {"IN": sorted(forms)}, "DEP": {"NOT_IN": ["amod", "compound"]}}},
            {"LEFT_ID": "verb", "REL_OP": ">", "RIGHT_ID": "subject", "RIGHT_ATTRS": {"DEP": "nsubj"}},
            {"LEFT_ID": "verb", "REL_OP": ">", "RIGHT_ID": "object", "RIGHT_ATTRS": {"DEP": "dobj"}},
        ]])
    return [(nlp.vocab.strings[m], *tokens) for m, tokens in matcher(doc)]


def test_nlp_layouts_verb_frames_find_what_spacys_dependency_matcher_finds(nlp):
    # VerbFrames reads the verb's children directly; spaCy's DependencyMatcher with the equivalent patterns is the
    # reference, on the bundled corpus and on sentences with several subjects, objects and conjoined verbs
    from pipeline.nlp.components import VerbFrames

    finder = nlp.get_pipe("mlkg_relations")
    texts = [p.read_text("utf-8") for p in sorted(CORPUS.glob("*.txt"))] + [
        "QuillNet extends ResNet and beats ViT, while HopNet outperforms Mamba and adapts LoRA.",
        "The extended model uses adapters. Our method outperforms both baselines and extends prior work.",
    ]
    total = 0
    for doc in nlp.pipe(texts):
        expected = _dependency_frames(nlp, finder.rules.dependency_verbs, doc)
        assert finder.dependency(doc) == expected
        total += len(expected)
    assert total >= 5
    # a verb form listed under two relations gives a frame for each, as two DependencyMatcher patterns would
    verbs = {"extends": ["adapts"], "uses": ["adapts", "employs"]}
    doc = nlp("The new model adapts the encoder.")
    frames = VerbFrames(nlp.vocab, verbs)(doc)
    assert frames == _dependency_frames(nlp, verbs, doc)
    assert [(r, doc[s].text, doc[o].text) for r, _, s, o in frames] == [("extends", "model", "encoder"),
                                                                         ("uses", "model", "encoder")]


def test_nlp_layouts_lexicon_names_by_phrase_matcher(extract_text):
    # organizations and several-word known names come from a PhraseMatcher, bounded as a name: the longest
    # name at a place wins, and a hyphenated compound holds no name
    mentions = _mentions(extract_text("Researchers at Microsoft Research fine-tuned Stable Diffusion on Google-scale data."))
    assert ("Organization", "Microsoft Research") in mentions
    assert ("Organization", "Microsoft") not in mentions
    assert ("Method", "Stable Diffusion") in mentions
    assert ("Organization", "Google") not in mentions


_EVENT_POST = ("Kestrel at EMNLP 2026\nKestrel researchers will attend EMNLP 2026 in Suzhou and present work on "
               "retrieval and evaluation.\nBetter Retrieval for Long Documents\nLong documents are hard to search. "
               "Long-Context Retrieval: Sparse Summaries for Search proposes SumRet, a retriever for long inputs.\n"
               "Counting Tokens: A Study of Tokenizers introduces TokCount, a tokenizer probe. It appeared at ACL 2026.\n")


def test_nlp_layouts_papers_of_an_event_post_are_presented_at_it(extract_text):
    rels = _relations(extract_text(_EVENT_POST))
    assert ("Long-Context Retrieval: Sparse Summaries for Search", "presentedAt", "EMNLP 2026") in rels
    # a paper whose own paragraph names another venue is not given the post's
    assert ("Counting Tokens: A Study of Tokenizers", "presentedAt", "EMNLP 2026") not in rels


@pytest.mark.parametrize("text,relation", [
    ("Four-step QuillGen reaches a lower FID than LCM at the same step count.", ("QuillGen", "outperforms", "LCM")),
    ("TernRank achieves higher Recall@10 than both SASRec and BERT4Rec.", ("TernRank", "outperforms", "BERT4Rec")),
    ("TernRank has a higher error rate than SASRec on long sessions.", ("SASRec", "outperforms", "TernRank")),
    ("SpindleNet agrees with human judgments more often than AlignScore.", ("SpindleNet", "outperforms", "AlignScore")),
    ("StillDepth reduces temporal flicker by 38% compared with DepthCrafter.", ("StillDepth", "outperforms", "DepthCrafter")),
    ("NoisyBERT reduces accuracy by two points relative to RoBERTa.", ("RoBERTa", "outperforms", "NoisyBERT")),
])
def test_nlp_layouts_comparatives_read_by_their_metric(extract_text, text, relation):
    assert relation in _relations(extract_text(text))


@pytest.mark.parametrize("text,relation", [
    ("TernRank has a higher error rate than SASRec on long sessions.", ("TernRank", "outperforms", "SASRec")),
    ("TernRank is priced higher than SASRec.", ("TernRank", "outperforms", "SASRec")),
    ("TernRank does not reach a lower FID than SASRec.", ("TernRank", "outperforms", "SASRec")),
])
def test_nlp_layouts_comparatives_that_are_not_wins(extract_text, text, relation):
    assert relation not in _relations(extract_text(text))


def test_nlp_layouts_robot_demonstrations_are_no_demo(extract_text):
    rels = _relations(extract_text("We deploy BurrowNet on a Franka Emika Panda robot at ICRA 2026, where it learns "
                                   "12 tasks from 20 demonstrations each."))
    assert not [r for r in rels if r[1] in {"demoedOn", "demoedAt"}]


def test_nlp_layouts_demo_list_after_following_demos(extract_text):
    text = ("During exhibition hours, CVPR 2026 attendees can stop by booth #12 for the following demos:\n"
            "Loupe: our annotation tool lets visitors segment objects in their own videos. The demo runs on an iPad Pro.\n")
    rels = _relations(extract_text(text))
    assert ("Loupe", "demoedAt", "CVPR 2026") in rels
    assert ("Loupe", "demoedOn", "iPad Pro") in rels


def test_nlp_layouts_benchmark_paper_is_evaluated_on_its_benchmark(extract_text):
    text = ("Web agents fail on long tasks. At ICML 2026, researchers will present ShelfWeb: A Benchmark for Long-Horizon "
            "Web Agents, which releases 640 tasks. The paper evaluates agents based on GPT-4o and Qwen2.5-VL-72B.\n")
    mentions, rels = _mentions(extract_text(text)), _relations(extract_text(text))
    assert ("Dataset", "ShelfWeb") in mentions  # the subtitle "A Benchmark for ..." names a dataset
    assert ("ShelfWeb: A Benchmark for Long-Horizon Web Agents", "evaluatedOn", "ShelfWeb") in rels


@pytest.mark.parametrize("text,expected", [
    ("On the Amazon Sports and Amazon Toys datasets, Bramble improves NDCG@10.", ("Dataset", "Amazon Sports")),
    ("Robustness is measured on ImageNet-R and ImageNet-Sketch.", ("Dataset", "ImageNet-R")),
    ("QuillAgent solves 40% of WebArena tasks.", ("Dataset", "WebArena")),
])
def test_nlp_layouts_more_dataset_names(extract_text, text, expected):
    assert expected in _mentions(extract_text(text))


def test_nlp_layouts_sentence_ends_after_a_model_size(nlp):
    # spaCy keeps "8B." whole (as it keeps "U.S."); mlkg splits the full stop off, so the sentence ends there
    doc = nlp("The agent runs on Llama 3.1 8B. On the LoCoMo benchmark it wins.")
    assert [s.text for s in doc.sents] == ["The agent runs on Llama 3.1 8B.", "On the LoCoMo benchmark it wins."]
    assert [t.text for t in nlp("The U.S. team won.")][:2] == ["The", "U.S."]


@pytest.mark.parametrize("text,relation", [
    ("We present TideQA, a retriever. Training used 64 NVIDIA H100 GPUs, and at inference TideQA serves long contexts.",
     ("TideQA", "runsOn", "H100")),
    ("Pretrained on 800,000 radiographs using 16 NVIDIA V100 GPUs, HeronNet improves AUC on CheXpert.",
     ("HeronNet", "runsOn", "V100")),
    ("We present DriftNet, a detector for fog. The detector runs at 15 Hz on an NVIDIA DRIVE AGX Orin.",
     ("DriftNet", "runsOn", "DRIVE AGX Orin")),
    ("We present FathomNet, a scene model. The model is trained on eight NVIDIA A100 GPUs, and attendees can try it "
     "live in our booth at CVPR 2027.", ("FathomNet", "runsOn", "A100")),
])
def test_nlp_layouts_training_and_timing_hardware(extract_text, text, relation):
    assert relation in _relations(extract_text(text))


def test_nlp_layouts_the_demo_runs_on_its_device(extract_text):
    rels = _relations(extract_text("At CVPR 2027 we demo GlintNet, which relights video. The demo runs on a Surface Laptop 7."))
    assert ("GlintNet", "demoedOn", "Surface Laptop 7") in rels
    assert ("GlintNet", "runsOn", "Surface Laptop 7") not in rels


def test_the_pipeline_tokenizer_is_spacys_loaded_then_given_the_extra_suffix(nlp):
    """load_nlp builds its tokenizer in one pass (MlkgTokenizer); it must tokenize exactly as the pipeline spaCy
    loads does once given mlkg's extra suffix, on every bundled and held-out document."""
    import spacy

    from pipeline.nlp import _EXCLUDE, MlkgTokenizer, _split_sentence_final_periods

    plain = spacy.load(nlp.meta["mlkg_model"], exclude=list(_EXCLUDE))
    assert not isinstance(plain.tokenizer, MlkgTokenizer)
    _split_sentence_final_periods(plain)
    ours = nlp.tokenizer
    assert isinstance(ours, MlkgTokenizer)
    assert ours.rules == plain.tokenizer.rules and len(ours.rules) > 1000
    def pattern(f):
        return None if f is None else f.__self__.pattern

    for attr in ("prefix_search", "suffix_search", "infix_finditer", "token_match", "url_match"):
        assert pattern(getattr(ours, attr)) == pattern(getattr(plain.tokenizer, attr)), attr
    assert "0-9][A-Z])" in pattern(ours.suffix_search)
    from pathlib import Path

    data = Path(__file__).parent / "data"
    texts = [p.read_text("utf-8") for p in sorted([*data.glob("generalisation*/docs/*.txt"), *Path(CORPUS).glob("*.txt")])]
    assert len(texts) > 40
    for text in texts:
        assert [t.text for t in ours(text)] == [t.text for t in plain.tokenizer(text)]


def test_the_pipeline_tokenizer_settled_at_once_tokenizes_as_when_lazy():
    """A shared run loads every special case before it forks its second process (MlkgTokenizer.settle): the same
    tokens as the cases loaded as texts need them."""
    from pipeline.nlp import load_nlp

    texts = ["I don't know, it's 5 p.m. in the U.S.", "We can't say; they'll see (e.g. Fig. 2) vs. the rest."]
    lazy, settled = load_nlp().tokenizer, load_nlp().tokenizer
    settled.settle()
    assert settled._waiting is None and lazy._waiting
    for text in texts:
        assert [t.text for t in settled(text)] == [t.text for t in lazy(text)]
    assert settled.rules == lazy.rules


@pytest.mark.parametrize("marker", ["", "1. ", "- "])
def test_nlp_layouts_tag_before_a_title_in_a_numbered_item(extract_text, marker):
    # the parser cuts the item's line after the number and after the tag: within one line it still reads as one
    text = ("Reading list\n\n" + marker + "[Accepted to NeurIPS 2019] GPipe: Efficient Training of Giant Neural "
            "Networks using Pipeline Parallelism\n   (research.google)   188 points by pipe_fan | 54 comments\n")
    title = "GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism"
    assert (title, "presentedAt", "NeurIPS 2019") in _relations(extract_text(text))


@pytest.mark.parametrize("text,venue", [
    ("Their placer was presented at the 56th Design Automation Conference in Las Vegas.", "DAC 2019"),
    ("The workshop met at the 21st International Symposium on Code Generation and Optimization.", "CGO 2023"),
])
def test_nlp_layouts_systems_and_design_conference_series(extract_text, text, venue):
    assert ("Venue", venue) in _mentions(extract_text(text))


def _rule_mentions(nlp, text):
    from pipeline.nlp.extract import doc_of

    return _mentions(nlp(doc_of(nlp, text), disable=["mlkg_learned"]))


@pytest.mark.parametrize("text, names", [
    # a column headed "dataset" in a table aligned by spaces and bars; a summary row is no name
    ("Results:\n\n    dataset                   | WER\n    Common Voice 17.0         | 12.7\n"
     "    Multilingual LibriSpeech  | 5.9\n    Average                   | 9.3\n", {"Common Voice 17.0", "Multilingual LibriSpeech"}),
    # the second column of a pipe table; a cell listing several
    ("| result | benchmark |\n|---|---|\n| +7.4 BLEU over 21 directions | CoVoST-2 |\n| 14% fewer errors | BABEL, VoxPopuli |\n",
     {"CoVoST-2", "BABEL", "VoxPopuli"}),
    # a rule under the header; a trailing abbreviation in brackets is no part of the name
    ("  Benchmark        | Score\n  -----------------+------\n  FGVC Aircraft    | 91.3\n  Free Music Archive (FMA) | 13\n",
     {"FGVC Aircraft", "Free Music Archive"}),
])
def test_nlp_layouts_cells_of_a_dataset_column(nlp, text, names):
    got = _rule_mentions(nlp, text)
    assert {("Dataset", n) for n in names} <= got, got
    assert not any(n == "Average" for _, n in got)


def test_nlp_layouts_a_task_column_of_descriptions_names_nothing(nlp):
    text = "| Task | Setting | Score |\n|---|---|---|\n| Image classification | few-shot | 76 |\n| Harry Potter familiarity score | zero-shot | 0.3 |\n"
    assert not any(n in {"Image classification", "Harry Potter familiarity score"} for _, n in _rule_mentions(nlp, text))


@pytest.mark.parametrize("text, cls, names", [
    # known datasets in a list make its other items datasets, a name's shape alone no method
    ("Image experiments use task vectors for Cars, DTD, EuroSAT, GTSRB, MNIST and SVHN.", "Dataset", {"Cars", "DTD", "EuroSAT", "GTSRB"}),
    # a method in a list makes a plain name of two words beside it a method
    ("On the recall tasks, Tiller outperforms Mamba2 and Gated DeltaNet by a wide margin.", "Method", {"Gated DeltaNet"}),
    # an apposition with a number after a list says what its items are
    ("The model fails on images from TissueNet and LiveCell, two large datasets built by other groups.", "Dataset",
     {"TissueNet", "LiveCell"}),
])
def test_nlp_layouts_items_of_a_list_share_their_class(nlp, text, cls, names):
    got = _rule_mentions(nlp, text)
    assert {(cls, n) for n in names} <= got, got


@pytest.mark.parametrize("text", [
    "The paper was written by Alice, Bob and Carol in Vancouver.",  # no name of a class in the list
    "Alice and Bob met the Mamba2 team at the station.",  # a name outside the list
    "Demos include inference with Mamba2 and Sharp Monocular View Synthesis in Less Than a Second.",  # a title's start
])
def test_nlp_layouts_a_list_without_a_named_mate_gives_nothing(nlp, text):
    assert not {n for _, n in _rule_mentions(nlp, text)} & {"Alice", "Bob", "Carol", "Vancouver", "Sharp Monocular"}


def test_nlp_layouts_a_list_item_ends_at_a_full_stop(nlp):
    got = _rule_mentions(nlp, "It is tested on MMLU, GSM8K and RealWorldQA. On the other hand Llama 3.1 is a model.")
    assert ("Dataset", "RealWorldQA") in got and not any(". " in n for _, n in got), got


def test_nlp_layouts_an_acronym_before_its_long_form_keeps_the_long_forms_class(nlp):
    # "ARC" is also a known benchmark's name: the long form after it says this one is a method
    got = _rule_mentions(nlp, "The model was post-trained with ARC (Adversarial Relative Contrast) and ping-pong sampling.")
    assert ("Method", "ARC") in got, got


@pytest.mark.parametrize("text, names", [
    # a capitalised size or variant word after a model's name is part of it
    ("Distilled variants match or beat Whisper Medium and Whisper Small on long audio.",
     {("Method", "Whisper Medium"), ("Method", "Whisper Small")}),
    ("With GPT-4 Turbo the agent resolves more issues than with GPT-2 XL in a test.",
     {("Method", "GPT-4 Turbo"), ("Method", "GPT-2 XL")}),
    ("SDXL Turbo, a Stable Diffusion-based image model, runs on the chip.", {("Method", "SDXL Turbo")}),
])
def test_nlp_layouts_a_variant_word_after_a_models_name(nlp, text, names):
    assert names <= _rule_mentions(nlp, text)


@pytest.mark.parametrize("text, cut", [
    ("Our paper Whisper Large Is All You Need shows it.", ("Method", "Whisper Large")),  # a title's capitals go on
    ("It runs on a MacBook Pro and an iPad Pro.", ("Method", "MacBook Pro")),  # a device stays a device
])
def test_nlp_layouts_no_variant_word_in_a_title_or_a_device(nlp, text, cut):
    assert cut not in _rule_mentions(nlp, text)


@pytest.mark.parametrize("text, name", [
    # a title's subtitle that is a dataset's or benchmark's description, however many capitalised words before its head
    ("Title: TorvikSafe: A Comprehensive Multilingual Safety Benchmark for Large Language Models\n", ("Dataset", "TorvikSafe")),
    ("- QSLD: A Large Scale Multi-Modal Quillish Sign Language Dataset and Baseline Methods\n", ("Dataset", "QSLD")),
])
def test_nlp_layouts_a_subtitle_that_describes_a_dataset(nlp, text, name):
    assert name in _rule_mentions(nlp, text)


def test_nlp_layouts_a_subtitle_with_a_dataset_word_inside_a_method_name():
    # "Dataset Distillation" is a method: the head noun is followed by another capitalised word
    from pipeline.nlp.names import _CUES
    import re
    assert not re.match(_CUES["dataset_subtitle"], " Efficient Dataset Distillation via Minimax Diffusion", re.I)
    assert re.match(_CUES["dataset_subtitle"], " A Benchmark Suite for Agents", re.I)
