"""A corpus generator for benchmarks: N documents of the kinds mlkg reads, from recombined sentence templates.

Three kinds, as lab web pages are written: a conference post (a venue, then highlights of papers with their
methods, baselines, datasets and hardware), an abstract listing (several abstracts, some "accepted at" a
workshop) and a short teaser. Every name of a method, paper, lab, workshop and benchmark is invented from
syllables by a generator seeded per document, so document ``i`` is the same whatever ``n`` is, and a corpus
of 10,000 documents holds thousands of different entities rather than copies of one file. Venues, well-known
baselines, datasets and hardware come from the rule data (``nlp/patterns``), as real documents cite them.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["generate_document", "generate_corpus"]

_SYL = ("ka", "lo", "mi", "ve", "ra", "to", "qui", "zen", "dor", "fa", "ny", "pel", "sor", "tri", "va", "xo",
        "bri", "cal", "den", "ember", "gal", "hol", "jun", "mar", "nov", "ost", "pra", "rin", "sel", "tam", "ul",
        "wen", "yar", "zil", "aro", "bex", "cor", "dun", "eli", "fro")
_SUFFIX = ("Net", "Former", "Flow", "KV", "Mix", "Diff", "Prune", "Tune", "LM", "Seg", "Depth", "Quant", "Fold",
           "Gen", "Align", "Route", "Cache", "Speech", "Vision", "Agent")
_HEAD = ("model", "method", "architecture", "algorithm", "approach", "framework")
_TOPIC = ("Sparse Attention", "Long-Context Retrieval", "Diffusion Sampling", "Speech Recognition",
          "Video Generation", "Protein Design", "Tool Use", "Policy Optimization", "Depth Estimation",
          "Quantization", "Contrastive Pretraining", "Mixture of Experts", "State Space Models",
          "Test-Time Scaling", "Federated Learning", "Graph Neural Networks", "Image Tokenization",
          "Reward Modeling", "Speculative Decoding", "Neural Rendering")
_ADJ = ("Efficient", "Scalable", "Robust", "Adaptive", "Faster", "Simple", "Unified", "Calibrated", "Lightweight",
        "Streaming", "Private", "Hierarchical", "Implicit", "Sharper")
_NOUN = ("Models", "Learners", "Transformers", "Agents", "Representations", "Priors", "Decoders", "Kernels")
_PROBLEM = (
    "Training large models on long sequences remains expensive, because memory grows with every token.",
    "Most systems in this area are evaluated only on curated data and degrade sharply in the wild.",
    "Annotating data at this scale is prohibitively costly, so most of it stays unlabeled.",
    "Existing approaches trade accuracy for speed, and few of them run on a single device.",
    "The sequential nature of the computation has made it hard to parallelise across accelerators.",
    "Current evaluations focus on narrow benchmarks and say little about robustness.",
    "Inference cost, not training cost, now dominates the budget of deployed systems.",
)
_DETAIL = (
    "The key idea is to share computation across layers instead of recomputing it.",
    "It learns a compact latent space in which the search is cheap.",
    "A small calibration set is enough to correct for the mismatch.",
    "The method needs no extra labels and adds little overhead at training time.",
    "Ablations show that both components are needed for the gains.",
    "Code and checkpoints will be released to the community.",
)
_CITIES = ("Lisbon, Portugal", "Montreal, Canada", "Seoul, South Korea", "Vienna, Austria", "Sydney, Australia",
           "Nairobi, Kenya", "Denver, Colorado", "Kyoto, Japan")
_WS_TOPIC = ("Efficient Systems for Foundation Models", "Reliable Tool Use", "Trustworthy Speech Processing",
             "Data-Centric Machine Learning", "Embodied Agents", "Generative Models for Science")


@dataclass(frozen=True, slots=True)
class _Pools:
    venues: tuple[tuple[str, str, int | None], ...]  # (acronym, long name, numbering base)
    baselines: tuple[str, ...]
    datasets: tuple[str, ...]
    hardware: tuple[str, ...]


def _pools() -> _Pools:
    from .nlp.rules import load_rules

    rules = load_rules()
    venues = tuple((acr, info["long"][0], info.get("base")) for acr, info in sorted(rules.conferences.items())
                   if info.get("long") and re.fullmatch(r"[A-Za-z]+", acr))
    baselines = tuple(sorted(m for m in rules.known_methods if re.fullmatch(r"[A-Za-z][\w-]{2,}", m)))
    datasets = tuple(sorted(d for d in rules.known_datasets if re.fullmatch(r"[A-Za-z][\w-]{2,}", d)))
    hardware = set()
    for pattern in (*rules.chips, *rules.devices):  # the literal names each naming pattern accepts
        words = re.findall(r"[A-Za-z][A-Za-z0-9]+", pattern)
        for cand in {*words, *(f"{a} {b}" for a, b in zip(words, words[1:]))}:
            if len(cand) > 2 and re.fullmatch(pattern, cand):
                hardware.add(cand)
    return _Pools(venues, baselines or ("Transformer",), datasets or ("a public benchmark",),
                  tuple(sorted(hardware)) or ("a single GPU",))


def _name(rng: random.Random) -> str:
    base = "".join(rng.choice(_SYL) for _ in range(rng.choice((1, 2, 2))))
    return base.capitalize() + rng.choice(_SUFFIX)


def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _acronym(words: str) -> str:
    return "".join(w[0] for w in words.split() if w[0].isupper())


def _org(rng: random.Random) -> str:
    return f"{''.join(rng.choice(_SYL) for _ in range(2)).capitalize()} {rng.choice(('Labs', 'Research', 'AI', 'Institute'))}"


def _title(rng: random.Random, method: str) -> str:
    forms = (
        lambda: f"{method}: {rng.choice(_ADJ)} {rng.choice(_TOPIC)} for {rng.choice(_ADJ)} {rng.choice(_NOUN)}",
        lambda: f"{rng.choice(_ADJ)} {rng.choice(_TOPIC)} with {method}",
        lambda: f"On the Limits of {rng.choice(_TOPIC)} in {rng.choice(_ADJ)} {rng.choice(_NOUN)}",
        lambda: f"{rng.choice(_TOPIC)} Without {rng.choice(('Labels', 'Tears', 'Retraining', 'Supervision'))}",
    )
    return rng.choice(forms)()


def _highlight(rng: random.Random, pools: _Pools, venue: str) -> str:
    method, base = _name(rng), rng.choice(pools.baselines)
    data, hw = rng.choice(pools.datasets), rng.choice(pools.hardware)
    bench = _name(rng).replace(rng.choice(_SUFFIX), "") + "Bench" if rng.random() < 0.3 else None
    title = _title(rng, method)
    intro = rng.choice((
        f"At {venue}, our researchers will present {title}, which introduces {method}, a new {rng.choice(_HEAD)} for {rng.choice(_TOPIC).lower()}.",
        f"In {title}, we propose {method}, {_a(rng.choice(_ADJ).lower())} {rng.choice(_HEAD)} that {rng.choice(('extends', 'builds on', 'is a variant of'))} {base}.",
        f"The paper {title} presents {method}, {_a(rng.choice(_HEAD))} built on top of {base}.",
        f"Our work {title} describes {method}, {_a(rng.choice(_HEAD))} that adapts {base} to {rng.choice(_TOPIC).lower()}.",
    ))
    sents = [rng.choice(_PROBLEM), intro, rng.choice(_DETAIL)]
    sents.append(rng.choice((
        f"Evaluated on {data}, {method} outperforms {base} by {rng.randint(2, 9)} points.",
        f"{method} achieves state-of-the-art accuracy on {data}" + (f" and on {bench}, a new benchmark we release." if bench else "."),
        f"In experiments on {data}, {method} surpasses strong baselines while using {rng.randint(2, 5)}x less memory.",
        f"Benchmarked on {data}, it is {rng.randint(2, 6)}x faster than {base}.",
    )))
    if rng.random() < 0.6:
        sents.append(rng.choice((
            f"{method} runs on a single {hw} in real time.",
            f"Inference with {method} is optimized for {hw} devices.",
            f"Attendees can try a demo of {method} running on {hw} at our booth.",
            f"Training {method} takes {rng.randint(2, 30)} hours on {hw} accelerators.",
        )))
    return " ".join(sents)


def _conference_post(rng: random.Random, pools: _Pools, org: str) -> str:
    acr, long, base = rng.choice(pools.venues)
    year = rng.randint(2022, 2027)
    venue = f"{acr} {year}"
    head = [f"{org} at {venue}", "",
            rng.choice((
                f"This week, the {long} ({acr}) takes place in {rng.choice(_CITIES)}, and {org} is proud to participate as a sponsor.",
                f"Next month, {org} researchers travel to {rng.choice(_CITIES)} for {acr} {year}, where we will present new work across several topics.",
                f"{org} is presenting new research at the annual {long} ({acr}), held in {rng.choice(_CITIES)} this year.",
            )),
            f"Below is a selection of highlights from {org} at {venue}.", ""]
    body = []
    for _ in range(rng.randint(1, 4)):
        body += [rng.choice(_TOPIC), "", _highlight(rng, pools, acr), ""]
    return "\n".join(head + body)


def _abstract_listing(rng: random.Random, pools: _Pools, org: str) -> str:
    parts = [f"{org} Publications", ""]
    for _ in range(rng.randint(2, 4)):
        acr, _long, _base = rng.choice(pools.venues)
        year = rng.randint(2022, 2027)
        method, base, data = _name(rng), rng.choice(pools.baselines), rng.choice(pools.datasets)
        lead = ""
        if rng.random() < 0.4:
            lead = rng.choice((
                f"This paper was accepted at the Workshop on {rng.choice(_WS_TOPIC)} at {acr} {year}. ",
                f"This paper was accepted at {acr} {year}. ",
            ))
        long_form = f"{rng.choice(_ADJ)} {rng.choice(_TOPIC)}"
        form = rng.randrange(3)
        if form == 1:  # a "Long Form (LF)" pair names the method
            method = _acronym(long_form)
        parts += [lead + " ".join((
            rng.choice(_PROBLEM),
            (
                f"In this paper, we propose {method}, {_a(rng.choice(_HEAD))} that {rng.choice(('extends', 'generalizes', 'improves on'))} {base}.",
                f"We introduce {long_form} ({method}), {_a(rng.choice(_HEAD))} for {rng.choice(_TOPIC).lower()}.",
                f"We present {method}, a simple {rng.choice(_HEAD)} based on {base}.",
            )[form],
            rng.choice(_DETAIL),
            rng.choice((
                f"Experiments on {data} show consistent gains over {base}.",
                f"On {data}, {method} sets a new state of the art…",
                f"We evaluate on {data} and find that it beats {base} at a fraction of the cost…",
            )),
        )), ""]
    return "\n".join(parts)


def _teaser(rng: random.Random, pools: _Pools, org: str) -> str:
    acr, _long, _base = rng.choice(pools.venues)
    return "\n".join([f"{org}", "", _highlight(rng, pools, f"{acr} {rng.randint(2022, 2027)}"), ""])


_KINDS = (("post", _conference_post), ("listing", _abstract_listing), ("teaser", _teaser))


def generate_document(i: int, seed: int = 0, pools: _Pools | None = None) -> tuple[str, str]:
    """Document number ``i`` as ``(file name, text)``; the same for the same ``i`` and ``seed``.

    Examples
    --------
    >>> name, text = generate_document(3)
    >>> generate_document(3) == (name, text) and generate_document(4)[1] != text
    True
    """
    rng = random.Random(f"{seed}:{i}")
    kind, make = rng.choice(_KINDS)
    return f"{i:06d}_{kind}.txt", make(rng, pools or _pools(), _org(rng))


def generate_corpus(n: int, out: Path, seed: int = 0) -> list[Path]:
    """Write ``n`` documents into ``out`` (created if needed) and return their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    pools = _pools()
    paths = []
    for i in range(n):
        name, text = generate_document(i, seed, pools)
        path = out / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths
