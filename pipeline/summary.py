"""What ``mlkg build`` prints about a build: one definition for the command (``cli.py``) and for the answer to
an unchanged build given before the command line's libraries load (``launch.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from .errors import MlkgError, printable

__all__ = ["echo_build", "quiet_stdout"]

Echo = Callable[..., None]
"""``echo(text, err=False)``: a line on stdout, or on stderr with ``err=True`` (``typer.echo``'s signature)."""


def echo_build(report, config, echo: Echo) -> None:
    """Print the summary of ``report`` (a ``BuildReport``) of the build of ``config`` (a ``BuildConfig``)."""
    from .build import report_dict

    out = config.out_dir
    d = report_dict(report)
    if report.up_to_date:
        echo(f"the graph in {out} is up to date ({d['documents_read']} documents, spaCy pipeline {d['model']}): "
             "inputs, options, code and model unchanged since the last build; nothing read or written")
    else:
        echo(f"read {d['documents_read']} documents with spaCy pipeline {d['model']} "
             f"({d['documents_parsed']} parsed, {d['documents_cached']} from the cache)")
    if d.get("patched"):
        echo(d["patched"])
    for doc_id, encoding in d["encodings"].items():
        if encoding not in ("utf-8", "pdf"):
            echo(f"read {printable(doc_id)} as {encoding}")
    if d.get("validation"):
        echo(f"validation {d['validation']}", err=True)
    for s in d["skipped"]:
        echo(f"skipped {printable(s['path'])}: {printable(s['reason'].removesuffix('; skipped'))}", err=True)
    if not report.up_to_date:
        _say_not_read(config, echo)
    echo("entities:  " + ", ".join(f"{k} {v}" for k, v in d["entities_per_class"].items()))
    echo("relations: " + ", ".join(f"{k} {v}" for k, v in d["relations_per_property"].items()))
    g = d["graph"]
    echo(f"graph: {g['nodes']} nodes, {g['edges']} edges, {g['components']} components; "
         f"most connected methods: {', '.join(g['most_connected_methods'])}")
    for v in report.quarantine:
        echo(f"quarantined: {v}", err=True)
    if report.quarantine:
        echo(f"{len(report.quarantine)} shape violation(s): their statements are in {out / 'quarantine.ttl'}, not in the graph", err=True)
    if d["seconds"]:
        echo("time: " + ", ".join(f"{k} {v:.2f}s" for k, v in d["seconds"].items()))
    echo("wrote " + (", ".join(report.outputs) or "nothing"))


def _say_not_read(config, echo: Echo) -> None:
    """One line on stderr for the files of other formats in the folders named (``paper.docx``), which are not read."""
    from .ingest import SUPPORTED, find_files
    from .outputs import own_folders

    ignored: list[str] = []
    try:
        find_files([s for s in config.inputs if isinstance(s, Path) and s.is_dir()], [], ignored,
                   own_folders(config.out_dir, config.cache_dir))
    except (MlkgError, OSError):
        return
    shown = [n for n in ignored if not any(part.startswith(".") for part in n.split("/"))]
    if shown:
        names = ", ".join(printable(n) for n in shown[:5]) + (", ..." if len(shown) > 5 else "")
        echo(f"not read: {len(shown)} file(s) of other formats ({names}); {SUPPORTED}", err=True)


def quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null, so the flush at exit does not raise (and print) again."""
    import os
    import sys

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
