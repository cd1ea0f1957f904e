"""tools/overlap.py: the names a new annotated set shares with the held-out sets, checked before it is trained on."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _overlap(name: str) -> dict[str, list[str]]:
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "overlap.py"), name], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    lines = (line.split(": ", 2) for line in out.splitlines())
    return {held: names.split(", ") for held, _, names in lines}


def test_a_set_sharing_a_topic_shows_the_topic_names():
    """real-b8 (whole-body pose estimation) shares OpenPose and MPII with real-c6 (human pose estimation)."""
    found = _overlap("real-b8")
    assert {"OpenPose", "MPII"} <= set(found["real-c6"])


def test_a_held_out_set_is_not_compared_with_itself():
    assert "real-c6" not in _overlap("real-c6")
