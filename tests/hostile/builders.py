"""Hostile input files, built at test time (nothing large is committed).

Each builder writes what an attacker (or a broken tool) would hand a researcher:
zip bombs in DOCX and EPUB, PDFs whose page tree repeats one page, HTML nested
thousands deep, one paragraph of megabytes, XML entity tricks. Containers are
written with the standard library's own zip writer and a hand-laid PDF, so the
bytes are exactly the attack, nothing more.
"""
from __future__ import annotations

import random
import struct
import zipfile
from pathlib import Path

MIB = 1 << 20

# --------------------------------------------------------------------------- zip containers

CONTAINER_XML = (
    '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
    '<rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles>'
    "</container>"
)


def _opf(chapters: list[str]) -> str:
    items = "".join(f'<item id="c{i}" href="{c}" media-type="application/xhtml+xml"/>' for i, c in enumerate(chapters))
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
    return (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">hostile</dc:identifier>'
        f"<dc:title>Hostile Book</dc:title><dc:language>en</dc:language></metadata><manifest>{items}</manifest>"
        f"<spine>{spine}</spine></package>"
    )


CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
    'wordprocessingml.document.main+xml"/></Types>'
)
RELS = (
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
    'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)
W_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/'
    'wordprocessingml/2006/main"><w:body>'
)
W_TAIL = "</w:body></w:document>"


def _docx_paragraph(text: str) -> str:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


def _stream(archive: zipfile.ZipFile, name: str, head: bytes, unit: bytes, size: int, tail: bytes,
            zip64: bool = True) -> None:
    """Write member `name`: head, then `unit` repeated up to `size` bytes, then tail (never all in memory)."""
    block = unit * max(1, MIB // len(unit))
    with archive.open(name, "w", force_zip64=zip64) as out:
        out.write(head)
        written = 0
        while written < size:
            out.write(block)
            written += len(block)
        out.write(tail)


def epub(path: Path, chapters: dict[str, str]) -> Path:
    """A minimal valid EPUB 3 holding `chapters` (file name -> XHTML) in spine order."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", CONTAINER_XML)
        z.writestr("content.opf", _opf(list(chapters)))
        for name, body in chapters.items():
            z.writestr(name, body)
    return path


def epub_bomb(path: Path, mib: int) -> Path:
    """An EPUB whose one chapter inflates to `mib` MiB of blanks (about 1 MB on disk per GiB)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", CONTAINER_XML)
        z.writestr("content.opf", _opf(["c0.xhtml"]))
        _stream(z, "c0.xhtml", b"<html><body><p>", b" ", mib * MIB, b"</p></body></html>")
    return path


def docx(path: Path, body_xml: str, *, core_xml: str | None = None) -> Path:
    """A minimal DOCX whose document body is `body_xml` (WordprocessingML paragraphs)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", CONTENT_TYPES)
        z.writestr("_rels/.rels", RELS)
        z.writestr("word/document.xml", W_HEAD + body_xml + W_TAIL)
        if core_xml is not None:
            z.writestr("docProps/core.xml", core_xml)
    return path


def docx_text_bomb(path: Path, mib: int, zip64: bool = True) -> Path:
    """A DOCX whose document.xml holds `mib` MiB of ordinary-looking text (~1.6 KB on disk per MiB)."""
    para = _docx_paragraph("Words of text repeated to fill the document. " * 20).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", CONTENT_TYPES)
        z.writestr("_rels/.rels", RELS)
        _stream(z, "word/document.xml", W_HEAD.encode(), para, mib * MIB, W_TAIL.encode(), zip64=zip64)
    return path


def docx_content_types_bomb(path: Path, mib: int) -> Path:
    """A DOCX whose [Content_Types].xml inflates to `mib` MiB (read before any other check)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        head = CONTENT_TYPES.replace("</Types>", "<!--").encode()
        _stream(z, "[Content_Types].xml", head, b" ", mib * MIB, b"--></Types>")
        z.writestr("_rels/.rels", RELS)
        z.writestr("word/document.xml", W_HEAD + _docx_paragraph("Hello.") + W_TAIL)
    return path


def understate_sizes(path: Path, member: str, declared: int) -> Path:
    """Rewrite `member`'s declared uncompressed size (local and central headers) to `declared` bytes.

    The member's real data still inflates to its full size: a reader that trusted
    the inflater rather than the declared size would unpack all of it.
    """
    data = bytearray(path.read_bytes())
    name = member.encode()
    for signature, size_at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        name_at = 30 if signature == b"PK\x03\x04" else 46
        start = 0
        while (start := data.find(signature, start)) >= 0:
            n_len = struct.unpack_from("<H", data, start + (26 if signature == b"PK\x03\x04" else 28))[0]
            if bytes(data[start + name_at:start + name_at + n_len]) == name:
                struct.pack_into("<I", data, start + size_at, declared)
            start += 4
    path.write_bytes(bytes(data))
    return path


def docx_understated(path: Path, mib: int) -> Path:
    """A DOCX text bomb with plain 32-bit size fields whose document.xml claims to be 100 KiB."""
    return understate_sizes(docx_text_bomb(path, mib, zip64=False), "word/document.xml", 100 * 1024)


BILLION_LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">' for i in range(1, 10))
    + "]>"
)


def epub_billion_laughs(path: Path) -> Path:
    """An EPUB whose chapter expands an entity ten levels deep (10^9 'lol's if expanded)."""
    body = BILLION_LAUGHS.replace("<!DOCTYPE lolz", "<!DOCTYPE html") + "<html><body><p>&lol9;</p></body></html>"
    return epub(path, {"c0.xhtml": body})


def epub_xxe(path: Path, target: str = "/etc/passwd") -> Path:
    """An EPUB whose chapter and package document pull a local file in through an external entity."""
    chapter = (f'<?xml version="1.0"?><!DOCTYPE html [<!ENTITY xxe SYSTEM "file://{target}">]>'
               "<html><body><p>&xxe;</p></body></html>")
    return epub(path, {"c0.xhtml": chapter})


def docx_billion_laughs_core(path: Path) -> Path:
    """A DOCX whose docProps/core.xml (read by the standard library's expat) holds billion laughs."""
    core = BILLION_LAUGHS.replace("<!DOCTYPE lolz", "<!DOCTYPE cp:coreProperties") + (
        '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>&lol9;</dc:title></cp:coreProperties>'
    )
    return docx(path, _docx_paragraph("A short document with a hostile title."), core_xml=core)


# --------------------------------------------------------------------------- PDF


def _pdf(objects: list[bytes]) -> bytes:
    """A PDF file of `objects` (1-based object numbers in order) with a correct xref table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _text_stream(text: str) -> bytes:
    ops = b"BT /F1 12 Tf 72 720 Td (%s) Tj ET" % text.encode("latin-1")
    return b"<< /Length %d >>\nstream\n%s\nendstream" % (len(ops), ops)


_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def pdf_repeated_page(path: Path, repeats: int) -> Path:
    """A PDF whose page tree lists one page object `repeats` times (6 bytes per extra page)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Count %d /Kids [%s] >>" % (repeats, b" ".join([b"3 0 R"] * repeats)),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        _text_stream("The same page, read again and again."),
        _FONT,
    ]
    path.write_bytes(_pdf(objects))
    return path


def pdf_pages(path: Path, pages: int) -> Path:
    """A PDF of `pages` distinct pages, each with its own line of text."""
    first_page = 4
    kids = b" ".join(b"%d 0 R" % (first_page + 2 * i) for i in range(pages))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Count %d /Kids [%s] >>" % (pages, kids), _FONT]
    for i in range(pages):
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                       b"/Resources << /Font << /F1 3 0 R >> >> >>" % (first_page + 2 * i + 1))
        objects.append(_text_stream(f"Page {i + 1} of a long but honest report about tide pools."))
    path.write_bytes(_pdf(objects))
    return path


# --------------------------------------------------------------------------- text and HTML

_WORDS = ("alpha beta Gamma delta Epsilon zeta the of and river Paris Alice Smith in 2019 report data "
          "Acme Corporation said Bob Jones signed on 3 March 2021 for $400 million.").split()


def long_line(chars: int, seed: int = 12) -> str:
    """One paragraph of `chars` characters: words, names, dates and amounts, no line break."""
    rng = random.Random(seed)
    words, n = [], 0
    while n < chars:
        w = rng.choice(_WORDS)
        words.append(w)
        n += len(w) + 1
    return " ".join(words)[:chars]


def markdown_one_line(path: Path, chars: int) -> Path:
    path.write_text("# One Long Paragraph\n\n" + long_line(chars) + "\n", encoding="utf-8")
    return path


def markdown_one_token(path: Path, chars: int) -> Path:
    """A paragraph that is one token of `chars` characters (a pasted blob), then a sentence."""
    path.write_text("# Blob\n\n" + "a" * chars + "\n\nAlice Smith wrote this in Paris.\n", encoding="utf-8")
    return path


def deep_html(depth: int, tag: str = "div") -> str:
    """`depth` nested `tag` elements around two paragraphs of text."""
    open_tag, close_tag = (("<ul><li>", "</li></ul>") if tag == "li" else (f"<{tag}>", f"</{tag}>"))
    return ("<html><head><title>Deep Page</title></head><body><p>Text before the nesting.</p>"
            + open_tag * depth + "<p>Deep text survives the flattening.</p><p>A second <b>deep</b> paragraph.</p>"
            + close_tag * depth + "<p>Text after the nesting.</p></body></html>")
