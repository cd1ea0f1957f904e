"""Find documents under the inputs and read them: paths and addresses in, Documents (and skip reasons) out.

Every file is read defensively: opened without blocking (a FIFO named ``x.txt`` must not hang the build),
checked to be a regular file under the size limit before a byte is read, decoded by BOM, UTF-8, a declared
charset or a best guess, converted from its format (Markdown, HTML, PDF: ``markup.py``) to text with its
metadata, and normalised by :func:`clean_text`. ``http(s)`` addresses are fetched (``fetch.py``). Anything that
goes wrong with one document becomes a :class:`~pipeline.model.SkippedDocument` naming it and the reason; the
others are read as usual. Names are escaped for printing (:func:`~pipeline.errors.printable`).
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
from pathlib import Path

from .errors import DocumentError, InputError, printable
from .fetch import FETCH_TIMEOUT, Fetched, fetch, is_address, is_url
from .markup import Converted, TooSlow, html_document, html_to_text, iso_date, markdown_to_text, pdf_to_text
from .model import Document, SkippedDocument
from .outputs import folder_key, folder_keys

__all__ = [
    "SUFFIXES", "FORMATS", "find_files", "read_document", "read_jsonl", "read_documents", "read_url", "html_to_text",
    "decode", "clean_text", "display_path", "source_name", "is_url",
]

FORMATS = {".txt": "text", ".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html",
           ".xhtml": "html", ".pdf": "pdf", ".jsonl": "jsonl"}
"""File endings read as documents, and the format each is read as; anything else under a folder is ignored."""
SUFFIXES = frozenset(FORMATS)
"""File endings read as documents."""
SUPPORTED = "supported: .txt, .md, .html, .pdf, .jsonl and http(s) addresses"
"""What a skip of an unreadable file of another format says."""
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

    File names are bytes on POSIX; bytes that are not UTF-8 are shown as ``\\xNN`` escapes, and so are control
    characters (a name holding an escape sequence or a line break must not forge a line of output).

    Examples
    --------
    >>> display_path(os.fsdecode(b"caf\\xe9.txt")), display_path("a\\nskipped b.txt")
    ('caf\\\\xe9.txt', 'a\\\\x0askipped b.txt')
    """
    return printable(os.fsencode(str(path)).decode("utf-8", "backslashreplace"))


def source_name(document: Document) -> str:
    """Where a document came from, for a skip line: its file, and its id inside a ``.jsonl`` file."""
    if document.format == "jsonl" and "#" in document.id:
        return f"{display_path(document.path)} (id {printable(document.id.split('#', 1)[1])})"
    return printable(str(document.path)) if is_url(document.path) else display_path(document.path)


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


def find_files(inputs: Iterable[Path], skipped: list[SkippedDocument] | None = None,
               ignored: list[str] | None = None, exclude: Iterable[Path] = ()) -> list[tuple[Path, str]]:
    """Every document file under ``inputs`` with its stable id, sorted by id.

    A file named directly is read whatever its ending; folders are walked for :data:`SUFFIXES`, following
    symlinks to folders once (a link back to a folder being walked is a loop and is reported, not followed)
    and never a symlink that leads outside the folder named (reported). The id is the path relative to the
    folder named (the file name for a file named directly). Broken links, link loops, links out, FIFOs and
    unreadable folders found on the way are appended to ``skipped``; files of other formats to ``ignored``.
    The folders ``exclude`` names (the build's own output and cache folders) are not walked, wherever they are.

    Raises
    ------
    InputError
        If an input does not exist.
    """
    skipped = skipped if skipped is not None else []
    ignored = ignored if ignored is not None else []
    found: dict[str, Path] = {}

    def add(path: Path, doc_id: str) -> None:
        if doc_id in found:
            skipped.append(SkippedDocument(display_path(path), f"same document id {doc_id!r} as "
                                           f"{display_path(found[doc_id])}; skipped"))
        else:
            found[doc_id] = path

    excluded = folder_keys(exclude)
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
        for path, rel in _walk(root, skipped, ignored, excluded):
            add(path, display_path(rel))
    return sorted(((p, i) for i, p in found.items()), key=lambda pi: pi[1])


def _outside(target: str, root: str) -> bool:
    return target != root and not target.startswith(root.rstrip(os.sep) + os.sep)


def _walk(root: Path, skipped: list[SkippedDocument], ignored: list[str],
          excluded: frozenset = frozenset()) -> Iterator[tuple[Path, str]]:
    """Document files under ``root`` (depth first, without recursion) with their relative paths; the folders
    whose (device, inode) is in ``excluded`` are passed over."""
    st = root.stat()
    if (st.st_dev, st.st_ino) in excluded:
        return
    real_root = os.path.realpath(root)
    # the folders really under root: a link to one of them is read there, not twice
    seen = {(st.st_dev, st.st_ino): ""}
    for folder, subfolders, _ in os.walk(root):
        if excluded:
            subfolders[:] = [d for d in subfolders if folder_key(os.path.join(folder, d)) not in excluded]
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
            if entry.is_symlink() and (wanted or stat.S_ISDIR(st.st_mode)):
                target = os.path.realpath(entry.path)
                if _outside(target, real_root):
                    skipped.append(SkippedDocument(display_path(path), "a symlink leading outside the folder "
                                                   f"{display_path(root)!r} (to {display_path(target)!r}); not "
                                                   "followed (name its target to read it)"))
                    continue
            if stat.S_ISDIR(st.st_mode):
                key = (st.st_dev, st.st_ino)
                if key in excluded:
                    continue
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
            else:
                ignored.append(name)


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
    BOM-less UTF-16 (a NUL in every other byte); UTF-8 with a few bad bytes (no more undecodable sequences than
    well-formed multi-byte characters: a UTF-8 file with a stray byte), each bad one as U+FFFD; the charset the
    document declares (``declared``, from an HTML ``<meta charset>`` or an HTTP header; one that is not a text
    encoding, such as ``rot13``, or that browsers refuse, such as ``utf-7``, is passed over); else the best
    guess Windows-1252, the Latin-1 superset browsers use for undeclared Western text, and Latin-1 when a byte
    is not Windows-1252.

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
    >>> decode("café crème".encode("utf-8") + b" \\xff")
    ('café crème \ufffd', 'utf-8 (1 invalid byte sequence replaced with U+FFFD)')
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
    mostly = _mostly_utf8(data)
    if mostly:
        return mostly
    candidates = []
    codec = _text_codec(declared) if declared else None
    if codec in ("latin-1", "iso8859-1", "ascii"):  # as browsers do (WHATWG Encoding)
        candidates.append(("cp1252", f"cp1252 (declared {declared})"))
    elif codec and not codec.startswith(("utf-16", "utf-32", "utf-7")):
        candidates.append((codec, f"{codec} (declared {declared})"))
    candidates += [("cp1252", "cp1252 (best guess)"), ("latin-1", "latin-1 (best guess)")]
    for codec, label in candidates:
        try:
            text = data.decode(codec)
        except (UnicodeDecodeError, LookupError):
            continue
        if _looks_binary(text):
            raise ValueError("binary content (not UTF-8, UTF-16 or Latin-1 text)")
        return text, label
    raise ValueError("binary content (not text in any known encoding)")  # unreachable: Latin-1 decodes all


def _text_codec(name: str) -> str | None:
    """The codec a charset label names if it is a text encoding (not ``rot13``, ``base64``, ``zlib``...)."""
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError):
        return None
    return info.name if getattr(info, "_is_text_encoding", True) else None


def _mostly_utf8(data: bytes) -> tuple[str, str] | None:
    """UTF-8 with its bad bytes replaced, when the bytes are UTF-8 but for a few undecodable sequences."""
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") - data.count("\ufffd".encode())
    wide = len(text) - len(text.encode("ascii", errors="ignore")) - bad  # well-formed non-ASCII characters
    if not 0 < bad <= wide or _looks_binary(text):
        return None
    return text, f"utf-8 ({bad} invalid byte sequence{'s' if bad > 1 else ''} replaced with U+FFFD)"


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


def _format_of(path: Path, data: bytes) -> str:
    """The format a file is read as: by its ending, else a PDF by its signature, else plain text."""
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt and fmt != "jsonl":
        return fmt
    return "pdf" if data.startswith(b"%PDF-") else "text"


def _convert(data: bytes, fmt: str, where: str, declared: str | None = None, named: bool = True) -> tuple[Converted, str]:
    """The text and metadata of a document's bytes in format ``fmt``, and how they were decoded.

    Raises
    ------
    DocumentError
        With the reason, when the bytes cannot be used.
    """
    if fmt == "pdf":
        try:
            return pdf_to_text(data), "pdf"
        except ValueError as exc:
            raise DocumentError(where, f"{exc}; skipped") from exc
    try:
        text, encoding = decode(data, declared or (declared_charset(data) if fmt == "html" else None))
    except ValueError as exc:
        other = "" if named else f" ({SUPPORTED})"
        raise DocumentError(where, f"{exc}{other}; skipped") from exc
    try:
        if fmt == "html":
            return html_document(text), encoding
        if fmt == "markdown":
            return markdown_to_text(text), encoding
    except TooSlow as exc:
        raise DocumentError(where, f"{exc}; skipped") from exc
    except Exception as exc:  # noqa: BLE001  (any parser failure is this document's problem only)
        raise DocumentError(where, f"{fmt.upper() if fmt == 'html' else 'Markdown'} cannot be parsed "
                            f"({type(exc).__name__}: {exc}); skipped") from exc
    return Converted(text), encoding


def _document(doc_id: str, path: Path | str, data: bytes, fmt: str, where: str, url: str = "",
              declared: str | None = None, named: bool = True) -> Document:
    converted, encoding = _convert(data, fmt, where, declared, named)
    text = clean_text(converted.text)
    if not text.strip():
        raise DocumentError(where, "empty (no text" + (" outside the markup" if fmt in ("html", "markdown") else "")
                            + "); skipped")
    meta = {k: clean_text(getattr(converted, k)) for k in ("title", "url", "date", "author", "description")}
    meta["url"] = url or meta["url"]
    return Document(id=doc_id, path=path, text=text, encoding=encoding, format=fmt, **meta)


def read_document(path: Path, doc_id: str, max_bytes: int) -> Document:
    """Read one document file: plain text, Markdown, HTML or PDF (by its ending; a PDF also by its signature).

    Raises
    ------
    DocumentError
        With the reason, when the file cannot be used.
    """
    data = _read_bytes(path, max_bytes)
    where = display_path(path)
    if not data:
        raise DocumentError(where, "empty (0 bytes); skipped")
    return _document(doc_id, path, data, _format_of(path, data), where,
                     named=Path(path).suffix.lower() in SUFFIXES)


_CONTENT_TYPES = {"text/html": "html", "application/xhtml+xml": "html", "text/markdown": "markdown",
                  "text/x-markdown": "markdown", "application/pdf": "pdf", "text/plain": "text"}


def read_url(url: str, max_bytes: int, timeout: float = FETCH_TIMEOUT) -> Document:
    """Fetch and read one page; its id is the address as given, its ``url`` the address after redirects.

    The format comes from the ``Content-Type`` (HTML, Markdown, PDF, plain text), else from the address's ending,
    else from the body (a PDF signature, an HTML start); the charset from the header, then the page.

    Raises
    ------
    DocumentError
        With the reason (``fetch.fetch``), when the page cannot be fetched or used.
    """
    got: Fetched = fetch(url, max_bytes, timeout)
    where = printable(url)
    if not got.body:
        raise DocumentError(where, "empty (0 bytes); skipped")
    fmt = _CONTENT_TYPES.get(got.content_type)
    by_name = FORMATS.get(Path(got.url.split("?", 1)[0].split("#", 1)[0]).suffix.lower())
    if fmt in (None, "text") and by_name not in (None, "jsonl"):
        fmt = by_name
    if fmt is None or (fmt == "text" and got.content_type != "text/plain"):
        head = got.body[:1024].lstrip().lower()
        fmt = "pdf" if head.startswith(b"%pdf-") else "html" if head.startswith((b"<!doctype html", b"<html")) else "text"
    return _document(url, url, got.body, fmt, where, url=got.url, declared=got.charset)


def read_jsonl(path: Path, file_id: str, max_bytes: int, skipped: list[SkippedDocument]) -> Iterator[Document]:
    """The documents of a ``.jsonl`` file: one JSON object a line with an ``id`` and a ``text`` field.

    Each document's id is ``<file id>#<id>``; optional string fields ``title``, ``url``, ``date``, ``author`` and
    ``description`` are its metadata. A line that is not such an object (or nests too deeply to read), repeats
    an id, has no text or is longer than ``max_bytes`` is appended to ``skipped`` as ``file:line`` with the
    reason; the other lines are read. Blank lines are ignored.

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
                except RecursionError:
                    skip("not readable JSON (nested too deeply)")
                    continue
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
                meta = {k: clean_text(" ".join(v.split())) for k in ("title", "url", "date", "author", "description")
                        if isinstance(v := obj.get(k), str)}
                meta["date"] = iso_date(meta.get("date", ""))
                yield Document(id=f"{file_id}#{ident}", path=path, text=text, encoding=encoding, format="jsonl", **meta)
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
    inputs: Iterable[Path | str], max_bytes: int, skipped: list[SkippedDocument], timeout: float = FETCH_TIMEOUT,
    exclude: Iterable[Path] = (), known=None,
) -> Iterator[Document]:
    """Yield each readable document under ``inputs`` (files, folders, ``http(s)`` addresses) in id order;
    append the others to ``skipped``. The folders ``exclude`` names are not walked (:func:`find_files`).
    ``known(path, doc_id)``, if given, may answer for a document file (not a ``.jsonl`` one) with the document
    it knows that file holds, which is then not read (``incremental.KnownSources``).

    Raises
    ------
    InputError
        If an input does not exist, or the folders named hold files but none of a supported format.
    """
    inputs = list(inputs)
    for i in inputs:
        if is_address(i) and not is_url(i):
            raise InputError(f"{printable(i)}: only http:// and https:// addresses are fetched")
    urls = list(dict.fromkeys(str(i) for i in inputs if is_url(i)))
    ignored: list[str] = []
    files = find_files([Path(i) for i in inputs if not is_url(i)], skipped, ignored, exclude)
    if not files and not urls and not skipped and ignored:
        shown = ", ".join(display_path(n) for n in ignored[:5]) + (", ..." if len(ignored) > 5 else "")
        raise InputError(f"no document of a supported format under {', '.join(display_path(i) for i in inputs)}: "
                         f"{len(ignored)} other file(s) ignored ({shown}); {SUPPORTED}")
    items = sorted([(doc_id, path) for path, doc_id in files] + [(url, None) for url in urls], key=lambda x: x[0])
    for doc_id, path in items:
        try:
            if path is None:
                yield read_url(doc_id, max_bytes, timeout)
            elif path.suffix.lower() == ".jsonl":
                yield from read_jsonl(path, doc_id, max_bytes, skipped)
            else:
                document = known(path, doc_id) if known is not None else None
                yield document if document is not None else read_document(path, doc_id, max_bytes)
        except DocumentError as exc:
            skipped.append(SkippedDocument(path=exc.path, reason=exc.reason))
        except Exception as exc:  # noqa: BLE001  (a reader bug must cost one document, not the build)
            where = printable(doc_id) if path is None else display_path(path)
            skipped.append(SkippedDocument(where, f"cannot be read ({type(exc).__name__}: {printable(str(exc))}); skipped"))
