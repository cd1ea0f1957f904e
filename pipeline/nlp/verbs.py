""""SUBJECT <verb> OBJECT" read from the dependency parse, for the relations whose verbs cues.json lists."""

from __future__ import annotations

from spacy.attrs import LOWER
from spacy.tokens import Doc

__all__ = ["VerbFrames"]


class VerbFrames:
    """"SUBJECT <verb> OBJECT" by the dependency parse: a verb of a relation with its ``nsubj`` and ``dobj``.

    What a spaCy ``DependencyMatcher`` with one three-node pattern per relation finds, in the same order
    (by relation, then by position), read straight from the verb's children: the DependencyMatcher matched every
    subject and object of the document and walked its ancestors, several times the cost. The pipeline runs no
    tagger or lemmatizer, so the verbs are listed by their forms, not their lemma.
    """

    def __init__(self, vocab, verbs: dict[str, list[str]]) -> None:
        self.relations_of: dict[int, list[str]] = {}  # a verb form may (in the data) stand for several relations
        for relation, forms in sorted(verbs.items()):
            for form in sorted({f.lower() for f in forms}):
                self.relations_of.setdefault(vocab.strings.add(form), []).append(relation)

    def __call__(self, doc: Doc) -> list[tuple[str, int, int, int]]:
        """``(relation, verb, subject, object)`` token indices, sorted by relation."""
        lower = doc.to_array(LOWER).tolist()
        ids = self.relations_of
        out = []
        for i in [i for i, w in enumerate(lower) if w in ids]:
            verb = doc[i]
            if verb.dep_ in {"amod", "compound"}:
                continue
            children = list(verb.children)
            objects = [c.i for c in children if c.dep_ == "dobj"]
            for relation in ids[lower[i]]:
                out += [(relation, i, c.i, o) for c in children if c.dep_ == "nsubj" for o in objects]
        out.sort(key=lambda m: m[0])
        return out
