"""A mention found as an organization that is only a place, a cut piece of a name or a bare name-closing word is
dropped (``organizations._no_organization``); the organization of the same line stays."""
from __future__ import annotations

import pytest

from pipeline.nlp.organizations import _no_organization, organization_mentions
from pipeline.nlp.rules import load_rules


def _orgs(text: str) -> set[str]:
    return {f.canonical for f in organization_mentions(text, load_rules())}


@pytest.mark.parametrize("name", ["Cambridge", "Redmond", "Republic of Korea", "NJ", "New York City", "SWITZERLAND",
                                  "Technology", "Inc", "Ltd.", "Research Unit", "University of Illinois at",
                                  "Computer Science &", "Centre for"])
def test_a_place_a_fragment_or_a_cut_piece_is_no_organization(name):
    assert _no_organization(name)


@pytest.mark.parametrize("name", ["Oxford", "Berkeley", "University of Washington", "Google Research", "Minds & Machines",
                                  "Mathematics Research Center", "Harvard", "Apple"])
def test_a_university_s_city_name_or_a_whole_name_stays(name):
    assert not _no_organization(name)


@pytest.mark.parametrize("text, keep, drop", [
    ("Authors: Ann Lee (Kestrel Research Institute, Daejeon, Republic of Korea)", "Kestrel Research Institute",
     {"Daejeon", "Republic of Korea"}),
    ("Authors: Bo Chan (Stevens Institute of Technology; Hoboken, NJ)", "Stevens Institute of Technology", {"Hoboken", "NJ"}),
    ("Written with colleagues at Microsoft Research in Redmond.", "Microsoft Research", {"Redmond"}),
])
def test_an_affiliation_line_keeps_the_organization_not_its_place(text, keep, drop):
    found = _orgs(text)
    assert keep in found and not found & drop


@pytest.mark.parametrize("text, name", [
    ("Affiliations: Shandong University · Fuzhou University · Harbin Institute of Technology (Shenzhen)",
     "Harbin Institute of Technology (Shenzhen)"),
    ("Ma, Su, Wang, Lu · Turing Robot; The Chinese University of Hong Kong, Shenzhen",
     "Chinese University of Hong Kong, Shenzhen"),
])
def test_a_university_keeps_the_campus_that_closes_its_piece(text, name):
    found = _orgs(text)
    assert name in found and "Shenzhen" not in found


def test_a_country_or_state_after_a_university_is_no_campus():
    assert "Nanyang Technological University, Singapore" not in _orgs("Affiliations: Nanyang Technological University, Singapore; Fuzhou University")


@pytest.mark.parametrize("text, people", [
    ("From: Hinton, Bengio, LeCun", {"Hinton", "Bengio", "LeCun"}),
    ("Developed by: Lee and Chan", {"Lee", "Chan"}),
    ("University of Toronto (Lee, Moreau); Vector Institute (Tanaka)", {"Tanaka"}),
])
def test_people_after_a_label_or_in_an_organization_s_brackets_are_no_organizations(text, people):
    assert not _orgs(text) & people


@pytest.mark.parametrize("text, orgs", [
    ("From: Google Research, Kestrel Labs", {"Google Research", "Kestrel Labs"}),
    ("Affiliations: Stanford, Berkeley", {"Stanford", "Berkeley"}),
    ("Authors' affiliations: Stanford, Berkeley", {"Stanford", "Berkeley"}),
    ("Invited talk: Ann Lee (Kestrel Labs)", {"Kestrel Labs"}),
])
def test_organizations_after_a_label_or_a_person_stay(text, orgs):
    assert orgs <= _orgs(text)
