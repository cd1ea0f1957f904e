"""The rule lexicons' names of several words (organizations, known methods and datasets), found by a PhraseMatcher."""

from __future__ import annotations

from spacy.tokens import Doc

__all__ = ["lexicon_matcher", "lexicon_hits", "longest_first"]


def lexicon_matcher(tokenizer, rules):
    """A PhraseMatcher over the names of the rule lexicons that a pattern cannot find by shape: organizations
    (every name), and known methods and datasets written as several words ("Stable Diffusion"). The names are
    tokenised by the pipeline's own tokenizer, so they split as the documents do."""
    from spacy.matcher import PhraseMatcher

    matcher = PhraseMatcher(tokenizer.vocab, attr="ORTH")
    for label, names in (("Organization", rules.organizations),
                         ("Method", [n for n in rules.known_methods if " " in n]),
                         ("Dataset", [n for n in rules.known_datasets if " " in n])):
        matcher.add(label, [tokenizer(n) for n in sorted(names)])
    return matcher


def lexicon_hits(matcher, doc: Doc, text: str) -> dict[str, list[tuple[int, int]]]:
    """Character spans of the lexicon's names in ``doc`` by label, bounded as the rules bound a name: not inside
    a longer word or hyphenated compound ("Google-scale" holds no Google)."""
    hits: dict[str, list[tuple[int, int]]] = {}
    for match_id, start, end in matcher(doc):
        a, b = doc[start].idx, doc[end - 1].idx + len(doc[end - 1])
        if (a and (text[a - 1].isalnum() or text[a - 1] in "_-")) or (b < len(text) and (text[b].isalnum() or text[b] in "_-")):
            continue
        hits.setdefault(doc.vocab.strings[match_id], []).append((a, b))
    return hits


def longest_first(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Non-overlapping spans read left to right, the longest at each start (as an alternation of names does)."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans, key=lambda x: (x[0], -x[1])):
        if out and a < out[-1][1]:
            continue
        out.append((a, b))
    return out
