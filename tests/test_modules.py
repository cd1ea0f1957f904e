"""The shape of the code: no module imports another module's private name."""

import ast
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
