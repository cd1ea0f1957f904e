"""The ``mlkg`` command's entry point (and ``python -m pipeline``'s).

``mlkg build ...`` with nothing changed since the same command last ran in the same folder is answered here,
from the stamp that build left (``stamp.command_config``, ``build.unchanged_report``), before the command
line's libraries load: Typer and pydantic alone take longer to import than the whole check. Every other command
line, and a build that is not up to date, goes to the Typer application (``cli.app``), which records the
command line in the stamp of the build it runs (:func:`command`).
"""

from __future__ import annotations

import os
import sys

__all__ = ["main", "command"]

_argv: list[str] | None = None


def command() -> tuple[str, ...]:
    """The words after ``mlkg`` when the command runs through :func:`main`; () when the application is called
    otherwise (a test's runner), so no stamp records a command line that was never typed."""
    return tuple(_argv) if _argv is not None else ()


def main() -> None:
    """Run the ``mlkg`` command line in ``sys.argv``."""
    global _argv
    _argv = sys.argv[1:]
    if _argv[:1] == ["build"]:
        code = _up_to_date(_argv)
        if code is not None:
            sys.exit(code)
    from .cli import app

    app()


class _Busy(Exception):
    """Another build holds the output folder: the command waits for it the ordinary way."""


def _busy() -> None:
    raise _Busy


def _up_to_date(argv: list[str]) -> int | None:
    """Print the last build's summary and return its exit code when the build ``argv`` asks for is up to date;
    else None (nothing printed)."""
    from . import stamp

    config = stamp.command_config(argv, os.getcwd())
    if config is None:
        return None
    from .build import exit_code_for, unchanged_report
    from .errors import ExitCode
    from .summary import echo_build, quiet_stdout
    from .write import folder_lock

    try:
        with folder_lock(config.out_dir, on_wait=_busy):
            report = unchanged_report(config)
    except (_Busy, OSError):
        return None
    if report is None:
        return None
    try:
        echo_build(report, config, _echo)
        sys.stdout.flush()
    except BrokenPipeError:  # ``mlkg build | head``: as the command line does
        quiet_stdout()
        return int(ExitCode.BROKEN_PIPE)
    return int(exit_code_for(report))


def _echo(text: str, err: bool = False) -> None:
    print(text, file=sys.stderr if err else sys.stdout)
