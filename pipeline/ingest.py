"""Find documents under the inputs and decode them: paths in, Documents (and skip reasons) out.

Every file is read defensively: opened without blocking (a FIFO named ``x.txt`` must not hang the build),
checked to be a regular file under the size limit before a byte is read, decoded by BOM, UTF-8, a declared
charset or a best guess, and normalised by :func:`clean_text`. Anything that goes wrong with one file becomes a
:class:`~pipeline.model.SkippedDocument` naming the file and the reason; the other files are read as usual.
"""

from __future__ import annotations

import codecs
import errno
import io
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from html.parser import HTMLParser
from pathlib import Path

from .errors import DocumentError, InputError
from .model import Document, SkippedDocument

__all__ = [
    "SUFFIXES", "find_files", "read_document", "read_jsonl", "read_documents", "html_to_text", "decode",
    "clean_text", "display_path", "source_name",
]

SUFFIXES = frozenset({".txt", ".md", ".html", ".htm", ".jsonl"})
"""File endings read as documents; anything else under a folder is ignored."""

_HTML = frozenset({".html", ".htm"})
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """The pipeline's text normalisation: line ends as ``\\n``, lone surrogates as U+FFFD.

    Lone surrogates (from a ``\\ud800`` JSON escape, a broken UTF-16 file or an undecodable file name) cannot
    be written as UTF-8, so no RDF serialisation can hold them; everything else (quotes, backslashes, control
    characters, right-to-left marks, emoji, markup) is kept as it is.

    Examples
    --------
    >>> clean_text("a\\r\\nb\\rc\\ud800")
    'a\\nb\\nc\\ufffd'
    """
    return _SURROGATE.sub("\ufffd", text.replace("\r\n", "\n").replace("\r", "\n"))


def display_path(path: Path | str) -> str:
    """A path as text that can always be printed and written as UTF-8.

    File names are bytes on POSIX; bytes that are not UTF-8 are shown as ``\\xNN`` escapes.

    Examples
    --------
    >>> display_path(os.fsdecode(b"caf\\xe9.txt"))
    'caf\\\\xe9.txt'
    """
    return os.fsencode(str(path)).decode("utf-8", "backslashreplace")


def source_name(document: Document) -> str:
    """Where a document came from, for a skip line: its file, and its id inside a ``.jsonl`` file."""
    name = display_path(document.path)
    if Path(document.path).suffix.lower() == ".jsonl" and "#" in document.id:
        name += f" (id {document.id.split('#', 1)[1]})"
    return name


def _os_reason(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symlink loop (a link that leads back to itself); skipped"
    if exc.errno == errno.ENOENT:
        return "cannot be read (broken symlink, or removed while reading); skipped"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "cannot be read (permission denied); skipped"
    return f"cannot be read ({exc.strerror or exc}); skipped"


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def find_files(inputs: Iterable[Path], skipped: list[SkippedDocument] | None = None) -> list[tuple[Path, str]]:
    """Every document file under ``inputs`` with its stable id, sorted by id.

    A file named directly is read whatever its ending; folders are walked for :data:`SUFFIXES`, following
    symlinks to folders once (a link back to a folder being walked is a loop and is reported, not followed).
    The id is the path relative to the folder named (the file name for a file named directly). Broken links,
    link loops, FIFOs and unreadable folders found on the way are appended to ``skipped``.

    Raises
    ------
    InputError
        If an input does not exist.
    """
    skipped = skipped if skipped is not None else []
    found: dict[str, Path] = {}

    def add(path: Path, doc_id: str) -> None:
        if doc_id in found:
            skipped.append(SkippedDocument(display_path(path), f"same document id {doc_id!r} as "
                                           f"{display_path(found[doc_id])}; skipped"))
        else:
            found[doc_id] = path

    for root in inputs:
        root = Path(root)
        if not root.exists():
            if root.is_symlink():
                raise InputError(f"{display_path(root)}: a broken symlink or symlink loop; name a document "
                                 "or a folder of documents")
            raise InputError(f"{display_path(root)}: no such file or folder; name a document or a folder of documents")
        if not root.is_dir():
            add(root, display_path(root.name))
            continue
        for path, rel in _walk(root, skipped):
            add(path, display_path(rel))
    return sorted(((p, i) for i, p in found.items()), key=lambda pi: pi[1])


def _walk(root: Path, skipped: list[SkippedDocument]) -> Iterator[tuple[Path, str]]:
    """Document files under ``root`` (depth first, without recursion) with their relative paths."""
    st = root.stat()
    # the folders really under root: a link to one of them is read there, not twice
    seen = {(st.st_dev, st.st_ino): ""}
    for folder, subfolders, _ in os.walk(root):
        for sub in subfolders:
            sub_path = os.path.join(folder, sub)
            try:
                if not os.path.islink(sub_path):
                    sst = os.stat(sub_path)
                    seen.setdefault((sst.st_dev, sst.st_ino), Path(os.path.relpath(sub_path, root)).as_posix())
            except OSError:
                pass
    stack = [(root, "", frozenset({(st.st_dev, st.st_ino)}))]
    while stack:
        folder, rel, ancestors = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            skipped.append(SkippedDocument(display_path(folder), "folder " + _os_reason(exc)))
            continue
        for entry in entries:
            path = Path(entry.path)
            name = f"{rel}/{entry.name}" if rel else entry.name
            wanted = Path(entry.name).suffix.lower() in SUFFIXES
            try:
                st = os.stat(entry.path)  # follows symlinks
            except OSError as exc:
                if wanted or entry.is_symlink():
                    skipped.append(SkippedDocument(display_path(path), _os_reason(exc)))
                continue
            if stat.S_ISDIR(st.st_mode):
                key = (st.st_dev, st.st_ino)
                if not entry.is_symlink():
                    stack.append((path, name, ancestors | {key}))
                elif key in ancestors:
                    skipped.append(SkippedDocument(display_path(path), "symlink loop (links back to the folder "
                                                   f"{display_path(seen[key] or root)!r}); not followed"))
                elif key in seen:
                    skipped.append(SkippedDocument(display_path(path), "links to the folder "
                                                   f"{display_path(seen[key])!r}, which is read already; not followed"))
                else:
                    seen[key] = name
                    stack.append((path, name, ancestors | {key}))
            elif wanted:
                yield path, name


def _read_bytes(path: Path, max_bytes: int) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise DocumentError(display_path(path), _os_reason(exc)) from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise DocumentError(display_path(path), f"{_kind(st.st_mode)}, not a document file; skipped")
        if st.st_size > max_bytes:
            raise DocumentError(display_path(path),
                                f"{st.st_size} bytes is over the limit of {max_bytes} (--max-bytes); skipped")
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise DocumentError(display_path(path), _os_reason(exc)) from exc
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise DocumentError(display_path(path), f"over the limit of {max_bytes} bytes (--max-bytes); skipped")
    return data


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")


def _looks_binary(text: str) -> bool:
    return len(_CONTROL.findall(text)) > max(1, len(text) // 100)


def _utf16_without_bom(data: bytes) -> str | None:
    """The codec of BOM-less UTF-16 text (NULs in every other byte), or None."""
    half = len(data) // 2
    if len(data) % 2 or half < 2:
        return None
    for codec, zeros, other in (("utf-16-le", data[1::2], data[0::2]), ("utf-16-be", data[0::2], data[1::2])):
        if zeros.count(0) >= 0.9 * half and other.count(0) == 0:
            return codec
    return None


def decode(data: bytes, declared: str | None = None) -> tuple[str, str]:
    """Decode document bytes; return the text and how it was decoded (said in the build report).

    In order: a byte-order mark (UTF-8, UTF-16, UTF-32; bytes that do not decode become U+FFFD); UTF-8;
    BOM-less UTF-16 (a NUL in every other byte); the charset the document declares (``declared``, from an HTML
    ``<meta charset>``); else the best guess Windows-1252, the Latin-1 superset browsers use for undeclared
    Western text, and Latin-1 when a byte is not Windows-1252.

    Raises
    ------
    ValueError
        For binary content: NUL bytes, or control characters in more than 1% of the text.

    Examples
    --------
    >>> decode("café".encode("utf-8"))
    ('café', 'utf-8')
    >>> decode(codecs.BOM_UTF16_LE + "hi".encode("utf-16-le"))
    ('hi', 'utf-16-le (BOM)')
    >>> decode("café".encode("latin-1"))
    ('café', 'cp1252 (best guess)')
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(codec, errors="replace"), f"{codec} (BOM)"
    if b"\x00" in data:
        codec = _utf16_without_bom(data)
        try:
            text = data.decode(codec) if codec else None
        except UnicodeDecodeError:
            text = None
        if text is None or _looks_binary(text):
            raise ValueError("binary content (NUL bytes)")
        return text, f"{codec} (no BOM, guessed)"
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    candidates = []
    if declared:
        try:
            codec = codecs.lookup(declared).name
        except LookupError:
            codec = None
        if codec in ("latin-1", "iso8859-1", "ascii"):  # as browsers do (WHATWG Encoding)
            candidates.append(("cp1252", f"cp1252 (declared {declared})"))
        elif codec and not codec.startswith(("utf-16", "utf-32")):
            candidates.append((codec, f"{codec} (declared {declared})"))
    candidates += [("cp1252", "cp1252 (best guess)"), ("latin-1", "latin-1 (best guess)")]
    for codec, label in candidates:
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        if _looks_binary(text):
            raise ValueError("binary content (not UTF-8, UTF-16 or Latin-1 text)")
        return text, label
    raise ValueError("binary content (not text in any known encoding)")  # unreachable: Latin-1 decodes all


_META_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.I)
_XML_ENCODING = re.compile(rb"""<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9_.:\-]+)""", re.I)


def declared_charset(data: bytes) -> str | None:
    """The charset an HTML or XML document declares in its first 4 KB, if any.

    Examples
    --------
    >>> declared_charset(b'<html><head><meta charset="windows-1252">')
    'windows-1252'
    >>> declared_charset(b'<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">')
    'ISO-8859-1'
    """
    head = data[:4096]
    m = _META_CHARSET.search(head) or _XML_ENCODING.search(head)
    return m.group(1).decode("ascii") if m else None


class _TextExtractor(HTMLParser):
    SKIP = frozenset({"script", "style", "template", "noscript", "svg", "math"})
    BLOCK = frozenset({"p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "section", "article",
                       "header", "footer", "ul", "ol", "table", "title", "blockquote", "pre", "dd", "dt", "hr",
                       "main", "nav", "aside", "figcaption", "caption", "address", "body", "head", "html"})
    CELL = frozenset({"td", "th"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skipping += 1
        elif tag in self.BLOCK:
            self.parts.append("\n")
        elif tag in self.CELL:
            self.parts.append(" ")

    def handle_startendtag(self, tag, attrs):
        if tag in self.BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in self.SKIP:
            self.skipping = max(0, self.skipping - 1)
        elif tag in self.BLOCK:
            self.parts.append("\n")
        elif tag in self.CELL:
            self.parts.append(" ")

    def handle_data(self, data):
        if not self.skipping:
            self.parts.append(data)


def html_to_text(markup: str) -> str:
    """Text of an HTML page: scripts, styles and comments dropped, block elements as line breaks.

    Parsed with the standard library's HTML parser (the content of ``<script>`` and ``<style>`` is never
    taken for text, whatever it holds).

    Examples
    --------
    >>> html_to_text("<p>A &amp; B</p><script>x('<p>no</p>')</script><p>C</p>")
    'A & B\\nC'
    """
    parser = _TextExtractor()
    parser.feed(markup)
    parser.close()
    text = "".join(parser.parts)
    lines = (re.sub(r"[ \t\r\f\v\xa0]+", " ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def read_document(path: Path, doc_id: str, max_bytes: int) -> Document:
    """Read one ``.txt``, ``.md`` or ``.html`` document file.

    Raises
    ------
    DocumentError
        With the reason, when the file cannot be used.
    """
    data = _read_bytes(path, max_bytes)
    if not data:
        raise DocumentError(display_path(path), "empty (0 bytes); skipped")
    is_html = Path(path).suffix.lower() in _HTML
    try:
        text, encoding = decode(data, declared_charset(data) if is_html else None)
    except ValueError as exc:
        raise DocumentError(display_path(path), f"{exc}; skipped") from exc
    if is_html:
        try:
            text = html_to_text(text)
        except Exception as exc:  # noqa: BLE001  (any parser failure is this document's problem only)
            raise DocumentError(display_path(path), f"HTML cannot be parsed ({type(exc).__name__}: {exc}); skipped") from exc
    text = clean_text(text)
    if not text.strip():
        raise DocumentError(display_path(path), "empty (no text" + (" outside the markup" if is_html else "") + "); skipped")
    return Document(id=doc_id, path=path, text=text, encoding=encoding)


def read_jsonl(path: Path, file_id: str, max_bytes: int, skipped: list[SkippedDocument]) -> Iterator[Document]:
    """The documents of a ``.jsonl`` file: one JSON object a line with an ``id`` and a ``text`` field.

    Each document's id is ``<file id>#<id>``. A line that is not such an object, repeats an id, has no text or
    is longer than ``max_bytes`` is appended to ``skipped`` as ``file:line`` with the reason; the other lines
    are read. Blank lines are ignored.

    Raises
    ------
    DocumentError
        When the file as a whole cannot be used (unreadable, binary, empty).
    """
    where = display_path(path)
    try:
        fh = open(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)), "rb")
    except OSError as exc:
        raise DocumentError(where, _os_reason(exc)) from exc
    with fh:
        mode = os.fstat(fh.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise DocumentError(where, f"{_kind(mode)}, not a document file; skipped")
        head = fh.read(8192)
        fh.seek(0)
        wide = next((c for b, c in _BOMS if head.startswith(b) and c != "utf-8"), None)
        if not head:
            raise DocumentError(where, "empty (0 bytes); skipped")
        if wide is None and b"\x00" in head:
            raise DocumentError(where, "binary content (NUL bytes); skipped")
        seen: dict[str, int] = {}
        nonblank = 0
        try:
            lines = _jsonl_lines(fh, wide, max_bytes)
            for n, line, encoding in lines:
                def skip(reason: str) -> None:
                    skipped.append(SkippedDocument(f"{where}:{n}", f"{reason}; skipped"))

                if line is None:
                    nonblank += 1
                    skip(f"over the limit of {max_bytes} bytes (--max-bytes)")
                    continue
                if not line.strip():
                    continue
                nonblank += 1
                try:
                    obj = json.loads(line)
                except ValueError as exc:
                    msg = getattr(exc, "msg", str(exc))
                    col = getattr(exc, "colno", None)
                    skip(f"not valid JSON ({msg}" + (f", column {col})" if col else ")"))
                    continue
                if not isinstance(obj, dict):
                    skip(f"a JSON {type(obj).__name__}, not an object with \"id\" and \"text\"")
                    continue
                ident, text = obj.get("id"), obj.get("text")
                if isinstance(ident, bool) or not isinstance(ident, (str, int)) or str(ident).strip() == "":
                    skip('no "id" (a string or integer)')
                    continue
                if not isinstance(text, str):
                    skip('no "text" string')
                    continue
                ident = clean_text(str(ident))
                if ident in seen:
                    skip(f"duplicate id {ident!r} (first on line {seen[ident]})")
                    continue
                seen[ident] = n
                text = clean_text(text)
                if not text.strip():
                    skip("empty text")
                    continue
                yield Document(id=f"{file_id}#{ident}", path=path, text=text, encoding=encoding)
        except OSError as exc:
            raise DocumentError(where, _os_reason(exc)) from exc
    if not nonblank:
        raise DocumentError(where, "empty (no documents, only blank lines); skipped")


def _jsonl_lines(fh, wide: str | None, max_bytes: int) -> Iterator[tuple[int, str | None, str]]:
    """(line number, text or None when over the limit, encoding) for each line of a JSON Lines file."""
    if wide:
        text = io.TextIOWrapper(fh, encoding=wide, errors="replace", newline=None)
        text.read(1)  # the BOM
        n = 0
        while True:
            line = text.readline(max_bytes + 1)
            if not line:
                return
            n += 1
            if len(line) > max_bytes and not line.endswith("\n"):
                while line and not line.endswith("\n"):
                    line = text.readline(max_bytes + 1)
                yield n, None, f"{wide} (BOM)"
                continue
            yield n, line, f"{wide} (BOM)"
    n = 0
    while True:
        raw = fh.readline(max_bytes + 2)
        if not raw:
            return
        n += 1
        if len(raw) > max_bytes + 1 or (len(raw) == max_bytes + 1 and not raw.endswith(b"\n")):
            while raw and not raw.endswith(b"\n"):
                raw = fh.readline(1 << 16)
            yield n, None, ""
            continue
        if n == 1 and raw.startswith(codecs.BOM_UTF8):
            yield n, raw[len(codecs.BOM_UTF8):].decode("utf-8", errors="replace"), "utf-8 (BOM)"
            continue
        try:
            text, encoding = decode(raw)
        except ValueError:
            text, encoding = raw.decode("utf-8", errors="replace"), "utf-8 (bad bytes replaced)"
        yield n, text, encoding


def read_documents(
    inputs: Iterable[Path], max_bytes: int, skipped: list[SkippedDocument]
) -> Iterator[Document]:
    """Yield each readable document under ``inputs`` in id order; append the others to ``skipped``."""
    for path, doc_id in find_files(inputs, skipped):
        try:
            if path.suffix.lower() == ".jsonl":
                yield from read_jsonl(path, doc_id, max_bytes, skipped)
            else:
                yield read_document(path, doc_id, max_bytes)
        except DocumentError as exc:
            skipped.append(SkippedDocument(path=exc.path, reason=exc.reason))
        except Exception as exc:  # noqa: BLE001  (a reader bug must cost one document, not the build)
            skipped.append(SkippedDocument(display_path(path), f"cannot be read ({type(exc).__name__}: {exc}); skipped"))
