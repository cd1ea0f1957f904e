"""Features that carry over between documents, as strings: name shape, the common words and the dependency
relations around a span or between two spans, cue-lexicon classes, negation and hedges, line and list position.

Only lower-case words (and the rules' class and rule names) become lexical features: a name itself never does, so
the model learns how names are written about, not which names exist.
"""

from __future__ import annotations

import re
from collections import defaultdict

from spacy.tokens import Doc, Token

from ..resolve import norm
from .components import doc_text
from .candidates import Layout, MentionCandidate, PairCandidate, Typed, lexicon

__all__ = ["mention_features", "pair_features", "doc_context", "word"]


def word(t: Token) -> str:
    """A token as a feature: a lower-case word with a plain suffix stripped, a shape for anything else."""
    s = t.text
    if s.isalpha() and s.islower():
        for suf in lexicon()["suffixes"]:
            if len(s) > len(suf) + 3 and s.endswith(suf):
                return s[: -len(suf)]
        return s
    return shape(s)


def shape(s: str) -> str:
    """The shape of a word: X for capitals, x for lower-case runs, d for digits, punctuation as itself."""
    out = []
    for ch in s[:12]:
        c = "X" if ch.isupper() else "x" if ch.isalpha() else "d" if ch.isdigit() else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)


def doc_context(doc: Doc, cands: list[MentionCandidate]) -> dict:
    """What a whole document says about a name: the classes the rules gave it anywhere in the document, and the
    words just before and after each of its occurrences."""
    classes: dict[str, set[str]] = defaultdict(set)
    around: dict[str, set[str]] = defaultdict(set)
    text = doc_text(doc)
    n = len(doc)
    for c in cands:
        if c.rule_cls:
            classes[norm(c.canonical)].add(c.rule_cls)
        key = norm(text[c.start_char:c.end_char])
        if c.start > 0:
            around[key].add("any_p1=" + word(doc[c.start - 1]))
        if c.end < n:
            around[key].add("any_n1=" + word(doc[c.end]))
    return {"rule_classes": classes, "around": around}


def _bucket(n: int) -> str:
    return "0" if n <= 0 else "1" if n == 1 else "2" if n == 2 else "3-5" if n <= 5 else "6-10" if n <= 10 else "11+"


def mention_features(doc: Doc, lay: Layout, c: MentionCandidate, ctx: dict) -> list[str]:
    """The features of one mention candidate."""
    text = lay.text[c.start_char:c.end_char]
    toks = doc[c.start:c.end]
    f = [f"src={x}" for x in (c.source, *c.also)] + [f"n={_bucket(len(toks))}"]
    if c.rule_cls:
        f += [f"rc={c.rule_cls}", f"rr={c.rule}", f"rrp={c.rule.split('.')[0]}"]
    key = norm(c.canonical or text)
    for cls in sorted(ctx["rule_classes"].get(key, ())):
        f.append(f"doc_rc={cls}")
    f += sorted(ctx["around"].get(norm(text), ()))[:16]
    lex = lexicon()
    words = text.split()
    f.append(f"shape={shape(text) if len(words) == 1 else 'multi'}")
    if any(ch.isdigit() for ch in text):
        f.append("digit")
    if re.search(r"[a-z][A-Z]", text):
        f.append("camel")
    if "-" in text:
        f.append("hyphen")
    if ":" in text:
        f.append("colon")
    if len(words) == 1 and text.isupper() and len(text) > 1:
        f.append("acronym")
    low = [word(t) for t in toks if t.text.isalpha() and t.text.islower()]
    for w in sorted(set(low))[:6]:
        f.append(f"in={w}")
    last = toks[-1]
    f.append(f"last_suf={last.text[-3:].lower()}" if last.text[:1].isupper() and len(last.text) > 4 else f"last={word(last)}")
    f.append(f"first={word(toks[0]) if toks[0].text.islower() else shape(toks[0].text)}")
    for k, name in ((1, "p1"), (2, "p2")):
        i = c.start - k
        f.append(f"{name}={word(doc[i]) if i >= 0 else '<s>'}")
    for k, name in ((0, "n1"), (1, "n2")):
        i = c.end + k
        f.append(f"{name}={word(doc[i]) if i < len(doc) else '</s>'}")
    if c.start > 0 and c.end < len(doc):
        f.append(f"around={word(doc[c.start - 1])}_{word(doc[c.end])}")
    root = toks.root
    f.append(f"dep={root.dep_}")
    head = root.head
    if head.i != root.i:
        f.append(f"head={word(head)}")
        f.append(f"head_dep={root.dep_}_{word(head)}")
        if head.dep_ == "prep":
            f.append(f"prep={word(head)}_{word(head.head)}")
    f += _line_features(lay, c.start_char, c.end_char, "")
    before = lay.text[max(0, c.start_char - 40):c.start_char]
    for name, rx in lex["cue_res"].items():
        if rx.search(before):
            f.append(f"cue_before={name}")
    return f


def _line_features(lay: Layout, a: int, b: int, tag: str) -> list[str]:
    line = lay.line_of_char(a)
    start = lay.line_starts[line]
    end = lay.line_starts[line + 1] - 1 if line + 1 < len(lay.line_starts) else len(lay.text)
    head = lay.text[start:a].strip()
    tail = lay.text[b:end].strip()
    f = [f"{tag}line={lay.line_kind[line]}", f"{tag}line_first={lay.line_first[line] or '-'}"]
    if len(re.sub(r"^[-*•>#\[\]\d.) ]*", "", head)) == 0:
        f.append(f"{tag}line_start")
        if not tail or tail[:1] in "(.:–—[":
            f.append(f"{tag}line_whole_{tail[:1] or 'end'}")
    if line == 0:
        f.append(f"{tag}first_line")
    return f


def _path(a: Token, b: Token) -> tuple[list[Token], list[Token]]:
    """The tokens from ``a`` up to the lowest common ancestor with ``b``, and from it down to ``b``."""
    up = [a]
    while up[-1].head.i != up[-1].i and len(up) < 12:
        up.append(up[-1].head)
    seen = {t.i: k for k, t in enumerate(up)}
    down = [b]
    while down[-1].i not in seen and down[-1].head.i != down[-1].i and len(down) < 12:
        down.append(down[-1].head)
    if down[-1].i not in seen:
        return up, down
    return up[: seen[down[-1].i] + 1], down


def _conj_head(t: Token) -> Token:
    while t.dep_ == "conj" and t.head.i != t.i:
        t = t.head
    return t


def _gov(t: Token, tag: str) -> list[str]:
    t = _conj_head(t)
    f = [f"{tag}dep={t.dep_}"]
    h = t.head
    if h.i == t.i:
        return f
    f.append(f"{tag}head={word(h)}")
    if h.dep_ in {"prep", "agent"} and h.head.i != h.i:
        f.append(f"{tag}prep={word(h)}_{word(h.head)}")
        f.append(f"{tag}gov={word(h.head)}")
    elif h.dep_ == "appos" or t.dep_ == "appos":
        f.append(f"{tag}appos")
    return f


def pair_features(doc: Doc, lay: Layout, typed: list[Typed], p: PairCandidate) -> list[str]:
    """The features of one pair candidate."""
    s, o = typed[p.s], typed[p.o]
    sc, oc = s.cand, o.cand
    f = [f"cls={s.cls}>{o.cls}"] + [f"origin={x}" for x in p.origin.split("+")]
    for prop, rule in p.rules:
        f += [f"rule_p={prop}", f"rule={rule}"]
    for tag, m in (("s_", sc), ("o_", oc)):
        if m.rule_cls:
            f.append(f"{tag}rr={m.rule}")
        f += _line_features(lay, m.start_char, m.end_char, tag)
    first, second = (sc, oc) if sc.start <= oc.start else (oc, sc)
    f.append("s_first" if first is sc else "o_first")
    same_sent = lay.sent_of(sc.start) == lay.sent_of(oc.start)
    ls, lo = lay.line_of_char(sc.start_char), lay.line_of_char(oc.start_char)
    f.append(f"lines={_bucket(abs(lo - ls))}")
    f.append("same_para" if lay.para_of_line[ls] == lay.para_of_line[lo] else "other_para")
    lex = lexicon()
    sent_a = lay.sent_starts[lay.sent_of(first.start)]
    if same_sent:
        gap = second.start - first.end
        f.append(f"dist={_bucket(gap)}")
        between = doc[first.end:second.start]
        btext = lay.text[first.end_char:second.start_char]
        if gap <= 12:
            ws = [word(t) for t in between if t.text.isalpha() and t.text.islower()]
            for w in sorted(set(ws)):
                f.append(f"bw={w}")
            if btext.strip() in {",", "and", ", and", "or", "/", ";"}:
                f.append(f"coord={btext.strip()}")
        for name, rx in lex["cue_res"].items():
            if rx.search(btext):
                f.append(f"cue_bw={name}")
        up, down = _path(doc[sc.start:sc.end].root, doc[oc.start:oc.end].root)
        if len(up) + len(down) <= 8:
            f.append("path=" + "^".join(t.dep_ for t in up[:-1]) + "|" + word(up[-1]) + "|" +
                     "v".join(t.dep_ for t in reversed(down[:-1])))
        f.append(f"lca={word(up[-1])}")
        f.append(f"path_len={_bucket(len(up) + len(down) - 2)}")
        lead = doc[sent_a:first.start]
        neg = lex["negation"]
        hedge = lex["hedges"]
        scope = [t.text.lower() for t in (*lead[-6:], *between)]
        if any(w in neg for w in scope):
            f.append("neg")
        if any(w in hedge for w in scope):
            f.append("hedge")
    else:
        f.append("cross_sent")
        o_line = lay.text[lay.line_starts[lo]:oc.start_char]
        for name, rx in lex["cue_res"].items():
            if rx.search(o_line):
                f.append(f"cue_oline={name}")
    f += _gov(doc[sc.start:sc.end].root, "s_") + _gov(doc[oc.start:oc.end].root, "o_")
    sent_b = lay.sent_starts[lay.sent_of(sc.start) + 1] if lay.sent_of(sc.start) + 1 < len(lay.sent_starts) else len(doc)
    if not same_sent:
        sent_txt = lay.text[doc[lay.sent_starts[lay.sent_of(sc.start)]].idx:doc[sent_b - 1].idx]
        for name, rx in lex["cue_res"].items():
            if rx.search(sent_txt):
                f.append(f"cue_ssent={name}")
    return f
