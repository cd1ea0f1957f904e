"""Soft line breaks (``pipeline/nlp/softwraps.py``): a sentence of hard-wrapped prose goes on over its line breaks, and
every other line break still starts a sentence (``mark_paragraphs``)."""

from pipeline.nlp.softwraps import soft_breaks

PROSE = """\
Heron-2 is a speech recognition model from a small lab in Lisbon. It builds on
the Conformer encoder and adds a streaming decoder, and the authors evaluated it
on LibriSpeech and on the noisy CHiME-6 recordings, where it beats Whisper on
word error rate at a tenth of the parameters.

The second paragraph starts after a blank line and runs on long enough to wrap
once."""

LISTING = """\
Results for "bearing fault"; 3 preprints, newest first, with the abstracts as the authors wrote them.

1.  Vibration Images for Bearing Fault Diagnosis with a Lightweight Convolutional
    Network
    A. Author, B. Author
    Venue: Computers, Materials & Continua (2021)
2.  Classification of Bearing Fault Signals in Rotating Machinery Using Neural
    Networks
    C. Author, D. Author
"""


def _broken_after(text: str) -> set[str]:
    """The last word before each soft break."""
    return {text[:k].split()[-1] for k in soft_breaks(text)}


def test_wrapped_prose_goes_on_over_its_line_breaks():
    assert _broken_after(PROSE) == {"on", "it", "on", "wrap"}


def test_a_paragraph_break_a_full_stop_and_a_short_line_end_the_line():
    soft = soft_breaks(PROSE)
    assert PROSE.index("\n\n") not in soft and PROSE.index("\n\n") + 1 not in soft
    assert all(PROSE[k - 1] != "." for k in soft)


def test_a_title_wrapped_under_its_number_goes_on_and_its_byline_and_label_do_not():
    assert _broken_after(LISTING) == {"Convolutional", "Neural"}


def test_lines_of_a_list_a_table_and_short_lines_never_wrap():
    titles = "\n".join(["Attention Is All You Need and Other Stories of Modern Times",
                        "Deep Residual Learning for Image Recognition on Many Datasets",
                        "- Mamba: Linear-Time Sequence Modeling with Selective State Spaces",
                        "- Jamba: A Hybrid Transformer-Mamba Language Model for Long Contexts"])
    table = "\n".join(["Model        Dataset        Accuracy     Parameters     Notes", "ResNet-50    ImageNet       76.1         25M            baseline",
                       "ViT-B/16     ImageNet       77.9         86M            pretrained on JFT"])
    assert soft_breaks(titles) == () and soft_breaks(table) == ()
    assert soft_breaks("Short line\nanother short line\nand a third one\nand a fourth") == ()


def test_a_lower_case_line_goes_on_from_a_long_line_of_a_text_of_longer_lines():
    text = (("A line far longer than the others, standing in for a table row or a long address. " * 2).strip() + "\n"
            "The model was trained with a contrastive objective over image and\n"
            "text pairs, then fine-tuned on the target task.\n"
            "Venue: NeurIPS 2023\nCode: github.com/example/model\n")
    assert _broken_after(text) == {"and"}


def test_the_parser_starts_no_sentence_at_a_soft_break_and_one_at_every_other(extract_text):
    doc = extract_text(LISTING + "\n" + PROSE)
    starts = {t.idx for t in doc if t.is_sent_start}
    text = doc.text
    for k in soft_breaks(text):
        nxt = len(text) - len(text[k:].lstrip())
        assert nxt not in starts
    byline = text.index("C. Author")
    assert byline in starts


def test_a_line_head_goes_on_over_its_soft_breaks(extract_text):
    from pipeline.nlp.candidates import layout, mention_candidates

    doc = extract_text(LISTING)
    lay = layout(doc)
    heads = {" ".join(lay.text[c.start_char:c.end_char].split()) for c in mention_candidates(doc, lay) if c.source == "line"
             or "line" in c.also}
    assert "Vibration Images for Bearing Fault Diagnosis with a Lightweight Convolutional Network" in heads
    assert "Classification of Bearing Fault Signals in Rotating Machinery Using Neural Networks" in heads
    assert not any("A. Author" in h for h in heads if h.startswith("Vibration"))


def test_a_line_goes_on_under_a_hanging_indentation_past_what_opens_it():
    text = ("Week 3: reading for the seminar, with each entry's title, its authors' groups\n"
            "and a teaser, as the course page lists them; wrapped at the page's width.\n"
            "\n"
            "(*) Quillwork: Towards Zero-Shot Multi-Speaker Synthesis and Zero-Shot Voice\n"
            "    Conversion for everyone\n"
            "(*) Short Title Line\n"
            "    Northfield University\n")
    assert _broken_after(text) == {"Voice", "groups"}
