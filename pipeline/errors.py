"""The mlkg error hierarchy and the CLI's exit codes."""

from __future__ import annotations

from enum import IntEnum
from pathlib import Path

__all__ = ["ExitCode", "MlkgError", "DocumentError", "QueryError", "InputError"]


class ExitCode(IntEnum):
    """Exit codes of the ``mlkg`` command, documented in the README."""

    OK = 0
    OK_WITH_SKIPS = 1
    FAILED = 2
    USAGE = 3


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
