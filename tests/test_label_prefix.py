"""A learned span that carries a line's label ("Paper: X", "Talk 4: X", "**Keynote:** X") does not replace the rules'
span of the name after the label (classify._outranking, classify._labelled)."""
import numpy

from pipeline.nlp.candidates import MentionCandidate
from pipeline.nlp.classify import _labelled, select
from test_nlp_mention_rules import _titles  # the title rules over one sentence a line

LABELS = ("Paper", "Method", "Dataset", "Venue", "Hardware", "Organization")


def _pick(texts: list[str], label_end: int, cls: str = "Paper") -> list[tuple[int, int]]:
    """The kept spans when the rules give the name after the label (at 0.858) and the model is surer (0.97) of the
    span with the label."""
    end = len(texts)
    name = " ".join(texts[label_end:])
    cands = [MentionCandidate(label_end, end, 0, len(name), "rule", cls, "paper.title_line", name),
             MentionCandidate(0, end, 0, len(" ".join(texts)), "shape")]
    probs = numpy.full((2, len(LABELS)), 0.01)
    probs[0, LABELS.index(cls)] = 0.858
    probs[1, LABELS.index(cls)] = 0.97
    return [(t.cand.start, t.cand.end) for t in select(cands, probs, LABELS, texts=texts)]


def test_a_papers_label_does_not_outrank_the_title_after_it():
    texts = ["Paper", ":", "Effective", "Whole", "-", "body", "Pose", "Estimation"]
    assert _pick(texts, 2) == [(2, 8)]


def test_a_numbered_label_in_emphasis_does_not_outrank_the_name_after_it():
    texts = ["*", "*", "Talk", "4", ":", "*", "*", "Scaling", "Laws", "for", "Sparse", "Kites"]
    assert _pick(texts, 7) == [(7, 12)]
    texts = ["**", "Keynote", ":", "**", "Google", "Brain"]
    assert _pick(texts, 4, "Organization") == [(4, 6)]


def test_a_name_before_a_colon_is_no_label():
    """"FPTQuant: Function-Preserving Quantization": the name is part of the title, the model's longer span wins."""
    texts = ["FPTQuant", ":", "Function", "-", "Preserving", "Quantization"]
    assert _pick(texts, 2) == [(0, 6)]
    assert not _labelled(MentionCandidate(0, 6, 0, 40, "shape"), MentionCandidate(2, 6, 10, 40, "rule", "Paper"), texts)
    texts = ["Latent", "Consistency", "Models", ":", "Fast", "Sampling"]  # three words: a name
    assert not _labelled(MentionCandidate(0, 6, 0, 40, "shape"), MentionCandidate(4, 6, 20, 40, "rule", "Paper"), texts)


def test_a_programmes_numbered_talk_label_is_no_part_of_the_title():
    text = ("## Agenda\n**10:00 — Doors, coffee**\n\n"
            "**10:15 — Talk 1: MathDial: A Dialogue Tutoring Dataset with Rich Pedagogical Properties**\n"
            "Accepted at Findings of EMNLP 2023. Real teachers were paired with an LLM.\n")
    assert _titles(text) == {"MathDial: A Dialogue Tutoring Dataset with Rich Pedagogical Properties"}


def test_a_quoted_title_that_opens_with_a_label_word_keeps_it():
    text = 'Reading: "Tutorial: Brain-Inspired Computing using Phase-Change Memory Devices" (Journal of Applied Physics, 2018).\n'
    assert _titles(text) == {"Tutorial: Brain-Inspired Computing using Phase-Change Memory Devices"}


def test_a_reference_managers_title_field_and_an_emphasised_label_give_the_title():
    text = ("%0 Conference Paper\n%T Variational Transformer Networks for Layout Generation\n%A Arroyo, Diego Martin\n"
            "%B CVPR 2021\n\nTY  - CONF\nTI  - LayoutTransformer: Layout generation and completion with self-attention\n")
    assert _titles(text) == {"Variational Transformer Networks for Layout Generation",
                             "LayoutTransformer: Layout generation and completion with self-attention"}
    text = "**Paper:** Effective Whole-body Pose Estimation with Two-stage Distillation\n**Code:** on GitHub\n"
    assert _titles(text) == {"Effective Whole-body Pose Estimation with Two-stage Distillation"}


def test_a_timed_slots_label_is_no_part_of_the_title():
    text = ("Agenda\n10:00 — Doors, coffee\n10:15 — Talk 1: MathDial: A Dialogue Tutoring Dataset with Rich Pedagogical "
            "Properties\nAccepted at Findings of EMNLP 2023. Real teachers were paired.\n")
    assert _titles(text) == {"MathDial: A Dialogue Tutoring Dataset with Rich Pedagogical Properties"}


def test_a_titles_closing_question_mark_is_not_outranked():
    """The rules' title with its closing "?" keeps its span when the model is surer of the span without it (the
    corpus's "Do LLMs Know Internally When They Follow Instructions?"; classify._with_closing_mark)."""
    texts = ["Do", "LLMs", "Know", "Internally", "When", "They", "Follow", "Instructions", "?"]
    cands = [MentionCandidate(0, 9, 0, 54, "rule", "Paper", "paper.title_line", " ".join(texts)),
             MentionCandidate(0, 8, 0, 53, "shape")]
    probs = numpy.full((2, len(LABELS)), 0.01)
    probs[0, 0], probs[1, 0] = 0.858, 0.97
    assert [(t.cand.start, t.cand.end) for t in select(cands, probs, LABELS, texts=texts)] == [(0, 9)]
    texts[8] = "."  # a full stop is no part of the title: the model's span wins
    assert [(t.cand.start, t.cand.end) for t in select(cands, probs, LABELS, texts=texts)] == [(0, 8)]
