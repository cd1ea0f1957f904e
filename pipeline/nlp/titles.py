"""Paper titles: after presentation cues, in apposition, set off by emphasis or quotes, on lines of their own, labelled."""

from __future__ import annotations

import re
from functools import lru_cache

from .organizations import opens_with_organization
from .people import PERSON, opens_with_people
from .rules import Found, load_rules, scan_title
from .softwraps import soft_breaks
from .text import BULLET, COLUMN_GAP, MONTHS, prefiltered
from .text import line_end as _line_end

_CUES = load_rules().cue_patterns["titles"]

__all__ = ["paper_titles", "title_like", "is_label", "ENUMERATOR", "TIME_OF_DAY"]


_TITLE_CUE = prefiltered(re.compile(_CUES["title_cue"]))
# what the sentence rules look for, compiled once (most sentences hold none of their words: Prefiltered)
_IN = re.compile(r"\b[Ii]n\s+(?=[A-Z0-9])")
_THE_PAPER = re.compile(_CUES["the_paper"])
_QUESTION_BEFORE = re.compile(r"[ \t]*((?:[A-Z0-9][^.!?\n]{2,100})\?)[ \t]*")
_APPOSITION = re.compile(_CUES["apposition"])
_SUBJECT_VERB = re.compile(_CUES["subject_verb"])
_OUR_PAPER = prefiltered(re.compile(_CUES["our_paper"]))
_COLON = prefiltered(re.compile(r"(?:[a-z]{3,}):\s+(?=[A-Z])"), shortest=1)
_PRESENTING = re.compile(_CUES["presenting"])
_TITLED = prefiltered(re.compile(_CUES["titled"]))
_PAPER_LINE = re.compile(_CUES["paper_line"], re.I)
"""A line that speaks of a paper: a title set off by emphasis or quotes on it is one."""
_NOT_A_TITLE_LABEL = re.compile(_CUES["not_a_title_label"])
_AUTHOR_LINE = re.compile(_CUES["author_line"])
_TITLE_LABEL = re.compile(_CUES["title_label"].replace("{bullet}", BULLET))
_AUTHOR_PARENTHESIS = re.compile(_CUES["author_parenthesis"])
"""A list of two or more people's names in parentheses that closes a title's line."""
TIME_OF_DAY = r"\d{1,2}[:.]\d{2}(?:[ \t]*[-–][ \t]*\d{1,2}[:.]\d{2})?"
"""A time of day, or a span of two ("10:30", "9:00-9:45", "14.20 – 15.00"): what opens a programme's line."""
_OPENING = r"(?:[A-Z0-9]|[a-z]{1,4}[A-Z]|[a-z][a-z-]*\d)"
"""What a title opens with: a capital or a digit, or a name written in lower case with a capital or a digit early in it
("iPhone", "nnU-Net", "emotion2vec: ...", "wav2vec 2.0: ...")."""
_TITLE_LINE = re.compile(r"(?m)^[ \t]*(?:(?:(?:\d{1,3}[.)]|" + BULLET + r"|" + _CUES["line_marker"] + r"|" + _CUES["code_marker"]
                         + r")[ \t]+){1,2}[“\"]?"
                         r"|" + TIME_OF_DAY + r"[ \t]+(?:[A-Z][a-z]+:[ \t]+)?)?"
                         r"((?:\[|" + _OPENING + r")[^\n]{8,220}?)(?:[ \t]+" + BULLET + r")?[ \t]*$")
"""A title on a line of its own, perhaps as a list item ("1.", "-", ">", "[1]", "(A)", "#3", "[ICML 2023]", a
programme's code before a column gap: "C1  Name"), or in
a programme's slot after a time of day and a one-word label ("11:00  Oral: Name: Subtitle"); a marker that closes the
line as it opened it ("~~ Title ~~") is no part of the title."""
_TRAILING_TAG = re.compile(_CUES["trailing_tag"])
_IDENTIFIER_TAG = re.compile(_CUES["identifier_tag"])
ENUMERATOR = re.compile(_CUES["enumerator"])
"""What opens a title's line before the title and is no part of it ("B.1 ", "Pick 3 · ", "Poster - ", "Held: ")."""
_PRESENTATION_LABEL = re.compile(_CUES["presentation_label"])
_TIME_SLOT = re.compile(TIME_OF_DAY + r"[ \t]*[-–—|·][ \t]+(?=\S)")
"""A time of day, or a span of two, and a dash or bar before a programme's item ("14:20 - ", "9:00–9:45 | ")."""


_ITEM_LABEL = re.compile(_CUES["item_label"], re.I)
"""What labels a programme's item or a form's field, not names it ("Demo", "Tutorial", "Keynote", "Project")."""


def is_label(word: str) -> bool:
    """Whether a word before a colon labels a line or an item rather than naming one ("Abstract: ", "Speaker: ",
    "Demo: ", "Project: "): a field label that opens no title (``not_a_title_label``) or an item's (``item_label``)."""
    return bool(_NOT_A_TITLE_LABEL.match(word + ":") or _ITEM_LABEL.fullmatch(word))


class _Titles:
    """The titles found in one text, and the checks every one of them passes (kept by :meth:`add`)."""

    def __init__(self, text: str, rules) -> None:
        self.text, self.rules, self.out = text, rules, []
        self.fw = rules.function_words
        self.soft = frozenset(soft_breaks(text))
        self.confs = frozenset(rules.conf_acronyms)

    def add(self, a: int, b: int, rule: str, need_colon: bool = False, min_caps: int = 2, labelled: bool = False) -> None:
        """Keep the title at ``[a, b)`` (its quotes dropped) if it has three words, ``min_caps`` capitalised (two
        unless a label says it is a title), and opens with none of the words that open sentences ("This", "We",
        "In") or an organization. With ``labelled`` or after a time of day, a line's label before it is no part of it
        (``_after_label``)."""
        text, rules, out = self.text, self.rules, self.out
        while a < b and text[a] in "“”\"":  # the quotes around a title are not part of it
            a += 1
        while b > a and text[b - 1] in "“”\"":
            b -= 1
        while b > a and text[b - 1] in ",;":  # a comma the quotes close over ("The paper, \"Name: Subtitle,\" was")
            b -= 1
        enumerator = ENUMERATOR.match(text, a, b)  # "B.1 Name: Subtitle", "Pick 3 · Name: ...", "Poster - Name: ..."
        if enumerator:
            a = enumerator.end()
            while a < b and text[a] in "“\"":
                a += 1
        slot = _TIME_SLOT.match(text, a, b)  # a programme's time of day opens no title ("14:20 - Name: Subtitle")
        if slot:
            a = slot.end()
        if (labelled or slot) and (after := _after_label(text[a:b], a))[0] + len(after[1]) == b:
            a = after[0]  # "10:15 — Talk 1: Name: Subtitle" (a label's quoted title is no span of its own here)
        title = " ".join(text[a:b].split())  # a title wrapped onto a second line is one line
        if need_colon and ":" not in title:
            return
        words = title.split()
        caps = sum(1 for w in words if w[0].isupper())
        if len(words) < 3 or caps < min_caps:
            return
        first = words[0].rstrip(":,")
        if first in rules.organizations or first in {"This", "These", "Our", "We", "It", "At", "In"}:
            return
        out.append(Found(a, b, "Paper", title, (), rule))


def paper_titles(text: str, sentences, rules) -> list[Found]:
    """Paper titles after presentation cues, after "In"/"The paper," and before ", a new ... paper"; set off by
    emphasis or quotes; on lines of their own; labelled."""
    t = _Titles(text, rules)
    _titles_in_sentences(t, sentences)
    _titles_on_lines(t)
    _titles_in_entries(t)
    if "|" in text:
        _titles_in_columns(t)
    return t.out


_TABLE_HEAD = re.compile(r"(?m)^[ \t]*(\|[^\n]*\|)[ \t]*\n[ \t]*\|[ \t]*:?-{3,}[-:| \t]*\|?[ \t]*$")
"""A pipe table's header line, before its line of dashes."""
_TITLE_COLUMN = re.compile(_CUES["title_column"], re.I)


def _titles_in_columns(t: _Titles) -> None:
    """The cells of a pipe table's column headed "paper" or "title": each a paper's title, in title or sentence
    case ("| 2015 | DeepMind | Human-level control through deep reinforcement learning | ... |")."""
    text = t.text
    for m in _TABLE_HEAD.finditer(text):
        heads = [h.strip() for h in m.group(1).strip("|").split("|")]
        cols = [k for k, h in enumerate(heads) if _TITLE_COLUMN.fullmatch(h)]
        if len(cols) != 1:
            continue
        pos = m.end()  # the newline after the line of dashes; each row's line follows one
        while pos < len(text) and text[pos] == "\n":
            start, end = pos + 1, _line_end(text, pos + 1)
            if not text[start:end].lstrip(" \t").startswith("|"):
                break
            a, b = _cell(text, start, end, cols[0])
            if b > a and _SENTENCE_CASE_TITLE.fullmatch(text[a:b]):
                t.add(a, b, "paper.table_title", min_caps=1)
            pos = end


def _cell(text: str, a: int, b: int, k: int) -> tuple[int, int]:
    """The offsets of the ``k``-th cell of the pipe-table row ``text[a:b]``, without the spaces around it."""
    bars = [i for i in range(a, b) if text[i] == "|"]
    if len(bars) < k + 2:
        return a, a
    x, y = bars[k] + 1, bars[k + 1]
    while x < y and text[x] in " \t":
        x += 1
    while y > x and text[y - 1] in " \t":
        y -= 1
    return x, y


def _titles_in_sentences(t: _Titles, sentences) -> None:
    """Titles read sentence by sentence, after their cues."""
    text, fw, confs, add = t.text, t.fw, t.confs, t.add
    prev_start = 0
    for s_start, s_end in sentences:
        sent = text[s_start:s_end]
        for m in _TITLE_CUE.finditer(sent):
            span = scan_title(text, s_start + m.end(), fw, min_words=3, fail_words=confs)
            if span:  # a title may run past a sentence boundary the parser put inside it
                add(*span, "paper.present_title")
        for m in _IN.finditer(sent):
            span = scan_title(text, s_start + m.end(), fw, min_words=3, fail_words=confs)
            if span and text[span[1]:span[1] + 1] == ",":
                add(*span, "paper.in_title", need_colon=True)
        m = _THE_PAPER.match(sent)
        if m:
            span = scan_title(text, s_start + m.end(), fw, min_words=3)
            if span:
                add(*span, "paper.the_paper_title")
        span = scan_title(text, s_start, fw, min_words=3, fail_words=confs)
        if span:
            # the parser ends a sentence at a question mark: "Where Did I Leave It? Long-Horizon Memory for X, a
            # paper ..." starts with the question before it on the same line
            q = _QUESTION_BEFORE.fullmatch(text[prev_start:s_start])
            if q and title_like(q.group(1), fw):
                span = (prev_start + q.start(1), span[1])
        if span and _APPOSITION.match(text[span[1]:s_end]):
            add(*span, "paper.title_apposition")
        elif span and ":" in text[span[0]:span[1]] and _SUBJECT_VERB.match(text[span[1]:s_end]):
            add(*span, "paper.title_subject")
        for m in _OUR_PAPER.finditer(sent):
            span = scan_title(text, s_start + m.end(), fw, min_words=3, fail_words=confs)
            if span:
                add(*span, "paper.our_paper_title")
        for m in _COLON.finditer(sent):
            before = sent[: m.start()]
            if _PRESENTING.search(before):
                span = scan_title(text, s_start + m.end(), fw, min_words=4)
                if span and span[1] <= s_end:
                    add(*span, "paper.colon_title")
        for m in _TITLED.finditer(sent):
            span = scan_title(text, s_start + m.end(), fw, min_words=2)
            if span:
                add(*span, "paper.titled")
        prev_start = s_start


def _titles_on_lines(t: _Titles) -> None:
    """Titles set off by emphasis or quotes, on lines of their own (perhaps list items), labelled "Title:"."""
    text, fw, out, add = t.text, t.fw, t.out, t.add
    # a title set off by emphasis or quotes in a sentence about a paper: "Our oral is *Name: Subtitle*" (perhaps
    # wrapped onto an indented next line); in quotes, a title "Name: Subtitle" needs no such sentence
    for m in _EMPHASISED.finditer(text):
        line = text[text.rfind("\n", 0, m.start()) + 1:text.find("\n", m.end()) if "\n" in text[m.end():] else len(text)]
        if (_PAPER_LINE.search(line) or (m.group(0)[0] in "“\"" and _NAMED_TITLE.match(m.group(1)))) \
                and title_like(m.group(1), fw):
            add(m.start(1), m.end(1), "paper.emphasised_title", labelled=m.group(0)[0] not in "“\"")
        elif m.group(0)[0] in "“\"" and _quoted_title(text, m, line):
            add(m.start(1), m.end(1), "paper.emphasised_title", min_caps=1)
    # a title on a line of its own, perhaps as a list item: with a colon or a question mark, or followed by
    # an "Authors:" line ("1. Name: Subtitle", "-- Where Does the Gripper Look? ...", "Paperweight: ...")
    # (after a time of day and a one-word label: "11:00  Oral: Name: Subtitle" in a programme)
    for m in _TITLE_LINE.finditer(text):
        title = m.group(1)
        if _NOT_A_TITLE_LABEL.match(title) or _PART_LABEL.match(title):
            continue
        start, title = _after_label(title, m.start(1))
        start, title = _untagged(start, title)
        start, title = _after_field_label(text, start, title)
        if not title:
            continue
        authors = _AUTHOR_PARENTHESIS.search(title)  # "Name: Subtitle (Ann Lee, Bo Chan)": the names are no part of it
        if authors:
            title = title[:authors.start()]
        gap = COLUMN_GAP.search(title)  # "Name: Subtitle  [Preprint]": a column gap ends the title
        if gap:
            title = title[:gap.start()]
        end = start + len(title)
        if end == m.end(1) and title and not title.endswith((".", ",", ";", ":")):
            end = _soft_end(text, end, t.soft, t.rules) or _continued_end(text, start, end, t.rules) \
                or _wrapped_end(text, m.start(1), end, t.rules)
        if _continues_above(text, m.start()):
            continue  # "    Convolutional Recurrent Neural Networks": the second line of a title wrapped under itself
        after = end if end > m.end(1) else m.end()  # the line after the title (its second, if it wraps)
        nxt = text[after:after + 200].lstrip("\n").lstrip()
        if not title or title.endswith((".", ",", ";")) or "|" in title or " -- " in title or opens_with_people(title) \
                or _field_value(title) or re.search(r"[“”\"]", title.strip("“”\"")):  # a sentence that quotes one
            continue
        quoted = start > 0 and text[start - 1] in "“\""  # after a label: "Related reading: \"Name of a Paper\""
        if not (quoted or _TITLE_MARK.search(title) or _AUTHOR_LINE.match(nxt) or opens_with_people(nxt.split("\n", 1)[0])
                or _PRESENTATION_LABEL.search(text, m.start(), m.start(1))):
            continue
        if re.match(_CUES["dated_line"].replace("{months}", "|".join(MONTHS)), nxt.split("\n", 1)[0]):
            continue  # a dated line follows the headline of the post itself, not a paper's title
        if title_like(title, fw):
            add(start, end, "paper.title_line")
        elif _SENTENCE_CASE_TITLE.fullmatch(title) and "(" not in title and opens_with_people(nxt.split("\n", 1)[0]):
            # "[1] A study of x\nAnn Lee, Bo Chan": its authors' names, not a byline ("By our staff writer")
            add(start, end, "paper.title_line_sentence_case", min_caps=1)
    # a title on a line of its own with no colon, question mark or author line: a title-case line opening a
    # paragraph that reads as that paper's abstract or teaser. Section headings ("Estimating Depth from an
    # Image") open paragraphs too, but theirs present other papers by their titles ("researchers will
    # present X: Y"), so a paragraph that names a title or has researchers present one opens no title.
    for m in re.finditer(r"(?m)^[ \t]*((?:[A-Z0-9]|[a-z]{1,4}[A-Z])[^\n]{8,220}?)[ \t]*\n", text):
        title = m.group(1)
        if title.endswith((".", ",", ";", ":")) or "|" in title or len(title.split()) < 4 or not title_like(title, fw) \
                or any(f.start == m.start(1) for f in out) or re.match(r"[\w ]{1,20}:", title) or opens_with_people(title):
            continue
        para_end = text.find("\n", m.end())
        para = text[m.end():para_end if para_end >= 0 else len(text)]
        if len(para) < 150 or any(m.end() <= f.start < m.end() + len(para) for f in out):
            continue
        tail = text[m.end() + len(para):m.end() + len(para) + 300]  # a venue or "Authors:" line may follow
        block = para + "\n".join(line for line in tail.split("\n")[:3] if len(line) < 200)
        if _HEADING_PARAGRAPH.search(para) or not _ABSTRACT_SIGNAL.search(block):
            continue
        add(m.start(1), m.end(1), "paper.title_line_abstract")
    # a labelled title ("Title: Name: Subtitle", "paper: \"Name\" (Venue Year)", "title = {Name},"): one labelled
    # "title" may be in sentence case (a BibTeX entry's), one labelled "paper" or "journal version" reads as a title
    for m in _TITLE_LABEL.finditer(text):
        titled = bool(m.group(1)) or m.group(2).lower() == "title"
        if titled or title_like(m.group(3), fw):
            end = m.end(3)
            authors = _AUTHOR_PARENTHESIS.search(text, m.start(3), end)  # "Paper: Name: Subtitle (Ann Lee, Bo Chan)"
            if authors:
                end = authors.start()
            elif text[end:end + 1] in ("\n", "") or _SPACES_TO_EOL.match(text, end):
                end = _hanging_end(text, m.start(3), end, t.rules)
            add(m.start(3), end, "paper.labelled_title", min_caps=1 if titled else 2)
    # a list item "• Title (Venue Year) — teaser"
    for m in re.finditer(r"(?m)^[ \t]*(?:\d{1,3}[.)]|" + BULLET + r")[ \t]+(" + _OPENING + r"[^\n()]{8,220}?)[ \t]*"
                         r"\([^()\n]*(?:19|20)\d{2}[^()\n]*\)[ \t]*(?:[—–:-]|$)", text):
        if title_like(m.group(1), fw) and not _TITLE_LABEL.match(text, m.start()):
            add(m.start(1), m.end(1), "paper.list_item_title")


_EMPHASISED = re.compile(r"(?<![*\w])(?:\*\*?|__?|[“\"])(" + _OPENING + r"(?:[^*_“”\"\n]|\n[ \t]*(?=[^\s*_“”\"])){8,200}?)"
                         r"(?:\*\*?|__?|[”\"])(?![*\w])")
"""A title set off by emphasis or quotes, perhaps wrapped onto the next line."""
_NAMED_TITLE = re.compile(_OPENING + r"[\w.+-]*(?:[ \t]+v?\d[\w.]*)?(?::|[ \t]+[—–])\s+\S+(?:\s+\S+){2,}")
"""A title that names what it is about, in one word (and a version), and then says it ("Name 2: Three Words Or More",
"Name — Three Words Or More")."""
_WRAP = re.compile(r"\n[ \t]+(\S[^\n]{0,60}?)[ \t]*(?=\n|$)")
WRAP_LINE_CHARS = 45
"""The shortest line a title wraps from onto the next: a short one ends where the writer ended it (also where
``wraps.wrap_features`` looks for a wrap: on the trained sets' out-of-fold graphs, 15 of the 24 false papers that are
a gold title's part or whole with something more were cut at a wrap from a line of 60 characters or more)."""
_FIELD_DATE = re.compile(r"\b(?:" + "|".join(sorted(MONTHS)) + r")\.?\s+(?:\d{1,2}(?:st|nd|rd|th)?\b|(?:19|20)\d{2}\b)")


_TITLE_MARK = re.compile(r"\?|(?<!\d):|:(?!\d)")
"""What sets a line off as a title: a question mark or a colon, but not a clock time's ("Requester — Priya S.,
2 Dec 2022 08:41" is a message's header)."""
_SENTENCE_CASE_TITLE = re.compile(_CUES["sentence_case_title"])
_QUOTE_LABEL = re.compile(_CUES["quote_label"])
_SPEECH = re.compile(_CUES["speech"], re.I)
_PAPER_BEFORE = re.compile(_CUES["paper_before_quote"], re.I)


def _quoted_title(text: str, m: re.Match, line: str) -> bool:
    """Whether a quoted phrase in sentence case ("A graph placement methodology for fast chip design") is a title:
    after a label ("Reading: \"...\""), on a line of its own before an authors' or affiliations' line, or after a
    word that says a paper is named ("The journal version, ") on a line that quotes nobody."""
    if not _SENTENCE_CASE_TITLE.fullmatch(m.group(1)):
        return False
    line_start = text.rfind("\n", 0, m.start()) + 1
    if _QUOTE_LABEL.search(text, line_start, m.start()):
        return True
    nxt = text[m.end():m.end() + 200].lstrip(" \t")
    if nxt.startswith("\n") and not text[line_start:m.start()].strip() and _AUTHOR_LINE.match(nxt.lstrip()):
        return True
    return bool(_PAPER_BEFORE.search(text, line_start, m.start())) and not _SPEECH.search(line)


def _wrapped_end(text: str, line_start: int, end: int, rules) -> int:
    """Where a title on a line of its own ends when it wraps: a long line (``WRAP_LINE_CHARS``) and up to five title
    words on an indented next line that is no list of people ("SPLADE v2: Sparse Lexical and Expansion Model for
    Information\n    Retrieval"). A next line that could be one person's name ("Ann Lee") continues it only after a
    function word or when it closes with a head noun ("... Benchmark for Large\n  Language Models")."""
    m = _WRAP.match(text, end)
    if not m or end - line_start < WRAP_LINE_CHARS:
        return end
    words = m.group(1).split()
    fw = rules.function_words
    if len(words) > 5 or re.search(r"[,;.:·|]$|[·|:]", m.group(1)) or opens_with_people(m.group(1)) \
            or not all(w[:1].isupper() or w[:1].isdigit() or w in fw for w in words):
        return end
    last_before = text[line_start:end].split()[-1]
    heads = rules.method_heads | rules.dataset_heads
    if re.fullmatch(PERSON, m.group(1)) and last_before not in fw and not last_before.endswith("-") \
            and words[-1].lower() not in heads:
        return end
    return m.end(1)


_HANG = re.compile(r"[ \t]*\n([ \t]+)(\S[^\n]{0,80}?)[ \t]*(?=\n|$)")
_HANG_LINES = 2
"""How many lines a title wraps onto under itself at most (three lines of a programme's or a catalogue's column)."""
_HANG_WORDS = 10
"""The most words a line a title wraps onto under itself holds (a wrap from a long line: "    Domains for Sound Event
Localization and Detection", seven)."""
_SPACES_TO_EOL = re.compile(r"[ \t]*(?:\n|$)")
_CLOSING_QUOTE = re.compile(r"[ \t]*\n[ \t]*([^\n\"“”]{1,80}?)[\"”]")


_GOES_ON_TO = re.compile(r"[ \t]+[(\[]|[ \t]+[–—-][ \t]|[.;,](?:[ \t]|$)|[ \t]{2,}|[ \t]*$")
"""Where the rest of a title wrapped onto the next line ends: before a bracket, a dash between spaces, a column gap
or the line's end (a full stop, a comma or a semicolon there says the line is no title's rest)."""


def _soft_end(text: str, end: int, soft: frozenset[int], rules) -> int | None:
    """Where a title that ends its line at ``end`` ends when the line is wrapped there (``softwraps``: the text was
    wrapped at a width, and the next word would not have fitted): over the next lines, up to ``_HANG_LINES``, each up
    to a bracket, a dash or a column gap (:data:`_GOES_ON_TO`); None when the line is not wrapped. A next line that
    lists people or names an organization, or goes on after a comma or a full stop, is the entry's next field or a
    sentence of its own ("Accepted at Findings of EMNLP 2023.", "Kestrel keeps few keys."), not the title's rest (a
    title as long as the text's widest line looks wrapped)."""
    got = None
    for _ in range(_HANG_LINES):
        gap = _SPACES_TO_EOL.match(text, end)
        if gap is None or gap.end() - 1 not in soft:
            break
        line_end = _line_end(text, gap.end())
        body = gap.end() + len(text[gap.end():line_end]) - len(text[gap.end():line_end].lstrip())
        stop = _GOES_ON_TO.search(text, body, line_end)
        rest = text[body:line_end]
        if stop.start() <= body or text[stop.start():stop.start() + 1] in {",", ";", "."} or opens_with_people(rest) \
                or opens_with_organization(rest, rules):
            break
        end = got = stop.start()
        if end < line_end and text[end:line_end].strip():
            break  # the title ends within this line
    return got


def _continued_end(text: str, start: int, end: int, rules) -> int | None:
    """Where a title that ends its line ends when it goes on over the next: at the closing quote of a quoted title
    wrapped onto the next line (``- "Name of a Paper for Industrial`` / ``  Data Platforms" - Ann Lee``), or under
    itself (:func:`_hanging_end`); None when it does not go on."""
    if start > 0 and text[start - 1] in "“\"" and not re.search(r"[\"”]", text[start:end]):
        m = _CLOSING_QUOTE.match(text, end)
        if m and _continues(m.group(1), text[start:end], rules, _HANG_WORDS, closed=True):
            return m.end(1)
    got = _hanging_end(text, start, end, rules)
    return got if got > end else None


def _continues(line: str, before: str, rules, most: int, closed: bool = False) -> bool:
    """Whether ``line`` reads as the rest of a title wrapped from ``before``: at most ``most`` words in title case,
    no list of people, byline ("by Ann Lee") nor a field's label, no comma (an affiliations' line: "Princeton Language
    and Intelligence, Princeton University") but before a closing quote, no closing full stop; a line that could be one person's name
    ("Ann Lee") only after a function word, when it closes with a head noun or when a closing quote ends it
    (``closed``)."""
    words = line.split()
    fw = rules.function_words
    if not words or len(words) > most or re.search(r"[,;.:·|]$|[·|]|^[\w ]{1,25}:|\.{3}|^[Bb]y[ \t]", line) \
            or (not closed and "," in line) \
            or opens_with_people(line) or not all(w[:1].isupper() or w[:1].isdigit() or w.lower() in fw for w in words):
        return False
    last_before = before.split()[-1] if before.split() else ""
    heads = rules.method_heads | rules.dataset_heads
    return closed or not (re.fullmatch(PERSON, line) and last_before not in fw and not last_before.endswith("-")
                and words[-1].lower() not in heads)


def _hanging_end(text: str, start: int, end: int, rules) -> int:
    """Where a title that ends its line at ``end`` ends when it wraps under itself: each next line indented to the
    column the title starts at (a hanging indent: "C1  Name of a Paper That Wraps" / "    Under Itself", a
    catalogue's "Title ...... Name" / "<spaces> rest"), at most ``_HANG_LINES``, each the rest of a title
    (:func:`_continues`). The title's line must be long (``WRAP_LINE_CHARS``): a short one ends where it was ended."""
    line_start = text.rfind("\n", 0, start) + 1
    col = len(text[line_start:start].expandtabs(8))
    if end - line_start < WRAP_LINE_CHARS or col < 2:
        return end
    for _ in range(_HANG_LINES):
        m = _HANG.match(text, end)
        if not m or abs(len(m.group(1).expandtabs(8)) - col) > 1 \
                or not _continues(m.group(2), text[start:end], rules, _HANG_WORDS):
            break
        end = m.end(2)
    return end


def _continues_above(text: str, line_start: int) -> bool:
    """Whether the line at ``line_start`` is the second line of a title wrapped under itself: indented to the column
    where the text of a long line above starts after a short code or marker ("C5  Name: Subtitle Wrapped Across" /
    "    Two Lines"), the line above ending in a word, this one no item or label of its own (no colon, no marker)."""
    if line_start < 2:
        return False
    above_start = text.rfind("\n", 0, line_start - 1) + 1
    above = text[above_start:line_start - 1].expandtabs(8)
    here = text[line_start:_line_end(text, line_start)].expandtabs(8)
    col = len(here) - len(here.lstrip())
    return (2 <= col < len(above) and len(above.rstrip()) >= WRAP_LINE_CHARS and above[col - 1] == " "
            and not above[col].isspace() and 0 < len(above[:col].strip()) <= 12 and above.rstrip()[-1].isalnum()
            and ":" not in here and here.lstrip()[:1].isalnum())


def _field_value(title: str) -> bool:
    """Whether a title line is a field's label and value: a date ("Date: Saturday, July 27th, 2024"), people
    ("People:  Ann Lee, Bo Chan")."""
    label = re.match(r"[A-Z][\w ]{0,20}:\s+", title)
    return bool(label) and (bool(_FIELD_DATE.search(title, label.end())) or opens_with_people(title[label.end():]))


_ABSTRACT_SIGNAL = re.compile(_CUES["abstract_signal"])
"""What makes a paragraph an abstract or a teaser of one paper: research prose in the first person plural,
"this paper", a publication cue."""
_HEADING_PARAGRAPH = re.compile(_CUES["heading_paragraph"])
"""What makes it a section's: researchers presenting papers, a number of papers, a "Name: Subtitle" title in its prose."""


def _untagged(start: int, title: str) -> tuple[int, str]:
    """A title line's text without a tag with a year that closes it ("   [Accepted to CVPR 2022]") or an archive's
    identifier ("  CoRR abs/2403.00448", ``identifier_tag``) and without the brackets around it ("[Name: Subtitle]
    (ICLR 2025 oral)"), and where it starts."""
    tag = _TRAILING_TAG.search(title) or _IDENTIFIER_TAG.search(title)
    if tag:
        title = title[:tag.start()].rstrip()
    if title.startswith("[") and title.endswith("]"):
        return start + 1, title[1:-1]
    return start, title


_LABEL = re.compile(r"((?:[A-Za-z][\w-]*[ \t]+){0,2}[A-Za-z][\w-]*)(?:[ \t]+\d{1,3}[a-z]?)?[ \t]*:[ \t]+(?=\S)")
"""A line's label: a word or three, perhaps numbered ("Oral:", "Technical report:", "Talk 4:"), and a colon."""
_QUOTED = re.compile(r"[\"“]([^\"“”\n]{8,220})[\"”]")


def _after_label(title: str, at: int) -> tuple[int, str]:
    """A title line's text after a label of its kind ("Oral: ", "Room: ", "Technical report: ", "Talk 4: "; a word of
    ``line_labels`` in ``features.json``), and where it starts: a title in quotes after the label is the words
    inside them. A line with no such label is returned as it is ("FPTQuant: Function-Preserving ...")."""
    m = _LABEL.match(title)
    words = m.group(1).split() if m else []
    # a label is one word or lower-case after its first ("Technical report:"): "Latent Consistency Models:" is a name
    if not m or not any(w.lower() in _line_labels() for w in words) or (len(words) > 1 and all(w[0].isupper() for w in words)):
        return _labelled_quote(title, at) or (at, title)
    rest = title[m.end():]
    quoted = _QUOTED.match(rest)
    if quoted:
        return at + m.end() + quoted.start(1), quoted.group(1)
    return at + m.end(), rest


_FIELD_LINES = 3
_FIELD_LABEL = re.compile(r"([A-Za-z][\w-]*(?:[ \t]+[\w-]+){0,2})[ \t]*:[ \t]*(?=\S)")
_LEADING_LETTERS = re.compile(r"[^\d \t]+")
"""A label's first characters up to its first digit or white space: written as they are in every line it opens."""


def _after_field_label(text: str, at: int, title: str) -> tuple[int, str]:
    """A title line's text after the label of a record's field, a label that opens three lines or more of the document
    ("Item Type: Preprint", "SUMMARY:Talk - Name: Subtitle" in a calendar export, "Q: What is X?", "Slide 4: X"
    with its number told apart): its value, when that holds a colon of its own (a title "Name: Subtitle"), else
    nothing. A line whose label opens fewer lines is returned as it is ("FPTQuant: Function-Preserving ...", a name
    that opens a title's line and a note's: "Name: results on long inputs")."""
    m = _FIELD_LABEL.match(title)
    if not m or text.count(_LEADING_LETTERS.match(m.group(1)).group(0)) < _FIELD_LINES:
        return at, title  # (each line the label opens holds its first letters: fewer, and no pattern is compiled)
    label = r"[ \t]+".join(re.sub(r"\d+", r"\\d+", re.escape(w)) for w in m.group(1).split())
    opening = re.compile(r"(?m)^[ \t]*(?:[-*•#+>]+[ \t]*|\[?\d{1,3}[.)\]][ \t]*)?" + label + r"[ \t]*:")
    if len(opening.findall(text, 0, len(text))) < _FIELD_LINES:
        return at, title
    rest = title[m.end():]
    return (at + m.end(), rest) if ":" in rest else (at, "")


def _labelled_quote(title: str, at: int) -> tuple[int, str] | None:
    """The title in quotes after any label ("Related reading: \"Name of a Paper\" (Name)"), and where it starts."""
    m = _LABEL.match(title)
    quoted = _QUOTED.match(title, m.end()) if m else None
    return (at + quoted.start(1), quoted.group(1)) if quoted else None


@lru_cache(maxsize=1)
def _line_labels() -> frozenset[str]:
    from .candidates import lexicon  # the words that label a line, read by the features too

    return lexicon()["line_labels"]


_REFERENCE = re.compile(r"(?m)^(?:" + _CUES["reference_authors"] + "|" + _CUES["apa_authors"] + r"|[ \t]{2,}(?=[A-Z0-9]))")
_REFERENCE_TAIL = re.compile(_CUES["reference_tail"])
_TITLE_END = re.compile(r"\.[ \t]+(?=\S)|(?<=\?)[ \t]+(?=[A-Z])|\.?[ \t]*$")
"""Where a title in a reference ends: at a full stop before the venue, after a question mark, at the line's end."""
_ENTRY_TAG = _CUES["entry_tag"]
_TAGGED = re.compile(r"(?m)^[ \t]*(?:" + BULLET + r"[ \t]*)?" + _ENTRY_TAG + r"[ \t]*(?:\n[ \t]*)?(?=[A-Za-z0-9])")
_ENTRY = re.compile(r"(?m)^[ \t]*(?:(?:\d{1,3}[.)]|(?:19|20)\d{2}[ \t]*[—–]|" + BULLET + r")[ \t]+)?(?=[A-Z0-9]|[a-z]{1,4}[A-Z])")
_ENTRY_SEPARATOR = re.compile(_CUES["entry_separator"])
_NUMBERED_LABEL = re.compile(r"[A-Z][a-z]+[ \t]+\d{1,3}[a-z]?[ \t]*[:.]")
"""A numbered part's label that opens a heading ("Session 1: ...", "Slide 4: ...", "Lecture 7: ..."), no title."""
_PART_LABEL = re.compile(_CUES["part_label"])
"""The label of a numbered part of a document that opens a line ("SECTION II: ...", "Oral session 2: ...", "Item 3 —
...", "Question B (...)"): a heading, no title ("Llama 2: ..." is a name, not a part)."""
_LEADING_NAME = re.compile(r"[A-Z0-9][\w.+-]*(?:[ \t]+v?\d[\w.]*)?:[ \t]")
"""A title that opens with its name and a colon ("Argoverse: 3D tracking ..."), in whatever case it goes on."""


def _titles_in_entries(t: _Titles) -> None:
    """Titles as entries of lists of papers: reference-list entries ("[1] A. Name et al. Title. Venue, 2020.",
    "Name, A. (2020). Title. In Proceedings ..."), lines opened or followed by a tag with a venue or year
    ("[Accepted to X 2022] Title (Org)"), list items closed by a dotted leader, an arrow to a venue, authors in
    parentheses, a dash before a name or a tag ("- Title — Org, Venue 2025"), timeline lines ("2018 — Title"), and a
    quoted line ("> Title") above its organizations' line."""
    text, fw = t.text, t.fw
    for m in _REFERENCE.finditer(text):
        line_end = _line_end(text, m.end())
        end = _TITLE_END.search(text, m.end(), line_end)
        a, b = m.end(), end.start() + (text[end.start()] == "?" if end.start() < line_end else 0)
        tail = text[end.end():line_end]
        opening = text[m.start():m.end()]
        authored = bool(opening.strip()) and len(opening) > len(re.match(r"[ \t]*\S*[ \t]*", opening).group(0))
        if (authored or _REFERENCE_TAIL.match(tail)) and _entry_title(text[a:b], fw, loose=authored):
            t.add(a, b, "paper.reference_entry", min_caps=1)
    for m in _TAGGED.finditer(text):
        a, line_end = m.end(), _line_end(text, m.end())
        b = _entry_end(text, a, line_end)
        wraps = "\n" in text[a:b]
        if _entry_title(text[a:b], fw, loose=True) and not any(f.start == a and (f.end >= b or not wraps) for f in t.out):
            # a title line cut at its line's end gives way to the tagged entry that reads its second line
            t.out[:] = [f for f in t.out if f.start != a]
            t.add(a, b, "paper.tagged_title", min_caps=1)
    for m in _ENTRY.finditer(text):
        span = _list_entry(t, m)
        if span and not any(f.start <= span[0] < f.end and not (f.start == span[0] and f.end > span[1]) for f in t.out):
            # a title line read past its closing arrow ("Name: Subtitle → Venue 2024") gives way to the entry
            t.out[:] = [f for f in t.out if f.start != span[0]]
            t.add(*span, "paper.entry_title", min_caps=1)


def _list_entry(t: _Titles, m: re.Match) -> tuple[int, int] | None:
    """The title of the list entry whose text starts at ``m.end()``, or None."""
    text, fw = t.text, t.fw
    a, line_end = m.end(), _line_end(text, m.end())
    marker = text[m.start():m.end()].strip()
    seps = list(_ENTRY_SEPARATOR.finditer(text, a, line_end))  # a leader or an arrow before any dash
    sep = next((x for x in seps if x.group(0).strip()[:1] in (".", "→")), seps[0] if seps else None)
    nxt = text[line_end + 1:_line_end(text, line_end + 1)] if line_end < len(text) else ""
    loose = False
    if marker and re.fullmatch(r"(?:19|20)\d{2}[ \t]*[—–]", marker):  # a timeline's "2018 — Title", in title case
        b = line_end if title_like(text[a:line_end], fw) else a
    elif sep and (marker or sep.group(0).lstrip(" \t").startswith(".")):
        b, loose = sep.start(), text[sep.end():sep.end() + 1] == "[" or "→" in sep.group(0)  # a venue tag or arrow
    elif re.match(r"[ \t]*" + _ENTRY_TAG + r"[ \t]*(?:\[[^\]\n]*\][ \t]*)*$", nxt):
        b, loose = line_end, True  # "* Title" (or "Title") above its tag line "  [Oral, ICLR 2025] [code]"
    elif marker == ">" and opens_with_organization(nxt, t.rules):
        b, loose = _entry_end(text, a, line_end), True
    else:
        return None
    while b > a and text[b - 1] in " \t":
        b -= 1
    return (a, b) if _entry_title(text[a:b], fw, loose=loose) else None


def _entry_end(text: str, a: int, line_end: int) -> int:
    """Where a title that opens a tagged line ends: before a dash before a name, an organization in parentheses or a
    tag with a year that closes the line; a long line's title may wrap onto a short next line that ends it
    ("... Adaptive\nFine-Tuning — Org."), the line's length counted with its tag and the next line indented as
    this one. With those two (tools/selection.py, 197 sets): two folds 0.8045 / 0.6093 -> 0.8046 / 0.6095 (Paper
    607 -> 598 false; presentedAt 616 -> 611 false), the selection sets unchanged."""
    b = line_end
    nxt_end = _line_end(text, line_end + 1) if line_end < len(text) else line_end
    line_start = text.rfind("\n", 0, a) + 1  # (the line's tag counts: "[Accepted to X 2021] Title ... via")
    indent = len(text[line_start:a]) - len(text[line_start:a].lstrip(" \t"))
    nxt = text[line_end + 1:nxt_end]
    level = nxt[:indent] == text[line_start:line_start + indent]  # (an authors' line indented deeper is no piece of it)
    dash = re.match(r"[ \t]{%d}([^\s—–.][^\n—–.]{0,60}?)[ \t]+[—–][ \t]+\S" % indent, nxt)
    if level and line_end - line_start >= 60 and not re.search(r"[—–]|[.:]$", text[a:line_end]) \
            and (dash or (nxt_end - line_end < 60 and re.fullmatch(r"[ \t]{%d}[A-Za-z][^.\n]*[A-Za-z0-9]" % indent, nxt)
                          and text[nxt_end + 1:nxt_end + 2] in (" ", "\t", "\n"))):
        b = line_end + 1 + (dash.end(1) if dash else len(nxt))
    one_line = re.sub(r"\n[ \t]*", lambda m: " " + "\0" * (len(m.group()) - 1), text[a:b])  # (same offsets)
    cut = re.search(r"[ \t]+[—–][ \t]+|" + _CUES["trailing_tag"] + "|[ \t]{2,}", one_line)
    return a + cut.start() if cut else b


def _entry_title(title: str, fw, loose: bool) -> bool:
    """Whether a list entry's text is a title: in title case; in sentence case when it opens with its name and a
    colon, or when the entry's layout says it is one (``loose``); never a labelled field or a list of people."""
    title = " ".join(title.split())
    if len(title.split()) < 3 or opens_with_people(title) or _NOT_A_TITLE_LABEL.match(title) \
            or _after_label(title, 0)[0] or "|" in title or _NUMBERED_LABEL.match(title) or _PART_LABEL.match(title) \
            or re.search(r"\b(?:19|20)\d{2}$", title) or ".." in title:  # "Name Challenge 2023", a leader
        return False
    pieces = title.split(", ")
    if len(pieces) >= 4 and all(len(p.split()) <= 3 for p in pieces):  # "Lee, Chan, Dee, Ng": a list of names
        return False
    if title_like(title, fw):
        return True
    return bool(_SENTENCE_CASE_TITLE.fullmatch(title)) and (loose or bool(_LEADING_NAME.match(title)))


def title_like(title: str, fw) -> bool:
    """Title case: most words that are not function words start with a capital or a digit, and no sentence
    punctuation inside ("We Propose X." is a sentence)."""
    words = [w.strip("“”\"'()[]:?!,") for w in title.split()]
    content = [w for w in words if w and w.lower() not in fw]
    if len(words) < 3 or len(content) < 2 or re.search(r"[.!;]\s", title):
        return False
    caps = sum(1 for w in content if w[0].isupper() or w[0].isdigit() or re.match(r"[a-z]{1,4}[A-Z]", w))
    return caps / len(content) >= 0.75
