"""Rebuild tern-docs from content.py: real PDF, Word, PowerPoint, Excel and HTML files, and questions.jsonl.

    python datasets/tern-docs/build.py     # needs the test extra: reportlab, python-docx, python-pptx, openpyxl

The output is byte-for-byte the same on every run (reportlab's invariant mode; Office files' zip
entries and document properties get fixed dates), so the committed files are what this script makes.
PDFs carry a running header, a footer with the page number, tables with ruled cells and one
two-column page; HTML pages carry a navigation menu, a cookie banner and a footer; the two travel
policies are near-duplicate versions of one document.
"""

from __future__ import annotations

import html
import io
import json
import re
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import content  # noqa: E402

FIXED_DATE = (2024, 10, 1, 0, 0, 0)
COMPANY = "Tern Logistics"


def pdf(path: Path, blocks: list, header: str, small: bool = False) -> None:
    """A PDF: running header, footer "Tern Logistics - Internal - Page N", ruled tables, a two-column page."""
    from reportlab import rl_config

    rl_config.invariant = 1  # no creation date or random id: the same bytes every run
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4, A5
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import (
        BaseDocTemplate,
        Frame,
        FrameBreak,
        NextPageTemplate,
        PageBreak,
        PageTemplate,
        Paragraph,
        Table,
        TableStyle,
    )

    styles = getSampleStyleSheet()
    width, height = A5 if small else A4
    margin = 40 if small else 60

    def decorate(canvas, doc):
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.drawString(margin, height - 35, header)
        canvas.drawRightString(width - margin, 30, f"{COMPANY} - Internal - Page {doc.page}")
        canvas.restoreState()

    one = Frame(margin, margin, width - 2 * margin, height - 2 * margin, id="one")
    half = (width - 2 * margin - 24) / 2
    left = Frame(margin, margin, half, height - 2 * margin, id="left")
    right = Frame(margin + half + 24, margin, half, height - 2 * margin, id="right")
    doc = BaseDocTemplate(str(path), pagesize=(width, height), title=header, author=COMPANY, creator=COMPANY)
    doc.addPageTemplates(
        [PageTemplate("one", [one], onPage=decorate), PageTemplate("two", [left, right], onPage=decorate)]
    )

    def flow(items):
        out = []
        for item in items:
            kind = item[0]
            if kind in ("h1", "h2", "p"):
                style = {"h1": "Heading1", "h2": "Heading2", "p": "BodyText"}[kind]
                out.append(Paragraph(html.escape(item[1]), styles[style]))
            elif kind == "table":
                table = Table(item[1])
                table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                                           ("FONTSIZE", (0, 0), (-1, -1), 9)]))  # fmt: skip
                out.append(table)
            elif kind == "columns":
                out += [NextPageTemplate("two"), PageBreak(), *flow(item[1]), NextPageTemplate("one"), PageBreak()]
            elif kind == "break":
                out.append(PageBreak())
            elif kind == "next-column":
                out.append(FrameBreak())
        return out

    story = flow(blocks)
    while story and isinstance(story[-1], PageBreak):
        story.pop()
    doc.build(story)


NAV = '<nav class="menu"><a href="/">Home</a> <a href="/products">Products</a> <a href="/pricing">Pricing</a> '
NAV += '<a href="/support">Support</a> <a href="/careers">Careers</a></nav>'
COOKIES = '<div class="cookie-banner"><p>We use cookies to improve your experience.</p><p>Accept all cookies</p>'
COOKIES += "<p>Manage preferences</p></div>"
FOOTER = '<footer><p>\u00a9 2024 Tern Logistics Ltd.</p><p><a href="/privacy">Privacy</a> \u00b7 <a href="/terms">Terms'
FOOTER += '</a> \u00b7 <a href="/sitemap">Sitemap</a></p></footer>'


def web_page(path: Path, title: str, blocks: list, encoding: str = "utf-8") -> None:
    """An HTML page: menu, cookie banner, the article, footer; ``encoding`` declared in a meta tag."""
    body = []
    for item in blocks:
        kind = item[0]
        if kind in ("h1", "h2", "p"):
            body.append(f"<{kind}>{html.escape(item[1])}</{kind}>")
        elif kind == "table":
            head, *rows = item[1]
            cells = "".join(f"<th>{html.escape(c)}</th>" for c in head)
            lines = [f"<tr>{cells}</tr>"]
            lines += ["<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows]
            body.append("<table>" + "".join(lines) + "</table>")
    page = (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="{encoding}"><title>{html.escape(title)} | {COMPANY}'
        f"</title></head>\n<body>\n<header>{NAV}</header>\n{COOKIES}\n<main><article>\n"
        + "\n".join(body)
        + f"\n</article></main>\n{FOOTER}\n</body></html>\n"
    )
    path.write_bytes(page.encode(encoding))


def word(path: Path, blocks: list) -> None:
    import docx

    document = docx.Document()
    for item in blocks:
        kind = item[0]
        if kind == "title":
            document.add_heading(item[1], level=0)
            document.core_properties.title = item[1]
        elif kind == "h1":
            document.add_heading(item[1], level=1)
        elif kind == "p":
            document.add_paragraph(item[1])
        elif kind == "li":
            document.add_paragraph(item[1], style="List Bullet")
        elif kind == "table":
            rows = item[1]
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for r, row in enumerate(rows):
                for c, value in enumerate(row):
                    table.cell(r, c).text = value
    buffer = io.BytesIO()
    document.save(buffer)
    path.write_bytes(fixed_zip(buffer.getvalue()))


def slides(path: Path, deck: list) -> None:
    import pptx
    from pptx.util import Inches

    prs = pptx.Presentation()
    for n, (title, body) in enumerate(deck):
        slide = prs.slides.add_slide(prs.slide_layouts[0 if n == 0 else 1])
        slide.shapes.title.text = title
        if body and isinstance(body[0], list):  # a table
            slide.placeholders[1].element.getparent().remove(slide.placeholders[1].element)
            shape = slide.shapes.add_table(len(body), len(body[0]), Inches(1), Inches(2), Inches(8), Inches(3))
            for r, row in enumerate(body):
                for c, value in enumerate(row):
                    shape.table.cell(r, c).text = value
        else:
            slide.placeholders[1].text_frame.text = "\n".join(body)
    prs.core_properties.title = deck[0][0]
    buffer = io.BytesIO()
    prs.save(buffer)
    path.write_bytes(fixed_zip(buffer.getvalue()))


def workbook(path: Path, sheets: dict) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    path.write_bytes(fixed_zip(buffer.getvalue()))


_DATES = re.compile(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)")


def fixed_zip(data: bytes) -> bytes:
    """An Office file with fixed zip entry dates and document dates: the same bytes on every run."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            blob = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                blob = _DATES.sub(rb"\g<1>2024-10-01T00:00:00Z\g<2>", blob)
            dst.writestr(zipfile.ZipInfo(info.filename, FIXED_DATE), blob, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def main() -> None:
    docs = HERE / "docs"
    for sub in ("handbook", "reports", "engineering", "web", "hr", "sales", "finance"):
        (docs / sub).mkdir(parents=True, exist_ok=True)
    pdf(docs / "handbook/security-policy.pdf", content.SECURITY, f"{COMPANY} - Security Policy v3 - March 2024", True)
    pdf(docs / "reports/q3-operations-report.pdf", content.REPORT, f"{COMPANY} - Q3 2024 Operations Report")
    pdf(docs / "engineering/incident-runbook.pdf", content.RUNBOOK, f"{COMPANY} - Runbook - Tracking API", True)
    pdf(docs / "handbook/travel-policy-v1.pdf", content.TRAVEL_V1, f"{COMPANY} - Travel Policy")
    pdf(docs / "handbook/travel-policy-v2.pdf", content.TRAVEL_V2, f"{COMPANY} - Travel Policy")
    for name, (title, blocks) in content.HTML_PAGES.items():
        web_page(docs / name, title, blocks, "windows-1252" if name == "web/contact.html" else "utf-8")
    word(docs / "hr/onboarding.docx", content.ONBOARDING)
    word(docs / "hr/leave-policy.docx", content.LEAVE)
    word(docs / "engineering/release-process.docx", content.RELEASE)
    slides(docs / "sales/q4-kickoff.pptx", content.KICKOFF)
    slides(docs / "engineering/architecture-overview.pptx", content.ARCHITECTURE)
    workbook(docs / "finance/budget-2024.xlsx", content.BUDGET)
    (docs / "README.md").write_text(content.README_MD, encoding="utf-8")
    (docs / "engineering/oncall.md").write_text(content.ONCALL_MD, encoding="utf-8")
    lines = []
    for qid, question, doc_id, excerpt, page, category in content.QUESTIONS:
        evidence = {"doc_id": doc_id, "text": excerpt, **({"page": page} if page else {})}
        lines.append(json.dumps({"id": qid, "question": question, "evidence": [evidence], "category": category}))
    (HERE / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {sum(1 for p in docs.rglob('*') if p.is_file())} files and {len(lines)} questions")


if __name__ == "__main__":
    main()
