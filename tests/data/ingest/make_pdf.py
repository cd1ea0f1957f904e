"""Writes the PDF twins of abstracts.txt with fpdf2 (not a dependency of mlkg: `pip install fpdf2`).

Run from this folder: python make_pdf.py. abstracts.pdf: the paragraphs wrapped by fpdf2 at the page width, the
titles set in bold, the venue lines in italics, space between blocks, over two pages; its metadata gives a
title, an author and a date. abstracts_columns.pdf: the same text in two justified columns of one font, the
paragraphs set apart only by the space after them. across_pages.pdf: the first abstract running on from the
foot of one page to the next.
"""

from __future__ import annotations

import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    from fpdf import FPDF

    lines = (HERE / "abstracts.txt").read_text("utf-8").splitlines()
    pdf = FPDF()
    pdf.set_title(lines[0])
    pdf.set_author("Efficient Learning Workshop")
    pdf.set_subject("Abstracts of the accepted papers")
    pdf.set_creation_date(datetime.datetime(2025, 6, 2, 9, 30, tzinfo=datetime.timezone.utc))
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.multi_cell(0, 8, lines[0])
    pdf.ln(4)
    for i in range(1, len(lines), 3):
        if i == 7:
            pdf.add_page()  # two pages: the text of each is read
        title, abstract, venue = lines[i:i + 3]
        pdf.set_font("Helvetica", "B", 12)
        pdf.multi_cell(0, 6, title)
        pdf.ln(2)
        pdf.set_font("Helvetica", "", 11)
        pdf.multi_cell(0, 5.5, abstract)
        pdf.ln(2)
        pdf.set_font("Helvetica", "I", 11)
        pdf.multi_cell(0, 5.5, venue)
        pdf.ln(6)
    pdf.output(str(HERE / "abstracts.pdf"))

    pdf = FPDF()
    pdf.set_creation_date(datetime.datetime(2025, 6, 2, 9, 30, tzinfo=datetime.timezone.utc))
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    columns = pdf.text_columns(ncols=2, gutter=8)
    with columns:
        for line in lines:
            with columns.paragraph(text_align="J" if len(line) > 100 else "L", bottom_margin=3) as paragraph:
                paragraph.write(text=line)
    pdf.output(str(HERE / "abstracts_columns.pdf"))

    pdf = FPDF()
    pdf.set_creation_date(datetime.datetime(2025, 6, 2, 9, 30, tzinfo=datetime.timezone.utc))
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for i in range(47):
        pdf.multi_cell(0, 5.5, f"Filler line {i}.", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    pdf.multi_cell(0, 5.5, lines[2])
    pdf.output(str(HERE / "across_pages.pdf"))


if __name__ == "__main__":
    main()
