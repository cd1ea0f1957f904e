"""Who a clause is said of: the grammatical subject of the clause that governs a pair's object, and whether that is
the pair's subject, a pronoun or definite description standing for a name ("it", "the model", "our method"),
another name, or something else.

A sentence names more than the thing it is about: in "Paired with GPT-4, it reaches 92.5% on ScienceQA" and "It
was applied to OPT-175B and evaluated on LAMBADA" the benchmark is said of "it" (the paragraph's method), not of
the other name beside it. The subject is read from the parse, through coordinated verbs (a second verb shares the
first's subject), relative clauses ("a model that runs on Z": the noun the clause modifies) and participial
phrases ("X, trained on Y,": the noun the phrase modifies).
"""

from __future__ import annotations

from .candidates import Layout, Typed, lexicon, refers, span_root

__all__ = ["clause_subject", "subject_features", "coordinated"]

_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_MODIFIERS = frozenset({"relcl", "acl"})
"""A clause that modifies a noun: its subject is that noun ("a model that runs on Z", "X, trained on Y")."""
_UP = 10
"""How many heads up from an object its clause's subject is looked for."""


def _subjects(lay: Layout) -> dict[int, int]:
    """Each token that has a subject, and its (first) subject token (computed once per document)."""
    got = lay.line_info.get("subjects")
    if got is None:
        got = {}
        for t, d in enumerate(lay.deps):
            if d in _SUBJECTS and lay.heads[t] != t:
                got.setdefault(lay.heads[t], t)
        lay.line_info["subjects"] = got
    return got


def clause_subject(lay: Layout, t: int) -> int | None:
    """The token naming the subject of the clause that governs token ``t`` (None: no subject within reach). A
    relative pronoun or a participial phrase is read as the noun the clause modifies, and an apposition as the
    name it stands beside ("Kite, a model that runs on Z": Kite)."""
    subjects, heads, deps = _subjects(lay), lay.heads, lay.deps
    h = heads[t]
    for _ in range(_UP):
        if h in subjects:
            s = subjects[h]
            return _named(lay, heads[h] if deps[h] == "relcl" and lay.texts[s].lower() in _relatives() else s)
        if deps[h] in _MODIFIERS and heads[h] != h:
            return _named(lay, heads[h])
        if heads[h] == h:
            return None
        h = heads[h]
    return None


def _named(lay: Layout, t: int) -> int:
    """The name an apposition stands beside ("Kite, a model ...": Kite)."""
    return lay.heads[t] if lay.deps[t] == "appos" and lay.heads[t] != t else t


def _relatives() -> frozenset[str]:
    return frozenset(lexicon()["relative_pronouns"])


def subject_features(lay: Layout, typed: list[Typed], s: int, o: int, heads: list[int], memo: dict) -> list[str]:
    """How the clause governing the object ``o`` (the first of its list) names its subject: ``csubj=s`` (the
    pair's subject, or a name of its list), ``csubj=anaphor`` ("it", "the model"), ``csubj=name`` (another name),
    ``csubj=other`` (any other word), ``csubj=none``."""
    index = memo.get("token_mention")
    if index is None:
        index = memo["token_mention"] = {}
        for k in sorted(range(len(typed)), key=lambda k: typed[k].cand.start - typed[k].cand.end):
            for t in range(typed[k].cand.start, typed[k].cand.end):
                index.setdefault(t, k)  # the longest mention over a token names it
    key = ("csubj", heads[o])
    subj = memo.get(key, -1)
    if subj == -1:
        subj = memo[key] = clause_subject(lay, _span_root(lay, typed[heads[o]]))
    if subj is None:
        return ["csubj=none"]
    k = index.get(subj)
    if k == s or k is not None and heads[k] == heads[s] or _conjoined(lay, typed[s], subj):
        return ["csubj=s"]
    if k is not None:
        return ["csubj=o"] if k == o or heads[k] == heads[o] else ["csubj=name"]
    word = lay.texts[subj]
    f = [f"csubj_w={lay.words[subj]}"] if word.isalpha() and word.islower() else []
    return f + (["csubj=anaphor"] if refers(lay, subj, lexicon()["anaphors"]) else ["csubj=other"])


def _conjoined(lay: Layout, m: Typed, subj: int) -> bool:
    """Whether the mention ``m`` is coordinated with the subject token ("Kestrel and Heron are ...": Heron)."""
    t, deps, heads = _span_root(lay, m), lay.deps, lay.heads
    for _ in range(_UP):
        if deps[t] != "conj" or heads[t] == t:
            return False
        t = heads[t]
        if t == subj:
            return True
    return False


def coordinated(lay: Layout, a: Typed, b: Typed) -> bool:
    """Whether two mentions are names of one coordination ("A and B are evaluated on C", "A, B and C")."""
    return _conjoined(lay, a, _span_root(lay, b)) or _conjoined(lay, b, _span_root(lay, a))


def _span_root(lay: Layout, m: Typed) -> int:
    return span_root(lay, m.cand.start, m.cand.end)

