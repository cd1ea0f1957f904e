"""Regenerate ``pipeline/nlp/patterns/english_words.txt``: the lower-case English words of a dictionary, for the
mention features that tell a coined name ("Demucs", "Yandex", "QuickDraw") from a capitalised common phrase
("Chemical Science", "Evolutionary Algorithms") (``pipeline/nlp/features.py``, ``_english``).

Source: SCOWL's American English word list as Debian packages it (``apt-get install wamerican``:
``/usr/share/dict/american-english``; SCOWL's licence is permissive: copyright Kevin Atkinson and others, use,
copy, modify and distribute with the notice kept, which the output's header repeats). Only entries of lower-case
ASCII letters are kept: the dictionary writes proper nouns capitalised ("Paris") and abbreviations with capitals or
dots, and a name's word is what the features ask about. A plural the loader can rebuild from its singular ("models"
from "model", "classes" from "class", "studies" from "study": ``pipeline.nlp.english.singulars``, the loader's rule) is
left out, which keeps the file a third smaller.
The larger list (``wamerican-large``, 86,000 words after the same steps) scored the same on the fast two-fold scorer
(entity / relation F1 0.8048 / 0.5472 against 0.8044 / 0.5465) at twice the size.

Usage: ``python tools/english_words.py [--words /usr/share/dict/american-english] [--out FILE]``.
The output is sorted: the same list gives the same bytes.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from pipeline.nlp.english import singulars  # noqa: E402  (the rule the loader rebuilds plurals by)

OUT = Path(__file__).resolve().parent.parent / "pipeline" / "nlp" / "patterns" / "english_words.txt"
HEADER = """\
# Lower-case English words (plurals the loader rebuilds left out): tools/english_words.py, from SCOWL's
# American English list (Debian's wamerican, /usr/share/dict/american-english).
# SCOWL: Copyright 2000-2011 by Kevin Atkinson and the authors named in its README. Permission to use, copy,
# modify, distribute and sell these word lists, the associated scripts, the output created from the scripts, and
# its documentation for any purpose is hereby granted without fee, provided that the above copyright notice
# appears in all copies and that both that copyright notice and this permission notice appear in supporting
# documentation. Kevin Atkinson makes no representations about the suitability of this array for any purpose.
# It is provided "as is" without express or implied warranty.
"""
_WORD = re.compile(r"[a-z]+")


def compact(words: set[str]) -> list[str]:
    """``words`` without the plurals whose singular it holds, sorted."""
    return sorted(w for w in words if not any(s in words for s in singulars(w)))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", type=Path, default=Path("/usr/share/dict/american-english"))
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    words = {w for w in args.words.read_text("utf-8").split("\n") if _WORD.fullmatch(w)}
    args.out.write_text(HEADER + "\n".join(compact(words)) + "\n", "utf-8")


if __name__ == "__main__":
    main()
