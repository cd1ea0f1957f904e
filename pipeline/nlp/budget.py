"""The per-document time budget of the rule components: a deadline set when the rules start on a Doc, checked
between rule families and sentence by sentence, so a document the rules cannot read in time is skipped with its
reason instead of stalling the build (``config.document_budget`` sizes it from the document's length)."""

from __future__ import annotations

import time

from spacy.tokens import Doc

from .. import config
from ..errors import MlkgError

__all__ = ["BudgetExceeded", "start", "check", "DOC_ID_KEY"]

_DEADLINE_KEY = "mlkg_deadline"
DOC_ID_KEY = "mlkg_doc_id"
"""Where ``extract`` puts the document's id in ``doc.user_data``, so a budget error names its document."""


class BudgetExceeded(MlkgError):
    """The rules ran past a document's time budget."""

    def __init__(self, message: str, doc_id: str | None = None) -> None:
        super().__init__(message)
        self.doc_id = doc_id


def start(doc: Doc, text: str) -> None:
    """Start ``doc``'s clock (once: the relations keep the deadline the mentions started)."""
    if _DEADLINE_KEY not in doc.user_data:
        budget = config.document_budget(len(text))
        doc.user_data[_DEADLINE_KEY] = (time.monotonic() + budget, budget)


def check(doc: Doc, where: str) -> None:
    """Raise :class:`BudgetExceeded` when ``doc``'s deadline has passed (``where``: the rules being run)."""
    deadline = doc.user_data.get(_DEADLINE_KEY)
    if deadline is not None and time.monotonic() > deadline[0]:
        raise BudgetExceeded(f"the rules took longer than the document's time budget of {deadline[1]:.1f} s "
                             f"(stopped in {where})", doc.user_data.get(DOC_ID_KEY))
