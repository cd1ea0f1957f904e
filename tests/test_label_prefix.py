"""A learned span that carries a line's label ("Paper: X", "Talk 4: X", "**Keynote:** X") does not replace the rules'
span of the name after the label (classify._outranking, classify._labelled)."""
import numpy

from pipeline.nlp.candidates import MentionCandidate
from pipeline.nlp.classify import _labelled, select

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
