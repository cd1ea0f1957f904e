"""The shape of the code: no module imports another module's private name."""

import ast
import re
from pathlib import Path

PIPELINE = Path(__file__).parents[1] / "pipeline"


def test_no_module_imports_another_modules_private_name():
    found = []
    for f in sorted(PIPELINE.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("pipeline")):
                found += [f"{f.relative_to(PIPELINE)}: from {'.' * node.level}{node.module or ''} import {a.name}"
                          for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
    assert not found, "private names imported across modules:\n" + "\n".join(found)


def test_every_package_is_installed():
    """A plain ``pip install .`` ships only the packages pyproject.toml lists: a subpackage left out is missing
    from users' installs while an editable install (and so the suite) still finds it."""
    setuptools = re.search(r"^packages = \[(.*?)\]", (PIPELINE.parent / "pyproject.toml").read_text("utf-8"), re.M)
    listed = set(re.findall(r'"([^"]+)"', setuptools.group(1)))
    found = {".".join(p.parent.relative_to(PIPELINE.parent).parts) for p in PIPELINE.rglob("__init__.py")}
    assert found <= listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"


def test_extraction_imports_no_later_stage():
    """Extraction (``pipeline/nlp``) reads names through ``names.py``; it never imports the stages that come
    after it (resolution, rendering, validation, writing), so a change there cannot change what is extracted."""
    later = {"resolve", "rdf", "stream", "incremental", "validate", "shacl", "write", "render", "layout", "build"}
    found = []
    for f in sorted((PIPELINE / "nlp").rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom):
                depth = len(f.relative_to(PIPELINE).parts) - 1
                module = (node.module or "").removeprefix("pipeline.")
                if (node.level > depth or node.module and node.module.startswith("pipeline.")) \
                        and module.split(".")[0] in later:
                    found.append(f"{f.relative_to(PIPELINE)}: from {'.' * node.level}{node.module}")
    assert not found, "extraction imports a later stage:\n" + "\n".join(found)
