"""The binary copy of the trained weights (classify.load_models) gives the models the JSON gives."""

import json

import numpy

from pipeline.nlp.classify import WEIGHTS, Models, _binary_path, load_models


def _same(a: Models, b: Models) -> None:
    assert a.to_json() == b.to_json()
    for x, y in ((a.mentions, b.mentions), (a.relations, b.relations)):
        assert x._table[0] == y._table[0] and numpy.array_equal(x._table[1], y._table[1])
        rows = [["acronym"], [], ["no such feature", *list(x.weights)[:3]]]
        assert numpy.array_equal(x.probs(rows), y.probs(rows))


def test_binary_copy_is_the_json(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    weights = tmp_path / "weights.json"
    weights.write_bytes(WEIGHTS.read_bytes())
    expected = Models.from_json(json.loads(WEIGHTS.read_text("utf-8")))
    load_models.cache_clear()
    try:
        first = load_models(weights)  # from the JSON; the copy is written
        binary = _binary_path(weights)
        assert binary.is_file()
        load_models.cache_clear()
        second = load_models(weights)  # from the copy
        _same(first, expected)
        _same(second, expected)
        binary.write_bytes(b"broken")  # an unreadable copy: the JSON again, and the copy made anew
        load_models.cache_clear()
        _same(load_models(weights), expected)
        assert binary.read_bytes() != b"broken"
        weights.write_text(json.dumps({**expected.to_json(), "format": 1}), "utf-8")  # other bytes, other copy
        assert _binary_path(weights) != binary
        load_models.cache_clear()
        assert load_models(tmp_path / "none.json") is None
    finally:
        load_models.cache_clear()


def test_a_feature_row_is_found_by_bisection_then_by_the_dict(monkeypatch):
    from pipeline.nlp import classify

    monkeypatch.setattr(classify, "_LOOKUPS", 3000)
    rows = classify._from_binary(classify._binary_path().read_bytes()) if classify._binary_path().is_file() else None
    models = rows or load_models()
    model = models.mentions
    names = list(model.weights)
    fresh = classify._Rows(names, model.weights.matrix)
    assert names == sorted(names) and fresh._index is None
    expected = {f: i for i, f in enumerate(names, 1)}
    get = fresh.getter()
    probe = names[::max(1, len(names) // 1000)] + ["no such feature", "", names[-1] + "~"]
    assert [get(f) for f in probe] == [expected.get(f) for f in probe] and fresh._index is None
    for f in names[:3000]:
        get(f)
    assert fresh.getter() == fresh.index.get and fresh.index == expected  # the dict, once past the look-ups
    rows = [["acronym"], [], ["no such feature", *names[:5]]]
    assert numpy.array_equal(model.probs(rows), classify.LinearModel(model.labels, dict(model.weights.items()), model.bias).probs(rows)) \
        if isinstance(model, classify.LinearModel) else True
