"""The discourse state of the relation rules: what is in focus as a document is read sentence by sentence."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from spacy.tokens import Span

from .doc import span_value
from .rules import norm

__all__ = ["State", "_Introduced", "introduced", "canon", "paragraph_numbers"]


@dataclass
class State:
    """What the relation rules carry from sentence to sentence: the paper and method in focus (and their
    paragraphs), the demo list being read, what each paper introduces, the untitled papers of abstracts, the last
    titled paper and a title line awaiting its abstract."""

    cur_paper: Span | None = None
    paper_para: int = -10
    cur_method: Span | None = None
    demo_method: Span | None = None
    demo_list: bool = False
    demo_para: int = -10  # the paragraph of the last demo sentence, and the venue it named
    demo_venue: Span | None = None
    paper_methods: dict = field(default_factory=dict)  # norm(paper canonical) -> [method spans]
    untitled: dict = field(default_factory=dict)  # paragraph index -> paper span
    line_title: Span | None = None  # a title on a line of its own, awaiting its abstract
    line_title_para: int = -10
    last_titled: Span | None = None  # the last paper named by its title, and its paragraph
    last_titled_para: int = -10
    introduced_memo: tuple | None = None  # (methods counted, their normalised names): see introduced


def canon(span: Span) -> str:
    return span_value(span, "mlkg_canonical", "") or span.text


class _Introduced:
    """Normalised names of the methods the papers read so far introduce, and of the current method (``in`` only)."""

    __slots__ = ("names", "current")

    def __init__(self, names: frozenset[str], current: str | None) -> None:
        self.names, self.current = names, current

    def __contains__(self, name: str) -> bool:
        return name == self.current or name in self.names


def introduced(st: State) -> _Introduced:
    """What the papers read so far introduce, and the current method: the names are gathered again only when a
    paper has gained a method since (asked once a sentence, gathering them each time was quadratic)."""
    size = sum(len(ms) for ms in st.paper_methods.values())
    if st.introduced_memo is None or st.introduced_memo[0] != size:
        st.introduced_memo = (size, frozenset(norm(canon(m)) for ms in st.paper_methods.values() for m in ms))
    return _Introduced(st.introduced_memo[1], norm(canon(st.cur_method)) if st.cur_method is not None else None)



def paragraph_numbers(sents: list[Span], dtext: str) -> dict[int, int]:
    """The paragraph of each sentence (by its first token): the line breaks before its first character."""
    para_of: dict[int, int] = {}
    para = 0
    prev_end = 0
    for s in sents:
        stext = dtext[s.start_char:s.end_char]  # Span.text joins its tokens on every access
        first_char = s.start_char + (len(stext) - len(stext.lstrip()))
        para += len(re.findall(r"\n[\s]*", dtext[prev_end:first_char]))
        prev_end = first_char
        para_of[s.start] = para
    return para_of
