"""An organization's name to its end (``organizations._name_extent``): through "of", "for the", "in the" and, between
plain words, "and"/"&" while what follows is the rest of one name; over a line break after a word no name ends on; a
company's legal form; cut before "in" and a place. A byline's people are no organizations, and a list item with an
organization's head word is no venue."""
from __future__ import annotations

import pytest

from pipeline.nlp.organizations import organization_mentions
from pipeline.nlp.overlaps import resolve_overlaps
from pipeline.nlp.rules import load_rules
from pipeline.nlp.venues import venue_lists


def _orgs(text: str) -> set[str]:
    """The organizations found, overlaps resolved as the build does (the longest name first)."""
    found = organization_mentions(text, load_rules())
    return {f.canonical for f in resolve_overlaps(sorted(found, key=lambda f: -(f.end - f.start)))}


@pytest.mark.parametrize("text, name", [
    ("The method comes from the Kessler Institute for the Study of Coastal Systems, in a joint effort.",
     "Kessler Institute for the Study of Coastal Systems"),
    ("Affiliations: Varn Institute of Marine Cell Biology and Genetics; Tovar University",
     "Varn Institute of Marine Cell Biology and Genetics"),
    ("Affiliations: Qarin Key Laboratory of Optical Signal Processing and Sensor Networks; Tovar University",
     "Qarin Key Laboratory of Optical Signal Processing and Sensor Networks"),
    ("A team from Tovar State University and the Orlen Center for Grain and Animal Health Research built it.",
     "Orlen Center for Grain and Animal Health Research"),
    ("Researchers at the Brisk Center for Open Data in the Humanities, where the corpus was made.",
     "Brisk Center for Open Data in the Humanities"),
])
def test_a_name_goes_on_through_its_own_connectors(text, name):
    found = _orgs(text)
    assert name in found and not any(n != name and n in name for n in found)


def test_a_second_organization_after_and_is_not_joined():
    found = _orgs("It comes from the Kessler Institute for the Study of Coastal Systems and Brno University of Technology.")
    assert "Kessler Institute for the Study of Coastal Systems" in found
    assert not any("Brno" in n and "Kessler" in n for n in found)


def test_a_name_cut_at_a_line_break_after_a_word_no_name_ends_on():
    assert "University of Southern Velmaria" in _orgs("- Lifelong Search — University of Southern\n  Velmaria; Amazon Robotics")


def test_an_adjective_joined_by_an_ampersand_opens_the_name():
    assert "National & Velorian University of Tessa" in _orgs("At the National & Velorian University of Tessa, the lab built it.")


def test_a_company_keeps_its_legal_form():
    found = _orgs("Authors' organisations: Tovar University; Shanghai Qelin Intelligent Technology Co., Ltd.")
    assert "Shanghai Qelin Intelligent Technology Co., Ltd." in found


@pytest.mark.parametrize("text, name", [
    ("Keynote: Reading scores (Ann Wilkes, Quorvo Ltd).", "Quorvo Ltd"),
    ("The work (Brenz-Kessel AG, Tovar University) trains a model.", "Brenz-Kessel AG"),
])
def test_a_company_named_with_its_legal_form(text, name):
    assert name in _orgs(text)


@pytest.mark.parametrize("text, name, place", [
    ("It was written by Ann Lee and Bo Chan of the Varn Sciences Institute in Marina del Rey.",
     "Varn Sciences Institute", "Marina"),
    ("Researchers at MPI-XYZ in Dresdow have taken it further.", "MPI-XYZ", "Dresdow"),
])
def test_a_name_stops_before_in_and_a_place(text, name, place):
    found = _orgs(text)
    assert name in found and not any(place in n for n in found)


def test_the_people_of_a_byline_are_no_organizations():
    found = _orgs("Wenli Zhou, Liancai Gao · Wenxuan Institute of Computer Technology, Pekar University\n")
    assert "Wenxuan Institute of Computer Technology" in found
    assert not found & {"Wenli Zhou", "Liancai Gao"}


def test_an_organization_in_a_published_in_line_is_no_venue():
    text = ("- [Published in Journal of Load Studies] Load forecasting — Tovar University, Quorvo Institute, "
            "Brenz Central R&D Labs; it describes the matches.")
    found = venue_lists(text, [(0, len(text))], load_rules(), [])
    assert not any("Institute" in f.canonical or "Labs" in f.canonical for f in found)


def test_an_institute_keeps_its_academy_after_a_comma():
    found = _orgs("Affiliations: Tovar University; Institute of Marine Computing, Velorian Academy of Sciences; Quorvo Labs")
    assert "Institute of Marine Computing, Velorian Academy of Sciences" in found


def test_plain_words_joined_by_an_ampersand_open_the_name():
    assert "Computer Science & Signal Processing Laboratory" in _orgs(
        "Researchers at the Computer Science & Signal Processing Laboratory built it.")


def test_a_unit_in_brackets_after_an_organization_is_one_name_and_the_organization_stays():
    found = _orgs("Affiliations: Quorvo (Artificial Intelligence and Machine Learning Group); Velorian University")
    assert {"Quorvo", "Artificial Intelligence and Machine Learning Group"} <= found
    assert not found & {"Artificial Intelligence", "Machine Learning Group"}


def test_a_name_wrapped_after_an_adjective_in_an_affiliation_list():
    found = _orgs("Affiliations: Centre for Frontier Studies (CFS), Velor; Institute of High\n  Performance Computing (IHPC), Velor")
    assert "Institute of High Performance Computing" in found and "Institute of High" not in found


def test_a_company_named_with_co_ltd_after_a_middle_dot():
    assert "Qelin Tech Co., Ltd." in _orgs("Tovar University · Qelin Tech Co., Ltd.")


def test_a_university_keeps_its_campus_after_in():
    assert "Velor Mellon University in Qatar" in _orgs("Authors: Ann Lee (Velor Mellon University in Qatar)")


def test_a_name_continued_through_of_stops_before_another_organization():
    found = _orgs("We thank the Pattern Analysis Lab of Friedrich-Alexander-Universität Velorn for the recordings.")
    assert "Pattern Analysis Lab" in found and not any("Lab of" in n for n in found)


def test_a_byline_that_opens_with_a_middle_dot():
    assert "Tovar University" in _orgs("· Tovar University, Quorvo Labs\n")
