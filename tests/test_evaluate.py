"""The eval command's table: a score with nothing to be measured on reads n/a, never 0.000."""

import json

from data import EVAL_DIR, OUTPUT_DIR

from pipeline.evaluate import evaluate, format_scores, load_gold


def _rows(text: str) -> dict[str, list[str]]:
    return {cells[0]: cells[1:] for cells in (line.split() for line in text.splitlines() if line.startswith("  "))}


def test_classes_and_properties_the_gold_does_not_annotate_read_n_a(tmp_path):
    gold = load_gold(EVAL_DIR / "gold-seeds.json")
    papers = [e for e in gold["entities"] if e["type"] == "Paper"]
    only_papers = {**gold, "entities": papers, "relations": []}
    (tmp_path / "gold.json").write_text(json.dumps(only_papers), "utf-8")
    scores = evaluate(OUTPUT_DIR / "graph.ttl", load_gold(tmp_path / "gold.json"))
    rows = _rows(format_scores(scores))
    assert rows["Paper"][:3] != ["n/a"] * 3 and "n/a" not in rows["Paper"][:2]
    method = scores["entities"]["Method"]
    assert method["tp"] == method["fn"] == 0 and method["fp"] > 0
    assert rows["Method"][:3] == ["0.000", "n/a", "n/a"]  # what the graph found there all counts against precision
    for p in ("presentedAt", "introduces"):
        r = scores["relations"][p]
        assert r["tp"] == r["fn"] == 0
        assert rows[p][1:3] == ["n/a", "n/a"]
    assert scores["relations"]["presentedAt"]["recall"] == 0.0  # the JSON keeps its numbers


def test_a_class_with_gold_items_and_nothing_found_scores_zero_recall():
    from pipeline.evaluate import prf

    scores = {"entities": {"overall": prf(0, 0, 2), "Dataset": prf(0, 0, 2)}, "relations": {}, "explain": {}}
    assert _rows(format_scores(scores))["Dataset"] == ["n/a", "0.000", "0.000", "0", "0", "2"]
