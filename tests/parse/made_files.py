"""Real files for the parse tests, written with real libraries: reportlab (PDF), python-docx, python-pptx, openpyxl."""

from __future__ import annotations

from pathlib import Path

HEADER = "Acme Corp - Handbook"


def pdf(path: Path, pages: list[list[str]], header: bool = True, two_columns: tuple[list[str], list[str]] | None = None,
        table: list[list[str]] | None = None) -> Path:  # fmt: skip
    """A PDF drawn line by line: each page's lines from the top, a running header and a "Page N" footer,
    optionally a last page in two columns and a ruled table on the first page."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    width, height = A4
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    all_pages = [*pages, *([None] if two_columns else [])]
    for n, lines in enumerate(all_pages, start=1):
        if header:
            c.setFont("Helvetica", 8)
            c.drawString(60, height - 35, HEADER)
            c.drawRightString(width - 60, 30, f"Page {n}")
        c.setFont("Helvetica", 11)
        y = height - 80
        if lines is None:
            for x, column in ((60, two_columns[0]), (width / 2 + 20, two_columns[1])):
                for i, line in enumerate(column):
                    c.drawString(x, y - 16 * i, line)
        else:
            for line in lines:
                if line.startswith("# "):
                    c.setFont("Helvetica-Bold", 20)
                    c.drawString(60, y, line[2:])
                    c.setFont("Helvetica", 11)
                    y -= 30
                else:
                    c.drawString(60, y, line)
                    y -= 16
            if table and n == 1:
                y -= 10
                for r, row in enumerate(table):
                    for k, cell in enumerate(row):
                        c.rect(60 + 120 * k, y - 18 * r - 5, 120, 18)
                        c.drawString(65 + 120 * k, y - 18 * r, cell)
        c.showPage()
    c.save()
    return path


def scanned_pdf(path: Path) -> Path:
    """A PDF whose only page is a drawing: no text layer, as a scan without OCR."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), invariant=1)
    c.rect(100, 100, 300, 400, fill=1)
    c.showPage()
    c.save()
    return path


def docx_file(path: Path) -> Path:
    import docx

    document = docx.Document()
    document.add_heading("Leave policy", level=0)
    document.add_heading("Annual leave", level=1)
    document.add_paragraph("Full-time staff have 27 days of annual leave.")
    document.add_paragraph("Carry over five days at most.", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    for r, row in enumerate([["Country", "Days"], ["NL", "27"]]):
        for k, value in enumerate(row):
            table.cell(r, k).text = value
    document.save(str(path))
    return path


def pptx_file(path: Path) -> Path:
    import pptx

    prs = pptx.Presentation()
    first = prs.slides.add_slide(prs.slide_layouts[0])
    first.shapes.title.text = "Kickoff"
    first.placeholders[1].text_frame.text = "Rotterdam, October"
    second = prs.slides.add_slide(prs.slide_layouts[1])
    second.shapes.title.text = "Targets"
    second.placeholders[1].text_frame.text = "Contract value target: 3.1 million euros"
    prs.save(str(path))
    return path


def xlsx_file(path: Path) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Budget"
    for row in [["Department", "Budget"], ["Engineering", 9400], ["Sales", 3200]]:
        sheet.append(row)
    book.save(str(path))
    return path


PAGE_HTML = """<!DOCTYPE html><html><head><meta charset="{charset}"><title>Returns | Acme</title></head><body>
<nav><a href="/">Home</a> <a href="/pricing">Pricing</a> <a href="/support">Support</a></nav>
<div class="cookies"><p>We use cookies to improve your experience. Accept all cookies</p></div>
<main><article><h1>Returns</h1>
<p>Customers drop a return at any of our 2,300 partner shops without printing a label; the shop prints it.</p>
<h2>Refunds</h2>
<p>The refund is triggered when the parcel is first scanned at the partner shop, up to four days earlier.</p>
<table><tr><th>Plan</th><th>Price</th></tr><tr><td>Standard</td><td>3.60</td></tr></table>
<p>{extra}</p>
</article></main><footer><p>{footer}</p></footer></body></html>"""


def html_file(path: Path, charset: str = "utf-8", extra: str = "Caf\u00e9 partners included.", declare: bool = True,
              footer: str = "\u00a9 2024 Acme Ltd. Privacy. Terms.") -> Path:  # fmt: skip
    text = PAGE_HTML.format(charset=charset, extra=extra, footer=footer)
    if not declare:
        text = text.replace(f'<meta charset="{charset}">', "")
    path.write_bytes(text.encode(charset))
    return path
