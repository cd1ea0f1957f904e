"""load_nlp leaves the saved pipeline's string store unread (pipeline.nlp._UNREAD): the extractions are those of
the pipeline loaded whole, on every bundled and generalisation document."""

from pathlib import Path

from data import CORPUS_DIR

import pipeline.nlp as nlp_module
from pipeline.facts import compact
from pipeline.ingest import read_documents
from pipeline.nlp.extract import extract_all


def test_unread_strings_change_no_extraction(nlp, monkeypatch):
    assert "strings" in nlp_module._UNREAD
    assert len(nlp.vocab.strings) < 50_000  # (the saved store holds some 85,000)
    monkeypatch.setattr(nlp_module, "_UNREAD", ())
    whole = nlp_module.load_nlp()
    assert len(whole.vocab.strings) > 50_000
    data = Path(__file__).parent / "data"
    folders = [Path(CORPUS_DIR), *sorted(data.glob("generalisation*/docs"))]
    documents = [d for folder in folders for d in read_documents([folder], 5_000_000, [])]
    assert len(documents) > 40
    lean = [compact(ex) for ex in extract_all(nlp, documents)]
    assert lean == [compact(ex) for ex in extract_all(whole, documents)]
    for doc in (nlp("GPT-4 (OpenAI) was evaluated on ImageNet-1K."), whole("GPT-4 (OpenAI) was evaluated on ImageNet-1K.")):
        assert [t.dep_ for t in doc] and all(t.text and t.norm_ and t.shape_ for t in doc)


def test_entry_points_are_selected_once_with_the_same_entries(nlp):
    import catalogue

    from pipeline.nlp import _SelectedEntryPoints

    points = catalogue.AVAILABLE_ENTRY_POINTS
    assert isinstance(points, _SelectedEntryPoints)
    for group in ("spacy_factories", "spacy_architectures", "no_such_group"):
        assert points.select(group=group) is points.select(group=group)
        assert list(points.select(group=group)) == list(points._points.select(group=group))


def test_registries_list_what_catalogue_lists(nlp):
    # catalogue's own Registry.get_all, as written there: the functions of a namespace, name by name
    import catalogue

    from pipeline.nlp import _registered

    def listed(registry):
        result = dict(registry.get_entry_points()) if registry.entry_points else {}
        for keys, value in catalogue.REGISTRY.copy().items():
            if len(registry.namespace) == len(keys) - 1 and all(
                    registry.namespace[i] == keys[i] for i in range(len(registry.namespace))):
                result[keys[-1]] = value
        return result

    assert catalogue.Registry.get_all is _registered
    import spacy.util
    import srsly.msgpack

    registries = [r for r in vars(spacy.util.registry).values() if isinstance(r, catalogue.Registry)]
    registries += [srsly.msgpack.msgpack_decoders, srsly.msgpack.msgpack_encoders, catalogue.create("mlkg", "no_such")]
    assert len(registries) > 20
    for registry in registries:
        assert list(registry.get_all().items()) == list(listed(registry).items())
