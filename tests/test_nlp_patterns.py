"""Every key of the rule data (``pipeline/nlp/patterns/*.json``, ``pipeline/resolution.json``) is read: no dead cue lists."""

from __future__ import annotations

import json
from pathlib import Path

from data import CORPUS_DIR

PATTERNS = Path(__file__).resolve().parent.parent / "pipeline" / "nlp" / "patterns"


class _Reads(dict):
    """A dict that notes which of its keys were read (by lookup, ``get`` or ``in``)."""

    def __init__(self, data: dict, path: str, seen: set) -> None:
        super().__init__(data)
        self.path, self.seen = path, seen

    def _note(self, key) -> None:
        self.seen.add(f"{self.path}{key}")

    def __getitem__(self, key):
        self._note(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self._note(key)
        return super().get(key, default)

    def __contains__(self, key) -> bool:
        self._note(key)
        return super().__contains__(key)


def _keys(data: dict, path: str) -> set[str]:
    """The keys of ``data`` that name rule data (a leading ``_`` marks a comment)."""
    return {f"{path}{k}" for k in data if not k.startswith("_")}


def test_every_file_and_top_level_key_is_read_when_the_rules_load(monkeypatch):
    from pipeline.nlp import rules

    seen: set[str] = set()
    loads = json.loads
    files: dict[str, dict] = {}

    def recording(text, *args, **kwargs):
        data = loads(text, *args, **kwargs)
        name = next(p.name for p in PATTERNS.glob("*.json") if p.name != "weights.json" and loads(p.read_text("utf-8")) == data)
        files[name] = data
        return _Reads(data, f"{name}:", seen)

    monkeypatch.setattr(rules.json, "loads", recording)
    rules.load_rules.__wrapped__()
    # features.json and weights.json are the trained decision's (nlp/classify.py), read when it loads and checked
    # in tests/test_learned.py; gazetteer.json is evidence for it (nlp/gazetteer.py, checked in
    # tests/test_gazetteer.py); every other file is the rules'
    learned = {"features.json", "weights.json", "gazetteer.json"}
    assert sorted(files) == sorted(p.name for p in PATTERNS.glob("*.json") if p.name not in learned)
    want = set().union(*(_keys(data, f"{name}:") for name, data in files.items()))
    # cues.json's string cues are compiled all at once (iterated): each is checked where it is used, below
    cue_strings = {f"cues.json:{k}" for k, v in files["cues.json"].items() if isinstance(v, str)}
    assert want - cue_strings - seen == set()


def test_every_cue_is_read_by_a_relation_rule(nlp):
    """Each compiled cue of cues.json is looked up by a relation family while the bundled corpus is read."""
    finder = nlp.get_pipe("mlkg_relations")
    cues = json.loads((PATTERNS / "cues.json").read_text("utf-8"))
    strings = {k for k, v in cues.items() if isinstance(v, str) and not k.startswith("_")}
    assert strings == set(finder.re) | {"negation"}
    seen: set[str] = set()
    compiled = finder.re
    finder.re = _Reads(compiled, "", seen)
    try:
        for path in sorted(Path(CORPUS_DIR).glob("*.txt")):
            nlp(path.read_text("utf-8"))
    finally:
        finder.re = compiled
    assert set(compiled) - seen == set()
    nested = {k for k, v in cues.items() if isinstance(v, dict)}
    assert nested == {"dependency_verbs", "comparatives", "patterns"}  # patterns: the next test
    from pipeline.vocab import RELATION_ENDS

    assert {k for k in cues["dependency_verbs"] if not k.startswith("_")} <= set(RELATION_ENDS)  # read as relations
    assert {k for k in cues["comparatives"] if not k.startswith("_")} == {"lower_is_better"}


def test_every_field_of_a_conference_is_read():
    """The fields of venues.json's conferences are the ones the venue rules read."""
    source = (PATTERNS.parent / "venues.py").read_text("utf-8") + (PATTERNS.parent / "rules.py").read_text("utf-8")
    venues = json.loads((PATTERNS / "venues.json").read_text("utf-8"))
    fields = {k for info in venues["conferences"].values() for k in info if not k.startswith("_")}
    assert fields and all(f'"{f}"' in source for f in fields), fields


def test_every_cue_pattern_is_compiled_by_the_module_that_loads_its_section():
    """cues.json's "patterns": each section is loaded by a rule module (``cue_patterns["titles"]``) and each of its
    cues compiled there (``_CUES["title_cue"]``)."""
    cues = json.loads((PATTERNS / "cues.json").read_text("utf-8"))
    sources = {p: p.read_text("utf-8") for p in PATTERNS.parent.rglob("*.py")}
    sections = {k: v for k, v in cues["patterns"].items() if not k.startswith("_")}
    assert sections
    for section, patterns in sections.items():
        readers = [text for text in sources.values() if f'cue_patterns["{section}"]' in text]
        assert len(readers) == 1, section
        unread = [k for k in patterns if not k.startswith("_") and f'_CUES["{k}"]' not in readers[0]]
        assert unread == [], (section, unread)


def test_every_key_of_the_resolution_cues_is_read(monkeypatch):
    """``pipeline/resolution.json`` (the merge rules' cue words) has no dead key: loading ``names.py`` afresh reads
    every one."""
    import importlib.util

    path = PATTERNS.parent.parent / "resolution.json"
    seen: set[str] = set()
    loads = json.loads
    monkeypatch.setattr(json, "loads", lambda text, *a, **k: _Reads(loads(text, *a, **k), "", seen))
    spec = importlib.util.spec_from_file_location("pipeline.names_probe", PATTERNS.parent.parent / "names.py")
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    monkeypatch.undo()
    assert _keys(loads(path.read_text("utf-8")), "") - seen == set()
