"""Organization mentions: affinity groups, institutions by their naming patterns, names given a role (affiliation
lines, lists after "researchers at", people and their organizations, "X researchers", "the X Team", a headline
"X at CONF"), the lexicon."""

from __future__ import annotations

import re

from .english import english
from .lexicon import longest_first
from .people import PEOPLE, PERSON, people_count
from .rules import Found, acronym_long_form, load_rules
from .text import BULLET, cue, regex

__all__ = ["organization_mentions", "opens_with_organization", "names_organization"]

_CUES = load_rules().cue_patterns["organizations"]
_AFFILIATION_LINE = re.compile(_CUES["affiliation_line"])
_NUMBERED = re.compile(_CUES["numbered_affiliations"])
_PIECE_END = re.compile(_CUES["piece_end"])
_PIECE_START = re.compile(_CUES["piece_start"])
_SUB_UNIT = re.compile(_CUES["sub_unit"])
_UNIT_AFTER = re.compile(r"\s*\([^()]*\)$")
"""A bracket that closes a piece of an affiliation line: an acronym ("Allen Institute for AI (AI2)"), a campus or a
unit of the organization ("Swisscom (Artificial Intelligence and Machine Learning Group)"): the name is the piece
without it (the campus is joined back by ``_with_campus``; a unit is read from the bracket by the role-line rule)."""
_AFFINITY = cue(_CUES["affinity_group"])
_GAP = r"(?:[ \t]+|[ \t]*\n[ \t]*)"
"""What stands around a connector of an institution's name ("of", "for", "and"): spaces, or one line break, for a
name wrapped at it in a list of affiliations ("Gwangju Institute of Science\nand Technology", "University of Chinese
Academy of\nSciences"); between two capitalised words a line break still ends the name ("University of X\nNews")."""
_INSTITUTION = cue(_CUES["institution"].replace("{fields}", _CUES["fields"]).replace("{gap}", _GAP))
_NOT_A_NAME = frozenset(_CUES["not_a_name"].split("|"))
"""The words that open a sentence, not an institution's name ("The", "Our", "At")."""
_ROLE_LINE = cue(_CUES["role_line"])
_ORG_WORD = re.compile(r"(?<![\w-])(?:" + _CUES["org_word"] + r")(?![\w-])")


def opens_with_organization(line: str, rules) -> bool:
    """Whether a line opens with an organization's name ("Stanford University, Caltech. Rather than ...")."""
    first = re.split(r"[.,;·(]|[ \t][—–-][ \t]", line.strip(), maxsplit=1)[0]
    return bool(first) and len(first.split()) <= 6 and (bool(_ORG_WORD.search(first)) or first in rules.organizations)
_LEAD_SPLIT = re.compile(_CUES["lead_split"])
_LEAD_BREAK = re.compile(r"[,;·¹²³⁴⁵⁶⁷⁸⁹⁰]")
"""What a line that lists names holds ("and" alone joins two names in prose too)."""
_LINE_MARKER = re.compile(r"^[ \t]*(?:[-*•>]+[ \t]*|" + BULLET + r"[ \t]+)?")
_ROLE_CUE = cue(_CUES["role_cue"])
_FROM_CUE = cue(_CUES["from_cue"])
_FROM_NAME = re.compile(_CUES["from_name"])
_ORG_PIECE = re.compile(_CUES["org_piece"])
_LIST_SEP = re.compile(_CUES["list_sep"])
_AND_HEAD = re.compile(r"(?<![\w-])(?:" + _CUES["and_head"] + r")$")
_ACRONYM_TAIL = re.compile(r"[ \t]+[a-z][a-z0-9-]*(?=(?:" + _CUES["list_sep"] + r")(?:[Tt]he[ \t]+)?[A-Z])")
"""A lower-case word after an acronym, inside a list ("CERN openlab, NERSC"): part of the acronym's name."""
_PLACE_HEAD = re.compile(_CUES["place_head"])
_COUNTRY = re.compile(r"(?:" + _CUES["countries"] + r")\.?")
_PLACES_BRACKET = re.compile(r"\s*\(([^()]*)\)")
"""A bracket that may hold only places ("Meta AI (Paris, France; Tel-Aviv, Israel)")."""
_PEOPLE_AFFILIATION = re.compile(_CUES["people_affiliation"].replace("{people}", PEOPLE))
_PERSON = re.compile(PERSON)
_PERSON_BEFORE = re.compile(_CUES["person_before"].replace("{person}", PERSON), re.M)
_PAREN_LIST = re.compile(_CUES["paren_list"])
_PEOPLE_OF = re.compile(_CUES["people_of"].replace("{people}", PEOPLE).replace("{link}", _CUES["people_of_link"]) + r"\Z")
_OF_AT = re.compile(r"[ \t]" + _CUES["people_of_link"] + r"[ \t]+(?=(?:the[ \t]+)?[A-Z])")
"""Where people may be said to be "of" or "at" an organization (the link words of ``people_of``, before a capital)."""
_PIECE_SPLIT = re.compile(_CUES["piece_split"])
_MEMBER_NOUN = re.compile(_CUES["member_noun"])
_MEMBER_NAME = re.compile(_CUES["member_name"])
_MEMBER_NOT_A_NAME = frozenset(_CUES["member_not_a_name"].split("|"))
_UNITS = (cue(_CUES["unit_capitalised"]), cue(_CUES["unit_possessive"]), cue(_CUES["unit_lower"]))
"""A unit by its head noun: capitalised ("the Qwen Team"), after a possessive, lower-case (these two hold an org_word)."""
_HEADLINE_AT = re.compile(_CUES["headline_at"])
_HEADLINE_LINES = int(_CUES["headline_lines"])


_AFFILIATION_LABEL = re.compile(_CUES["affiliation_label"])
"""The labels that name organizations whatever their pieces look like ("Affiliations: Stanford, Berkeley", "Authors'
institutions:"); the others ("From:", "Developed by:") may list people."""


def _affiliations(text: str, rules) -> set[str]:
    """The organizations of affiliation lines, one a piece: "Affiliations: A; B", a model card's "Developed by: A,
    with B" field (also as a table row), "(1) A; (2) B" under an author line, "1 A, 2 B", "A, B"."""
    out = set()
    for m in (*_AFFILIATION_LINE.finditer(text), *_NUMBERED.finditer(text)):
        body = next(g for g in m.groups() if g is not None)
        if m.re is _AFFILIATION_LINE and not _AFFILIATION_LABEL.match(m.group(0)) and _people(body, rules):
            continue  # "From: Hinton, Bengio, LeCun", "Developed by: Lee and Chan": people, not their organizations
        body = re.sub(r"\s*\([a-z][^()]*\)", "", body)  # "(code under mit-han-lab)"
        body = _PLACES_BRACKET.sub(lambda b: "" if _all_places(b.group(1)) else b.group(0), body)
        if m.re is _AFFILIATION_LINE and (m.group(1) is None or (not _PIECE_END.search(body) and body.count(",") >= 2)):
            # a field's value is prose ("A and B"), and so is a labelled list without semicolons ("A, B, C and D")
            body = re.sub(r"\s+and\s+(?=[A-Z])", ", ", body)
        for piece in _split_pieces(body, _PIECE_END):
            name = _UNIT_AFTER.sub("", _PIECE_START.sub("", piece).strip(" .,;"))  # "Swisscom (AI Group)": Swisscom
            if name[:1].isupper() and len(name.split()) <= 8 and not re.search(r"\d{4}|[()]", name):
                out.add(name)
    return out


_SEMICOLON_PIECE = r"(?:[^\n:;()\[\].]|\.(?![ \t]|$)){2,80}"
_SEMICOLON_LINE = re.compile(r"(?m)^[ \t]*(?:[-*•>»]+[ \t]*)?(" + _SEMICOLON_PIECE + r"(?:;[ \t]*" + _SEMICOLON_PIECE
                             + r")+)(?:\.(?:[ \t][^\n]*)?)?[ \t]*$")
"""A line of names set apart by semicolons, up to its end or a full stop (a sentence may follow on the line)."""


def _semicolon_lines(text: str, rules) -> set[str]:
    """The organizations of a line that is nothing but names set apart by semicolons, one of them an organization's
    ("Valeo.ai; Ecole des Ponts; Sorbonne Université" under a title): an affiliation line without its label. Not a
    line with a person's name ("Lee, Kim; Roe"), a plain word or a sentence in it."""
    out: set[str] = set()
    for m in _SEMICOLON_LINE.finditer(text):
        before = text[text.rfind("\n", 0, max(0, m.start() - 1)) + 1:max(0, m.start() - 1)]
        line_end = text.find("\n", m.end() + 1)
        after = text[m.end() + 1:line_end if line_end >= 0 else len(text)]
        if ";" in before or ";" in after:
            continue  # a list wrapped over lines: its pieces are cut at the line ends ("Lawrence\n Berkeley ...")
        parts = [x.strip() for x in re.split(r"[;,]", m.group(1))]
        if not all(_good_name(p, rules) and not _person_like(p, rules) and (" " in p or not p.isalpha() or p.isupper()
                                                                            or _CAMEL.search(p) or _known_org(p, rules)
                                                                            or _COUNTRY.fullmatch(p)) for p in parts):
            continue  # a plain word ("Robotics; Vision") is a keyword, not an organization
        if any(_known_org(p, rules) for p in parts):
            out.update(_split_pieces(m.group(1), _PIECE_END, rules))
    return out


_CAMEL = re.compile(r"[a-z][A-Z]")


_PLACE = re.compile(r"(?:" + "|".join((_CUES["countries"], _CUES["regions"], _CUES["cities"])) + r")\.?", re.I)
_FRAGMENT_WORD = re.compile(r"(?:" + _CUES["fields"] + "|" + _CUES["org_word"] + "|" + _CUES["fragment_words"] + r"|&|,)")
_CUT_END = frozenset(_CUES["cut_end"].split("|"))


def _no_organization(name: str) -> bool:
    """Whether a name found as an organization is none: only a place ("Cambridge", "Republic of Korea", "NJ"),
    one or two words that close or head an organization's name ("Technology", "Inc", "Research Unit"), or a piece cut before
    its end ("University of Illinois at", "Computer Science &"). Measured on the earlier baseline's out-of-fold
    graphs: about 35, 15 and 6 of the 332 false Organization mentions."""
    words = name.replace(",", " , ").split()
    return not words or bool(_PLACE.fullmatch(name.strip())) or words[-1].lower() in _CUT_END \
        or len(words) <= 2 and all(_FRAGMENT_WORD.fullmatch(w) for w in words)  # not "Mathematics Research Center"


_CAMPUS = re.compile(r"(?:,[ \t]*(" + _CUES["cities"] + r")(?=[ \t]*(?:[;·|\n)]|\.?$|\.[ \t]))|[ \t]+\((" + _CUES["cities"]
                     + r")\))")
_CAMPUS_HEAD = re.compile(r"(?<![\w-])(?:" + _CUES["campus_head"] + ")")
_UNIVERSITY = re.compile(_CUES["campus_after_comma"])


def _with_campus(text: str, f: Found) -> Found:
    """A university or institute with the campus that closes its piece, after a comma or in brackets: "The Chinese
    University of Hong Kong, Shenzhen;", "Harbin Institute of Technology (Shenzhen)" (the gold's name; the earlier
    baseline's out-of-fold graphs missed 13 such names and gave their shorter names as 10 false mentions). A
    campus is one of the large cities of the ``cities`` cue, after a comma only a university's (an institute's is
    its place: "Max Planck Institute for Informatics, Saarbrücken", "Samsung R&D Institute, Bangalore"; no country or state: "University of Surrey, UK" is the university)."""
    m = _CAMPUS.match(text, f.end)
    if not m or not _CAMPUS_HEAD.search(f.canonical) or m.group(1) and not _UNIVERSITY.search(f.canonical):
        return f
    return Found(f.start, m.end(), f.cls, " ".join((f.canonical + text[f.end:m.end()]).split()), (), f.rule, f.generic)


_ORG_HEAD = re.compile(r"(?<!\w)(?:" + _CUES["org_head"] + r")(?![\w-])")
"""An organization's head noun, also closing a hyphenated name ("Friedrich-Alexander-Universität")."""
_NAME_STEP = re.compile(_CUES["name_step"])
_OPEN_END = frozenset(_CUES["open_end"].split("|"))
_LEGAL_AFTER = re.compile(_CUES["legal_after"])
_LEGAL_NAME = re.compile(_CUES["legal_name"])
_PLACE_IN = re.compile(_CUES["place_in"])
_LEADING_NOT_A_NAME = re.compile(r"(?:(?:" + "|".join(sorted(_NOT_A_NAME)) + r")[ \t]+)*")
_OF_TAIL = re.compile(r"[ \t](?:of|for)[ \t]")
_AMP_BEFORE = re.compile(r"(?:^|(?<=[\s(,;]))((?:[A-Z][a-z]+[ \t]+)?[A-Z][a-z]+)[ \t]+&[ \t]+\Z")
_ACADEMY_AFTER = re.compile(_CUES["academy_after"])


def names_organization(name: str) -> bool:
    """Whether a name ends on the head noun of an organization's name ("SAS Institute", "Toyota Central R&D Labs";
    not "Systems for Foundation Models")."""
    return bool(_ORG_HEAD.fullmatch(name.split()[-1])) if name.split() else False


def _holds_head(name: str) -> bool:
    """Whether a name holds the head noun of an organization's name anywhere ("Max Planck Institute for the Physics")."""
    return bool(_ORG_HEAD.search(name))


def _plain_words(words: list[str]) -> bool:
    """Whether capitalised words are all dictionary words ("Animal Health Research", "Sensor Networks"): the rest
    of one name, not a second organization's coined name ("Brno", "Google")."""
    return all(english(w.lower()) for w in words)


def _step_ok(name: str, conn: str | None, run: list[str], newline: bool) -> bool:
    """Whether a connector and a run of capitalised words go on the organization ``name`` (see ``_name_extent``)."""
    if _holds_head(" ".join(run)) or run[0] in _NOT_A_NAME or not _holds_head(name):
        return False
    if newline:  # "University of Southern" / "California": only a name that cannot end where the line does
        return conn is None and name.split()[-1] in _OPEN_END
    if conn is None:  # a name the naming pattern cut: "Max Planck Institute of Molecular Cell" "Biology"
        return bool(_OF_TAIL.search(name))
    if conn in {"and", "&"} or conn.startswith("in"):  # "Center for Grain and Animal Health Research"
        return bool(_OF_TAIL.search(name)) and _plain_words(run + [name.split()[-1]])
    return True  # "of Complex Systems", "for the History"


def _name_extent(text: str, f: Found) -> Found:
    """An organization's name to its end: continued through "of", "for (the)", "in the" and, between plain words,
    "and"/"&" while what follows is the rest of one name and holds no head of another ("Max Planck Institute of
    Molecular Cell Biology and Genetics", "Hubei Key Laboratory of Broadband Wireless Communication and Sensor
    Networks"), over a line break after a word no name ends on ("University of Southern" / "California"), with
    plain words joined before it by "&" ("National & Kapodistrian University of Athens"), a company's legal form
    ("Co., Ltd.") and an institute's academy ("Institute of Automation, Chinese Academy of Sciences"); cut before
    "in" and a place after its head ("USC Information Sciences Institute in Marina"), but a university's campus
    ("Carnegie Mellon University in Qatar")."""
    start, end = f.start, f.end
    cut = _PLACE_IN.search(text, start, end)
    if cut and (_holds_head(text[start:cut.start()]) or re.search(r"[A-Z]{2,}[\w-]*$", text[start:cut.start()])) \
            and not _UNIVERSITY.search(text, start, cut.start()):  # "Carnegie Mellon University in Qatar": a campus
        end = cut.start()
    else:
        while (m := _NAME_STEP.match(text, end)) and len(text[start:m.end()].split()) <= 14:
            conn = " ".join(m.group("conn").split()) if m.group("conn") else None
            if not _step_ok(text[start:end], conn, m.group("run").split(), "\n" in m.group("gap")):
                break
            end = m.end()
    if text[start:end].rstrip(".").endswith(" Co") and (legal := _LEGAL_AFTER.match(text, end)):
        end = legal.end()
    if (amp := _AMP_BEFORE.search(text, max(0, start - 40), start)) and _plain_words(amp.group(1).split()) \
            and amp.group(1).split()[0] not in _NOT_A_NAME and _holds_head(text[start:end]):
        start = amp.start(1)
    if text.startswith("Institute", start) and (academy := _ACADEMY_AFTER.match(text, end)):
        end = academy.end()  # "Institute of Software, Chinese Academy of Sciences": an academy's institute by both names
    if (start, end) == (f.start, f.end):
        return f
    return Found(start, end, f.cls, " ".join(text[start:end].split()), (), f.rule, f.generic)


def _known_org(piece: str, rules) -> bool:
    """Whether a piece names an organization by a word of its name, by an institution's naming pattern ("Ecole des
    Ponts") or as a known one, or a unit of a known one ("Microsoft DevDiv")."""
    return bool(_ORG_WORD.search(piece) or _INSTITUTION.search(piece)) or piece in rules.organizations \
        or piece.split()[0] in rules.organizations


def _split_pieces(body: str, ends: re.Pattern, rules=None) -> list[str]:
    """The pieces of an affiliation list: at ``ends`` if it has them, each piece then at its commas with a place
    that closes it dropped ("Babelscape, Italy", "Siemens, Munich": one word, no org_word; not in a numbered list)
    and a university's place joined back ("University of Maryland, Baltimore County"); else at its commas."""
    out: list[str] = []
    numbered = re.search(r"\(\d{1,2}\)", body)  # "(1) A, B; (2) C": a numbered piece may list two organizations
    for piece in ends.split(body) if ends.search(body) else [body]:
        parts = _without_place(_joined_places([p.strip() for p in piece.split(",") if p.strip()], rules))
        if len(parts) > 1 and _SUB_UNIT.match(_PIECE_START.sub("", parts[0])):  # "School of Computing, KAIST"
            out.extend(parts[1:])
            continue
        if len(parts) > 1 and ends.search(body) and not numbered and len(parts[-1].split()) == 1 \
                and not _ORG_WORD.search(parts[-1]):
            parts = parts[:-1]
        out.extend(parts)
    return out


def _without_place(parts: list[str]) -> list[str]:
    """The pieces of a list without the place that closes it: a country, and after an organization the city of at
    most two words before it ("Amazon Alexa AI, Cambridge, UK"; "Babelmark, Italy" is an organization and its country)."""
    if parts and _COUNTRY.fullmatch(parts[-1]):
        if len(parts) >= 3 and len(parts[-2].split()) <= 2 and not _ORG_WORD.search(parts[-2]):
            return parts[:-2]
        return parts[:-1]
    return parts


_COUNTRY_END = re.compile(r"(?:^|,\s*)(?:" + _CUES["countries"] + r")\.?$")


def _without_country(name: str) -> str:
    """A name without the country that closes it ("University of Surrey, UK": the university), nothing of a country
    alone ("Singapore" in "Nanyang Technological University, Singapore; ...")."""
    return name[:m.start()].strip() if (m := _COUNTRY_END.search(name)) else name


def _all_places(body: str) -> bool:
    """Whether a bracket's words are only places, each a city and its country ("Paris, France; Tel-Aviv, Israel"):
    the places of the organization before it."""
    pieces = [[x.strip() for x in p.split(",")] for p in re.split(r"[;/·]", body)]
    return all(len(p) == 2 and _COUNTRY.fullmatch(p[1]) and not _ORG_WORD.search(p[0]) for p in pieces)


_PIECE_OPEN = re.compile(r"(?:[,;(|]|\band)[ \t]*$")
_PIECE_TAIL = re.compile(r"(?:[ \t]+(?:[A-Z][\w'’-]*(?:\.[\w-]+)*|of|de|du|the|for)){1,3}?(?=[ \t]*(?:[,;)|\n]|\.(?:\s|$)|$|[ \t]+and[ \t]))")


def _whole_pieces(text: str, found: list[Found]) -> list[Found]:
    """Each organization that opens a piece of a list ("; X", "(X", "| X", not a line's start: a headline) and is followed by up to three
    more capitalised words up to the piece's end is the whole piece: "(Leiden University Medical Center)", "; Naver
    Labs Europe.", "| Microsoft Research Asia". A known organization is so wherever the piece's last word names an
    organization ("from Huawei Noah's Ark Lab, was evaluated")."""
    out = []
    for f in found:
        m = _PIECE_TAIL.match(text, f.end)
        # a company's name and a product's ("Intel Gaudi", "Google Drive") are no organization: a lexicon's name
        # grows only into one that holds a word naming an organization ("Microsoft Research Asia")
        if m and "\n" not in m.group(0) and m.group(0).split()[-1] not in _NOT_A_NAME and (
                _PIECE_OPEN.search(text, max(0, f.start - 6), f.start)
                and (f.rule != "org.lexicon" or _ORG_WORD.search(text, f.start, m.end()))
                or f.rule == "org.lexicon" and _ORG_WORD.fullmatch(m.group(0).split()[-1])):
            # the whole piece names another organization than the one it opens with ("Qualcomm AI Research" is
            # not Qualcomm): the shorter name is no alias of it, or every "Qualcomm" would join the lab
            f = Found(f.start, m.end(), f.cls, text[f.start:m.end()], (), f.rule, f.generic)
        out.append(f)
    return out


def _lead_lists(text: str, rules) -> set[str]:
    """The organizations of lines that open with a list of names most of which hold a word naming an organization
    or are known ones ("Stanford University, Caltech, University at Buffalo. Rather than ..."): every piece of such
    a list. Pieces set apart by a middle dot or superscript numbers ("Google · UCLA", "¹ Google ² UCLA")
    are a byline: half of them suffice."""
    out = set()
    for line in text.split("\n"):
        body = line[_LINE_MARKER.match(line).end():]
        if not _LEAD_BREAK.search(body, 0, 200):
            continue
        stop = body.find(". ")
        head = body[:stop] if stop >= 0 else body.rstrip(". ")
        byline = head.split("·", 1)
        if len(byline) == 2 and _people(byline[0], rules):
            head = byline[1]  # "Ann Lee, Bo Chan · Org": people, then their organizations
        pieces = [p.strip() for p in _LEAD_SPLIT.split(head) if p.strip()]
        if not 2 <= len(pieces) <= 12 or re.search(r"\d{4}|[()\[\]:]", head):
            continue
        if not all(p[:1].isupper() and len(p.split()) <= 6 and all(w[:1].isupper() or w in rules.function_words for w in p.split())
                   for p in pieces):
            continue
        known = sum(bool(_ORG_WORD.search(p)) or p in rules.organizations for p in pieces)
        if 2 * known > len(pieces) or (known and 2 * known == len(pieces) and re.search(r"[·¹²³⁴⁵⁶⁷⁸⁹⁰]", head)):
            out.update(p.split(None, 1)[1] if p.split()[0] in _NOT_A_NAME and " " in p else p for p in pieces)
    return out


def _people(names: str, rules) -> bool:
    """Whether the names before a byline's middle dot are people's ("Ann Lee, Bo Chan", "Lee, Chan", "Ann Lee et
    al."): each a person's name or a surname (one capitalised word) that is no acronym and names no organization."""
    pieces = [p.strip() for p in _LEAD_SPLIT.split(re.sub(r",?[ \t]+et[ \t]+al\.?", "", names)) if p.strip()]
    return bool(pieces) and all((_PERSON.fullmatch(p) or " " not in p and p[:1].isupper()) and not p.isupper()
                                and not _acronym_led(p) and not _known_org(p, rules) for p in pieces)


def _is_place(prev: str, piece: str, rules) -> bool:
    """Whether ``piece``, after a comma, is the place of the university ``prev`` ("University of California",
    "Irvine"): at most two words, no organization's ("University of Oxford, Meta"), no country (the place of the
    affiliation, not of a campus: "University of Surrey, UK")."""
    return bool(_PLACE_HEAD.match(prev)) and len(piece.split()) <= 2 and not _ORG_WORD.search(piece) \
        and (rules is None or piece not in rules.organizations) and not _acronym_led(piece) and not _COUNTRY.fullmatch(piece)


def _acronym_led(piece: str) -> bool:
    """Whether a piece opens with an acronym that is no country ("CERN openlab", "NERSC"): an organization's name,
    never a city."""
    first = piece.split()[0] if piece.split() else ""
    return len(first) >= 2 and first.isupper() and first.isalpha() and not _COUNTRY.fullmatch(first)


def _joined_places(pieces: list[str], rules) -> list[str]:
    """The pieces of a comma-separated list, a university's place joined back ("University of California, Irvine")."""
    out: list[str] = []
    for p in pieces:
        if out and _is_place(out[-1], p, rules):
            out[-1] = f"{out[-1]}, {p}"
        else:
            out.append(p)
    return out


def _good_name(name: str, rules) -> bool:
    """A name a list may hold: capitalised, at most eight words, no year, bracket, possessive or conference."""
    words = name.split()
    return bool(words) and name[:1].isupper() and len(words) <= 8 and words[0] not in _NOT_A_NAME \
        and not re.search(r"\d{4}|[()+:]|['’]s\b|\bet al\b", name) and not any(w in rules.conf_acronyms for w in words) \
        and (all(w[:1].isupper() or w[:1].isdigit() or w in rules.function_words or len(w) <= 3 or w == "&" for w in words)
             or (len(words) == 2 and _acronym_led(name)))  # "CERN openlab"


_PROSE_AFTER = re.compile(r"[ \t]+(?!(?:and|or|at|of|for|in)(?![\w-]))[a-z]")
"""What follows a name that a line break runs into when the name's last line is prose: a lower-case word."""


def _listed_after(text: str, pos: int, rules) -> list[str]:
    """The names of the list at ``pos`` after a role cue ("researchers at A, the B and C"): pieces while each is a
    capitalised name (a full stop that ends the sentence ends the list)."""
    pieces: list[str] = []
    comma = joined = at_sep = False
    while True:
        m = _ORG_PIECE.match(text, pos)
        if not m:
            break
        name, end = m.group(1), m.end(1)
        tail = _ACRONYM_TAIL.match(text, end) if _acronym_led(name) and " " not in name else None
        if tail:
            name, end = name + tail.group(0), tail.end()
        if "\n" in name and _PROSE_AFTER.match(text, end):  # "from Carnegie Mellon University\nA single model ...":
            name = name[:name.rindex("\n")].rstrip()  # the next line's first word opens a sentence
        stop = re.search(r"\.(?:\s|$)", name + " ")  # a full stop ends the sentence, and the list
        if stop:
            name = name[:stop.start()]
        if at_sep and pieces and _is_place(pieces[-1], name, rules):  # "University of X at Chapel Hill"
            pieces[-1] = f"{pieces[-1]} at {name}"
        elif comma and pieces and _is_place(pieces[-1], name, rules):
            pieces[-1] = f"{pieces[-1]}, {name}"
        elif joined and _AND_HEAD.search(name):
            pieces[-1] = f"{pieces[-1]} and {name}"
        else:
            pieces.append(name)
        sep = _LIST_SEP.match(text, end)
        if not sep or stop:
            break
        word = sep.group(0).strip()
        comma, at_sep, pos = word == ",", word == "at", sep.end()
        joined = word == "and" and _one_plain_word(pieces[-1], rules)
    return [p for p in pieces if _good_name(p, rules)]


def _one_plain_word(name: str, rules) -> bool:
    """One capitalised word that names no organization ("Speech" in "Speech and Multimodal Interfaces Laboratory")."""
    return " " not in name and not name.isupper() and not _ORG_WORD.search(name) and name not in rules.organizations


_AND_SPLIT = re.compile(r"\s+and\s+(?!(?:" + _CUES["fields"] + r")(?![\w-]))|(?<=[A-Z]{2})\s+&\s+")
"""Where a bracket's or a byline's piece holds two names: "and" before no discipline ("Institute of Science and
Technology Austria" is one name), "&" after an acronym."""


def _and_pieces(body: str, rules) -> list[str]:
    """The names of a bracket's or a byline's list: its pieces (:func:`_split_pieces`), each split again at "and",
    and at "&" after an acronym ("CMU & OctoAI"; "Johnson & Johnson" is one name); not a unit's name that joins
    plain words to its head noun ("Artificial Intelligence and Machine Learning Group")."""
    out = []
    for p in _split_pieces(body, _PIECE_SPLIT, rules):
        parts = _AND_SPLIT.split(p)
        if len(parts) == 2 and _AND_HEAD.search(parts[1].strip(" .")) and not _known_org(parts[0], rules) \
                and not _acronym_led(parts[0]):
            parts = [p]
        out.extend(q.strip(" .") for q in parts)
    return out


def _people_affiliations(text: str, rules) -> set[str]:
    """The organizations after a line of people: "Ann Lee, Bo Chan (Org A; Org B)", "Ann Lee et al. (Org)",
    "Ann Lee, Bo Chan · Org A"."""
    out = set()
    for m in _PEOPLE_AFFILIATION.finditer(text):
        people = m.group(1)
        if people_count(people) < 2 and "et al" not in people:
            continue
        body = re.sub(r"\s*\([^()]*\)", "", m.group(2) or m.group(3))
        out.update(p for p in _and_pieces(body, rules) if _good_name(p, rules))
    return out


def _people_of(text: str, rules) -> set[str]:
    """The organizations after a list of two or more people and "of" or "at" in prose: "Ann Lee and Bo Chan of
    Org introduced X", "written by Ann Lee, Bo Chan and Cy Dee at Org and published" (each "of"/"at" before a
    capital, the people read back from it): the first name after it ("Ann Lee of X and Bo Chan of Y"), on its line. No
    "person" holds a word naming an organization or an acronym ("Artificial Intelligence; Paul G. Allen School of X",
    "the Tensor Cores and RT Cores of X" list no people)."""
    out = set()
    for m in _OF_AT.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        people = _PEOPLE_OF.search(text, max(line_start, m.start() - 160), m.end())
        names = people.group(1) if people else ""
        if people_count(names) >= 2 and not _ORG_WORD.search(names) and not re.search(r"\b[A-Z]{2,}\b", names):
            out.update(n for n in _listed_after(text, people.end(), rules)[:1] if "\n" not in n)
    return out


def _person_like(piece: str, rules) -> bool:
    """Two capitalised words, neither naming an organization, no known one: a person's name ("Ann Lee")."""
    words = piece.split()
    return len(words) == 2 and all(w[:1].isupper() for w in words) and not _acronym_led(piece) \
        and not _ORG_WORD.search(piece) and piece not in rules.organizations


def _bracketed(text: str, rules) -> set[str]:
    """Organizations in brackets: after one person of a list of speakers or authors ("Invited talk: Ann Lee (Org)",
    not an acronym of the name before: "Long Range Arena (LRA)"), and a bracketed list half of whose pieces hold
    an org_word or are known and none of which is a person's name, its venues dropped ("Mask2Former (Org Research
    and UIUC, CVPR 2022)"); nothing from a citation ("(Ann Lee and Bo Chan, Journal, 2020)")."""
    out = set()
    for m in _PAREN_LIST.finditer(text):  # a bracket's words, then the person or the list before it
        body = m.group(1)
        if _all_places(body):
            continue
        person = _PERSON_BEFORE.search(text, max(0, m.start() - 80), m.start()) if len(body) <= 80 else None
        if person and not _known_org(person.group(1), rules):  # ("Vector Institute (Tanaka)": the person is in it)
            out |= _person_affiliation(person, body, text[max(0, m.start() - 119):m.start()], rules)
        pieces = [p for p in _and_pieces(body, rules) if not re.search(r"\d{4}", p)]
        known = [bool(_ORG_WORD.search(p)) or p in rules.organizations for p in pieces]
        if len(pieces) >= 2 and 2 * sum(known) >= len(pieces) and all(
                _good_name(p, rules) and not _person_like(p, rules) and (k or not re.search(r"\d", p))
                for p, k in zip(pieces, known)):
            out.update(pieces)
    return out


def _person_affiliation(person: re.Match, body: str, before: str, rules) -> set[str]:
    """The organizations in the brackets ``body`` after one person (``person``, its match before them): none if
    the body has a number, is an acronym of the words ``before`` ("Long Range Arena (LRA)"), or, with no cue before
    the person, holds no org_word."""
    opens_line = not person.group(0)[:1].strip() or person.group(0)[:1].isupper()  # no cue before: the body must say it
    if re.search(r"\d", body) or (opens_line and not _ORG_WORD.search(body)) \
            or (re.fullmatch(r"[A-Z][\w-]{0,9}", body) and acronym_long_form(body, before.replace(",", " ").split())):
        return set()
    pieces = _and_pieces(body, rules)
    if len(pieces) > 1 and any(_person_like(p, rules) for p in pieces):
        return set()
    return {p for p in pieces if _good_name(p, rules)}


def _members(text: str, rules) -> set[str]:
    """An organization named by its people ("Lumora researchers"): a name never written in lower case in the text."""
    out = set()
    lower = None
    for m in _MEMBER_NOUN.finditer(text):
        name = _MEMBER_NAME.search(text, max(0, m.start() - 80), m.start())
        if not name:
            continue
        if lower is None:
            lower = frozenset(re.findall(r"(?<![\w-])[a-z][\w-]*", text))
        words = name.group(1).split()
        while words and (words[0] in _NOT_A_NAME or words[0] in _MEMBER_NOT_A_NAME):
            words = words[1:]
        if words and not any(w.lower() in lower or w in _MEMBER_NOT_A_NAME or w in rules.generic for w in words):
            out.add(" ".join(words))
    return out


def _units(text: str) -> set[str]:
    """Research units by their head noun: "the Qwen Team", "Stanford's Hazy Research lab", "the X Research team"."""
    out = set()
    for pat in _UNITS:
        for m in pat.finditer(text):
            name = m.group(1).strip()
            if pat is not _UNITS[0] and not _ORG_WORD.search(name):
                continue
            if name.split()[0] not in _NOT_A_NAME:
                out.add(name)
    return out


def _headline(text: str, rules) -> set[str]:
    """The organization of a headline "Org at CONF 2024" in the document's first lines: its words recur in the text
    and none of them is written in lower case there ("Highlights at ICML" names no organization)."""
    lines = [line for line in text.split("\n", 12) if line.strip()][:_HEADLINE_LINES]
    out = set()
    for line in lines:
        m = _HEADLINE_AT.match(line)
        if not m or not re.match(r"[A-Z]{2,}|[A-Z][a-z]+[A-Z]", m.group(2)):
            continue
        name = m.group(1)
        first = name.split()[0]
        if not (_ORG_WORD.search(name) or name in rules.organizations) or first in _NOT_A_NAME or re.search(r"(?<![\w-])" + re.escape(first.lower()) + r"(?![\w-])", text) \
                or len(re.findall(r"(?<![\w-])" + re.escape(first) + r"(?![\w-])", text)) < 2:
            continue
        out.add(name)
    return out


_MATE_SEGMENT = re.compile(r"[^\n().:;\[\]|—–·]+")
_MATE_HEAD = re.compile(r"(?:[A-Z][\w.'’@&-]*(?:[ \t]+(?:of|for|de|&|[A-Z][\w.'’@&-]*))*)$")
_MATE_SPLIT = re.compile(r"(,[ \t]*(?:and[ \t]+)?|[ \t]+and[ \t]+)(?!(?:" + _CUES["fields"] + r")(?![\w-]))")


def _list_mates(text: str, rules, named: set[str]) -> set[str]:
    """The other names of a list in a sentence whose named organizations are at least as many as its other names:
    "film crews from NTV, the Rossiya channel and Nankai University", "MIT CSAIL, Nestle, DTU Compute and the Qatar
    Computing Research Institute". A name with a digit, a known method or dataset, or a person's name is no mate."""
    out: set[str] = set()
    for seg in _MATE_SEGMENT.finditer(text):
        split = _MATE_SPLIT.split(seg.group(0))
        parts, seps = split[::2], [x.strip() for x in split[1::2]]
        if len(parts) < 2:
            continue
        head = _MATE_HEAD.search(parts[0].rstrip())
        tail = _ORG_PIECE.match(parts[-1].lstrip())
        if not tail or head and re.search(r"[A-Z][\w-]*[ \t]+(?:on|of|for|in|to|with)[ \t]+$", parts[0][:head.start()]):
            continue  # "Workshop on Mathematical and Empirical Understanding of ...": a name's own words
        first = head.group(0).split() if head else []
        while first and first[0] in _NOT_A_NAME:  # "From Nankai University and Bytedance"
            first = first[1:]
        pieces = [" ".join(p.split()) for p in ([" ".join(first)] if first else []) + [
            re.sub(r"^[Tt]he\s+", "", p.strip()) for p in parts[1:-1]] + [tail.group(1)]]
        if len(pieces) < 2 or not all(_good_name(p, rules) for p in pieces):
            continue
        known = [p for p in pieces if p in named or p in rules.organizations or p.split()[0] in rules.organizations
                 or _ORG_WORD.search(p)]  # "MIT CSAIL": a known organization's unit
        rest = [p for p in pieces if p not in known]
        if not known or len(known) < len(rest):
            continue
        # places: "University of X, Irvine", "Org, Vienna, Austria", "Org, Vienna" (a list's end after a comma alone)
        places = {b for a, b in zip(pieces, pieces[1:]) if _is_place(a, b, rules)}
        places |= {a for a, b in zip(pieces, pieces[1:]) if _COUNTRY.fullmatch(b)}
        if seps[-1] == ",":
            places.add(pieces[-1])
        out.update(p for p in rest if not re.search(r"\d", p) and p not in rules.known_methods and p not in places
                   and p not in rules.known_datasets and not _PERSON.fullmatch(p) and p.split()[0] not in _NOT_A_NAME
                   and not _COUNTRY.fullmatch(p))
    return out


def organization_mentions(text: str, rules, lexicon: dict | None = None) -> list[Found]:
    out: list[Found] = []
    for m in _AFFINITY.finditer(text):
        aliases = (m.group(2),) if m.group(2) else ()
        out.append(Found(m.start(), m.end(), "Organization", m.group(1), aliases, "org.affinity_group"))
    # universities and institutes by their naming patterns (names do not run across a line break: "University of
    # X\nNews" is the university); "the University at ICML" names no university
    for m in _INSTITUTION.finditer(text):
        words = m.group(1).split()
        if words[0] in _NOT_A_NAME or words[-1] in rules.conf_acronyms:
            continue
        out.append(Found(m.start(1), m.end(1), "Organization", " ".join(m.group(1).split()), (), "org.institution"))
    # organizations named by their role: affiliations in "Authors: A, B (Org); C (Org)" lines, and the
    # names after "colleagues at", "researchers from", "written with the payments processor"; each is then
    # found wherever it occurs
    named: set[str] = set()
    for line in _ROLE_LINE.finditer(text):
        for g in re.finditer(r"\(([A-Z][^()\n]{1,60})\)", line.group(1)):
            if _all_places(g.group(1)):
                continue
            named.update(x for x in _and_pieces(g.group(1), rules) if x[:1].isupper() and not _person_like(x, rules))
    named |= _affiliations(text, rules) | _lead_lists(text, rules) | _semicolon_lines(text, rules)
    for m in _ROLE_CUE.finditer(text):
        named.update(_listed_after(text, m.end(), rules))
    for m in _FROM_CUE.finditer(text):  # "EdgeSAM, from MMLab@NTU, is": the first name, if it says it is an organization
        first = _listed_after(text, m.end(), rules)[:1]  # (not "from Ann Lee, Bo Chan of X", "from Google, Brain Team")
        named.update(n for n in first if re.compile(r"(?:the\s+)?" + re.escape(n)).match(text, m.end())
                     and (_ORG_WORD.search(n) or _FROM_NAME.fullmatch(n)))
    named |= _people_affiliations(text, rules) | _people_of(text, rules) | _bracketed(text, rules) | _members(text, rules) | _units(text) | _headline(text, rules)
    named = {n for n in map(_without_country, named) if n}
    mates = _list_mates(text, rules, named | {f.canonical for f in out}) - named
    # a name is found wherever it occurs, across a line break too ("the University of\nToronto"); a list's mate
    # is of the last priority (``org.list_mate``: the name rules' methods and datasets go first)
    for name in sorted({" ".join(n.split()) for n in named | mates}, key=lambda n: (-len(n), n)):  # (a set: ties by name)
        words = r"\s+".join(re.escape(w) for w in name.split())
        for m in re.finditer(r"(?<![\w-])" + words + r"(?![\w-])", text):
            out.append(Found(m.start(), m.end(), "Organization", name, (), "org.list_mate" if name in mates else "org.institution"))
    for m in _LEGAL_NAME.finditer(text):  # "Organum Ltd", "Mercedes-Benz AG" (not "The" or "In" before it)
        a = m.start(1) + _LEADING_NOT_A_NAME.match(m.group(1)).end()
        if " " in text[a:m.end(1)].strip():
            out.append(Found(a, m.end(1), "Organization", " ".join(text[a:m.end(1)].split()), (), "org.institution"))
    if lexicon is not None:
        for a, b in longest_first(lexicon.get("Organization", [])):
            out.append(Found(a, b, "Organization", text[a:b], (), "org.lexicon"))
    elif rules.organizations:
        pat = regex(r"(?<![\w-])(" + "|".join(re.escape(o) for o in sorted(rules.organizations, key=len, reverse=True)) + r")(?![\w-])")
        for m in pat.finditer(text):
            out.append(Found(m.start(), m.end(), "Organization", m.group(1), (), "org.lexicon"))
    return [_with_campus(text, f) for f in map(lambda f: _name_extent(text, f), _whole_pieces(text, out))
            if not _no_organization(text[f.start:f.end])]
