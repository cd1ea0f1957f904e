"""The frozen dataclasses passed from one stage to the next."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the records load without rdflib (an up-to-date build never needs it)
    from rdflib import URIRef

__all__ = [
    "Document", "SkippedDocument", "Evidence", "Mention", "RelationMention", "Extraction",
    "Entity", "MergeRecord", "MERGE_RULES", "Relation", "Resolution", "BuildReport", "Violation",
]


@dataclass(frozen=True, slots=True)
class Document:
    """One readable source document."""

    id: str
    """Stable identifier: the path relative to the input it was found under, with ``/`` separators."""
    path: Path | str
    """Where the document was read from: a file, or the ``http(s)`` address of a fetched page."""
    text: str
    """The decoded text."""
    encoding: str = "utf-8"
    """The encoding the bytes were decoded with (``pdf`` for a PDF's text layer)."""
    format: str = "text"
    """What the source was read as: ``text``, ``markdown``, ``html``, ``pdf`` or ``jsonl``."""
    title: str = ""
    """The document's own title (Markdown front matter or first top-level heading, HTML ``<title>`` or
    ``citation_title``/``og:title``, PDF metadata, a JSON Lines ``title`` field); empty when none is given."""
    url: str = ""
    """Where the document lives on the web: the address it was fetched from, or the one it declares
    (``og:url``, ``<link rel=canonical>``, front matter ``url``); empty when unknown."""
    date: str = ""
    """Its publication date as ISO 8601 (``2025-11-03``, ``2025-11`` or ``2025``); empty when unknown or unreadable."""
    author: str = ""
    """Its authors as declared in its metadata (``; ``-separated); empty when none."""
    description: str = ""
    """Its summary as declared in its metadata (``<meta name=description>``, front matter, PDF subject)."""


@dataclass(frozen=True, slots=True)
class SkippedDocument:
    """A document the build could not use, and why."""

    path: str
    """The file that was skipped."""
    reason: str
    """One line saying why."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """The sentence a mention or relation was read from."""

    doc_id: str
    """The document's id."""
    sentence: str
    """The text of the sentence, exactly ``document.text[start_char:end_char]``."""
    start_char: int
    """Offset of the sentence's first character."""
    end_char: int
    """Offset one past its last character."""


@dataclass(frozen=True, slots=True)
class Mention:
    """A span of a document that names an entity."""

    doc_id: str
    """The document's id."""
    text: str
    """The surface form as written."""
    cls: URIRef
    """The ``MLKG`` class of what is named."""
    start_char: int
    """Offset of the first character of the mention."""
    end_char: int
    """Offset one past its last character."""
    evidence: Evidence
    """The sentence it occurs in."""
    canonical: str = ""
    """The canonical name the extractor derived (a conference with its year, a device without qualifiers); empty means ``text``."""
    aliases: tuple[str, ...] = ()
    """Other names the text itself gives for the same thing (an acronym and its long form)."""

    @property
    def name(self) -> str:
        """The canonical name, or the surface form."""
        return self.canonical or self.text


@dataclass(frozen=True, slots=True)
class RelationMention:
    """A relation stated by one sentence between two mentions."""

    subject: Mention
    """The subject mention."""
    predicate: URIRef
    """An ``MLKG`` property."""
    object: Mention
    """The object mention."""
    evidence: Evidence
    """The supporting sentence."""
    rule: str
    """The name of the rule that fired."""
    confidence: float
    """Confidence in [0, 1]."""


@dataclass(frozen=True, slots=True)
class Extraction:
    """All that was read from one document."""

    document: Document
    """The source document."""
    mentions: tuple[Mention, ...]
    """Entity mentions, in document order."""
    relations: tuple[RelationMention, ...]
    """Relation mentions, in document order."""


MERGE_RULES = {
    "label": "the mention's name is the canonical label",
    "same-normalised-name": "the name equals the label up to case, spacing, punctuation and a leading 'the'",
    "own-acronym-pair": "the mention itself pairs its name with the label ('Long Form (LF)' in the text)",
    "shared-alias": "another mention of the class pairs this name with the label (an acronym learned elsewhere)",
    "plural": "the name is the plural of the label, or the label of the name ('GigaNets', 'GigaNet')",
    "organisation-suffix": "an organisation's name with and without a generic ending ('University', 'Inc', "
                           "'National Laboratories')",
    "variant-suffix": "the name is the label with a first release's version ending ('v1', 'v1.0', '1.0'), or the "
                      "other way round, and no other version of that name is an entity of the class",
    "initials": "an acronym of capitals is the initials of the label, or the other way round, and of no other name "
                "of the class",
    "leading-word": "a hardware name is the label after a maker's or product line's leading word ('Zentrix Vector "
                    "Engine', 'Vector Engine'), or the other way round",
}
"""The merge rules a ``MergeRecord`` can name, with what each means."""


@dataclass(frozen=True, slots=True, order=True)
class MergeRecord:
    """One mention merged into an entity, and the rule that put it there."""

    doc_id: str
    """The document of the mention."""
    start_char: int
    """Offset of the mention in the document text."""
    end_char: int
    """End offset of the mention."""
    text: str
    """The text as written."""
    name: str
    """The name the mention was read as."""
    rule: str
    """One of ``MERGE_RULES``."""


@dataclass(frozen=True, slots=True)
class Entity:
    """One real-world thing: merged mentions with a canonical label."""

    key: str
    """Stable identity: ``<class local name>/<normalised canonical label>``."""
    cls: URIRef
    """The ``MLKG`` class."""
    label: str
    """The canonical label (``rdfs:label``)."""
    alt_labels: frozenset[str]
    """Other names (``skos:altLabel``)."""
    doc_ids: tuple[str, ...]
    """Documents that mention it, sorted."""
    merge_log: tuple[MergeRecord, ...] = ()
    """One record per merged mention: which form, from which document, by which rule, sorted."""


@dataclass(frozen=True, slots=True)
class Relation:
    """A relation between two entities with every sentence that supports it."""

    subject: str
    """The subject entity's key."""
    predicate: URIRef
    """An ``MLKG`` property."""
    object: str
    """The object entity's key."""
    evidence: tuple[tuple[Evidence, str, float], ...]
    """(sentence, rule, confidence) for each supporting sentence, sorted."""

    @property
    def confidence(self) -> float:
        """The highest confidence of any supporting sentence."""
        return max(c for _, _, c in self.evidence)


@dataclass(frozen=True, slots=True)
class Resolution:
    """The entities and relations of the whole corpus, sorted."""

    entities: tuple[Entity, ...]
    """Entities sorted by key."""
    relations: tuple[Relation, ...]
    """Relations sorted by (subject, predicate, object)."""
    documents: dict[str, Document] = field(default_factory=dict)
    """The documents some entity is mentioned in, by id, without their text: what is known of them
    (``rdf.document_metadata``)."""


@dataclass(frozen=True, slots=True)
class Violation:
    """One SHACL violation, readable: which node, which shape, why (``ontology/shapes.ttl``)."""

    node: str
    """The focus node, compacted with the project's prefixes (``res:paper/...``)."""
    shape: str
    """The shape that failed, compacted (``mlkgsh:EntityOneLabel``)."""
    message: str
    """Why, in words."""
    value: str = ""
    """The offending statement's property and value (``mlkg:presentedAt res:method/x``), when the shape names them."""

    def __str__(self) -> str:
        return f"{self.node}  [{self.shape}]  {self.message}" + (f": {self.value}" if self.value else "")


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What a build did, for the CLI and for notebooks."""

    documents_read: int
    """Documents parsed."""
    skipped: tuple[SkippedDocument, ...]
    """Documents skipped, with reasons."""
    entities_per_class: dict[str, int]
    """Count of entities per class local name."""
    relations_per_property: dict[str, int]
    """Count of relations per property local name."""
    seconds: dict[str, float] = field(default_factory=dict)
    """Wall-clock seconds per stage."""
    model: str = ""
    """The spaCy pipeline used."""
    outputs: tuple[str, ...] = ()
    """Files written."""
    graph_stats: dict[str, object] = field(default_factory=dict)
    """networkx statistics of the entity graph."""
    encodings: dict[str, str] = field(default_factory=dict)
    """How each document read was decoded (``utf-8``, ``utf-16-le (BOM)``, ``cp1252 (best guess)``...), by id."""
    quarantine: tuple[Violation, ...] = ()
    """Shape violations found before writing; their statements went to quarantine.ttl, not graph.ttl."""
    validation: str = ""
    """Empty when the graph was validated; else why it was not (``--no-validate``, or over the automatic limit)."""
    documents_parsed: int = 0
    """Documents parsed in this build (the others came from the incremental cache)."""
    documents_cached: int = 0
    """Documents whose Extraction came from the incremental cache."""
    patched: str = ""
    """Empty for a full build; else what an incremental rebuild patched (``incremental.py``)."""
    up_to_date: bool = False
    """Nothing had changed since the last build (``stamp.py``): nothing was read or written, and the rest of
    this report is that build's."""
