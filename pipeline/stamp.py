"""A true no-op: what the last build was made from, and whether anything has changed since.

After each build with the cache on, the cache keeps a stamp of its output folder (``outputs.folder_record``): a digest of the inputs (every file and
folder under them, by path, size, modification time and inode), of the options, of mlkg's code and ontology,
and of the spaCy and English pipeline packages installed; with the size, modification time and inode of each
file the build wrote, and its report. When all of these are as they were, :func:`unchanged` returns that
report and the build stops: nothing is read, parsed or written. A build that fails leaves the stamp as it was:
it still describes the outputs, which are as they were (a build that replaced any changed its stat). A stat is a proxy for content: an edit that
keeps a file's size and modification time to the nanosecond and its inode is not seen (``--no-cache``, or
touching the file, rebuilds).

Everything here runs before spaCy, rdflib or the inputs' texts are loaded, so the check takes milliseconds.
The stamp also keeps the command line that asked for the build and the settings it meant
(``BuildConfig.command``), so that the same ``mlkg build ...`` run again in the same folder finds them
(:func:`command_config`) without the command line's libraries (``launch.py``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
from pathlib import Path

from .config import BuildConfig
from .files import digest_file
from .outputs import CACHE_DIR, folder_key, folder_keys, folder_record, own_folders

__all__ = ["unchanged", "save", "fingerprint", "Fingerprint", "command_config"]

_FORMAT = 1
_ROOT = Path(__file__).resolve().parent


def _stat(path: str) -> list:
    st = os.lstat(path)
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_mode]


def _inputs(config: BuildConfig, h) -> bool:
    """Add every file and folder under the inputs to ``h``; False when a web address (its page may have
    changed) or a link to a folder (the listing would be unreliable) is among them: the build then always runs."""
    from .fetch import is_address

    own = folder_keys(own_folders(config.out_dir, config.cache_dir))  # what the build writes is not its input
    for top in config.inputs:
        if is_address(top):
            return False
        top = os.path.abspath(top)
        h.update(f"input {top}\0".encode("utf-8", "surrogatepass"))
        if not os.path.lexists(top):
            h.update(b"missing\0")
            continue
        for folder, dirs, files in os.walk(top) if os.path.isdir(top) else [(os.path.dirname(top), [], [os.path.basename(top)])]:
            dirs[:] = sorted(d for d in dirs if folder_key(os.path.join(folder, d)) not in own)
            h.update(f"{folder}\0{_stat(folder)}\0".encode("utf-8", "surrogatepass"))
            for name in sorted(files) + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
                path = os.path.join(folder, name)
                st = _stat(path)
                if os.path.islink(path):
                    if os.path.isdir(path):
                        return False
                    try:
                        st += _stat(os.path.realpath(path))
                    except OSError:
                        st.append("broken")
                h.update(f"{name}\0{st}\0".encode("utf-8", "surrogatepass"))
    return True


def _code(h) -> None:
    """mlkg's code, rule data, queries, templates and ontology."""
    for base in (_ROOT, _ROOT.parent / "ontology"):
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.is_file() and path.suffix in {".py", ".json", ".rq", ".html", ".ttl"} and "__pycache__" not in path.parts:
                digest_file(h, path.relative_to(base.parent).as_posix(), path)


def _packages(h) -> None:
    """The installed spaCy and English pipeline distributions (a new pipeline may change the default model)."""
    found = set()
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        found.update(n for n in names if n.endswith(".dist-info") and n.lower().startswith(("spacy-", "en_core_web")))
    h.update("\0".join(sorted(found)).encode())


def fingerprint(config: BuildConfig) -> str | None:
    """What a build of ``config`` would be made from; None when it cannot be told from stats alone."""
    h = hashlib.sha256(f"mlkg-stamp-{_FORMAT}\0".encode())
    options = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)
               if f.name not in ("inputs", "out_dir", "stop_if_unchanged", "command")}
    options["out_dir"] = os.path.abspath(config.out_dir)
    h.update(repr(sorted(options.items())).encode("utf-8", "surrogatepass"))
    if not _inputs(config, h):
        return None
    _code(h)
    _packages(h)
    return h.hexdigest()


class Fingerprint:
    """The :func:`fingerprint` of one build of ``config``, computed once, when first asked for: by
    :func:`unchanged` at the start, or by the build while it waits (a patched build, for the pipeline loading
    beside it), and kept for :func:`save`. Taken before the outputs are written, it describes the inputs as
    the build found them: a file changed while it ran makes the next build run."""

    _NONE = object()

    def __init__(self, config: BuildConfig) -> None:
        self.config, self._digest = config, self._NONE

    def __call__(self) -> str | None:
        if self._digest is self._NONE:
            self._digest = fingerprint(self.config) if self.config.cache else None
        return self._digest


def unchanged(config: BuildConfig, known: Fingerprint | None = None) -> dict | None:
    """The last build's report (``build.report_dict`` without timings, and its outputs) when its inputs,
    options, code and packages are unchanged and each file it wrote is as it left it; else None.
    ``known``: the build's :class:`Fingerprint`, if it has one (then computed at most once)."""
    if not (config.cache and config.stop_if_unchanged):
        return None  # --no-cache asks for the whole build, and a program may change the pipeline in memory
    out = Path(config.out_dir)
    try:
        stamp = json.loads(_path(config).read_text("utf-8"))
        if stamp.get("format") != _FORMAT:
            return None
        for name, st in stamp["written"].items():
            if _stat(os.path.join(out, name)) != st:
                return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if stamp.get("fingerprint") != (known or Fingerprint(config))() or stamp["fingerprint"] is None:
        return None
    return stamp["report"]


def _path(config: BuildConfig) -> Path:
    return folder_record(config.cache_dir or Path(config.out_dir) / CACHE_DIR, config.out_dir, "stamp")


def save(config: BuildConfig, written: list[str], report: dict, known: Fingerprint | None = None) -> None:
    """Leave the stamp of the build of ``config`` that just wrote ``written`` (file names in the output folder);
    ``known``: the build's :class:`Fingerprint` (else taken now)."""
    from .write import atomic_write, json_bytes

    if not config.cache:
        return
    out = Path(config.out_dir)
    digest = (known or Fingerprint(config))()
    if digest is None:
        _path(config).unlink(missing_ok=True)
        return
    record = {"format": _FORMAT, "fingerprint": digest, "report": report,
              "written": {n: _stat(os.path.join(out, n)) for n in sorted(written)}}
    if config.command:
        record["command"] = {"argv": list(config.command), "cwd": os.getcwd(), "config": _config_record(config)}
    atomic_write(_path(config), json_bytes(record), durable=False)  # checked against the outputs it lists


def _config_record(config: BuildConfig) -> dict:
    """``config`` as JSON data (a command line's settings: paths, not addresses, as inputs)."""
    return {f.name: [str(v) for v in value] if isinstance(value := getattr(config, f.name), tuple)
            else str(value) if isinstance(value, Path) else value for f in dataclasses.fields(config)}


def _config_from(record: dict) -> BuildConfig:
    """The inverse of :func:`_config_record`."""
    r = dict(record)
    r["inputs"] = tuple(Path(p) for p in r["inputs"])
    r["out_dir"] = Path(r["out_dir"])
    r["cache_dir"] = None if r["cache_dir"] is None else Path(r["cache_dir"])
    r["formats"], r["command"] = tuple(r["formats"]), tuple(r["command"])
    return BuildConfig(**r)


def _option(argv: list[str], long: str, short: str | None = None) -> str | None:
    """The value of the last ``--long X``, ``--long=X``, ``-s X`` or ``-sX`` in ``argv``, or None."""
    value = None
    for i, word in enumerate(argv):
        if word == "--":
            break
        if word in (long, short) and i + 1 < len(argv):
            value = argv[i + 1]
        elif word.startswith(long + "="):
            value = word[len(long) + 1:]
        elif short and word.startswith(short) and len(word) > len(short) and not word.startswith("--"):
            value = word[len(short):]
    return value


def command_config(argv: list[str], cwd: str) -> BuildConfig | None:
    """The settings the command line ``argv`` (``build ...``: the words after ``mlkg``) meant when it last ran in
    ``cwd``, read from the stamp of the build it asked for; None when that build left no stamp for this exact
    command line. The same words in the same folder mean the same settings as long as mlkg's code is the same,
    and the code is part of the fingerprint :func:`unchanged` checks next. The stamp is found where the
    command's ``--out`` and ``--cache`` put it; a word read wrongly only means the stamp is not found there."""
    from .config import DEFAULT_OUT

    out = _option(argv, "--out", "-o") or str(DEFAULT_OUT)
    cache = _option(argv, "--cache")
    try:
        command = json.loads(folder_record(cache or Path(out) / CACHE_DIR, out, "stamp").read_text("utf-8"))["command"]
        if command["argv"] != argv or command["cwd"] != cwd:
            return None
        return _config_from(command["config"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
