"""The mlkg error hierarchy and the CLI's exit codes."""

from __future__ import annotations

import re
from enum import IntEnum
from pathlib import Path

__all__ = ["ExitCode", "MlkgError", "DocumentError", "QueryError", "InputError", "printable"]

_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
_UNPRINTABLE_BUT_NEWLINE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")


def _escape(m: re.Match) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def printable(text: str, newlines: bool = False) -> str:
    """``text`` safe to print on a terminal: control characters (escape sequences, line breaks that would
    forge a line of output), line separators and bidirectional overrides as ``\\xNN`` / ``\\uNNNN`` escapes.
    With ``newlines=True`` a plain ``\\n`` is kept (a message of several lines of mlkg's own).

    >>> printable("a\\x1b[31m\\nb\\u202e")
    'a\\\\x1b[31m\\\\x0ab\\\\u202e'
    """
    return (_UNPRINTABLE_BUT_NEWLINE if newlines else _UNPRINTABLE).sub(_escape, text)


class ExitCode(IntEnum):
    """Exit codes of the ``mlkg`` command, documented in the README."""

    OK = 0
    OK_WITH_SKIPS = 1
    FAILED = 2
    USAGE = 3
    BROKEN_PIPE = 141
    """The reader of the output closed it (``mlkg query ... | head``): 128 + SIGPIPE, as a shell tool gets."""


class MlkgError(Exception):
    """Base class of every error mlkg raises on purpose; the CLI prints it and exits ``FAILED``."""

    exit_code = ExitCode.FAILED


class InputError(MlkgError):
    """The inputs named on the command line do not exist or hold no documents."""

    exit_code = ExitCode.USAGE


class DocumentError(MlkgError):
    """One document cannot be read or processed; the build skips it and goes on."""

    def __init__(self, path: Path | str, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class QueryError(MlkgError):
    """A query name is unknown, a query file is malformed, or the graph to query is missing."""

    exit_code = ExitCode.USAGE
