"""Documents with markup as the text the extraction reads: Markdown (CommonMark), HTML and PDF, with their metadata.

Every converter gives one block a line: a paragraph, a heading, a list item (``- item``, ``3. item``), a table
row (``a | b | c``); no blank lines, so a heading or a bold line followed by its paragraph reads as a title
line followed by its abstract, as in plain text. Link texts are kept, code blocks, images, comments, scripts
and navigation dropped. Emphasis is settled by :func:`_settle`: a block that is all emphasis is a plain line;
a bold lead-in ("**Title.** Text", or a bold line followed by a soft line break) becomes a line of its own;
an emphasised phrase of three words or more inside running text is quoted (“...”), as plain text writes
titles; shorter emphasis is dropped. What the document says about itself (title, address, date, authors,
summary: Markdown front matter, HTML ``<title>`` and ``<meta>``, PDF metadata) is metadata, never body text.
"""

from __future__ import annotations

import datetime as _dt
import io
import logging
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser

__all__ = ["Converted", "TooSlow", "markdown_to_text", "html_to_text", "html_document", "pdf_to_text", "iso_date"]


@dataclass(frozen=True, slots=True)
class Converted:
    """The text of a document with markup, and what it declares about itself."""

    text: str
    """One block a line (see the module's description)."""
    title: str = ""
    """The declared title."""
    url: str = ""
    """The declared address (``og:url``, canonical link, front matter ``url``)."""
    date: str = ""
    """The declared date, ISO 8601 (:func:`iso_date`)."""
    author: str = ""
    """The declared authors, ``; ``-separated."""
    description: str = ""
    """The declared summary."""


_OPEN, _CLOSE, _SOFT = "\ue000", "\ue001", "\ue002"  # emphasis and soft breaks until _settle reads them
_PRIVATE = re.compile("[\ue000-\ue002]")
_SPACES = re.compile(r"[ \t\f\v\xa0\u2000-\u200a\u202f\u205f\u3000]+")
_LIST_PREFIX = re.compile(r"(?:- |\d{1,9}[.)] )?")
_QUOTES = "\"“”«»„"


def _spans(block: str) -> tuple[str, list[tuple[int, int]]]:
    """The block without emphasis marks, and the outermost balanced emphasised spans in it (start, end)."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    depth = start = n = 0
    for ch in block:
        if ch == _OPEN:
            start = n if depth == 0 else start
            depth += 1
        elif ch == _CLOSE:
            if depth:
                depth -= 1
                if depth == 0 and n > start:
                    spans.append((start, n))
        else:
            out.append(ch)
            n += 1
    return "".join(out), spans


def _settle(block: str) -> list[str]:
    """The lines of one block, its emphasis settled as the module's description says."""
    text, spans = _spans(block) if _OPEN in block or _CLOSE in block else (block, [])
    lead = _LIST_PREFIX.match(text).end()
    while lead < len(text) and text[lead] in " \t":
        lead += 1
    lines: list[str] = []
    if spans and spans[0][0] == lead:  # the block opens with emphasis
        a, b = spans[0]
        rest, body = text[b:], text[a:b].strip()
        gap = len(rest) - len(rest.lstrip(" \t"))
        cut = None
        if not rest.strip(" \t" + _SOFT + ".:"):  # all of it: a plain line
            spans = spans[1:]
        elif rest[gap:gap + 1] in (_SOFT, "\n"):  # a bold line, then a soft or hard line break
            lines.append(text[:a] + body)
            cut = b + gap + 1
        elif len(body.split()) >= 3 and (body[-1] in ".:" or rest[:1] in ".:"):  # a run-in heading: "Title. Text"
            lines.append(text[:a] + body.rstrip(".:").rstrip())
            cut = b + 1 if rest[:1] in ".:" else b
        if cut is not None:
            text, spans = text[cut:], [(s - cut, e - cut) for s, e in spans[1:]]
    pieces, at = [], 0
    for a, b in spans:
        inner = text[a:b]
        quote = len(inner.split()) >= 3 and not any(q in inner for q in _QUOTES)
        pieces += [text[at:a], f"“{inner.strip()}”" if quote else inner]
        at = b
    pieces.append(text[at:])
    lines.extend(_soft_breaks("".join(pieces)).split("\n"))
    return [_SPACES.sub(_gap, line).strip() for line in lines]


def _gap(run: re.Match) -> str:
    """A run of blanks inside a line as the plain-text reader sees it: two spaces or more, or a tab, stay a column
    gap (two spaces: "08:40  Invited talk", aligned columns), anything else is one space."""
    blanks = run.group()
    return "  " if "\t" in blanks or (len(blanks) >= 2 and blanks.strip(" ") == "") else " "


def _soft_breaks(text: str) -> str:
    """Soft line breaks (a Markdown paragraph's own line ends) as spaces where the lines are hard-wrapped prose,
    else as line breaks. In a paragraph whose lines are all of 120 characters or fewer, and the longest of
    them but the last of 60 or more, a line at least 0.6 as long as that wraps, and a shorter one (a title, an
    "Authors:" line) ends its line; a paragraph with a longer line (paragraphs written one a line, as in plain
    text) keeps every line end, as a plain-text document does."""
    if _SOFT not in text:
        return text
    lines = text.split(_SOFT)
    longest = max(len(line.strip()) for line in lines)
    width = max(len(line.strip()) for line in lines[:-1]) if longest <= 120 else 0  # else not hard-wrapped
    out = [lines[0]]
    for prev, line in zip(lines, lines[1:]):
        n = len(prev.strip())
        wraps = width >= 60 and 0.6 * width <= n <= 120 and not _OWN_LINE.match(line) and not _title_case(prev)
        if wraps:  # a wrapped line's end and the next one's indent are one space, not a column gap
            out[-1] = out[-1].rstrip(" \t")
        out.append(" " + line.lstrip(" \t") if wraps else "\n" + line)
    return "".join(out)


_OWN_LINE = re.compile(r"\s*(?:[A-Z][\w .&/-]{0,30}:\s|[\[(|>\"“•]|[-*+]\s|\d{1,3}[.)]\s|\d{1,2}:\d{2}\b)")
"""How a line that starts a line of its own begins, in a text written a line at a time: a label ("Authors: "),
a bracket, a table bar, a quote, a list marker, a time."""


def _title_case(line: str) -> bool:
    """Whether every word of four letters or more in a line of two words or more is capitalised (a title)."""
    words = re.findall(r"[^\W\d_][\w'’-]*", line)
    long = [w for w in words if len(w) >= 4]
    return len(words) >= 2 and bool(long) and all(w[0].isupper() for w in long)


def _join(blocks: list[str]) -> str:
    """The blocks settled, one line each, empty lines dropped."""
    return "\n".join(line for block in blocks for line in _settle(block) if line and _LIST_PREFIX.fullmatch(line + " ") is None)


# ---------------------------------------------------------------- dates

_MONTHS = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                       "dec"), 1)}


def iso_date(value: str) -> str:
    """A declared date as ISO 8601 (day, month or year precision), or ``""`` when it cannot be read.

    Examples
    --------
    >>> [iso_date(v) for v in ("2025-11-03T10:00:00Z", "D:20251103120000+01'00'", "2025/11", "3 November 2025",
    ...                       "Nov. 3, 2025", "2025", "2025-02-30", "soon")]
    ['2025-11-03', '2025-11-03', '2025-11', '2025-11-03', '2025-11-03', '2025', '', '']
    """
    v = value.strip()
    m = re.match(r"(?:D:)?((?:19|20)\d{2})(?:[-/.]?(\d{2})(?:[-/.]?(\d{2}))?)?(?:$|[T ]|\d|[+Z'-])", v)
    if m:
        year, month, day = m.group(1), m.group(2), m.group(3)
    else:
        m = (re.match(r"(\d{1,2})\s+([A-Za-z]{3})[a-z]*\.?,?\s+((?:19|20)\d{2})\b", v)
             or re.match(r"([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+((?:19|20)\d{2})\b", v))
        if not m:
            return ""
        a, b, year = m.groups()
        mon, day = (b, a) if a.isdigit() else (a, b)
        if mon.lower() not in _MONTHS:
            return ""
        month = f"{_MONTHS[mon.lower()]:02d}"
        day = f"{int(day):02d}"
    try:
        _dt.date(int(year), int(month or 1), int(day or 1))
    except ValueError:
        return ""
    return "-".join(p for p in (year, month, day if month else None) if p)


# ---------------------------------------------------------------- Markdown

_FRONT = re.compile(r"\A(?:\ufeff)?---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_META_KEYS = {
    "title": ("title",), "url": ("url", "canonical_url", "permalink", "link"), "date": ("date", "published", "pubdate"),
    "author": ("author", "authors"), "description": ("description", "summary", "excerpt", "abstract"),
}


def _front_matter(source: str) -> tuple[dict[str, str], str]:
    """The ``key: value`` pairs of a YAML front matter block (top-level scalars and lists of scalars), and the rest."""
    m = _FRONT.match(source)
    if not m:
        return {}, source
    values: dict[str, list[str]] = {}
    key = None
    for line in m.group(1).split("\n"):
        item = re.match(r"\s+-\s+(.*)", line)
        if item and key:
            values[key].append(item.group(1))
            continue
        pair = re.match(r"([A-Za-z_][\w-]*)\s*:\s*(.*)", line)
        if pair:
            key = pair.group(1).lower()
            values[key] = [pair.group(2)] if pair.group(2).strip() else []
    clean = {k: "; ".join(x for x in (v.strip().strip("'\"").strip() for v in vs) if x)
             for k, vs in values.items()}
    for k, vs in values.items():  # an inline list: authors: [A, B]
        if len(vs) == 1 and vs[0].strip().startswith("[") and vs[0].strip().endswith("]"):
            clean[k] = "; ".join(x.strip().strip("'\"") for x in vs[0].strip()[1:-1].split(",") if x.strip())
    return clean, source[m.end():]


def _declared(meta: dict[str, str]) -> dict[str, str]:
    out = {}
    for field, keys in _META_KEYS.items():
        value = next((meta[k] for k in keys if meta.get(k)), "")
        out[field] = iso_date(value) if field == "date" else value
    return out


def _md_inline(token) -> str:
    out = []
    for c in token.children or ():
        t = c.type
        if t in ("text", "code_inline"):
            out.append(c.content)
        elif t == "softbreak":
            out.append(_SOFT)
        elif t == "hardbreak" or (t == "html_inline" and re.match(r"<br\b", c.content, re.I)):
            out.append("\n")
        elif t in ("em_open", "strong_open"):
            out.append(_OPEN)
        elif t in ("em_close", "strong_close"):
            out.append(_CLOSE)
    return "".join(out)


MARKDOWN_CHUNK = 1 << 16
"""Markdown longer than this is parsed in pieces of about this many characters, cut at blank lines outside
code fences, so that the time spent can be checked as it goes."""


class TooSlow(ValueError):
    """A document whose markup takes longer than its budget to convert."""


def _md_chunks(body: str) -> Iterator[str]:
    """``body`` in pieces of at least :data:`MARKDOWN_CHUNK` characters, cut at blank lines outside fences."""
    chunk: list[str] = []
    size, fence = 0, ""
    lines = body.split("\n")
    for n, line in enumerate(lines):
        m = _FENCE.match(line)
        if m and (not fence or (m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence))):
            fence = "" if fence else m.group(1)
        chunk.append(line)
        size += len(line) + 1
        if size >= MARKDOWN_CHUNK and not fence and not line.strip() and n + 1 < len(lines):
            yield "\n".join(chunk) + "\n"
            chunk, size = [], 0
    yield "\n".join(chunk)


_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def markdown_to_text(source: str, budget: float | None = None) -> Converted:
    """A Markdown document (CommonMark with GitHub tables) as text, with its front matter as metadata.

    markdown-it-py is pure Python: dense structure (tens of thousands of list items or table rows, or of
    brackets) costs up to 150 µs a character. The conversion has a budget, ``budget`` seconds or by default
    5 s plus 10 µs a character (prose takes about 1 µs), checked between pieces (:func:`_md_chunks`).

    Raises
    ------
    TooSlow
        When the budget is spent.

    Examples
    --------
    >>> c = markdown_to_text("---\\ntitle: Our post\\n---\\n### A *Sparse* Router\\n\\n- one\\n- **two**\\n\\n"
    ...                      "| a | b |\\n|---|---|\\n| 1 | 2 |\\n\\n```\\ncode\\n```\\n<!-- note -->\\n[link](x)")
    >>> c.title, c.text
    ('Our post', 'A Sparse Router\\n- one\\n- two\\na | b\\n1 | 2\\nlink')
    """
    from markdown_it import MarkdownIt

    meta, body = _front_matter(_PRIVATE.sub("\ufffd", source))
    budget = 5.0 + 1e-5 * len(body) if budget is None else budget
    deadline = time.monotonic() + budget
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    blocks: list[str] = []
    first_heading = ""
    for chunk in _md_chunks(body):
        heading = _md_blocks(md.parse(chunk), blocks)
        first_heading = first_heading or heading
        if time.monotonic() > deadline:
            raise TooSlow(f"Markdown too dense to convert within {budget:.0f}s (pathological markup)")
    declared = _declared(meta)
    return Converted(_join(blocks), title=declared["title"] or first_heading, url=declared["url"],
                     date=declared["date"], author=declared["author"], description=declared["description"])


def _md_blocks(tokens, blocks: list[str]) -> str:
    """Append the blocks of a markdown-it token stream to ``blocks``; return the text of its first ``#`` heading."""
    lists: list[int | None] = []
    prefix = first_heading = ""
    row: list[str] | None = None
    heading = None
    for tok in tokens:
        t = tok.type
        if t == "bullet_list_open":
            lists.append(None)
        elif t == "ordered_list_open":
            lists.append(int(tok.attrGet("start") or 1))
        elif t in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif t == "list_item_open":
            prefix = "- " if not lists or lists[-1] is None else f"{tok.info or lists[-1]}. "
        elif t == "list_item_close":
            prefix = ""
        elif t == "heading_open":
            heading = tok.tag
        elif t == "tr_open":
            row = []
        elif t == "tr_close" and row is not None:
            blocks.append(" | ".join(c.strip() for c in row))
            row = None
        elif t == "inline":
            text = _md_inline(tok)
            if row is not None:
                row.append(text.replace("\n", " "))
                continue
            if heading == "h1" and not first_heading:
                first_heading = " ".join(_settle(text))
            blocks.append(prefix + text)
            prefix, heading = "", None
        elif t == "html_block":
            blocks.extend(html_document(tok.content).text.split("\n"))
    return first_heading


# ---------------------------------------------------------------- HTML


class _HtmlText(HTMLParser):
    """Blocks of an HTML page, and its ``<title>``, ``<meta>`` and canonical link."""

    SKIP = frozenset({"script", "style", "template", "noscript", "svg", "math", "nav", "button", "select",
                      "textarea"})
    BLOCK = frozenset({"p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "section", "article",
                       "header", "footer", "ul", "ol", "table", "blockquote", "pre", "dd", "dt", "hr", "main",
                       "aside", "figcaption", "caption", "address", "body", "html", "figure", "details",
                       "summary", "dl", "thead", "tbody", "tfoot", "form", "fieldset", "legend", "label"})
    CELL = frozenset({"td", "th"})
    EMPHASIS = frozenset({"b", "strong", "i", "em", "cite"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping: list[str] = []
        self.lists: list[list[int] | None] = []  # None for <ul>, [next number] for <ol>
        self.cells = 0
        self.in_title = False
        self.pre = 0  # inside <pre>: line ends are kept
        self.title: list[str] = []
        self.meta: dict[str, list[str]] = {}

    def handle_starttag(self, tag, attrs):
        a = {k.lower(): (v or "") for k, v in attrs}
        if tag == "meta":
            key = (a.get("name") or a.get("property") or a.get("itemprop") or "").strip().lower()
            if key and a.get("content", "").strip():
                self.meta.setdefault(key, []).append(a["content"].strip())
            return
        if tag == "link" and "canonical" in a.get("rel", "").lower().split() and a.get("href"):
            self.meta.setdefault("canonical", []).append(a["href"].strip())
            return
        if tag == "title" and not self.title and not self.skipping:
            self.in_title = True
            return
        if tag in self.SKIP:
            self.skipping.append(tag)
        if self.skipping:
            return
        if tag in ("ul", "ol"):
            self.lists.append(None if tag == "ul" else [int(a["start"]) if a.get("start", "").isdigit() else 1])
        if tag in self.BLOCK:
            self.parts.append("\n")
        if tag == "pre":
            self.pre += 1
        elif tag == "li":
            numbers = self.lists[-1] if self.lists else None
            self.parts.append("- " if numbers is None else f"{numbers[0]}. ")
            if numbers is not None:
                numbers[0] += 1
        elif tag == "tr":
            self.cells = 0
        elif tag in self.CELL:
            self.parts.append(" | " if self.cells else "")
            self.cells += 1
        elif tag in self.EMPHASIS:
            self.parts.append(_OPEN)

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        elif self.skipping:
            if tag == self.skipping[-1]:
                self.skipping.pop()
            return
        elif tag in ("ul", "ol") and self.lists:
            self.lists.pop()
        elif tag == "pre":
            self.pre = max(0, self.pre - 1)
        if tag in self.BLOCK:
            self.parts.append("\n")
        elif tag in self.EMPHASIS:
            self.parts.append(_CLOSE)

    def handle_data(self, data):
        if self.in_title:
            self.title.append(data)
        elif not self.skipping:
            self.parts.append(_PRIVATE.sub("\ufffd", data).replace("\n", "\n" if self.pre else " "))


def _first(meta: dict[str, list[str]], *keys: str) -> str:
    return next((" ".join(meta[k][0].split()) for k in keys if meta.get(k)), "")


def html_document(markup: str) -> Converted:
    """An HTML page as text, with its ``<title>`` and ``<meta>`` (citation, Open Graph, Dublin Core) as metadata.

    Examples
    --------
    >>> c = html_document('<title>Release: Orca 2</title><meta name="citation_date" content="2025/10/02">'
    ...                   '<h1>Orca 2</h1><ol><li>one</li><li>two</li></ol><table><tr><th>a</th><td>b</td></tr></table>')
    >>> c.title, c.date, c.text
    ('Release: Orca 2', '2025-10-02', 'Orca 2\\n1. one\\n2. two\\na | b')
    """
    parser = _HtmlText()
    parser.feed(markup)
    parser.close()
    m = parser.meta
    blocks = "".join(parser.parts).split("\n")
    authors = m.get("citation_author") or m.get("author") or m.get("dc.creator") or []
    return Converted(
        _join(blocks),
        title=_first(m, "citation_title", "og:title", "dc.title", "twitter:title") or " ".join("".join(parser.title).split()),
        url=_first(m, "og:url", "canonical", "citation_public_url", "citation_abstract_html_url"),
        date=iso_date(_first(m, "citation_publication_date", "citation_date", "citation_online_date",
                             "article:published_time", "dc.date.issued", "dc.date", "dcterms.date", "date",
                             "datepublished", "pubdate")),
        author="; ".join(dict.fromkeys(" ".join(x.split()) for x in authors)),
        description=_first(m, "description", "og:description", "dc.description", "twitter:description"),
    )


def html_to_text(markup: str) -> str:
    """Text of an HTML page: scripts, styles, navigation, comments, ``<title>`` and ``<meta>`` dropped, one block a line.

    Parsed with the standard library's HTML parser (the content of ``<script>`` and ``<style>`` is never
    taken for text, whatever it holds).

    Examples
    --------
    >>> html_to_text("<p>A &amp; B</p><script>x('<p>no</p>')</script><p>C</p>")
    'A & B\\nC'
    """
    return html_document(markup).text


# ---------------------------------------------------------------- PDF


@dataclass(slots=True)
class _Line:
    """One line of a PDF page as pypdf shows it: its text, where it starts, and its font."""

    text: str
    x: float = 0.0
    y: float = 0.0
    font: tuple[str, float] = ("", 0.0)


def _pdf_lines(page) -> list[_Line]:
    """The lines of a page in content order, each with the position and font of its longest piece."""
    lines = [_Line("")]
    longest = [0]

    def visit(text, cm, tm, font, size):
        parts = text.split("\n")
        for i, part in enumerate(parts):
            if i:
                lines.append(_Line(""))
                longest.append(0)
            line = lines[-1]
            line.text += part
            if len(part.strip()) > longest[-1]:
                longest[-1] = len(part.strip())
                x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
                y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
                scale = (abs(tm[3] * cm[3]) or 1.0) * float(size or 0)
                line.x, line.y = x, y
                line.font = (str((font or {}).get("/BaseFont", "")), round(scale, 1))

    page.extract_text(visitor_text=visit)
    out = []
    for line in lines:
        line.text = _SPACES.sub(" ", line.text).strip()
        if line.text and not re.fullmatch(r"(?:page\s+)?\d{1,4}(?:\s*(?:/|of)\s*\d{1,4})?", line.text, re.I):
            out.append(line)
    return out


def _pdf_paragraphs(lines: list[_Line]) -> list[str]:
    """Paragraphs of one page's lines. A line ends its paragraph when the next one is further below than the
    page's usual line spacing for its size (its lower quartile), or above it (a new column), is in another font (a title, a
    heading), starts indented, or when it is well short of the longest lines in its font (the last line of a
    paragraph, a heading); the others wrap, joined by a space (by nothing after a hyphen)."""
    steps: dict[float, list[float]] = {}
    widest: dict[tuple[str, float], int] = {}
    for a, b in zip(lines, lines[1:]):
        gap = a.y - b.y
        if a.font == b.font and 0.6 * (a.font[1] or 12) < gap < 2.5 * (a.font[1] or 12):
            steps.setdefault(a.font[1], []).append(gap)
    for line in lines:
        widest[line.font] = max(widest.get(line.font, 0), len(line.text))
    usual = {size: sorted(gaps)[len(gaps) // 4] for size, gaps in steps.items()}  # paragraph gaps are the larger
    out: list[str] = []
    for i, line in enumerate(lines):
        if i and out:
            prev = lines[i - 1]
            gap = prev.y - line.y
            step = usual.get(prev.font[1])
            wrapped = (prev.font == line.font and 0 < gap and (step is None or gap <= 1.25 * step)
                       and line.x <= prev.x + max(2.0, 0.5 * (line.font[1] or 12))
                       and (widest[prev.font] < 40 or len(prev.text) >= 0.6 * widest[prev.font]))
            if wrapped:
                out[-1] += line.text if re.search(r"\w-$", out[-1]) else " " + line.text
                continue
        out.append(line.text)
    return out


def pdf_to_text(data: bytes) -> Converted:
    """The text layer of a PDF (pypdf), one paragraph a line (:func:`_pdf_paragraphs`), with its metadata.

    Raises
    ------
    ValueError
        With the reason: not a PDF pypdf can read, encrypted, or no text layer (a scanned document).
    """
    import pypdf
    from pypdf.errors import PyPdfError

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings about odd files are not the user's business
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ValueError("an encrypted PDF (needs a password)")
        pages = []
        for page in reader.pages:
            paragraphs = _pdf_paragraphs(_pdf_lines(page))
            if pages and paragraphs and not re.search(r"[.!?:]\W*$", pages[-1]) and re.match(r"[a-z]", paragraphs[0]):
                pages[-1] += " " + paragraphs.pop(0)  # a sentence running on to the next page
            pages.extend(paragraphs)
        info = reader.metadata or {}
        meta = {k: str(info.get(f"/{k}") or "").strip() for k in ("Title", "Author", "Subject", "CreationDate", "ModDate")}
    except ValueError:
        raise
    except (PyPdfError, KeyError, TypeError, AttributeError, IndexError, OSError, RecursionError, ZeroDivisionError,
            AssertionError, NotImplementedError) as exc:
        raise ValueError(f"PDF cannot be read ({type(exc).__name__}: {exc})") from exc
    text = _join(pages)
    if not text.strip():
        raise ValueError(f"PDF of {len(reader.pages)} page(s) without a text layer (scanned images?); "
                         "run it through OCR first")
    return Converted(text, title=meta["Title"], date=iso_date(meta["CreationDate"] or meta["ModDate"]),
                     author=meta["Author"], description=meta["Subject"])
