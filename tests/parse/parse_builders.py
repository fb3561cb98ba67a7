"""Builders of test documents for the parsers, using the authors' own tools.

Each builder writes a file the way a real author's tool would (ReportLab for
PDFs, python-docx for Word, ebooklib for EPUB), so the parsers are tested
against genuine containers, never mocks.
"""
from __future__ import annotations

import datetime as dt
import io
import zipfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = REPO_ROOT.parent / "shared" / "samples"

LOREM = (
    "Tide pools hold water when the sea goes out, and the animals living there must cope with "
    "heat, salt and hungry birds until the water returns. Observers counted every snail, crab and "
    "anemone in each pool at low tide. The counts were repeated weekly through the summer so that "
    "changes could be tied to the weather."
)


# --------------------------------------------------------------------------- PDF


def _paragraph(c, text: str, y: float, *, size: float = 10, width: float = 430, x: float = 72) -> float:
    """Draw `text` word-wrapped to `width` points; return the y below it."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    c.setFont("Helvetica", size)
    line: list[str] = []
    for word in text.split():
        if line and stringWidth(" ".join(line + [word]), "Helvetica", size) > width:
            c.drawString(x, y, " ".join(line))
            y -= size * 1.3
            line = []
        line.append(word)
    if line:
        c.drawString(x, y, " ".join(line))
        y -= size * 1.3
    return y - size * 1.2  # paragraph spacing


def _heading(c, text: str, y: float, size: float) -> float:
    c.setFont("Helvetica-Bold", size)
    c.drawString(72, y, text)
    return y - size * 1.8


def _running_header(c, text: str) -> None:
    c.setFont("Helvetica", 8)
    c.drawString(72, 810, text)


def build_pdf_with_outline(path: Path) -> Path:
    """Three pages with bookmarks; page 2's running header repeats its chapter title."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), invariant=1)  # invariant: CreationDate is 2000-01-01
    c.setTitle("Field Notes Report")
    c.setAuthor("Ann Analyst")

    def bookmark(key: str, title: str, level: int, top: float) -> None:
        c.bookmarkPage(key, fit="XYZ", left=0, top=top)
        c.addOutlineEntry(title, key, level=level)

    _running_header(c, "Field Notes Report")
    bookmark("intro", "1 Introduction", 0, 780)
    y = _heading(c, "1 Introduction", 760, 16)
    y = _paragraph(c, "Intro first paragraph. " + LOREM, y)
    y = _paragraph(c, "Intro second paragraph. " + LOREM, y)
    bookmark("scope", "Scope", 1, y + 16)  # the page says "1.1 Scope"
    y = _heading(c, "1.1 Scope", y, 13)
    _paragraph(c, "Scope paragraph. " + LOREM, y)
    c.showPage()

    _running_header(c, "2 Methods")
    bookmark("methods", "2 Methods", 0, 780)
    y = _heading(c, "2 Methods", 760, 16)
    y = _paragraph(c, "Methods paragraph. " + LOREM, y)
    bookmark("data", "2.1 Data Collection", 1, y + 16)
    y = _heading(c, "2.1 Data Collection", y, 13)
    _paragraph(c, "Data paragraph. " + LOREM, y)
    c.showPage()

    _running_header(c, "Field Notes Report")
    bookmark("results", "3 Results", 0, 780)
    y = _heading(c, "3 Results", 760, 16)
    _paragraph(c, "Results paragraph. " + LOREM, y)
    bookmark("sketches", "3.1 Field Sketches", 1, 400)  # a title printed nowhere on the page
    _paragraph(c, "Sketch text follows here.", 380)
    c.showPage()
    c.save()
    return path


def build_pdf_without_outline(path: Path) -> Path:
    """Two pages whose headings differ from body text only by font size."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    y = _heading(c, "Survey of Tide Pools", 780, 22)
    y = _heading(c, "Background", y, 16)
    y = _paragraph(c, "Background paragraph. " + LOREM, y)
    y = _heading(c, "Species Counts", y, 13)
    _paragraph(c, "Counts paragraph. " + LOREM, y)
    c.showPage()
    y = _heading(c, "Discussion", 780, 16)
    y = _paragraph(c, "Discussion paragraph. " + LOREM, y)
    y = _heading(c, "Limitations", y, 13)
    _paragraph(c, "Limitations paragraph. " + LOREM, y)
    c.showPage()
    c.save()
    return path


def build_encrypted_pdf(path: Path) -> Path:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), encrypt="secret")
    c.drawString(72, 700, "Only readable with the password.")
    c.save()
    return path


def build_scanned_pdf(path: Path) -> Path:
    """A page holding only a picture, as a scanner produces."""
    from PIL import Image
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    picture = Image.new("L", (200, 100), color=128)
    c = canvas.Canvas(str(path))
    c.drawImage(ImageReader(picture), 72, 500, width=400, height=200)
    c.showPage()
    c.save()
    return path


# --------------------------------------------------------------------------- DOCX


def build_docx(path: Path) -> Path:
    import docx

    doc = docx.Document()
    doc.core_properties.title = "Quarterly Report"
    doc.core_properties.author = "Jane Doe"
    doc.core_properties.created = dt.datetime(2023, 5, 17, 10, 0, 0)
    doc.add_heading("Quarterly Report", 0)
    doc.add_heading("Overview", 1)
    doc.add_paragraph("Revenue grew in the north and fell in the south.")
    doc.add_heading("Regional Results", 2)
    doc.add_paragraph("Northern stores opened early", style="List Bullet")
    doc.add_paragraph("Southern stores closed for repairs", style="List Bullet")
    table = doc.add_table(rows=3, cols=3)
    for r, row in enumerate([["Region", "Revenue", "Growth"], ["North", "120", "5%"], ["South", "80", "-2%"]]):
        for col, value in enumerate(row):
            table.cell(r, col).text = value
    doc.add_heading("Outlook", 1)
    doc.add_paragraph("We expect steady growth next quarter.")
    doc.save(str(path))
    return path


# --------------------------------------------------------------------------- EPUB


def build_epub(path: Path) -> Path:
    """Two chapters whose spine order differs from their file names' order, plus a nav."""
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("urn:isbn:9780000000002")
    book.set_title("Rock Pools and Their Keepers")
    book.set_language("en")
    book.add_author("Rhea Shore")
    book.add_metadata("DC", "date", "2019-06-01")
    one = epub.EpubHtml(title="Chapter One", file_name="z_one.xhtml", lang="en")
    one.content = (
        "<html><body><h1>Chapter One</h1><p>The first chapter opens here.</p>"
        "<h2>Counting Crabs</h2><p>Crabs hide under rocks.</p>"
        "<table><thead><tr><th>Species</th><th>Count</th></tr></thead>"
        "<tbody><tr><td>Shore crab</td><td>14</td></tr><tr><td>Hermit crab</td><td>9</td></tr></tbody></table>"
        "<ul><li>limpets</li><li>periwinkles</li></ul></body></html>"
    )
    two = epub.EpubHtml(title="Chapter Two", file_name="a_two.xhtml", lang="en")
    two.content = "<html><body><h1>Chapter Two</h1><p>The second chapter closes the book.</p></body></html>"
    for chapter in (one, two):
        book.add_item(chapter)
    book.toc = [epub.Link("z_one.xhtml", "Chapter One", "one"), epub.Link("a_two.xhtml", "Chapter Two", "two")]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", one, two]
    epub.write_epub(str(path), book)
    return path


def build_epub_without_content(path: Path) -> Path:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("empty-book")
    book.set_title("Nothing Inside")
    book.set_language("en")
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav"]
    epub.write_epub(str(path), book)
    return path


def build_zip(path: Path, members: dict[str, bytes]) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    path.write_bytes(buffer.getvalue())
    return path
