"""The rule families that find organizations, venues and paper titles, one construction at a time, on short
sentences (each with a sentence of the same shape that must give nothing)."""

from __future__ import annotations

import pytest

from pipeline.nlp.hardware import hardware_mentions
from pipeline.nlp.organizations import organization_mentions
from pipeline.nlp.overlaps import resolve_overlaps
from pipeline.nlp.people import opens_with_people
from pipeline.nlp.rules import load_rules
from pipeline.nlp.titles import paper_titles
from pipeline.nlp.venues import conference_mentions, venue_lists, workshop_mentions


def _orgs(text: str) -> set[str]:
    return {f.canonical for f in organization_mentions(text, load_rules())}


def _venues(text: str) -> set[str]:
    rules = load_rules()
    return {f.canonical for f in workshop_mentions(text, rules, conference_mentions(text, rules))}


def _titles(text: str) -> set[str]:
    lines, pos = [], 0
    for line in text.split("\n"):  # one sentence a line: what the parse gives these texts
        lines.append((pos, pos + len(line)))
        pos += len(line) + 1
    return {f.canonical for f in paper_titles(text, lines, load_rules())}


@pytest.mark.parametrize("text, names", [
    ("The model was developed by researchers at Halvard University, Brightline Robotics and Ostmark AI. It runs fast.",
     {"Halvard University", "Brightline Robotics", "Ostmark AI"}),
    ("Its authors come from the University of Calder, Irvine and Veltro Labs.", {"University of Calder, Irvine", "Veltro Labs"}),
    ("Mamba-9 came from a team spanning Quorra AI and Pellam University; it was accepted.", {"Quorra AI", "Pellam University"}),
    ("Joint work with the Arden Center for Artificial Intelligence.", {"Arden Center for Artificial Intelligence"}),
    ("This work was supported in part by the Lindqvist Education Foundation.", {"Lindqvist Education Foundation"}),
])
def test_the_organizations_of_a_list_after_a_role_cue(text, names):
    assert names <= _orgs(text)


def test_a_product_after_supported_by_is_no_organization():
    assert _orgs("LoRA is now supported by PEFT, the fine-tuning library.") == set()


@pytest.mark.parametrize("text, names", [
    ("Ann Lee, Bo Chan, Cy Dee (Harwell Health Network; Western Fenn University)",
     {"Harwell Health Network", "Western Fenn University"}),
    ("    Ann Lee, Bo Chan · Quillon AI Research", {"Quillon AI Research"}),
    ("Ann Lee et al. (Istituto Tecnico di Varda)", {"Istituto Tecnico di Varda"}),
])
def test_the_organizations_after_a_line_of_people(text, names):
    assert names <= _orgs(text)


def test_one_name_before_brackets_is_no_line_of_people():
    assert _orgs("Gemma Turbo (Fast Edition) is small.") == set()


def test_an_affiliation_list_drops_the_place_that_closes_a_piece():
    assert _orgs("Affil.: Torvald University of Rome; Babelmark, Italy") == {"Torvald University of Rome", "Babelmark"}


@pytest.mark.parametrize("text, names", [
    ("Tidemark researchers are advancing computer vision.", {"Tidemark"}),
    ("The code is from Ranford's Hazy Research lab and the Qwerty Team.", {"Hazy Research", "Qwerty Team"}),
    ("# Corvid Lab @ ICML'26: what we bring\nCorvid Lab trains models.", {"Corvid Lab"}),
])
def test_organizations_named_by_their_people_units_and_headlines(text, names):
    assert names <= _orgs(text)


@pytest.mark.parametrize("text", [
    "Senior researchers like robotics. Robotics researchers agree.",
    "The framework comes from NVIDIA's NeMo team.",
    "ICL @ ICML 2024\nICL is in-context learning; ICL is studied here.",
])
def test_no_organization_from_a_descriptive_word_a_product_team_or_a_workshop_headline(text):
    assert _orgs(text) <= {"NVIDIA"}


def test_a_line_of_people_needs_two_people():
    assert opens_with_people("Ann Lee, Bo Chan and Cy Dee")
    assert not opens_with_people("The Interagency Implementation Team is located at Marlow")


@pytest.mark.parametrize("text, name", [
    ("MediaTek used its Computex 2024 keynote on Tuesday.", "Computex 2024"),
    ("Visitors to MWC 2024 in Barcelona had seen it.", "MWC 2024"),
    ("On stage at the Samsung AI Forum 2023 in Seoul, it was shown.", "Samsung AI Forum 2023"),
    ("Our work at WWDC 2022 and WWDC 2023.", "WWDC 2023"),
    ("The model won the LIMMITS '24 challenge.", "LIMMITS '24"),
    ("4th TWISL 2020, held in Marseille on 16 May 2020.", "TWISL 2020"),  # an edition's ordinal
    ("The workshop was co-located with NETCONF 2009 in Barcelona.", "NETCONF 2009"),
])
def test_an_event_named_with_its_year(text, name):
    assert name in _venues(text)


def test_a_month_a_quarter_or_a_dataset_with_a_year_is_no_event():
    assert _venues("In June 2024 we trained on ImageNet 2012, up to Q4 2024.") == set()
    assert _venues("On the 4th March 2020 we released it; the 2nd Widget release came in 2021.") == set()


def _listed_venues(text: str) -> set[str]:
    rules = load_rules()
    confs = conference_mentions(text, rules)
    return {f.canonical for f in venue_lists(text, [(0, len(text))], rules, confs + workshop_mentions(text, rules, confs))}


def test_the_workshops_listed_after_presented_at_but_not_the_authors_or_the_place():
    assert _listed_venues("Presented at Efficient Systems for Foundation Models and Data Centric Learning, "
                          "ICML 2023.") == {"Efficient Systems for Foundation Models", "Data Centric Learning"}
    # "by" opens the authors: people, not venues
    assert _listed_venues('It was presented in "Quill: Fast Docking" by Ann Lee, Bo Chan, Cy Dee and Di Fox of '
                          "Halvard University, accepted at ICLR 2023.") == set()
    # an item that opens with a lower-case word continues what came before: a place
    assert _listed_venues("Presented at the Workshop on Garden Media (GM '24) in Sydney, held with SIGCOMM 2024.") == set()


def test_a_journal_after_published_in_ends_before_its_date():
    """"published in the Journal of Sensors (2022)": the venue is the capitalised words before the year or the date;
    one word is a journal only with its year after it ("presented in Section 3" names none)."""
    assert _listed_venues("YOLOv5-PD was published in the Journal of Sensors (2022).") == {"Journal of Sensors"}
    assert _listed_venues("It was published in Nature Medicine on October 2, 2023.") == {"Nature Medicine"}
    assert _listed_venues("ACMSPT was published in AgriEngineering (2025).") == {"AgriEngineering"}
    assert _listed_venues("The results are presented in Section 3.") == set()
    assert _listed_venues("It was published in March 2024.") == set()


def test_a_workshop_named_by_one_capitalised_token():
    assert _venues("At the PSML workshop, Ilya spoke. The fourth MATH-AI workshop brings people together.") == \
        {"PSML", "MATH-AI"}
    assert _venues("We met at the ICML workshop and at the LLM workshop.") == set()


@pytest.mark.parametrize("text, title", [
    ("Reading list\n\n[1] Scaling Rectified Flow Transformers for High-Resolution Image Synthesis\nAffiliations: Stability AI\n",
     "Scaling Rectified Flow Transformers for High-Resolution Image Synthesis"),
    ("Teasers\n\n#1  Masked Autoencoders Are Scalable Vision Learners   [Accepted to CVPR 2022]\n    Ann Lee, Bo Chan\n",
     "Masked Autoencoders Are Scalable Vision Learners"),
    ("List\n\n[ICML 2023] SmoothQuant: Accurate and Efficient Post-Training Quantization (Meta)\nAnn Lee\n",
     "SmoothQuant: Accurate and Efficient Post-Training Quantization"),
    ("Programme\n11:20-11:30  Spotlight: A Theoretical Understanding of Self-Correction through Alignment\n",
     "A Theoretical Understanding of Self-Correction through Alignment"),
    ("News\n3. Fully Quantizing Transformer-based ASR for Edge Deployment\n   Alex Bie; Bharat Venkitesh; Joao Monteiro\n",
     "Fully Quantizing Transformer-based ASR for Edge Deployment"),
    ("Checklist\n- **214 Quillon 2.0: Routing Sparse Mixture Models at Scale** `[Accepted to ICML 2024]`\nAnn Lee, Bo Chan\n",
     "Quillon 2.0: Routing Sparse Mixture Models at Scale"),  # a catalogue number before the title
])
def test_a_title_on_a_line_of_its_own_after_a_marker_or_before_its_people(text, title):
    assert title in _titles(text)


@pytest.mark.parametrize("text", [
    "Contents\n- Training Large Models Efficiently\n- Serving Them On Phones\n",
    "Programme\n11:30-11:40  Break: Coffee and Posters Outside\n",
    "Abstracts\n[2] Ann Lee, Bo Chan, Cy Dee\nAffiliations: Stability AI\n",
    "Notice\n\nSECTION II: OBJECT OF THE CONTRACT\nAnn Lee, Bo Chan\n",
    "Programme\n\nOral Session 2: Tracking And Segmentation Of Video\nAnn Lee, Bo Chan\n",
])
def test_no_title_from_a_list_of_headings_a_break_or_a_line_of_people(text):
    assert _titles(text) == set()


@pytest.mark.parametrize("text, title", [
    ("[2] Quillon: A Large-Scale Routing Evaluation Benchmark for Sparse\n    Mixture Models\n    Ann Lee, Bo Chan\n",
     "Quillon: A Large-Scale Routing Evaluation Benchmark for Sparse Mixture Models"),
    ("  Torvik: Efficient and Faithful Retrieval via Lightweight Late\n  Interaction\n  Ann Lee, Bo Chan\n",
     "Torvik: Efficient and Faithful Retrieval via Lightweight Late Interaction"),
    ('Its first version appeared as "Torvik: Zero-Shot Anomaly Classification and\n   Segmentation" at CVPR 2023.',
     "Torvik: Zero-Shot Anomaly Classification and Segmentation"),
])
def test_a_title_wrapped_onto_an_indented_next_line_is_whole(text, title):
    assert title in _titles(text)


@pytest.mark.parametrize("text, title", [
    # the line is long with its tag, the title alone is not: it still wraps onto the line that ends it
    ("Feed\n[Accepted to KDD 2021] Accurate Multivariate Stock Movement Prediction via\nData-Axis Transformer with "
     "Multi-Level Contexts — Seoul National University.\n",
     "Accurate Multivariate Stock Movement Prediction via Data-Axis Transformer with Multi-Level Contexts"),
    # an indented entry wraps onto a line indented as it is
    ("Reading\n  [Accepted to WoRMA 2024] Position: The Explainability Paradox and the Challenges for XAI in Malware "
     "Detection and\n  Analysis — Leiden University on why it matters.\n",
     "Position: The Explainability Paradox and the Challenges for XAI in Malware Detection and Analysis"),
])
def test_a_tagged_title_wraps_onto_the_next_line_that_ends_it(text, title):
    assert title in _titles(text)


def test_a_tagged_title_does_not_wrap_onto_a_line_indented_otherwise():
    """The line under a tagged title indented deeper names its people (a chat export's teaser), no piece of it."""
    text = ("Teasers\n[Accepted to ICLR 2017] Density Estimation Using Real NVP Flows for Images\n"
            "  Laurent Dinh — Montreal Institute for Learning Algorithms\n")
    assert _titles(text) == {"Density Estimation Using Real NVP Flows for Images"}


@pytest.mark.parametrize("text, title", [
    ("  Quillon: Sparse Routing for Long Document Summarisation Models\n  Ann Lee\n", "Quillon: Sparse Routing for Long Document Summarisation Models"),
    ("Quillon: Sparse Routing for Documents\n    Speaker: Ann Lee\n", "Quillon: Sparse Routing for Documents"),
])
def test_a_person_or_a_label_on_the_next_line_continues_no_title(text, title):
    assert _titles(text) == {title}


@pytest.mark.parametrize("text, title", [
    ('The paper, "Torvik: A Vision Model for the Tree of Life," was written in Ohio.', "Torvik: A Vision Model for the Tree of Life"),
    ('"Torvik: The Long-Document Transformer" replaces full attention with a window.', "Torvik: The Long-Document Transformer"),
    ('Related reading: "Mastering Chess with Discrete World Models" (Torvik)\n', "Mastering Chess with Discrete World Models"),
])
def test_a_quoted_title_without_its_comma_and_after_any_label(text, title):
    assert _titles(text) == {title}


@pytest.mark.parametrize("text", [
    'He said "Note: this is not a drill" twice.',
    '"Reading List For The Long Weekend Ahead" was the headline.',
])
def test_a_quoted_sentence_or_headline_is_no_title(text):
    assert _titles(text) == set()


@pytest.mark.parametrize("text", [
    "Workshop\nDate: Saturday, July 27th, 2024\nPlace: Room Lehar 4, Messe Wien Congress Center, Vienna\n",
    "Entry\nPeople:  Ann Lee, Bo Chan, Cy Dee\nWhere:   arXiv preprint, August 2018\n",
    "Abstracts\nAnn Lee, Bo Chan, Cy Dee, Dan Eel\nWe propose a thing that works in this paper, and we study it at length; it is "
    "better than all the others we tried on the benchmarks we care about, and it is accepted at ICML 2024.\n",
])
def test_a_field_line_or_a_line_of_people_is_no_title(text):
    assert _titles(text) == set()


@pytest.mark.parametrize("text", [
    "Ticket 4411\n\n[Requester \u2014 Priya S., 2 Dec 2022 08:41]\nHi, I cannot open the file.\n",  # a clock time's colon
    "Inbox\nRe: Sparse Attention Graphs for Long Video Retrieval\nThanks, see below.\n",  # an e-mail's header
    "Inbox\nFwd: Sparse Attention Graphs for Long Video Retrieval\nThanks, see below.\n",
])
def test_a_message_header_is_no_title(text):
    assert _titles(text) == set()


@pytest.mark.parametrize("text, titles", [
    ("Talks\n1. quillon2vec: Self-Supervised Pre-Training for Speech Emotion Representation\nAnn Lee, Bo Chan\n",
     {"quillon2vec: Self-Supervised Pre-Training for Speech Emotion Representation"}),
    ("Reading\n- torv2vec 2.0: A Framework for Self-Supervised Learning of Speech Representations\n",
     {"torv2vec 2.0: A Framework for Self-Supervised Learning of Speech Representations"}),
    ("Our oral is *torv2vec 2.0: A Framework for Self-Supervised Learning of Speech Representations*.",
     {"torv2vec 2.0: A Framework for Self-Supervised Learning of Speech Representations"}),
    ("Notes\n- todo: Fix the Broken Link on the Page\n", set()),  # a lower-case label with no digit: no name
    ("Notes\n- step: Read the Docs Before You Begin Here\n", set()),
    # a labelled title in a list item, without the clause that says where it was accepted; a labelled sentence is none
    ("News\n- Paper: Sparse Attention Graphs for Long Video Retrieval, accepted at CVPR 2024\n",
     {"Sparse Attention Graphs for Long Video Retrieval"}),
    ("News\n* Paper: Sparse Attention Graphs for Long Video Retrieval (accepted to ICML 2024)\n",
     {"Sparse Attention Graphs for Long Video Retrieval"}),
    ("News\n• Title: Routing tokens in sparse mixtures — to appear at NeurIPS 2023\n", {"Routing tokens in sparse mixtures"}),
    ("News\n  - Paper: **Torvik: Real-Time Pose Estimation for Crowds** (arXiv 2303.07399).\n",
     {"Torvik: Real-Time Pose Estimation for Crowds"}),
    ("News\n- Paper: we release the code soon, accepted at CVPR 2024\n", set()),
])
def test_a_title_named_in_lower_case_with_a_digit_or_labelled_in_a_list_item(text, titles):
    assert _titles(text) == titles


def test_a_title_line_that_names_its_paper_in_a_field_stays_one():
    assert _titles("Entry\nTorvik: Knowledge Graph Embedding by Relational Rotation\nPeople:  Ann Lee, Bo Chan\n") == \
        {"Torvik: Knowledge Graph Embedding by Relational Rotation"}


@pytest.mark.parametrize("text, names", [
    ("09:10  Invited talk: Wen Liang (Thinking Engines), \"Training at scale\"", {"Thinking Engines"}),
    ("Talks by Ruth Bowden (University of Sorrey), Anne Braffo (LIMSA) and others.", {"University of Sorrey", "LIMSA"}),
    ("2. Mask3Former (Acme AI Research and UIUX, CVPR 2022)", {"Acme AI Research", "UIUX"}),
    ("     ¹ Google   ² UCLB", {"Google", "UCLB"}),
])
def test_organizations_in_brackets_after_a_person_or_a_name_and_in_a_byline(text, names):
    assert names <= _orgs(text)


def test_a_known_organization_grown_into_a_lab_is_not_its_alias():
    # "Google" opens "Google Vision Research": the lab is another organization, so "Google" elsewhere (the company)
    # must not join it through an alias
    found = [f for f in organization_mentions("QuillNet (Google Vision Research). It compresses video.", load_rules())
             if f.canonical == "Google Vision Research"]
    assert found and all("Google" not in f.aliases for f in found)


@pytest.mark.parametrize("text", [
    "- Long Range Arena (LRA): a benchmark of long sequences.",
    "The dataset (Sincan and Keles, IEEE Access, 2020) is a reference.",
    "CLNeRF: Continual Learning Meets NeRF (Zhi Cai and Matt Mueller, Acme Labs)",
    "1. The transformer era begins (Google, RT-1)",
    "Quillon Sensors, the team of Ann Lee, Bo Chan and Cy Dee, introduced it.",
    "Audience: researchers of all levels\nSubject areas: robots",
    "- QuBERT (Hidden-Unit BERT, Ostmark AI Research, 2021) is a successor.",
])
def test_no_organization_from_an_acronym_a_citation_people_or_a_model_in_brackets(text):
    # also none from "the team of" people or "researchers of" a lower-case phrase
    assert _orgs(text) <= {"Google", "Acme Labs", "Ostmark AI Research", "Quillon Sensors"}


def _hardware(text: str) -> set[str]:
    return {f.canonical for f in resolve_overlaps(hardware_mentions(text, load_rules()))}


@pytest.mark.parametrize("text, names", [
    ("We train on 8 NVIDIA A100-80GB GPUs.", {"A100"}),
    ("It runs on one H100 SXM5 node and an A100 (40GB) card.", {"H100", "A100"}),
    ("The checkpoint was tuned on the A100-SXM4-80GB.", {"A100"}),
    ("Scores were leaked for the Snapdragon 8 Gen 3-powered phone.", {"Snapdragon 8 Gen 3"}),
    ("The demo runs on a MacBook M1 Pro.", {"MacBook M1 Pro"}),
])
def test_a_chip_with_its_memory_or_form_factor_is_the_chip(text, names):
    assert _hardware(text) == names


@pytest.mark.parametrize("text, names", [
    ("It was ported to a Jetson TX1 and a Jetson TK1.", {"Jetson TX1", "Jetson TK1"}),
    ("Latency was measured on an A100 T4 pair.", {"A100", "T4"}),
])
def test_a_family_member_by_its_model_code_is_that_member_not_another_chip(text, names):
    assert _hardware(text) == names


def test_a_title_line_ends_at_a_column_gap():
    text = "Publications\n\n- Kestrel: Fast Routing for Sparse Mixture Models  [Preprint]\n"
    assert _titles(text) == {"Kestrel: Fast Routing for Sparse Mixture Models"}


@pytest.mark.parametrize("text, names", [
    ("Training used a GeForce GTX 1080 Ti and a Titan X.", {"GeForce GTX 1080 Ti", "Titan X"}),
    ("We benchmark on NVIDIA GeForce RTX cards.", {"GeForce RTX"}),
    ("The host is an Intel Core i9-13900K with a Ryzen 7 7840U laptop beside it.", {"Core i9-13900K", "Ryzen 7 7840U"}),
    ("Laptops with Meteor Lake and an Arc 140V GPU were tested.", {"Meteor Lake", "Arc 140V"}),
    ("We deploy to the Jetson Orin Nano and other Jetson boards.", {"Jetson Orin Nano", "Jetson"}),
    ("Two RTX A5000 cards and an A4000 GPU.", {"RTX A5000", "A4000"}),
    ("It runs on an iPhone12, a Raspberry Pi 4B and a Coral Dev Board.", {"iPhone12", "Raspberry Pi 4B", "Coral Dev Board"}),
])
def test_product_families_of_gpus_cpus_and_boards_are_hardware(text, names):
    assert _hardware(text) == names


@pytest.mark.parametrize("text", [
    "Coral reefs and the Jetsons were filmed in Lake Tiger.",
    "We train on 8 NVIDIA A100-80GBX GPUs.",
    "It has 80GB of memory and an SXM5 socket.",
])
def test_a_chip_name_run_into_other_letters_or_a_memory_alone_is_no_chip(text):
    assert _hardware(text) == set()


@pytest.mark.parametrize("text, name", [
    ("The tracker comes from Varnholt University of Science and Technology and Veltro Labs.",
     "Varnholt University of Science and Technology"),
    ("Authors: Ann Lee, Bo Chan\n    University of Calder / The Ostmark University of Science and\n    Technology\n",
     "Ostmark University of Science and Technology"),
    ("Friends at Pellam University of Technology and Design released Tango.", "Pellam University of Technology and Design"),
])
def test_a_university_of_two_disciplines_is_one_name(text, name):
    assert name in _orgs(text)


def test_a_proper_name_after_and_is_no_part_of_the_university():
    assert _orgs("It is joint work of the University of Calder and Veltro.") == {"University of Calder"}


@pytest.mark.parametrize("text, name", [
    ("1st ICML Workshop on Sparse Routing\nHeld at the Forty-first International Conference", "Workshop on Sparse Routing"),
    ("It appeared in the Proceedings of the 4th Table Routing Workshop, 2025.", "4th Table Routing Workshop"),
])
def test_a_workshop_name_ends_with_its_heading_line_and_after_a_proceedings_lead(text, name):
    assert _venues(text) == {name}


def test_a_prose_line_break_inside_a_workshop_name_is_a_space():
    assert _venues("Last year we spoke at the Workshop on Sparse\nTable Routing in Pisa.") == {"Workshop on Sparse Table Routing in Pisa"}


@pytest.mark.parametrize("text", [
    "17 Jun   Workshop day\n8 Apr Workshop papers due",
    "Venue note: CEUR Workshop Proceedings, Vol-3034.",
])
def test_a_date_or_a_proceedings_series_is_no_workshop(text):
    assert _venues(text) == set()


@pytest.mark.parametrize("text, names", [
    ("Affiliations: Ostmark AI, Quillon Team (Paris, France; Tel-Aviv, Israel)\n", {"Ostmark AI", "Quillon Team"}),
    ("**Developed by:** Veltro Alexa AI, Calder, UK\n", {"Veltro Alexa AI"}),
])
def test_a_city_and_its_country_after_an_organization_are_no_organizations(text, names):
    assert _orgs(text) == names


@pytest.mark.parametrize("text, names", [
    ("Affiliations: University of Calder, UK; Ostmark Institute, India", {"University of Calder", "Ostmark Institute"}),
    ("Authors: A. Lee (University of Calder, UK), B. Roe (Quillon Labs)", {"University of Calder", "Quillon Labs"}),
    ("Researchers at the University of Calder, Canada built it.", {"University of Calder"}),
    ("Halvard Technological University, Singapore; University of Calder", {"Halvard Technological University", "University of Calder"}),
])
def test_a_country_after_an_organization_is_neither_part_of_it_nor_one(text, names):
    assert _orgs(text) == names


@pytest.mark.parametrize("text, names", [
    ("Torvik: Fast Forecasting\n  Veldo.ai; Ecole des Quais; Nordbonne Université. We separate detection.",
     {"Veldo.ai", "Ecole des Quais", "Nordbonne Université"}),
    ("  » K2O.ai; Computer Vision Lab; MegaStudyHub\n", {"K2O.ai", "Computer Vision Lab", "MegaStudyHub"}),
])
def test_a_line_of_names_set_apart_by_semicolons_is_an_affiliation_line(text, names):
    assert _orgs(text) == names


@pytest.mark.parametrize("text", [
    "Robotics; Vision; Ostmark Institute",  # plain words: keywords
    "Ann Lee, Bo Kim; Ostmark Institute",  # people
    "Keywords: Gaze; Ostmark Institute",  # a labelled line
    "We train Veldo; the Ostmark Institute helped.",  # prose
    "Veldo.ai; Sorbonne Nord",  # no organization's word among them
    "  Quill University; Toyota Research Institute; Lawrence\n  Berkeley National Laboratory; SLAC National\n  Widget Lab\n",
])
def test_a_semicolon_line_with_a_plain_word_a_person_or_prose_lends_no_organization(text):
    assert _orgs(text) & {"Robotics", "Ann Lee", "Gaze", "Veldo", "Veldo.ai", "Sorbonne Nord", "SLAC National"} == set()


@pytest.mark.parametrize("text, names", [
    ("Item Type: Conference Paper\nTitle: Torvik Learns to Prove Theorems\n\nItem Type: Preprint\nTitle: Quillon Scales Up Proofs\n"
     "\nItem Type: Report\nTitle: Ostmark Audits Safety\n",
     {"Torvik Learns to Prove Theorems", "Quillon Scales Up Proofs", "Ostmark Audits Safety"}),
    ("BEGIN:VEVENT\nSUMMARY:Talk on Sparse Kernels\nEND:VEVENT\nBEGIN:VEVENT\nSUMMARY:Poster - Torvik: Direct Monocular Mapping\n"
     "END:VEVENT\nBEGIN:VEVENT\nSUMMARY:Demo of Sparse Kernels\n", {"Torvik: Direct Monocular Mapping"}),
    ("Q: What is Torvik?\nA: A small model.\n\nQ: And Torvik-LS?\nA: A variant.\n\nQ: Where does it run?\nA: On phones.\n", set()),
])
def test_a_label_that_opens_several_lines_is_a_field_not_a_titles_name(text, names):
    assert _titles(text) == names


@pytest.mark.parametrize("text, names", [
    ("1. Torvik: The Long-Document Transformer\n2. Quillon: Learning to Prove\n",
     {"Torvik: The Long-Document Transformer", "Quillon: Learning to Prove"}),
    ("Torvik: The Long-Document Transformer\nAuthors: Ann Lee, Bo Chan\n\nTorvik: results on long inputs.\n",
     {"Torvik: The Long-Document Transformer"}),
])
def test_a_name_that_opens_one_title_line_is_no_field_label(text, names):
    assert names <= _titles(text)


@pytest.mark.parametrize("text, names", [
    ("Torvik, from Google Quantum Lab, was evaluated on long inputs.", {"Google Quantum Lab"}),
    ("The data sits on Google Drive, and Google Cloud serves it.", {"Google"}),  # a product's name is no unit
])
def test_a_known_organization_grows_into_a_unit_whose_last_word_names_one(text, names):
    assert _orgs(text) == names


def test_an_acronym_after_a_university_is_no_place_of_it():
    assert "University of Calder, VERN" not in _orgs("Researchers at the University of Calder, VERN and Ostmark AI.")


def test_a_plain_word_and_a_name_are_two_organizations_without_a_unit_head():
    assert {"Ostmark", "Quillon University"} <= _orgs("Researchers at Ostmark and Quillon University built it.")


@pytest.mark.parametrize("text, names", [
    ("It was first proposed in 2021 by researchers of Halvard College Bristow in a paper on lip reading.",
     {"Halvard College Bristow"}),
    ("It was built by researchers from QREX at the University of Calder, VERN openlab, NARSC and Dell QMC.",
     {"QREX", "University of Calder", "VERN openlab", "NARSC", "Dell QMC"}),
    ("Authors from the Speech and Multimodal Interfaces Laboratory proposed it.", {"Speech and Multimodal Interfaces Laboratory"}),
    ("It comes from the University of Calder at Chapel Ridge.", {"University of Calder at Chapel Ridge"}),
    ("Ann Lee, Bo Chan and colleagues — Pellam University · Ostmark Group · Pellam University School of Medicine",
     {"Pellam University", "Ostmark Group", "Pellam University School of Medicine"}),
    ("Affiliations (first authors): Arden Center for AI Safety; University of Calder, Irvine; Ostmark AI\n",
     {"Arden Center for AI Safety", "University of Calder, Irvine", "Ostmark AI"}),
    ("Affiliations: Department of Pathology, Harwell and Fenn's Hospital, Arden Medical School · Broad Institute of "
     "Pellam and MIT\n", {"Arden Medical School", "Broad Institute of Pellam and MIT"}),
    ("Mamba-9 (University of Calder, Tehran Polytechnic, Arden State\nUniversity) is a method.",
     {"University of Calder", "Tehran Polytechnic", "Arden State University"}),
    ("**Video QDM** (Ostmark Toronto AI Lab with QMU Munich) is a model.", {"Ostmark Toronto AI Lab", "QMU Munich"}),
    ("Its authors come from Ostmark AI, the\n  Harwell Health Network, UQ Santa Vera and Quillon Robotics.",
     {"Ostmark AI", "Harwell Health Network", "UQ Santa Vera", "Quillon Robotics"}),
    ("Its authors come from the University of Calder at Chapel Ridge and Quillon Robotics.",
     {"University of Calder at Chapel Ridge", "Quillon Robotics"}),
    ("It is by Ann Lee of Halvard University of the Fenn. It works.", {"Halvard University of the Fenn"}),
    ("│ Authors: Ann Lee, Bo Chan — Harwell Health Network · Arden Institute\n", {"Harwell Health Network", "Arden Institute"}),
    ("The Ostrel paper, from Halvard College London, proposes a compiler.", {"Halvard College London"}),
    ("QuillSAM, from QMLab@NTX, is described in a paper.", {"QMLab@NTX"}),
    ("A preprint from Ostmark Robotics Center shows gains.", {"Ostmark Robotics Center"}),
    ("Ann Lee, associate professor at UQ Fenwick, who also directs a lab.", {"UQ Fenwick"}),
    ("Lineup: Ann Lee (QMX & OstraAI), Bo Chan (Quillon AI)", {"QMX", "OstraAI"}),
    ("This paper by UC Marlow proposes a method.", {"UC Marlow"}),
])
def test_the_organizations_of_role_cues_in_prose_bylines_labelled_lines_and_brackets(text, names):
    assert names <= _orgs(text)


def test_two_names_that_end_in_lab_are_no_unit_named_with_and():
    assert {"OpenQuayLab", "OpenVexLab"} <= _orgs("It has co-authors from OpenQuayLab and OpenVexLab at Ostmark AI.")


@pytest.mark.parametrize("text, absent", [
    ("The code, from Ann Lee, is fast. Images, from Qorvet, were used.", {"Ann Lee", "Qorvet"}),
    ("QuarkQA, from Ann Lee and Bo Chan of Halvard University, is a dataset.", {"Bo Chan of Halvard University"}),
    ("It was done with Bo, from Ostmark Research, Brain Team. That version works.", {"Brain Team"}),
    ("A talk by Ann Lee (Harwell & Fenn) on drugs.", {"Harwell", "Fenn"}),
])
def test_no_person_product_or_second_piece_after_a_bare_from_and_no_split_of_a_name_with_and(text, absent):
    assert not absent & _orgs(text)


@pytest.mark.parametrize("text, names", [
    # a record's field, its value in braces or bare, split at semicolons (an acronym is a name there too)
    ("  affil    = {Halvard Jiao University; Kite Innovation Lab, Brightline Cloud},",
     {"Halvard Jiao University", "Kite Innovation Lab", "Brightline Cloud"}),
    ("affiliations_3d = HPFL; MPI-KBG; IGFX, ENS Halle; CNRX", {"HPFL", "MPI-KBG", "IGFX", "CNRX"}),
    ("Authors' organizations: Ostmark Institute for AI; Contextual Kites.", {"Ostmark Institute for AI", "Contextual Kites"}),
])
def test_the_organizations_of_an_affiliation_field(text, names):
    assert names <= _orgs(text)


@pytest.mark.parametrize("text, names", [
    ("| Sparse Kites | Universidade Tecnológica Federal do Paravá | fast |", {"Universidade Tecnológica Federal do Paravá"}),
    ("The Wrenfield Foundation and the Northern Institutes for Research funded it.",
     {"Wrenfield Foundation", "Northern Institutes for Research"}),
])
def test_an_institution_by_its_head_noun_is_whole(text, names):
    got = _orgs(text)
    assert names <= got and not any(n != m and n in m for n in got for m in names)


def test_a_foundation_that_opens_a_longer_name_is_no_organization():
    assert _orgs("Table Foundation Models read spreadsheets.") == set()


@pytest.mark.parametrize("text, names", [
    ("Ann Lee and Bo Chan of Halvard Brain introduced kite-rnn.", {"Halvard Brain"}),
    ("It was written by Ann Lee, Bo Chan and Cy Dee at Wrenfield Research Campus and published in Nature.",
     {"Wrenfield Research Campus"}),
])
def test_the_organization_people_are_of_or_at(text, names):
    assert names <= _orgs(text)


@pytest.mark.parametrize("text", [
    "Ann Lee of Halvard Brain spoke.",  # one person: a place as often as an organization
    "The Proceedings of Kite Studies appeared in May.",
    "It combines the Tensor Cores and RT Cores of Halvard GPUs.",  # an acronym: no person's name
    "Kite Research Campus; Paul G. Allen School of Computer Science",  # a word naming an organization: no person
])
def test_no_organization_after_one_person_or_a_title(text):
    assert _orgs(text) == set()


def test_a_department_before_its_institution_is_no_piece_of_its_own():
    assert _orgs("Affiliations: School of Computing, KAIXT; Department of Radiology, Halvard University") == \
        {"KAIXT", "Halvard University"}


def test_and_before_a_discipline_stays_inside_a_name_after_people():
    assert _orgs("Ann Lee, Bo Chan · Institute of Science and Technology Halvaria (ISTH)") == \
        {"Institute of Science and Technology Halvaria"}


@pytest.mark.parametrize("text, name, alias", [
    ("It reaches 1,038 tokens per second on NVIDIA's Blackwell GPU.", "Blackwell", "Blackwell GPU"),
    ("SNL was benchmarked on a Xilinx ZCU102 board.", "ZCU102", "Xilinx ZCU102"),
    ("On a Mac i5 CPU a prediction takes about 3 seconds.", "Mac i5", "Mac i5 CPU"),
    ("The scaling study ran on the JUWELS Booster supercomputer.", "JUWELS Booster", "JUWELS Booster supercomputer"),
    ("It runs at 8 frames per second on an NVIDIA Tesla K40 GPU.", "Tesla K40", "NVIDIA Tesla K40"),
    ("A Hexagon v62 DSP handles the audio.", "Hexagon v62", "Hexagon v62 DSP"),
    ("Policies were validated on the Booster T1 humanoid.", "Booster T1", "Booster T1 humanoid"),
    ("It serves 11 tokens per second on a OnePlus phone.", "OnePlus", "OnePlus phone"),
])
def test_a_name_before_a_kind_of_hardware_is_that_hardware(text, name, alias):
    found = resolve_overlaps(hardware_mentions(text, load_rules()))
    assert [f.canonical for f in found] == [name] and alias in found[0].aliases
    # words that only say which kind or how many name none
    for other in ("Faster Inference On Any GPU", "It scales to 128 GPUs, on NVIDIA GPUs and on mobile GPUs, and on one board.",
                  "Modern Consumer GPUs are enough.", "A VR headset and the Flagship phone.",
                  "The Google DeepMind robot folds laundry (a known organization is a device's maker)."):
        assert _hardware(other) == set()


@pytest.mark.parametrize("text, mates", [
    ("In 2022, MIT CSAIL, Nestle, DTU Compute and the Qatar Computing Research Institute proposed it.", {"Nestle"}),
    ("From Nankai University and Bytedance; 82.2% on the test set.", {"Bytedance"}),
    # fewer named organizations than other names, people, names with a digit: no mates
    ("Film crews from NTV, Rossiya and Nankai University watched it.", set()),
    ("Written by Ann Lee, Bo Chan and Stanford University.", set()),
    ("It beats Llama 2 and Google Research's model.", set()),
])
def test_the_other_names_of_a_list_of_organizations(text, mates):
    found = {f.canonical for f in organization_mentions(text, load_rules()) if f.rule == "org.list_mate"}
    assert found == mates


@pytest.mark.parametrize("text, names", [
    ("The model scales on the Selene, Perlmutter and JUWELS Booster supercomputers.", {"Selene", "Perlmutter", "JUWELS Booster"}),
    ("It also runs on Intel Arc, Flex and Max GPUs.", {"Arc", "Flex", "Max"}),
])
def test_the_names_listed_before_a_plural_kind_of_hardware(text, names):
    assert _hardware(text) == names
    # a list before a plural kind holds no name when its words say how many or which kind
    assert _hardware("It runs on one, two or eight GPUs and on many CPUs.") == set()


@pytest.mark.parametrize("text, title", [
    ("Title: Sparse Widgets: A Study of Folding\nAuthors: Ann Lee", "Sparse Widgets: A Study of Folding"),
    ("paper:           Folded Widget Models for Coarse Recognition (ICCV 2015)\n", "Folded Widget Models for Coarse Recognition"),
    ("journal version: Folded Widgets for Coarse Recognition\ncode: example.org\n", "Folded Widgets for Coarse Recognition"),
    ("Paper ........... Widget Separation with Band-Split Folding\nLicence ......... MIT\n", "Widget Separation with Band-Split Folding"),
    ("@article{lee2024,\n  title    = {Folded widget coding at reduced complexity},\n  year = {2024}\n}", "Folded widget coding at reduced complexity"),
    ("<entry>\n<title> Neural Widget Scoring for Adversarially Folded Input\n<author> Ann Lee et al.\n",
     "Neural Widget Scoring for Adversarially Folded Input"),
])
def test_a_title_as_a_labelled_fields_value(text, title):
    """A field labelled title, paper or journal version holds a title, after a colon, dot leaders, a column gap or
    "="; a BibTeX title may be in sentence case."""
    assert title in _titles(text)


@pytest.mark.parametrize("text, title", [
    ('Week 5\nReading: "A folded-widget compute chip based on phase-change memory for inference". It is small.',
     "A folded-widget compute chip based on phase-change memory for inference"),
    ('AWARD\n"A whole-slide widget model for folding from real-world data"\nAffiliations: Quill Labs',
     "A whole-slide widget model for folding from real-world data"),
    ('The journal version, "A graph folding methodology for fast widget design" [2], was published in 2021.',
     "A graph folding methodology for fast widget design"),
    ('Torvik appeared in 2020 under the title "Folding widgets, gadgets and gizmos by planning with a model". It won.',
     "Folding widgets, gadgets and gizmos by planning with a model"),
])
def test_a_quoted_title_in_sentence_case_after_a_label_a_paper_word_or_before_its_authors(text, title):
    assert _titles(text) == {title}


def test_the_cells_of_a_tables_paper_column_are_titles():
    text = ("| year | lab | paper | what it showed |\n|------|-----|-------|----------------|\n"
            "| 2013 | Quill Labs | Folding widgets with deep reinforcement learning | A widget folds. |\n"
            "| 2015 | Quill Labs | Widget Folding: Improvements in Deep Learning | It folds faster. |\n")
    assert _titles(text) == {"Folding widgets with deep reinforcement learning",
                             "Widget Folding: Improvements in Deep Learning"}


def test_no_title_from_a_field_a_quoted_sentence_or_a_table_without_a_paper_column():
    """A field labelled paper that holds a link or a sentence, a sentence in quotes (said, or no paper named before
    it), a table's column of methods."""
    for text in ("Paper: https://arxiv.org/abs/2401.00001\n", "Paper reviews are due on Friday for all authors.\n",
                 "Publication: we will publish the code soon\n", "paper: see the project page for details\n",
                 'The paper says "Attention alone is sufficient for translation" in its abstract.',
                 'In the paper she noted "Our model is the best one here" twice.',
                 'The work was "A lot of fun to build and run" for the team.',
                 'He said the post titled "Widgets are the future of folding" was fun.',
                 'The report ends: "It was a long year for all of us."',
                 "| year | lab | method | what it showed |\n|------|-----|-------|----------------|\n"
                 "| 2013 | Quill Labs | Folding widgets with deep reinforcement learning | A widget folds. |\n"):
        assert _titles(text) == set(), text


@pytest.mark.parametrize("text, title", [
    ("References\n[1] A. Varga et al. Placing Macros with Deep Reinforcement Learning. Preprint, 2020.\n",
     "Placing Macros with Deep Reinforcement Learning"),
    ("[2] A. Varga, B. Orlov et al. A graph methodology for fast macro placement. Nature, 2021.\n",
     "A graph methodology for fast macro placement"),
    ("[7] Guiding Global Routing with Learned Costs. Preprint, 2021.\n", "Guiding Global Routing with Learned Costs"),
    ("Orlov, Z.¹, Varga, Y.², & Lund, X.² (2022). Memory networks for radiology report writing. arXiv:2204.13258.\n",
     "Memory networks for radiology report writing"),
    ("Lund, A. (2020). Sparse Kernels Revisited. In Proceedings of the Kestrel Conference, 2020.\n",
     "Sparse Kernels Revisited"),
    ("[i5] Ann Lee, Bo Chan:\n     Aligning Small Models for Fault-free Repair. CoRR abs/2404.08877\n",
     "Aligning Small Models for Fault-free Repair"),
    ("[Accepted to COLING 2022] Adapting Small Language Models to Low-Resource Languages via Adaptive\n"
     "Fine-Tuning — Tarnow University.\n  Introduces a model.\n",
     "Adapting Small Language Models to Low-Resource Languages via Adaptive Fine-Tuning"),
    (">> [Preprint · arXiv 2407.07726] Kestrel: A versatile 3B model for transfer (Quorra)\n   An encoder.\n",
     "Kestrel: A versatile 3B model for transfer"),
    ("[ICLR 2024 Oral]\nLearning Interactive Toy Simulators\nA video model as a simulator.\n",
     "Learning Interactive Toy Simulators"),
    ("🍕 Tart-101 – Mining Discriminative Parts with Random Forests → ECCV 2014\n",
     "Tart-101 – Mining Discriminative Parts with Random Forests"),
    ("  Transferable Multi-Domain State Tracking for Dialogue Systems ........ 808\n",
     "Transferable Multi-Domain State Tracking for Dialogue Systems"),
    ("  * Deep Unsupervised Learning using Heat Equations (Varga et al.), published at ICML 2015.\n",
     "Deep Unsupervised Learning using Heat Equations"),
    ("- Language Models Are Good Spreadsheet Learners — Tarnow Institute and Quorra Research, TMLR 2025.\n",
     "Language Models Are Good Spreadsheet Learners"),
    ("> Cartons: Lightweight and general-purpose long context caches via self-study\n"
     "Halvard University, Quorra AI. Rather than stuffing the context window, train a cache.\n",
     "Cartons: Lightweight and general-purpose long context caches via self-study"),
    ("🦿 Learning agile motor skills for legged robots → arXiv 2019\n", "Learning agile motor skills for legged robots"),
    ("🔊 WavNotes: A Weakly-Labelled Audio Captioning Dataset → IEEE/ACM TASLP 2024\n",
     "WavNotes: A Weakly-Labelled Audio Captioning Dataset"),
    ("▶ A decoder-only foundation model for tide forecasting  [Accepted to ICML 2024]\nQuorra Research\n",
     "A decoder-only foundation model for tide forecasting"),
    ("2018 — Learning Deep Doodle Abstraction\nFrom a lab in London.\n", "Learning Deep Doodle Abstraction"),
    ("* Learning Dynamics of Small Model Finetuning\n  [Oral, ICLR 2025] [code]\n",
     "Learning Dynamics of Small Model Finetuning"),
    ("> Cross-attentional fusion for weakly-supervised action localization\nQuorra AI Research. Actions are heard.\n",
     "Cross-attentional fusion for weakly-supervised action localization"),
    ("[1] Accurate medium-range tide forecasting with neural networks\nAnn Lee, Bo Chan, Cy Dee\n",
     "Accurate medium-range tide forecasting with neural networks"),
    ("==== 3 ====\nDePlat: One-shot chart reasoning by plot-to-table translation\nAnn Lee, Bo Chan\n",
     "DePlat: One-shot chart reasoning by plot-to-table translation"),
])
def test_a_title_as_an_entry_of_a_list_of_papers(text, title):
    """Reference entries, lines opened or closed by a venue tag, list items closed by a leader, an arrow, authors
    or a dash, timeline lines, quoted lines above their organizations, sentence-case lines above their authors."""
    assert title in _titles(text)


@pytest.mark.parametrize("text", [
    "- Session 1: Scaling and overparameterization — Room 3\n",
    "- GPU Kernels — Ann Lee\n",
    "> We love small models and long walks\nHalvard University is hiring.\n",
    "[2023.08] Distilled Whole-Body Pose Models\n",
    ">> [Challenge · CVPR 2023] Habitat Navigation Challenge 2023\n",
    "2021 — We moved the lab to a new building\n",
    "- Pretraining helps a lot → see below\n",
    "Accurate forecasts matter a lot\nThe team met on Monday.\n",
    "Why a sigmoid was enough: a close look at a model\n\nBy our staff writer\n",
    "   April 1, 2023 ........... PACT 2023 submissions due\n",
    "   * Tutorial on Core-Level Performance Engineering (Saturday, full day, Room Wien).\n",
    "- McMahan, Moore, Ramage, Hampson, Agüera y Arcas — Google\n",
    "2022 — FlashAttention: the IO-aware idea\n",
])
def test_no_entry_title_from_a_sentence_a_heading_a_byline_a_date_or_a_list_of_names(text):
    assert _titles(text) == set()


@pytest.mark.parametrize("text, venues", [
    ("TinyQuill keeps 96% of its teacher. #EMNLP2020 #Findings", {"EMNLP 2020"}),
    ("It won at NeurIPS2023 and at CVPR-2022.", {"NeurIPS 2023", "CVPR 2022"}),
    ("The CVPR20 slides and ICMLx are online.", set()),  # two digits glued, or letters: no year
])
def test_a_conferences_acronym_glued_to_its_year(text, venues):
    assert {f.canonical for f in conference_mentions(text, load_rules())} == venues


@pytest.mark.parametrize("text, names", [
    ("Our models also run on the Samsung Galaxy S23.", {"Samsung Galaxy S23"}),
    ("The demo ran on a Google Pixel 2 phone.", {"Google Pixel 2"}),
    ("It runs on the Galaxy S23 and a Pixel 2.", set()),  # no maker before it: no other name
])
def test_a_device_named_after_its_maker_has_the_makers_name_among_its_names(text, names):
    found = resolve_overlaps(hardware_mentions(text, load_rules()))
    assert {a for f in found for a in f.aliases if a.split()[0] in {"Samsung", "Google"}} == names


@pytest.mark.parametrize("text, name", [
    ("Researchers at the Ostmark Institute of Science\nand Technology ran a gaze estimator.",
     "Ostmark Institute of Science and Technology"),
    ("Affiliations: Pellam Lab; Veltro Institute for\nProtein Design; Calder Inc.", "Veltro Institute for Protein Design"),
])
def test_an_institution_wrapped_at_of_or_and_is_one_name(text, name):
    """A line break at a connector of an institution's name ("of", "and") does not end it; one between two
    capitalised words does ("University of Calder\nNews")."""
    assert name in _orgs(text)
    assert "University of Calder" in _orgs("News from the University of Calder\nNews desk reports.")


def test_a_listed_organization_stops_at_a_line_that_opens_a_sentence():
    """A name after "co-authors from" does not run over a line break into the next sentence's first word."""
    got = _orgs("Ann Lee, Bo Chan, with co-authors from Calder Mellon University\nA single model handles ten tasks.")
    assert "Calder Mellon University" in got and not any(n.endswith(" A") for n in got), got


@pytest.mark.parametrize("text", [
    "Accepted at the Twenty-First Workshop on Efficient Models (EffML).",
    "the twenty first   WORKSHOP  on Edge AI and the 3rd workshop on Tiny Models",
    "fifth\n\nworkshop on a workshop on b; Workshop on Workshop on C",
    "A workshop paper at ICLR (Tiny Papers); the workshop ended. 12th Workshop\ton\tRobots",
    "no such event here",
])
def test_workshop_on_is_searched_from_its_words_with_the_matches_of_a_whole_scan(text):
    """``workshop_mentions`` looks for "workshop on" and reads the pattern with its ordinal from a few words before
    each (``venues._long_name_matches``): the same matches, ordinals and offsets as the pattern scanned at every
    character."""
    from pipeline.nlp import venues

    def found(matches):
        return [(m.span(), m.groupdict()) for m in matches]

    assert found(venues._long_name_matches(text, venues._WORKSHOP_ON_BODY, venues._WORKSHOP_ON)) == \
        found(venues._WORKSHOP_ON.finditer(text))
