"""Features that carry over between documents, as strings: name shape, the common words and the dependency
relations around a span or between two spans, cue-lexicon classes, negation and hedges, line and list position.

Only lower-case words (and the rules' class and rule names) become lexical features: a name itself never does, so
the model learns how names are written about, not which names exist. Everything is read from the per-document
arrays of :class:`~pipeline.nlp.candidates.Layout` (token texts, heads, dependency labels, cue matches), not from
spaCy's token objects, which cost more than the features themselves.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from functools import lru_cache
from itertools import accumulate

from spacy.tokens import Doc

from ..names import norm
from .candidates import Layout, MentionCandidate, PairCandidate, Typed, lexicon, span_root, table_top
from .english import runs as letter_runs, word_kind
from .gazetteer import gazetteer_classes, gazetteer_classes_folded, gazetteer_classes_of_key, gazetteer_key
from .pairs import doc_roles
from .relations.common import compared_against
from .subjects import subject_features
from .text import CELL_BREAK, MARK
from .wraps import furniture_features, wrap_features

__all__ = ["own_features", "screen_features", "mention_features", "mentions_features", "pair_features", "pairs_features", "doc_context", "word_of", "shape", "list_heads", "conjuncts", "negated_between", "verb_classes"]


@lru_cache(maxsize=1 << 16)
def word_of(s: str) -> str:
    """A token as a feature: a lower-case word with a plain suffix stripped, a shape for anything else."""
    if s.isalpha() and s.islower():
        for suf in lexicon()["suffixes"]:
            if len(s) > len(suf) + 3 and s.endswith(suf):
                return s[: -len(suf)]
        return s
    return shape(s)


@lru_cache(maxsize=1 << 16)
def shape(s: str) -> str:
    """The shape of a word: X for capitals, x for lower-case runs, d for digits, punctuation as itself."""
    out = []
    for ch in s[:12]:
        c = "X" if ch.isupper() else "x" if ch.isalpha() else "d" if ch.isdigit() else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)


def doc_context(doc: Doc, lay: Layout, cands: list[MentionCandidate]) -> dict:
    """What a whole document says about a name: the classes the rules gave it anywhere in the document, and the
    words just before and after each of its occurrences (and each candidate's normalised text, ``keys``)."""
    classes: dict[str, set[str]] = defaultdict(set)
    around: dict[str, set[str]] = defaultdict(set)
    text, words, n = lay.text, lay.words, len(lay.words)
    near: dict[tuple[int, int], tuple] = {}
    keys, govs = [], {}
    for c in cands:
        if c.rule_cls:
            classes[norm(c.canonical)].add(c.rule_cls)
        key = norm(text[c.start_char:c.end_char])
        keys.append(key)
        before, after = _before(lay, c), _after(lay, c)
        if c.start > 0:
            around[key].add("any_p1=" + before[0])
        if c.end < n:
            around[key].add("any_n1=" + after[0])
        root = span_root(lay, c.start, c.end)
        gov = govs.get(root)
        if gov is None:  # (read once per token: a name's spans share their root)
            gov = govs[root] = _gov(lay, root, "g_")
        around[key].update("any_" + g for g in gov if "gov_class=" in g)
        near[(c.start, c.end)] = (before, after, root, gov)
    return {"rule_classes": classes, "around": {k: sorted(v)[:16] for k, v in around.items()},
            "segments": _segments(lay, cands), "near": near, "keys": keys}


_CAPITALISED = re.compile(r"\b[A-Z]\w*")
_LIST_SEPARATOR = re.compile(r"\s*[,;/()]\s*|\s+and\s+|\s+&\s+")


def _line_pieces(lay: Layout, line: int, known: frozenset[str]) -> tuple[list[int], list[frozenset[str]]] | None:
    """Where the pieces of a line start (:func:`_segments`) and the capitalised common words (``cw=``) of each; None
    for a line of fewer than three pieces or of thousands of characters (its pieces say nothing of each other)."""
    text, a, b = lay.text, lay.line_starts[line], lay.line_end(line)
    if b - a > 2000:
        return None
    cuts = [a] + [m.end() for m in _LIST_SEPARATOR.finditer(text, a, b)]
    if len(cuts) < 3:
        return None
    ends = cuts[1:] + [b]
    return cuts, [frozenset("cw=" + w.lower() for w in _CAPITALISED.findall(text, x, y) if w.lower() in known)
                  for x, y in zip(cuts, ends)]


def _segments(lay: Layout, cands: list[MentionCandidate]) -> dict:
    """Line -> (segment starts, what each segment says): the pieces of a line between commas, semicolons,
    slashes, brackets and "and", each with the capitalised common words (``name_words``), the rules' classes and
    the gazetteer's inside it. A name listed next to "Stanford University" or a rule's dataset is likely of the
    same kind."""
    known = lexicon()["name_words"]
    by_line: dict[int, list[MentionCandidate]] = defaultdict(list)
    for c in cands:
        by_line[lay.token_line[c.start]].append(c)
    out = {}
    text = lay.text
    for line, members in by_line.items():
        got = lay.line_info.get(("pieces", line), False)
        if got is False:  # (the same for the screen's candidates and the survivors: read once per line)
            got = lay.line_info[("pieces", line)] = _line_pieces(lay, line, known)
        if got is None:
            continue
        cuts, words = got
        says: list[set[str]] = [set(w) for w in words]
        for c in members:
            if c.rule_cls:
                says[bisect_right(cuts, c.start_char) - 1].add("rc=" + c.rule_cls)
            for cls in known_classes().get(norm(text[c.start_char:c.end_char]), ()):
                says[bisect_right(cuts, c.start_char) - 1].add("lex=" + cls)
            for cls in gazetteer_classes(text[c.start_char:c.end_char]):  # a name of the world's lists
                says[bisect_right(cuts, c.start_char) - 1].add("gaz=" + cls)
        out[line] = (cuts, says)
    return out


@lru_cache(maxsize=1)
def known_classes() -> dict[str, tuple[str, ...]]:
    """Normalised name -> the classes the rules' lexicon knows it as (``known_methods``, ``known_datasets``)."""
    from .rules import load_rules

    rules = load_rules()
    out: dict[str, tuple[str, ...]] = {}
    for cls, names in (("Dataset", rules.known_datasets), ("Method", rules.known_methods)):
        for n in sorted(names):
            if cls not in out.get(norm(n), ()):
                out[norm(n)] = (*out.get(norm(n), ()), cls)
    return out


_FIRST_PART = re.compile(r"[\s-]")


def _known_name(text: str, canonical: str) -> tuple[str, ...]:
    """Whether the lexicon knows a span's name (``lex=``), or the name's first part before a space or hyphen
    (``lex_part=``: "ImageNet-R", "Llama 2 13B Chat"): a curated name is no guess from its shape, and the name
    rule gives both the same rule name."""
    known = known_classes()
    got = known.get(norm(text)) or known.get(norm(canonical or text))
    if got:
        return tuple(f"lex={cls}" for cls in got)
    part = _FIRST_PART.split(text, maxsplit=1)[0]
    return tuple(f"lex_part={cls}" for cls in known.get(norm(part), ())) if part != text else ()


def _gazetteer(text: str, tokens: bool) -> tuple[str, ...]:
    """The classes a public list of the world's names knows a span's text as (``gaz=``), apart for a name of one
    token (``gaz1=``: "Meta", "Mila" are words more often than a multi-word name is), so the decision learns how far
    to trust each."""
    got = gazetteer_classes(text)
    if got:
        return tuple(f"gaz={cls}" if tokens else f"gaz1={cls}" for cls in got)
    return tuple(f"gazi={cls}" for cls in gazetteer_classes_folded(text))  # in another case only


def _gazetteer_parts(texts: tuple[str, ...]) -> tuple[str, ...]:
    """The classes of the longest gazetteer name a span starts with (``gaz_head=``: "Google Research", "SQuAD
    v2") and of the longest it ends with (``gaz_tail=``: "Department of Physics, Stanford University"), shorter than
    the span by a word at least."""
    keys = [gazetteer_key(t) for t in texts]
    f = []
    for tag, order in (("gaz_head", range(len(keys) - 1, 0, -1)), ("gaz_tail", range(1, len(keys)))):
        for k in order:
            part = keys[:k] if tag == "gaz_head" else keys[k:]
            if keys[k - 1 if tag == "gaz_head" else k] and (got := gazetteer_classes_of_key("".join(part))):
                f += [f"{tag}={cls}" for cls in got]
                break
    return tuple(f)


def _neighbours(lay: Layout, c: MentionCandidate, ctx: dict) -> list[str]:
    """What the two pieces on either side of a span's piece of its line say (:func:`_segments`); the same for
    every span of the piece (read once per piece: most candidates share theirs with others)."""
    line = lay.token_line[c.start]
    got = ctx.get("segments", {}).get(line)
    if got is None:
        return []
    cuts, says = got
    k = bisect_right(cuts, c.start_char) - 1
    memo = ctx.setdefault("neighbours", {})
    out = memo.get((line, k))
    if out is None:
        found = set()
        for j in (k - 2, k - 1, k + 1, k + 2):
            if 0 <= j < len(says):
                found |= says[j]
        out = memo[(line, k)] = sorted("nb_" + x for x in found)
    return out


def _before(lay: Layout, c: MentionCandidate) -> tuple[str, str]:
    """The two words before a span, past a quote's ">" that starts its line (a document read from Markdown has
    none: its quote marks are gone)."""
    k = c.start
    if k > 0 and lay.texts[k - 1] == ">" and not lay.text[lay.line_starts[lay.token_line[k - 1]]:lay.idx[k - 1]].strip():
        k -= 1
    words, texts = lay.words, lay.texts
    while k > 0 and _SPACES(texts[k - 1]):  # runs of spaces are not words (Markdown collapses them)
        k -= 1
    return (words[k - 1] if k > 0 else "<s>"), (words[k - 2] if k > 1 else "<s>")


def _after(lay: Layout, c: MentionCandidate) -> tuple[str, str]:
    """The two words after a span, past a run of spaces."""
    k, n, texts, words = c.end, len(lay.words), lay.texts, lay.words
    while k < n and _SPACES(texts[k]):
        k += 1
    return (words[k] if k < n else "</s>"), (words[k + 1] if k + 1 < n else "</s>")


_SPACES = re.compile(r"[ \t]+").fullmatch


def _bucket(n: int) -> str:
    return "0" if n <= 0 else "1" if n == 1 else "2" if n == 2 else "3-5" if n <= 5 else "6-10" if n <= 10 else "11+"


def _cues_in(lay: Layout, a: int, b: int, tag: str) -> list[str]:
    """``tag`` + each cue class with a match inside the characters ``[a, b)``."""
    # a class's matches do not overlap, so its first match from a on ends inside [a, b) exactly when some match of
    # it lies inside: the matches of all classes that start inside, read in one sorted list
    starts, marks = lay.cue_starts, lay.cue_marks
    k = bisect_left(starts, a)
    if k == len(starts) or starts[k] >= b:
        return []
    ranks = set()
    while k < len(starts) and starts[k] < b:
        if marks[k][1] <= b:
            ranks.add(marks[k][2])
        k += 1
    return [tag + lay.cue_names[r] for r in sorted(ranks)]


_CAMEL = re.compile(r"[a-z][A-Z]")
_LINE_HEAD = re.compile(r"^(?:" + MARK + r"|[#\[\]\d.) ])*")
_MARKER_OR_SPACE = re.compile(r"(?:" + MARK + r"|[#\[\]\d.) \s])*")
_NON_SPACE = re.compile(r"\S")


def _marker_end(lay: Layout, line: int, start: int, end: int) -> int:
    """Where the line's first character that is neither white space nor a list marker's stands (once per line)."""
    got = lay.marker_ends.get(line)
    if got is None:
        got = lay.marker_ends[line] = _MARKER_OR_SPACE.match(lay.text, start, end).end()
    return got


def own_features(lay: Layout, c: MentionCandidate) -> list[str]:
    """The features of a candidate's own text, wherever it stands: where it came from, its length, what the rules
    gave it, and what its name says (:func:`_name_features`: the lexicon, the gazetteer, its letters and words, the
    dictionary; cached per name). What the screen (``classify.screened``) reads, and how every row of
    :func:`mention_features` starts."""
    text = lay.text[c.start_char:c.end_char]
    known, written = _name_features(text, tuple(lay.texts[c.start:c.end]), c.canonical)
    return [*_origin_features(c.source, c.also, c.end - c.start, c.licences), *known,
            *(_rule_features(c.rule_cls, c.rule) if c.rule_cls else ()), *written]


@lru_cache(maxsize=1 << 12)  # a few sources, lengths and rules: the same strings for every candidate alike
def _origin_features(source: str, also: tuple[str, ...], tokens: int, licences: tuple[str, ...]) -> tuple[str, ...]:
    """Where a candidate came from (``src=``), its length in tokens (``n=``) and its licences (``lic=``)."""
    return (*(f"src={x}" for x in (source, *also)), f"n={_bucket(tokens)}", *(f"lic={x}" for x in licences))


@lru_cache(maxsize=1 << 10)
def _rule_features(rule_cls: str, rule: str) -> tuple[str, ...]:
    """What the rules gave a candidate: their class, the rule and its family."""
    return f"rc={rule_cls}", f"rr={rule}", f"rrp={rule.split('.')[0]}"


_CARRIED = ("sx_np=", "sx_np_class=", "sx_appos_noun=", "sx_gov_class=", "sx_ls=")
"""The screen's context features said of a name wherever it stands: each occurrence's are given to all of its
occurrences in the document (``sx_any_``), as "the X robot" once makes a bare "X" elsewhere a robot."""


def screen_features(lay: Layout, cands: list[MentionCandidate], owns: list[list[str]]) -> list[list[str]]:
    """What the screen (``classify.screened``) reads of each candidate: its own features (``owns``) and a few cheap
    ones of its context that carry over between documents (``sx_``): the words just before and after it, the
    preposition and the class of the word governing it ("re-ranked with X", "built on X"), the noun it modifies
    ("the X compiler") and the noun of an apposition after it ("X, a camera"), and the classes the rules, the lexicon
    or the gazetteer give the other pieces of the list it stands in ("Hyperopt, Katib and Tune"); each name's kind
    words said at its other occurrences (``_CARRIED``). A name of common words ("Random Forest") so reaches the
    mention model when its context says what it is."""
    segments = _segments(lay, cands)
    rows, keys, memo = [], [], {}
    said: dict[str, set[str]] = defaultdict(set)
    for c in cands:
        root = span_root(lay, c.start, c.end)
        f = [_screen_word(lay, c, "p1", memo), _screen_word(lay, c, "n1", memo)]
        f += _screen_gov(lay, root, c.end, memo)
        f += _list_pieces(lay, c, segments, memo)
        key = norm(lay.text[c.start_char:c.end_char])
        said[key].update(filter(_IS_CARRIED, f))
        rows.append(f)
        keys.append(key)
    return [[*o, *f, *("sx_any_" + x[3:] for x in sorted(said[k].difference(f)))] for o, f, k in zip(owns, rows, keys)]


def _screen_word(lay: Layout, c: MentionCandidate, side: str, memo: dict) -> str:
    """``sx_p1=`` (the word before a span) or ``sx_n1=`` (the word after it): once per start or end of a span,
    which many candidates share (the string made, and hashed when scored, once)."""
    key = (side, c.start if side == "p1" else c.end)
    got = memo.get(key)
    if got is None:
        got = memo[key] = f"sx_{side}={(_before(lay, c) if side == 'p1' else _after(lay, c))[0]}"
    return got


def _screen_gov(lay: Layout, root: int, end: int, memo: dict) -> list[str]:
    """What governs a span's root (its preposition and the word above, the noun it modifies, their classes) and
    the noun of an apposition after it, as the screen reads them: once per root and end (nested candidates share
    them)."""
    key = ("gov", root, end)
    got = memo.get(key)
    if got is None:
        got = memo[key] = [*filter(_SCREEN_GOV.__getitem__, _gov(lay, root, "sx_")),
                           *("sx_" + x for x in _apposition(lay, end, root))]
    return got


def _list_pieces(lay: Layout, c: MentionCandidate, segments: dict, memo: dict) -> list[str]:
    """The classes (``rc=``, ``lex=``, ``gaz=``) of the other pieces of a span's list (:func:`_other_pieces`), as
    ``sx_ls=``, for a span inside one piece ("Forest and XGBoost" is no item): once per piece."""
    line = lay.token_line[c.start]
    if line not in segments:
        return []
    piece = bisect_right(segments[line][0], c.start_char)
    if bisect_right(segments[line][0], c.end_char - 1) != piece:
        return []
    key = (line, lay.sent_of(c.start), piece)
    out = memo.get(key)
    if out is None:
        out = memo[key] = sorted({"sx_ls=" + x for s in _other_pieces(lay, c, segments) for x in s
                                  if x.startswith(("rc=", "lex=", "gaz="))})
    return out


def _other_pieces(lay: Layout, c: MentionCandidate, segments: dict) -> list[set[str]]:
    """What the other pieces of a span's line in its sentence say (:func:`_segments`; none past twelve pieces)."""
    got = segments.get(lay.token_line[c.start])
    if got is None or len(got[0]) > 12:
        return []
    cuts, says = got
    own = bisect_right(cuts, c.start_char) - 1
    si = lay.sent_of(c.start)  # the list ends with its sentence
    a = lay.idx[lay.sent_starts[si]]
    b = lay.idx[lay.sent_starts[si + 1]] if si + 1 < len(lay.sent_starts) else len(lay.text)
    return [s for k, s in enumerate(says) if k != own and a <= cuts[k] < b]


def mention_features(doc: Doc, lay: Layout, c: MentionCandidate, ctx: dict, own: list[str] | None = None) -> list[str]:
    """The features of one mention candidate: its own (``own``, made when not given: :func:`own_features`), then
    what the document and the words around it say."""
    text = lay.text[c.start_char:c.end_char]
    words = lay.words
    f = list(own) if own is not None else own_features(lay, c)
    key = norm(text)
    f += [f"doc_rc={cls}" for cls in sorted(ctx["rule_classes"].get(norm(c.canonical or text), ()))]
    f += ctx["around"].get(key, ())
    got = ctx.get("near", {}).get((c.start, c.end))  # what doc_context read around the span already
    if got is None:
        root = span_root(lay, c.start, c.end)
        got = (_before(lay, c), _after(lay, c), root, _gov(lay, root, "g_"))
    (p1, p2), (n1, n2), root, gov = got
    f += [f"p1={p1}", f"p2={p2}", f"n1={n1}",
          f"n2={n2}", f"around={p1}_{n1}"]
    dep = lay.deps[root]
    f.append(f"dep={dep}")
    head = lay.heads[root]
    if head != root:
        f += [f"head={words[head]}", f"head_dep={dep}_{words[head]}"]
        if lay.deps[head] == "prep":
            f.append(f"prep={words[head]}_{words[lay.heads[head]]}")
    f += gov[1:]  # what governs it, past a noun phrase and a list ("on A, B and C")
    f += _line_features(lay, c.start_char, c.end_char, "")
    f += _cues_in(lay, max(0, c.start_char - 40), c.start_char, "cue_before=")
    f += _frame(lay, c)
    f += _neighbours(lay, c, ctx)
    f += _list_intro(lay, c)
    f += _apposition(lay, c.end, root)
    f += _context(lay, c)
    f += _list_classes(lay, c, ctx)
    f += _table_cell(lay, c)
    f += _score_before(lay, c)
    f += _score_after(lay, c)
    f += _predicate(lay, c)
    f += wrap_features(lay, c) + furniture_features(text)
    return f


@lru_cache(maxsize=1 << 16)  # a name recurs within and across documents
def _name_features(text: str, texts: tuple[str, ...], canonical: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What a span's own text, tokens (``texts``) and canonical name say, wherever it is written: whether the lexicon
    and the gazetteer know it (and its parts), then its letters, its words and whether they are English (one cache
    lookup for the six)."""
    tokens = len(texts) > 1
    return (_known_name(text, canonical) + _gazetteer(text, tokens) + _gazetteer_parts(texts),
            _surface(text, tokens) + _words_in(texts) + _english(texts))


@lru_cache(maxsize=1 << 16)  # the same runs of words recur: names, and what stands between two
def _lower_words(texts: tuple[str, ...]) -> tuple[str, ...]:
    """The distinct lower-case words among ``texts`` as features see them (:func:`word_of`), sorted."""
    return tuple(sorted({word_of(t) for t in texts if t.isalpha() and t.islower()}))


def _words_in(texts: tuple[str, ...]) -> tuple[str, ...]:
    """What a span's tokens (``texts``) say: its lower-case words, the common words written capitalised in it
    (:func:`_name_words`), its last word (or a capitalised one's suffix) and its first."""
    f = [f"in={w}" for w in _lower_words(texts)[:6]] + _name_words(texts, 0, len(texts))
    last = texts[-1]
    f.append(f"last_suf={last[-3:].lower()}" if last[:1].isupper() and len(last) > 4 else f"last={word_of(last)}")
    f.append(f"first={word_of(texts[0])}")
    return tuple(f)


def _english(texts: tuple[str, ...]) -> tuple[str, ...]:
    """Whether a span's words are English words (:func:`~pipeline.nlp.english.word_kind`): a capitalised word no
    dictionary holds is a coined name ("Demucs", "Yandex", "QuickDraw" a blend of two), a run of capitalised
    dictionary words a heading's or a field's phrase as often ("Chemical Science", "Evolutionary Algorithms"). Of
    one word (function words aside) how it is written and what it is (``eng1=cap_coined``, with ``eng1d=`` when
    the span has a digit: "GLM-4", "Llama 2"); of several, how many are words (``engm=all|some|none``, with their
    case: ``engm_cap=all``) and what the first and last are. The sweep (two grouped folds over the readable real-*
    sets / the selection sets real-ff, -gg, -hh each left out): entity F1 0.8031 -> 0.8043 / 0.8019 -> 0.8130
    (selection Method 0.757 -> 0.780), relation F1 0.5505 -> 0.5523 / 0.6122 -> 0.6185. The same crossed with the
    line's kind and the words next to it, or with the candidate's source, scored no higher (two-fold relation F1
    0.5460, 0.5415 against 0.5465 on the fast scorer)."""
    kinds = [k for t in texts for k in _token_kinds(t)]
    if not kinds:
        return ()
    digit = any(map(str.isdigit, "".join(texts)))  # (character by character, in C)
    if len(kinds) == 1:
        one = "_".join(kinds[0])
        return (f"eng1={one}", f"eng1d={one}") if digit else (f"eng1={one}",)
    words = sum(k in ("word", "plural") for _, k in kinds)
    share = "all" if words == len(kinds) else "some" if words else "none"
    cases = {c for c, _ in kinds}
    case = cases.pop() if len(cases) == 1 else "mixed"
    f = [f"engm={share}", f"engm_{case}={share}", f"eng_first={'_'.join(kinds[0])}",
         f"eng_last={'_'.join(kinds[-1])}"]
    if digit:
        f.append(f"engmd={share}")
    return tuple(f)


@lru_cache(maxsize=1 << 15)  # a token is a word of many names and candidates, in many documents
def _token_kinds(token: str) -> tuple[tuple[str, str], ...]:
    """:func:`~pipeline.nlp.english.word_kind` of each run of letters of ``token`` that is no function word, in
    order: what :func:`_english` reads of the token, made once per distinct token rather than per span holding it."""
    fw = lexicon()["function_words"]
    return tuple(word_kind(r) for r in letter_runs(token) if r.lower() not in fw)


def _surface(text: str, tokens: bool) -> tuple[str, ...]:
    """What a span's text says by its letters alone: its shape (``multi`` for several tokens, ``tokens``, or
    words), digits, camel case, a hyphen, a colon, unbalanced brackets, an acronym."""
    multi = tokens or " " in text
    f = [f"shape={'multi' if multi else shape(text)}"]
    if any(map(str.isdigit, text)):
        f.append("digit")
    if _CAMEL.search(text):
        f.append("camel")
    if "-" in text:
        f.append("hyphen")
    if ":" in text:
        f.append("colon")
    if _unbalanced(text):
        f.append("unbalanced")
    if "\n" in text:
        f.append("wrapped")  # over a line break
    if not multi and text.isupper() and len(text) > 1:
        f.append("acronym")
    return tuple(f) + (_title_shape(text) if multi else ())


_NAME_COLON = re.compile(r"[^\s:]+(?:\s+[^\s:]+){0,2}:\s+\S")


def _title_shape(text: str) -> tuple[str, ...]:
    """How a span of several words is written, as a title is: the share of its content words after the first
    that are capitalised (``caps=``: "Title Case", or "sentence case" with few), how many words it has, and whether
    a name of at most three words opens it before a colon ("D3Net: Densely connected ...": ``name_colon``)."""
    words = text.split()
    fw = lexicon()["function_words"]
    content = [w for w in words[1:] if w[:1].isalpha() and w.lower() not in fw]
    f = [f"words={_bucket(len(words))}"]
    if len(content) >= 2:
        share = sum(w[0].isupper() for w in content) / len(content)
        f.append("caps=" + ("all" if share >= 0.99 else "most" if share >= 0.6 else "some" if share > 0.2 else "few"))
    if _NAME_COLON.match(text):
        f.append("name_colon")
    return tuple(f)


def mentions_features(doc: Doc, lay: Layout, cands: list[MentionCandidate],
                      owns: list[list[str]] | None = None) -> list[list[str]]:
    """The features of every mention candidate of one document (each row starting with its own features ``owns``,
    made when not given), each with what the other occurrences of its name say of their class
    (:func:`occurrence_features`)."""
    ctx = doc_context(doc, lay, cands)
    owns = owns if owns is not None else [None] * len(cands)
    return occurrence_features(ctx["keys"], [mention_features(doc, lay, c, ctx, o) for c, o in zip(cands, owns)])


_TYPING = ("ctx_b=", "ctx_a=", "cop_class=", "colon_class=", "appos_noun=", "score_prep=", "score_after",
           "intro_class=", "tab_col=", "tab_key=", "ls_one_", "n1=", "p1=", "head_dep=", "prep=", "g_np=", "g_prep=")
"""The features that say of what class a name is from the words around one of its occurrences (``_context``,
``_predicate``, ``_apposition``, ``_score_before``, ``_list_intro``, ``_table_cell``, ``_list_classes``, the words
next to it and what governs it). Two folds over the readable real-* sets (relation model fixed): entity F1 0.7985 ->
0.8002 (Method 0.769 -> 0.776, Dataset 0.745 -> 0.749), relation F1 0.490 -> 0.492."""
_OCCURRENCES = 24


class _Prefixed(dict):
    """Feature -> whether it starts with one of ``prefixes``, tested once per distinct string: its ``__getitem__``
    is a C-level filter (a document's features repeat, and testing a dozen prefixes cost more than the lookup)."""

    _LIMIT = 1 << 13
    """Strings remembered before the memo starts afresh: a long build's words would grow it without end."""

    def __init__(self, prefixes: tuple[str, ...]) -> None:
        super().__init__()
        self.prefixes = prefixes

    def __missing__(self, feature: str) -> bool:
        if len(self) >= self._LIMIT:
            self.clear()
        got = self[feature] = feature.startswith(self.prefixes)
        return got


_IS_TYPING = _Prefixed(_TYPING).__getitem__
_IS_CARRIED = _Prefixed(_CARRIED).__getitem__
_SCREEN_GOV = _Prefixed(("sx_np", "sx_prep=", "sx_gov_class="))


def occurrence_features(keys: list[str], feats: list[list[str]]) -> list[list[str]]:
    """Each candidate's features (``feats``, extended in place), with ``occ_`` and every typing feature
    (``_TYPING``) of any candidate of the same name (``keys``: each candidate's normalised text) in the document:
    "the X dataset" once, "X" alone in a list elsewhere, and the list's X is the dataset too."""
    # each feature looked up in the prefix test's memo (a C-level filter): cheaper than a set of the document's
    # features made first and intersected with each candidate's
    said: dict[str, set[str]] = defaultdict(set)
    for key, f in zip(keys, feats):
        said[key].update(filter(_IS_TYPING, f))
    # one list per name, shared by its candidates (their strings made, and hashed when scored, once)
    occ = {key: ["occ_" + x for x in sorted(s)[:_OCCURRENCES]] for key, s in said.items()}
    for key, f in zip(keys, feats):
        f += occ[key]
    return feats


def _cell_starts(lay: Layout, line: int) -> list[int]:
    """Where each cell of a table row starts (character offsets; once per line)."""
    key = ("cells", line)
    got = lay.line_info.get(key)
    if got is None:
        a, b = lay.line_starts[line], lay.line_end(line)
        lead = a + len(lay.text[a:b]) - len(lay.text[a:b].lstrip(" |\t"))
        got = lay.line_info[key] = [lead] + [m.end() for m in CELL_BREAK.finditer(lay.text, lead, b) if m.end() < b]
    return got


def _word_class(text: str) -> str:
    """The class the last common word of a header cell speaks of ("Benchmark", "model", "Datasets"): a list's
    nouns first (``list_intros``), then the words near names (``context_classes``); "" if none."""
    for w in reversed(re.findall(r"[A-Za-z][a-z-]*", text)):
        w = w.lower()
        cls = _intro_classes().get(w) or next(iter(_context_classes().get(w, ())), "")
        if cls:
            return cls
    return ""


def _table_cell(lay: Layout, c: MentionCandidate) -> list[str]:
    """Where a span stands in a table written as text or Markdown: in the header row or a row below it, in the
    first column or another, and the classes the header's first cell and the span's column header speak of. "MMLU
    | 84.2" under "Benchmark | Qwen2-72B" is a dataset, "Llama 2 7B  77.4" under "model  BoolQ" a method, and the
    names of a header after "model" are datasets."""
    line = lay.token_line[c.start]
    if lay.line_kind[line] != "table":
        return []
    top = table_top(lay, line)
    cells = _cell_starts(lay, line)
    col = bisect_right(cells, c.start_char) - 1
    role = "head" if line == top else "row"
    where = f"{role}_{'first' if col <= 0 else 'other'}"
    head = _cell_starts(lay, top)
    def header(j: int) -> str:
        if j < 0 or j >= len(head):
            return ""
        end = head[j + 1] if j + 1 < len(head) else lay.line_end(top)
        return _word_class(lay.text[head[j]:end])
    key, own = header(0), (header(col) if role == "row" and col > 0 else "")
    return [f"tab={where}"] + ([f"tab_key={where}_{key}"] if key else []) + ([f"tab_col={own}"] if own else [])


_SCORE_PREPS = frozenset(lexicon()["score_prepositions"])


def _score_before(lay: Layout, c: MentionCandidate) -> list[str]:
    """A score stated just before the preposition that opens a span ("53.0% AP on X", "87.1 mIoU on X", "74.2 on
    the X benchmark"): what a result is measured on is a dataset."""
    k = c.start - 1
    texts = lay.texts
    if k > 0 and texts[k].lower() == "the":
        k -= 1
    if k < 1 or texts[k].lower() not in _SCORE_PREPS:
        return []
    sent = lay.sent_starts[lay.sent_of(c.start)]
    for t in range(k - 1, max(sent, k - 5) - 1, -1):
        if any(map(str.isdigit, texts[t])):
            return [f"score_prep={texts[k].lower()}"]
    return []


_SCORE = re.compile(r"[+\-\u2212\u00b1]?\d+(\.\d+)?%?")
"""A score's token: a number, signed or not ("93.1", "+17.9%", "91" before "%"); a decimal or a percentage only,
not a year or a count."""
_SCORE_OPENERS = frozenset({"(", ":", "|", "="})


def _score_after(lay: Layout, c: MentionCandidate) -> list[str]:
    """A score right after a span, behind a bracket, a colon, a bar or "=" ("WSC (90.1%), DPR (93.1%)", "AQuA
    (+12.2%)", "N3-RSS-500 (42.0)", "VGGSound: 65.9%"): what results are listed for one after another are
    benchmarks, the model's other reading of a name in such a list. (It replaces the bracket-only ``paren_score``,
    which a year or a count in brackets set off too and which the name's other occurrences did not share.)"""
    texts, n = lay.texts, len(lay.texts)
    k = c.end
    while k < n and _SPACES(texts[k]):
        k += 1
    if k >= n or texts[k] not in _SCORE_OPENERS:
        return []
    line = lay.token_line[c.start]
    for t in range(k + 1, min(n, k + 4)):
        if lay.token_line[t] != line:
            break
        m = _SCORE.fullmatch(texts[t])
        if m and (m.group(1) or texts[t].endswith("%") or (t + 1 < n and texts[t + 1] == "%")):
            return ["score_after"]
        if not (_SPACES(texts[t]) or texts[t] in ("+", "-")):
            break
    return []


_PAIRED = (("(", ")"), ("[", "]"), ("{", "}"))


def _unbalanced(text: str) -> bool:
    """Whether a span opens a bracket it does not close (or the reverse), or holds an odd number of straight quotes:
    a piece of code ('AutoTokenizer.from_pretrained("Org/Model'), not a name ("Llama (7B)" is balanced)."""
    if not _BRACKET_OR_QUOTE(text):  # most names hold none: one scan instead of seven counts
        return False
    return any(text.count(a) != text.count(b) for a, b in _PAIRED) or text.count('"') % 2 == 1


_BRACKET_OR_QUOTE = re.compile("[" + re.escape("".join(a + b for a, b in _PAIRED) + '"') + "]").search


_WINDOW = 5


@lru_cache(maxsize=1)
def _context_classes() -> dict[str, tuple[str, ...]]:
    """Lower-case word -> the classes it says a name near it is of (``context_classes`` of ``features.json``)."""
    out: dict[str, tuple[str, ...]] = {}
    for cls, words in lexicon()["context_classes"].items():
        if not cls.startswith("_"):
            for w in words:
                out[w] = (*out.get(w, ()), cls)
    return out


def _context(lay: Layout, c: MentionCandidate) -> list[str]:
    """The classes the common words within ``_WINDOW`` tokens of a span on its line speak of ("the on-chip SRAM
    memory": Hardware, "chips made by the foundry": Organization), before and after it."""
    per_token = _token_classes(lay)
    tl, some = lay.token_line, lay.context_tokens  # (the lines of tokens rise: a window ends at a line's edge)
    line = tl[c.start]
    found = set()
    for tag, a, b in (("ctx_b=", c.start - _WINDOW, c.start), ("ctx_a=", c.end, c.end + _WINDOW)):
        for k in some[bisect_left(some, a):bisect_left(some, b)]:  # the window's tokens that speak of a class
            if tl[k] == line:
                found.update(tag + x for x in per_token[k])
    return sorted(found)


def _token_classes(lay: Layout) -> list[tuple[str, ...]]:
    """For each token, the classes its word speaks of (``context_classes``; once per document), and the tokens
    with any, in order (``context_tokens``)."""
    if lay.context_classes is None:
        get = _context_classes().get
        lay.context_classes = [get(t.lower(), ()) for t in lay.texts]
        lay.context_tokens = [k for k, got in enumerate(lay.context_classes) if got]
    return lay.context_classes


_PREDICATE_WINDOW = 12


def _predicate(lay: Layout, c: MentionCandidate) -> list[str]:
    """What is said of a span right after it: the class of the first word of ``context_classes`` within
    ``_PREDICATE_WINDOW`` tokens after a copula ("MADLAD-400 is a manually audited, document-level monolingual
    dataset": ``cop_class=``) or after the colon that follows it on its line ("ClimSim-Online: A Large Multi-scale
    Dataset and Framework": ``colon_class=``, every class named there). A score after it: ``_score_after``."""
    texts, n = lay.texts, len(lay.texts)
    k = c.end
    while k < n and _SPACES(texts[k]):
        k += 1
    if k >= n:
        return []
    f = []
    per_token, line = _token_classes(lay), lay.token_line[c.start]
    stop = min(n, k + 1 + _PREDICATE_WINDOW)
    if texts[k].lower() in _COPULAS:  # the copulas of the pair features (features.json)
        end = lay.sent_starts[lay.sent_of(k) + 1] if lay.sent_of(k) + 1 < len(lay.sent_starts) else n
        got = next((per_token[t] for t in range(k + 1, min(stop, end)) if per_token[t]), ())
        f += [f"cop_class={x}" for x in got]
    elif texts[k] == ":":
        found = {x for t in range(k + 1, stop) if lay.token_line[t] == line for x in per_token[t]}
        f += [f"colon_class={x}" for x in sorted(found)]
    return f


def _list_classes(lay: Layout, c: MentionCandidate, ctx: dict) -> list[str]:
    """The classes the rules gave anywhere else in the list a span stands in (the pieces of its line and sentence,
    :func:`_other_pieces`), and the one class when they agree: a list's items are of one kind ("the GLUE tasks:
    MNLI, SST-2, MRPC, CoLA and RTE")."""
    got = ctx.get("segments", {}).get(lay.token_line[c.start])
    if got is None or len(got[0]) > 12:
        return []
    key = ("list", bisect_right(got[0], c.start_char) - 1, lay.sent_of(c.start), lay.token_line[c.start])
    out = lay.line_info.get(key)  # the same for every span of the piece
    if out is None:
        others = _other_pieces(lay, c, ctx["segments"])
        found = sorted({x for s in others for x in s if x.startswith("rc=")})
        lex = sorted({x for s in others for x in s if x.startswith("lex=")})
        out = lay.line_info[key] = ([f"ls_{x}" for x in found + lex] + ([f"ls_one_{found[0]}"] if len(found) == 1 else [])
                                    + ([f"ls_one_{lex[0]}"] if len(lex) == 1 else []))
    return out


def _apposition(lay: Layout, end: int, root: int) -> list[str]:
    """The noun of an apposition after a span ("DeepRoute.ai, a Chinese driving start-up": start-up), which says
    what kind of thing the span names."""
    heads, deps = lay.heads, lay.deps
    for t in range(end, min(end + 8, len(heads))):
        if heads[t] == root and deps[t] == "appos":
            k = t
            while k > end and not lay.spaced[k - 1] and lay.texts[k - 1] not in {",", "(", "\""}:
                k -= 1  # the whole of a hyphenated noun ("start-up")
            noun = "".join(lay.texts[k:t + 1])
            # a common noun only: a list of names parsed as appositions says nothing here
            return [f"appos_noun={noun}"] if noun.replace("-", "").isalpha() and noun.islower() else []
    return []


def _list_intro(lay: Layout, c: MentionCandidate) -> list[str]:
    """The word before the colon that opens the list a span stands in, on its line and in its sentence: "the GLUE
    tasks: MNLI, SST-2" (tasks), "Speaker: Ann Lee" (speaker)."""
    text = lay.text
    a = max(lay.line_starts[lay.token_line[c.start]], c.start_char - 150)
    colon = text.rfind(":", a, c.start_char)
    if colon < 0 or ". " in text[colon:c.start_char]:
        return []
    k = bisect_left(lay.idx, colon)
    if k == 0 or k >= len(lay.idx) or lay.idx[k] != colon:
        return []
    w = lay.words[k - 1]
    f = [f"intro={w}", "intro_first" if not text[colon + 1:c.start_char].strip() else "intro_list"]
    cls = _intro_classes().get(lay.texts[k - 1].lower())
    return f + [f"intro_class={cls}"] if cls else f


@lru_cache(maxsize=1)
def _intro_classes() -> dict[str, str]:
    """Noun -> the class of the names a list after "noun:" holds (``list_intros`` of ``features.json``)."""
    return {w: cls for cls, words in lexicon()["list_intros"].items() if not cls.startswith("_") for w in words}


_SEPARATORS = frozenset("^$,;()[]|:•·/")


def _delimiter(lay: Layout, i: int, step: int) -> str:
    """The first character other than a space from ``i`` on in direction ``step`` within the line: "^" or "$" at
    the line's ends, "w" for a letter, "d" for a digit, else the character."""
    text, n = lay.text, len(lay.text)
    for _ in range(4):
        if i < 0 or i >= n or text[i] == "\n":
            return "^" if step < 0 else "$"
        ch = text[i]
        if ch not in " \t":
            return "w" if ch.isalpha() else "d" if ch.isdigit() else ch
        i += step
    return "_"


def _frame(lay: Layout, c: MentionCandidate) -> list[str]:
    """What frames a span: the characters just around it ("; X," in an affiliation line, "[1] X" or "X (poster)"
    on a line of its own), the share of capitalised words on its line, and the kinds and labels of the lines
    above and below ("Authors: ..." under a title)."""
    line = lay.token_line[c.start]  # the line of its first character
    start, end = lay.line_starts[line], lay.line_end(line)
    # only a list marker (or a quote's ">", gone once Markdown is read) before it: the line's start
    lb = "^" if c.start_char <= _marker_end(lay, line, start, end) else _delimiter(lay, c.start_char - 1, -1)
    rb = _delimiter(lay, c.end_char, 1)
    f = [f"lb={lb}", f"rb={rb}", f"lrb={lb}{rb}"]
    if lb in _SEPARATORS and rb in _SEPARATORS:
        f.append("seg_whole")
    lead_end, kind = _lead_names(lay, line)
    return f + _line_frame(lay, line) + ([f"in_lead{kind}"] if c.start_char < lead_end else [])


def _line_frame(lay: Layout, line: int) -> list[str]:
    """What a line and its neighbours say of every span on it (once per line): its share of capitalised words,
    the kinds and labels of the lines above and below, and whether the line below opens with a lead of names."""
    got = lay.frame_info.get(line)
    if got is None:
        caps = _line_shape(lay, line)
        got = [f"line_caps={caps}", f"line_caps_kind={caps}_{_KIND.get(lay.line_kind[line], lay.line_kind[line])}"]
        labels = lexicon()["line_labels"]
        for tag, other in (("prev", lay.prev_line[line]), ("next", lay.next_line[line])):
            if other >= 0:
                first = lay.line_first[other]
                got += [f"{tag}_line={_KIND.get(lay.line_kind[other], lay.line_kind[other])}",
                        f"{tag}_first={first if first in labels else '-'}"]
        nxt = lay.next_line[line]
        if nxt >= 0:
            lead_end, kind = _lead_names(lay, nxt)
            if lead_end >= 0:
                got.append("next_lead" + kind)
        lay.frame_info[line] = got
    return got


def _lead_names(lay: Layout, line: int) -> tuple[int, str]:
    """Where a line's lead of names ends, and whether one of them holds a word that names an organization: a line
    that opens with nothing but capitalised names in a list, up to its first full stop ("Qualcomm AI Research,
    Seoul National University. Personalizing ..."), or holds only such a list of two or more, is a byline or an
    affiliation line (a title alone on its line is none). (-1, "") if it has none."""
    key = ("lead", line)
    got = lay.line_info.get(key)
    if got is None:
        got = (-1, "")
        b = lay.line_end(line)
        a = _marker_end(lay, line, lay.line_starts[line], b)
        stop = lay.text.find(". ", a, b)
        head = lay.text[a:stop if stop >= 0 else b].rstrip(".")
        fw, known = lexicon()["function_words"], lexicon()["name_words"]
        pieces = [p for p in _LIST_SEPARATOR.split(head) if p]
        if pieces and len(pieces) <= 12 and (stop >= 0 or len(pieces) > 1) and all(
                len(p.split()) <= 6 and p[:1].isupper() and all(w[:1].isupper() or w in fw for w in p.split())
                for p in pieces):
            got = (a + len(head), "_nw" if any(w.lower() in known for w in head.split()) else "")
        lay.line_info[key] = got
    return got


_KIND = {"heading": "short"}
"""A Markdown heading's "#" is gone once Markdown is read: to these features a heading is a short line."""


def _line_shape(lay: Layout, line: int) -> str:
    """How much of a line is capitalised words, bucketed (once per line): a title or a list of names is most."""
    got = lay.line_info.get(line)
    if got is None:
        a = lay.line_starts[line]
        b = lay.line_end(line)
        words = [w for w in lay.text[a:b].split(maxsplit=40)[:40] if w[:1].isalpha()]  # a long line not split whole
        fw = lexicon()["function_words"]
        content = [w for w in words if w.lower() not in fw]
        share = sum(w[0].isupper() for w in content) / len(content) if content else 0.0
        got = lay.line_info[line] = ("none" if not content else "all" if share >= 0.99 else "most" if share >= 0.7
                                     else "some" if share >= 0.3 else "few") + ("_long" if len(words) > 25 else "")
    return got


def _name_words(texts: list[str], a: int, b: int) -> list[str]:
    """The common words written capitalised inside a name ("University", "Research", "Bench"): what kind of thing
    it names (``name_words`` of ``features.json``)."""
    known = lexicon()["name_words"]
    words = sorted({t.lower() for t in texts[a:b] if t[:1].isupper() and t.lower() in known})
    out = [f"cw={w}" for w in words[:4]]
    if b > a and texts[b - 1].lower() in known:
        out.append(f"cw_last={texts[b - 1].lower()}")
    return out


def _line_features(lay: Layout, a: int, b: int, tag: str) -> list[str]:
    line = lay.line_of_char(a)
    start = lay.line_starts[line]
    end = lay.line_end(line)
    key = ("line_features", line, tag)
    whole = lay.line_info.get(key)  # what the line itself says, the same for each span on it (made once per line)
    if whole is None:
        first = lay.line_first[line]
        whole = lay.line_info[key] = ([f"{tag}line={lay.line_kind[line]}",
                                       f"{tag}line_first={first if first in lexicon()['line_labels'] else '-'}"],
                                      [f"{tag}first_line"] if line == 0 else [])
    f = whole[0].copy()
    # what stands before the span on its line is only a list marker (read up to the line's first other character
    # once per line, not sliced for every span: a line listing thousands of names would be quadratic)
    if a <= _marker_end(lay, line, start, end) and len(_LINE_HEAD.sub("", lay.text[start:a].strip())) == 0:
        f.append(f"{tag}line_start")
        after = _NON_SPACE.search(lay.text, b, end)  # the first character of the rest of the line, stripped
        tail = after.group() if after else ""
        if not tail or tail in "(.:–—[":
            f.append(f"{tag}line_whole_{tail or 'end'}")
    return f + whole[1]


def _path(lay: Layout, a: int, b: int) -> tuple[list[int], list[int]]:
    """The tokens from ``a`` up to the lowest common ancestor with ``b``, and from it down to ``b``."""
    heads = lay.heads
    up = [a]
    while heads[up[-1]] != up[-1] and len(up) < 12:
        up.append(heads[up[-1]])
    seen = {t: k for k, t in enumerate(up)}
    down = [b]
    while down[-1] not in seen and heads[down[-1]] != down[-1] and len(down) < 12:
        down.append(heads[down[-1]])
    if down[-1] not in seen:
        return up, down
    return up[: seen[down[-1]] + 1], down


_NP = frozenset({"compound", "nummod", "amod", "nmod", "poss"})


def _phrase_head(lay: Layout, t: int) -> int:
    """The head of the noun phrase a token is part of ("Mistral 7B architecture" -> "architecture"), then the
    first member of its coordination."""
    heads, deps = lay.heads, lay.deps
    for _ in range(3):
        if deps[t] in _NP and heads[t] != t:
            t = heads[t]
    while deps[t] == "conj" and heads[t] != t:
        t = heads[t]
    return t


def _gov(lay: Layout, t: int, tag: str) -> list[str]:
    """How an end is governed: its dependency, its head, the preposition and the word above it, and the relation
    classes of the governing word and of the noun the name modifies ("a ResNet backbone": backbone)."""
    heads, deps, words = lay.heads, lay.deps, lay.words
    f = []
    if deps[t] in _NP and heads[t] != t:
        noun = words[heads[t]]
        f += [f"{tag}np={noun}"] + [f"{tag}np_class={c}" for c in verb_classes(noun)]
    t = _phrase_head(lay, t)
    f.append(f"{tag}dep={deps[t]}")
    h = heads[t]
    if h == t:
        return f
    f.append(f"{tag}head={words[h]}")
    gov = h
    if deps[h] in {"prep", "agent"} and heads[h] != h:
        gov = heads[h]
        f += [f"{tag}prep={words[h]}_{words[gov]}", f"{tag}gov={words[gov]}"]
    elif deps[h] == "appos" or deps[t] == "appos":
        f.append(f"{tag}appos")
    f += [f"{tag}gov_class={c}" for c in verb_classes(words[gov])]
    return f


@lru_cache(maxsize=1 << 14)
def verb_classes(word: str) -> tuple[str, ...]:
    """The relations whose usual governing words (``verb_classes`` of ``features.json``, stems) ``word`` starts
    with: "adopts" and "borrows" both say uses, wherever they were seen."""
    classes = lexicon()["verb_classes"]
    return tuple(sorted(c for c, stems in classes.items() if not c.startswith("_") and any(map(word.startswith, stems))))


COORDINATORS = frozenset({",", "and", ", and", "or", ", or", "/", ";", "&"})


def list_heads(lay: Layout, typed: list[Typed]) -> list[int]:
    """For each typed mention, the first mention of the list it is part of ("on A, B and C": A for all three), by
    the text between neighbours (the parser often attaches later list members elsewhere)."""
    order = sorted(range(len(typed)), key=lambda k: typed[k].cand.start)
    heads = list(range(len(typed)))
    for a, b in zip(order, order[1:]):
        ca, cb = typed[a].cand, typed[b].cand
        if ca.end_char <= cb.start_char and lay.sent_of(ca.start) == lay.sent_of(cb.start):
            if lay.text[ca.end_char:cb.start_char].strip() in COORDINATORS and typed[a].cls == typed[b].cls:
                heads[b] = heads[a]
    return heads


_CONJUNCT_ARCS = frozenset({"conj", "appos"})


def conjuncts(lay: Layout, typed: list[Typed]) -> list[tuple[int, ...]]:
    """For each typed mention, the other mentions of its class coordinated with it in its sentence: the members of
    its list by the text between neighbours (:func:`list_heads`: "on A, B and C") and by the parse, the names whose
    chains of ``conj`` (and ``appos``) arcs lead up to one word ("the Jetson Orin Nano, the Raspberry Pi 5 and the
    Pixel 8": the determiners between them hide the list from the text, the parser reads its second item as an
    apposition of the first)."""
    groups: dict[tuple, set[int]] = defaultdict(set)
    glued = [_glued(lay.text, t.cand) for t in typed]
    for k, h in enumerate(list_heads(lay, typed)):
        if not glued[k]:
            groups[("list", h)].add(k)
    deps, heads = lay.deps, lay.heads
    for k, t in enumerate(typed):
        if glued[k]:
            continue
        top = span_root(lay, t.cand.start, t.cand.end)
        for _ in range(12):
            if deps[top] not in _CONJUNCT_ARCS or heads[top] == top:
                break
            top = heads[top]
        groups[("conj", top, t.cls)].add(k)
    out: list[set[int]] = [set() for _ in typed]
    for members in groups.values():
        if len(members) > 1:
            for k in members:
                out[k] |= members
    return [tuple(sorted(m - {k})) for k, m in enumerate(out)]


def _glued(text: str, c: MentionCandidate) -> bool:
    """Whether a comma joins the mention to the next word with no space ("diffusion,TRACT improves"): a typing slip
    the parser reads as a coordination, never a list's separator."""
    after = text[c.end_char:c.end_char + 2]
    return (c.start_char > 0 and text[c.start_char - 1] == ",") or (len(after) == 2 and after[0] == "," and not after[1].isspace())


def negated_between(lay: Layout, a: MentionCandidate, b: MentionCandidate) -> bool:
    """Whether a negation word stands between two mentions ("runs on X but not on Y", "X, never Y")."""
    first, second = (a, b) if a.start <= b.start else (b, a)
    negs = _counts(lay)[0]
    return second.start > first.end and negs[second.start] - negs[first.end] > 0


def pairs_features(doc: Doc, lay: Layout, typed: list[Typed], pairs: list[PairCandidate]) -> list[list[str]]:
    """The features of each pair candidate of one document (what depends on one end only is read once per end)."""
    heads, memo = list_heads(lay, typed), {}
    return [pair_features(doc, lay, typed, p, heads, memo) for p in pairs]


def _end(lay: Layout, typed: list[Typed], k: int, tag: str, memo: dict) -> list[str]:
    """What a pair's end says of itself, ``tag`` first: its rule and line (memoised per end in ``memo``)."""
    key = (k, tag)
    got = memo.get(key)
    if got is None:
        m = typed[k].cand
        got = memo[key] = ([f"{tag}rr={m.rule}"] if m.rule_cls else []) + _line_features(lay, m.start_char, m.end_char, tag) \
            + _next_words(lay, m, tag)
    return got


def _next_words(lay: Layout, m: MentionCandidate, tag: str) -> list[str]:
    """The words either side of an end, and the word a hyphen joins to it ("a LoRA-based method", "a GPT-2-style
    encoder": what the name is used as)."""
    before, after = _before(lay, m)[0], _after(lay, m)
    f = [f"{tag}prev={before}", f"{tag}next={after[0]}"]
    if after[0] == "-" and m.end < len(lay.texts) and lay.texts[m.end] == "-":
        f.append(f"{tag}hyphen={after[1]}")
    return f


def _end_gov(lay: Layout, typed: list[Typed], k: int, tag: str, memo: dict) -> list[str]:
    """:func:`_gov` of the end ``k`` (the first of its list), memoised per end in ``memo``."""
    key = (k, tag, "gov")
    got = memo.get(key)
    if got is None:
        h = typed[k].cand
        root = span_root(lay, h.start, h.end)
        got = _gov(lay, root, tag)
        got = memo[key] = got + [x for x in _gov_beyond(lay, root, tag) + _field(lay, h, tag) if x not in got]
    return got


_COPULAS = frozenset(lexicon()["copulas"])


def _gov_beyond(lay: Layout, t: int, tag: str) -> list[str]:
    """What governs a pair's end past what :func:`_gov` reads: the governor of the name a short form in brackets
    stands beside ("built on top of 3D Gaussian Splatting (3DGS)"), the word above a preposition of several words
    ("built on top of X", "used in combination with X": built, used) and the subject of a copula the end completes
    ("Its backbone is X", "The encoder was X": read like "a X backbone")."""
    heads, deps, words, texts = lay.heads, lay.deps, lay.words, lay.texts
    f: list[str] = []
    t = _phrase_head(lay, t)
    if deps[t] == "appos" and heads[t] != t:
        t = _phrase_head(lay, heads[t])
        f += [x for x in _gov(lay, t, tag) if "_class=" in x]
    h = heads[t]
    if h != t and deps[h] in {"prep", "agent"} and heads[h] != h:
        gov = heads[h]  # "top" of "on top of X": itself the object of a preposition
        if deps[gov] == "pobj" and deps[heads[gov]] == "prep" and heads[heads[gov]] != heads[gov]:
            above = heads[heads[gov]]
            f += [f"{tag}gov2={words[above]}"] + [f"{tag}gov_class={c}" for c in verb_classes(words[above])]
    if deps[t] == "attr" and h != t and texts[h].lower() in _COPULAS:
        subj = next((k for k in range(max(0, h - 12), h) if heads[k] == h and deps[k] in {"nsubj", "nsubjpass"}), None)
        if subj is not None:
            f += [f"{tag}cop_subj={words[subj]}"] + [f"{tag}np_class={c}" for c in verb_classes(words[subj])]
    return f


_FIELD = re.compile(r"\s*(?:[-*•>]+\s*|\d{1,3}[.)]\s*)?([A-Za-z][\w /-]{0,30}?)\s*[:=]\s+(?:[^:.;\n]{0,80}?)$")


def _field(lay: Layout, m: MentionCandidate, tag: str) -> list[str]:
    """The label of a field line a pair's end stands in, by its last word ("Backbone: X", "- Vision encoder: X and
    Y", "Framework: X"), and the relation classes of that word, read like the noun a name modifies."""
    line = lay.token_line[m.start]
    got = _FIELD.match(lay.text, lay.line_starts[line], m.start_char)
    if got is None:
        return []
    w = word_of(got.group(1).split()[-1].lower())
    return [f"{tag}field={w}"] + [f"{tag}np_class={c}" for c in verb_classes(w)]


def pair_features(doc: Doc, lay: Layout, typed: list[Typed], p: PairCandidate, heads: list[int],
                  memo: dict | None = None) -> list[str]:
    """The features of one pair candidate (``heads``: :func:`list_heads` of ``typed``; ``memo``: what was read of
    each end for another pair of the same ``typed``)."""
    memo = {} if memo is None else memo
    s, o = typed[p.s], typed[p.o]
    sc, oc = s.cand, o.cand
    f = [f"cls={s.cls}>{o.cls}"] + [f"origin={x}" for x in p.origin.split("+")]
    for prop, rule in p.rules:
        f += [f"rule_p={prop}", f"rule={rule}"]
    se, oe = _end(lay, typed, p.s, "s_", memo), _end(lay, typed, p.o, "o_", memo)
    f += se + oe
    first, second = (sc, oc) if sc.start <= oc.start else (oc, sc)
    f.append("s_first" if first is sc else "o_first")
    ss, so = lay.sent_of(sc.start), lay.sent_of(oc.start)
    ls, lo = lay.line_of_char(sc.start_char), lay.line_of_char(oc.start_char)
    f.append(f"lines={_bucket(abs(lay.content_line[lo] - lay.content_line[ls]))}")
    f.append("same_para" if lay.para_of_line[ls] == lay.para_of_line[lo] else "other_para")
    origins = p.origin.split("+")
    f += _between_names(lay, typed, s, o, first, second, memo)
    f += _places(lay, typed, p, ss, so, memo)
    clause = []
    if ss == so or "wrapped" in origins:
        f += _between(lay, first, second)
        clause = _clause(lay, span_root(lay, sc.start, sc.end), span_root(lay, oc.start, oc.end))
        f += clause
    else:
        f += _cross_sentence(lay, ss, so, lo, oc.start_char, memo)
    ogov, oscope = _end_gov(lay, typed, heads[p.o], "o_", memo), _scope(lay, typed, heads[p.o], memo)
    og = ogov + oscope
    sg = _end_gov(lay, typed, heads[p.s], "s_", memo)
    f += sg + og
    if ss != so:  # what governs the object, by how the pair was found: "It relies on X" after the paragraph's method
        classes = sorted({x.split("=", 1)[1] for x in filter(_IS_OBJECT_CLASS, og)})
        f += [f"x_{origin}_{c}" for origin in origins for c in classes or ("none",)]
    cmp = _compared(lay, typed, heads[p.s], "s_", memo)  # of the object "than X" says outperforms too often
    f += cmp
    kin = _kinship(lay, typed, p.s, p.o, memo)
    f += kin
    # who the object's clause is said of, read apart for a subject in the object's sentence and one outside it
    # ("It was applied to X and evaluated on Z": Z is said of the paragraph's method, not of X)
    subj = [x + ("|same" if ss == so else "|cross") for x in subject_features(lay, typed, p.s, p.o, heads, memo)]
    f += subj
    if heads[p.o] != p.o:
        f.append("o_listed")
    if heads[p.s] != p.s:
        f.append("s_listed")
    # only these lists hold features of _CROSSED's kinds: not every feature is read again
    pair_classes = f"{s.cls}>{o.cls}|"
    f += [pair_classes + x for x in filter(_IS_CROSSED, clause)]
    for part in (sg, ogov, oscope):
        f += _crossed(part, pair_classes, memo)
    f += [pair_classes + x for x in filter(_IS_CROSSED, kin)]
    for part in (se, oe, cmp):
        f += _crossed(part, pair_classes, memo)
    f += [pair_classes + x for x in filter(_IS_CROSSED, subj)]
    return f


def _crossed(part: list[str], pair_classes: str, memo: dict) -> list[str]:
    """The features of ``_CROSSED``'s kinds among a list an end's memo holds (``part``: alive as long as ``memo``),
    read with the pair's classes: once per list and pair of classes, not per pair."""
    key = ("crossed", id(part), pair_classes)
    got = memo.get(key)
    if got is None:
        got = memo[key] = [pair_classes + x for x in filter(_IS_CROSSED, part)]
    return got


def _cross_sentence(lay: Layout, ss: int, so: int, lo: int, o_char: int, memo: dict) -> list[str]:
    """What a pair across sentences reads of where its ends stand: the object's sentence's first word, the cues
    on the object's line before it and those in the subject's sentence (once per subject sentence and object
    position: an end is in many pairs)."""
    key = ("cross", ss, so, o_char)
    got = memo.get(key)
    if got is None:
        got = ["cross_sent", f"o_sent_first={_opening(lay, lay.sent_starts[so])}"]
        got += _cues_in(lay, lay.line_starts[lo], o_char, "cue_oline=")
        a = lay.sent_starts[ss]
        b = lay.sent_starts[ss + 1] if ss + 1 < len(lay.sent_starts) else len(lay.idx)
        got = memo[key] = got + _cues_in(lay, lay.idx[a], lay.idx[b - 1], "cue_ssent=")
    return got


def _between_names(lay: Layout, typed: list[Typed], s: Typed, o: Typed, first: MentionCandidate,
                   second: MentionCandidate, memo: dict) -> list[str]:
    """How many other names of the subject's class and of the object's stand between a pair's two ends: a method
    named between the two is the nearer candidate for what the object is said of ("X ... . Y, trained on Z, ...")."""
    starts = memo.get("starts")
    if starts is None:
        by_cls: dict[str, list[int]] = defaultdict(list)
        for t in typed:
            by_cls[t.cls].append(t.cand.start_char)
        starts = memo["starts"] = {c: sorted(v) for c, v in by_cls.items()}
    f = []
    for tag, cls in (("s", s.cls), ("o", o.cls)):
        xs = starts.get(cls, [])
        n = bisect_left(xs, second.start_char) - bisect_left(xs, first.end_char)
        f.append(f"bn_{tag}={_bucket(n)}")
    return f


def _places(lay: Layout, typed: list[Typed], p: PairCandidate, ss: int, so: int, memo: dict) -> list[str]:
    """Where the two ends stand in the document (``pairs.doc_roles``: how many names of its class the document
    gives, whether it is the one named most, whether it stands on the title line), the object's read with the
    pair's classes too ("the one venue of the document" says presentedAt of a paper, not demoedAt of a method); and
    for two ends in different sentences, how many sentences and paragraph breaks apart they stand, and whether the
    object's sentence names another name of the subject's class (its own subject, nearer than this one: "X ... .
    Y runs on Z") or the subject's another of the object's class."""
    roles = memo.get("roles")
    if roles is None:
        roles = memo["roles"] = doc_roles(lay, typed)
        memo["sent_classes"] = sent_classes = defaultdict(Counter)
        for m in typed:
            sent_classes[lay.sent_of(m.cand.start)][m.cls] += 1
    s, o = typed[p.s], typed[p.o]
    f = _roles(roles, p.s, "s_", memo) + _roles(roles, p.o, "o_", memo) + _roles(roles, p.o, f"{s.cls}>{o.cls}|o_", memo)
    if ss != so:
        ps = lay.para_of_line[lay.token_line[s.cand.start]]
        po = lay.para_of_line[lay.token_line[o.cand.start]]
        gap = abs(ps - po)
        f += [f"sent_gap={_bucket(abs(ss - so))}", f"para_gap={gap if gap < 2 else '2+'}"]
        same = s.cls == o.cls
        if memo["sent_classes"][so][s.cls] - same > 0:
            f.append("o_sent_rival")
        if memo["sent_classes"][ss][o.cls] - same > 0:
            f.append("s_sent_rival")
    return f


def _roles(roles: list, k: int, tag: str, memo: dict) -> list[str]:
    """The roles of the end ``k`` in its document (``pairs.doc_roles``), ``tag`` first: once per end and tag."""
    key = ("roles", k, tag)
    got = memo.get(key)
    if got is None:
        got = memo[key] = [tag + x for x in roles[k]]
    return got


def _compared(lay: Layout, typed: list[Typed], k: int, tag: str, memo: dict) -> list[str]:
    """Whether an end (the first of its list) is named as what something is compared against ("3.5x faster than A,
    B and C", "improves upon A"): a baseline, not the method a sentence's evaluation or parts are about. Read of the
    subject only: of the object it raised outperforms for "priced higher than X" (tests/test_nlp_layouts.py)."""
    key = (k, tag, "cmp")
    got = memo.get(key)
    if got is None:
        c = typed[k].cand
        a = lay.line_starts[lay.token_line[c.start]]
        got = memo[key] = [f"{tag}compared"] if compared_against(lay.text, a, c.start_char) else []
    return got


_CROSSED = ("csubj=", "s_compared", "o_scope=", "o_gov_class=", "s_gov_class=", "lca_class=", "o_np_class=", "kin=", "s_prev=", "s_next=", "s_hyphen=",
            "o_prev=", "o_next=", "o_hyphen=")
"""The features also read with the pair's classes: one logistic output per property cannot tell "built on" between
two methods (uses, or extends when one name holds the other) from "built on" of a paper's method unless a feature
joins the two; nor "a LoRA-based method" (uses) from "a LoRA-based paper"."""
_IS_CROSSED = _Prefixed(_CROSSED).__getitem__
_IS_OBJECT_CLASS = _Prefixed(("o_gov_class=", "o_np_class=")).__getitem__


_ALNUM = re.compile(r"[^a-z0-9]+")


def _name_parts(lay: Layout, typed: list[Typed], k: int, memo: dict) -> tuple[str, frozenset[str]]:
    """A name's letters and digits run together, and its words of three characters or more (memoised per end)."""
    key = (k, "name")
    got = memo.get(key)
    if got is None:
        c = typed[k].cand
        words = _ALNUM.sub(" ", (c.canonical or lay.text[c.start_char:c.end_char]).lower()).split()
        got = memo[key] = ("".join(words), frozenset(w for w in words if len(w) >= 3 and not w.isdigit()))
    return got


def _kinship(lay: Layout, typed: list[Typed], s: int, o: int, memo: dict) -> list[str]:
    """Whether one name is built from the other ("SDXL Turbo" and "SDXL", "DINOv2" and "DINO", "Distil-Whisper" and
    "Whisper large-v2"): a successor or variant of what it names, not a tool it is built with; and a paper whose
    title opens with the name before its colon (``kin=title_prefix``: ``_opens_title``)."""
    ja, wa = _name_parts(lay, typed, s, memo)
    jb, wb = _name_parts(lay, typed, o, memo)
    if not ja or not jb:
        return []
    if ja == jb:
        return ["kin=same"]
    if len(jb) >= 3 and jb in ja:
        if not (ja.startswith(jb) and _opens_title(lay, typed, s, o)):
            return ["kin=s_holds_o"]
        c = typed[o].cand
        plain = _plain_words(c.canonical or lay.text[c.start_char:c.end_char])
        return ["kin=s_holds_o", "kin=title_prefix"] + (["kin=title_prefix_plain"] if plain else [])
    if len(ja) >= 3 and ja in jb:
        return ["kin=o_holds_s"]
    return ["kin=word"] if wa & wb else []


_PREFIX_END = re.compile(r"\s*(?::|\s[-–—]\s)")


def _opens_title(lay: Layout, typed: list[Typed], s: int, o: int) -> bool:
    """Whether ``s`` is a paper whose title opens with the name ``o`` before its colon or a dash ("Magellan:
    Autonomous Discovery of ..." and Magellan): the name the paper introduces, most often (``kin=title_prefix``).
    A title in capitals is a heading's typography ("APPLE: THE QUIET INCUMBENT"): none."""
    if typed[s].cls != "Paper":
        return False
    sc, oc = typed[s].cand, typed[o].cand
    title = (sc.canonical or lay.text[sc.start_char:sc.end_char]).lstrip("\"“'‘ ")
    if not any(map(str.islower, title)):
        return False
    for name in {oc.canonical, lay.text[oc.start_char:oc.end_char]} - {""}:
        if title.startswith(name) and _PREFIX_END.match(title, len(name)):
            return True
    return False


def _plain_words(name: str) -> bool:
    """Whether a name is two words or more, each a dictionary word with no digit ("Hyena Hierarchy", "Snap Video"):
    a title's prefix of that shape names what the paper introduces about as often as not (36 against 38 in the
    trained sets' gold; one with a coined word or a digit 44 against 13), ``kin=title_prefix_plain``."""
    words = name.split()
    return len(words) > 1 and not any(map(str.isdigit, name)) \
        and all(word_kind(r)[1] in ("word", "plural") for w in words for r in letter_runs(w))


def _clause(lay: Layout, a: int, b: int) -> list[str]:
    """The dependency path between two tokens of one sentence, the word where the two paths meet, its relation
    classes, and how each end hangs from it ("X combines Y with Z": X its subject, Z through "with")."""
    up, down = _path(lay, a, b)
    if up[-1] != down[-1]:
        return ["no_path"]  # two parse trees: a sentence wrapped over a line break
    words, deps = lay.words, lay.deps
    top = words[up[-1]]
    f = [f"lca={top}", f"path_len={_bucket(len(up) + len(down) - 2)}"]
    if len(up) + len(down) <= 8:
        f.append("path=" + "^".join(deps[t] for t in up[:-1]) + "|" + top + "|" + "v".join(deps[t] for t in reversed(down[:-1])))
    s_role = deps[up[-2]] if len(up) > 1 else "top"
    o_role = deps[down[-2]] if len(down) > 1 else "top"
    if o_role in {"prep", "agent"}:
        o_role = "prep_" + words[down[-2]]
    f.append(f"roles={s_role}>{o_role}")
    for c in verb_classes(top):
        f += [f"lca_class={c}", f"lca_roles={c}_{s_role}>{o_role}"]
    return f


def _opening(lay: Layout, t: int) -> str:
    """A sentence's first word as a feature: a function word or anaphor ("the", "it", "its") in lower case, any other
    word as the features see it (a capitalised word, a name among them, only by its shape)."""
    w = lay.texts[t].lower()
    lex = lexicon()
    return w if w in lex["function_words"] or w in lex["anaphors"] else lay.words[t]


def _between(lay: Layout, first: MentionCandidate, second: MentionCandidate) -> list[str]:
    """Distance, the words between two mentions of one sentence, coordination, cues, negation and hedges."""
    gap = second.start - first.end
    f = [f"dist={_bucket(gap)}"]
    texts = lay.texts
    if gap <= 12:
        f += [f"bw={w}" for w in _lower_words(tuple(texts[first.end:second.start]))]
        btext = lay.text[first.end_char:second.start_char].strip()
        if btext in COORDINATORS:
            f.append(f"coord={btext}")
    f += _cues_in(lay, first.end_char, second.start_char, "cue_bw=")
    sent_a = lay.sent_starts[lay.sent_of(first.start)]
    # the scope: up to six words before the first mention, and the words between the two
    a, b, c, d = max(sent_a, first.start - 6), first.start, first.end, second.start
    negs, hedges = _counts(lay)
    if negs[b] - negs[a] + (negs[d] - negs[c] if d > c else 0):
        f.append("neg")
    if hedges[b] - hedges[a] + (hedges[d] - hedges[c] if d > c else 0):
        f.append("hedge")
    return f


_SCOPE_WINDOW = 12
"""How many tokens before an object :func:`_scope` reads for the cue whose scope it falls in."""


@lru_cache(maxsize=1 << 14)
def scope_class(word: str) -> str | None:
    """The class of cue (``scope_cues`` of ``features.json``: train, evaluate, run) a lower-case word starts, a stem
    of three characters or fewer only as the whole word ("ran", not "random")."""
    for cls, stems in lexicon()["scope_cues"].items():
        if not cls.startswith("_") and any(word == s or len(s) > 3 and word.startswith(s) for s in stems):
            return cls
    return None


def _scope(lay: Layout, typed: list[Typed], k: int, memo: dict) -> list[str]:
    """What the object ``k`` (the first of its list) is said in the scope of, read for a pair found in its sentence
    or across sentences alike: the class of the nearest cue before it in its sentence ("pretrained on X": train, "and
    evaluated on X": evaluate, "deployed on X": run), and a negation close before it or a hedge anywhere in its
    sentence ("It does not run on a GPU", "A port to X would be a natural next step"). Memoised per end."""
    key = (k, "scope")
    got = memo.get(key)
    if got is None:
        c = typed[k].cand
        si = lay.sent_of(c.start)
        a = lay.sent_starts[si]
        b = lay.sent_starts[si + 1] if si + 1 < len(lay.sent_starts) else len(lay.texts)
        got = []
        for t in range(c.start - 1, max(a, c.start - _SCOPE_WINDOW) - 1, -1):
            if lay.texts[t] == ";":
                break
            cls = scope_class(lay.texts[t].lower())
            if cls is not None:
                got.append(f"o_scope={cls}")
                break
        negs, hedges = _counts(lay)
        if negs[c.start] - negs[max(a, c.start - _SCOPE_WINDOW)]:
            got.append("o_neg_before")
        if hedges[b] - hedges[a]:
            got.append("o_hedged_sent")
        memo[key] = got
    return got


def _counts(lay: Layout) -> tuple[list[int], list[int]]:
    """How many negation and hedge words stand before each token (prefix sums, once per document)."""
    if lay.counts is None:
        lex = lexicon()
        words = [t.lower() for t in lay.texts]
        lay.counts = (list(accumulate(map(lex["negation"].__contains__, words), initial=0)),
                      list(accumulate(map(lex["hedges"].__contains__, words), initial=0)))
    return lay.counts
