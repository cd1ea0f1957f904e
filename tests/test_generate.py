"""The benchmark corpus generator: deterministic, varied, of the kinds mlkg reads, and readable by the build."""

import re

from pipeline.generate import generate_corpus, generate_document


def test_generate_is_deterministic_and_independent_of_n(tmp_path):
    a = generate_corpus(30, tmp_path / "a")
    b = generate_corpus(10, tmp_path / "b")
    assert [p.name for p in a[:10]] == [p.name for p in b]
    assert all(x.read_bytes() == y.read_bytes() for x, y in zip(a, b))
    assert generate_document(5, seed=1) != generate_document(5, seed=0)


def test_generate_documents_vary_in_kind_names_and_cues():
    docs = [generate_document(i)[1] for i in range(200)]
    kinds = {generate_document(i)[0].split("_", 1)[1] for i in range(200)}
    assert kinds == {"post.txt", "listing.txt", "teaser.txt"}
    assert len(set(docs)) == 200
    # invented CamelCase method names: many different ones, none dominating
    names = re.findall(r"\b[A-Z][a-z]+(?:Net|Former|Flow|KV|Mix|Diff|Prune|Tune|LM|Seg|Depth|Quant|Fold|Gen|Align|Route|Cache|Speech|Vision|Agent)\b", " ".join(docs))
    assert len(set(names)) > 300
    cues = ["propose", "introduce", "present", "extends", "builds on", "outperforms", "surpasses", "beats", "evaluate"]
    assert all(any(c in d for d in docs) for c in cues)
    sizes = sorted(len(d.split()) for d in docs)
    assert 40 < sizes[len(sizes) // 2] < 400  # abstract-sized


def test_generated_documents_build_into_a_graph(tmp_path):
    from pipeline import BuildConfig, build

    generate_corpus(12, tmp_path / "docs")
    report = build(BuildConfig(inputs=(tmp_path / "docs",), out_dir=tmp_path / "out", html=False))
    assert report.documents_read == 12 and not report.skipped
    assert report.entities_per_class.get("Method", 0) >= 10
    assert report.relations_per_property.get("introduces", 0) >= 5
