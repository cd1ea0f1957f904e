"""Find documents under the inputs and decode them: paths in, Documents (and skip reasons) out."""

from __future__ import annotations

import codecs
import html
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from .errors import DocumentError, InputError
from .model import Document, SkippedDocument

__all__ = ["SUFFIXES", "find_files", "read_document", "read_documents", "html_to_text", "decode"]

SUFFIXES = frozenset({".txt", ".md", ".html", ".htm"})
"""File endings read as documents; anything else under a folder is ignored."""


def find_files(inputs: Iterable[Path]) -> list[tuple[Path, str]]:
    """Every document file under ``inputs`` with its stable id, sorted by id.

    A file named directly is read whatever its ending; folders are walked for :data:`SUFFIXES`.
    The id is the path relative to the folder named (the file name for a file named directly).

    Raises
    ------
    InputError
        If an input does not exist.
    """
    found: dict[str, Path] = {}
    for root in inputs:
        root = Path(root)
        if not root.exists():
            raise InputError(f"{root}: no such file or folder; name a document or a folder of documents")
        if root.is_file():
            found.setdefault(root.name, root)
            continue
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix.lower() in SUFFIXES:
                found.setdefault(path.relative_to(root).as_posix(), path)
    return sorted(((p, i) for i, p in found.items()), key=lambda pi: pi[1])


def decode(data: bytes) -> tuple[str, str]:
    """Decode document bytes: BOMs first, then UTF-8, then Latin-1 for text that is clearly not binary.

    Examples
    --------
    >>> decode("café".encode("utf-8"))
    ('café', 'utf-8')
    >>> decode(codecs.BOM_UTF16_LE + "hi".encode("utf-16-le"))
    ('hi', 'utf-16')
    """
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8):].decode("utf-8"), "utf-8-sig"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16"), "utf-16"
    if b"\x00" in data:
        raise ValueError("binary content (NUL bytes)")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        text = data.decode("latin-1")
        controls = sum(1 for ch in text if ord(ch) < 32 and ch not in "\r\n\t\f")
        if controls > len(text) / 100:
            raise ValueError("binary content (not UTF-8, UTF-16 or Latin-1 text)") from None
        return text, "latin-1"


_SCRIPT = re.compile(r"<(script|style)\b.*?</\1\s*>", re.I | re.S)
_BLOCK = re.compile(r"</?(p|div|br|li|h[1-6]|tr|section|article|header|footer|ul|ol|table|title)\b[^>]*>", re.I)
_TAG = re.compile(r"<[^>]+>")


def html_to_text(markup: str) -> str:
    """Text of an HTML page: scripts and styles dropped, block elements as line breaks.

    Examples
    --------
    >>> html_to_text("<p>A &amp; B</p><script>x()</script><p>C</p>")
    'A & B\\nC'
    """
    text = _SCRIPT.sub(" ", markup)
    text = _BLOCK.sub("\n", text)
    text = html.unescape(_TAG.sub("", text))
    lines = (re.sub(r"[ \t\r\f\v]+", " ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def read_document(path: Path, doc_id: str, max_bytes: int) -> Document:
    """Read one document file.

    Raises
    ------
    DocumentError
        With the reason, when the file cannot be used.
    """
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise DocumentError(path, f"{size} bytes is over the limit of {max_bytes} (--max-bytes); skipped")
        data = path.read_bytes()
    except OSError as exc:
        raise DocumentError(path, f"cannot be read ({exc.strerror or exc}); skipped") from exc
    try:
        text, encoding = decode(data)
    except ValueError as exc:
        raise DocumentError(path, f"{exc}; skipped") from exc
    if path.suffix.lower() in {".html", ".htm"}:
        text = html_to_text(text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise DocumentError(path, "empty (no text); skipped")
    return Document(id=doc_id, path=path, text=text, encoding=encoding)


def read_documents(
    inputs: Iterable[Path], max_bytes: int, skipped: list[SkippedDocument]
) -> Iterator[Document]:
    """Yield each readable document under ``inputs`` in id order; append the others to ``skipped``."""
    for path, doc_id in find_files(inputs):
        try:
            yield read_document(path, doc_id, max_bytes)
        except DocumentError as exc:
            skipped.append(SkippedDocument(path=exc.path, reason=exc.reason))
