"""Text from a dataset or a user in Markdown, shown as the same text and never read as markup or HTML.

Every Markdown writer (gate and compare summaries, ``diff --markdown``, sweep and rewrite reports,
generation checks, dataset-stats) passes such text through these, as the HTML pages pass it
through ``html.escape``. GitHub renders Markdown as CommonMark 0.31 with the GFM extensions; a
character is escaped where it could start markup there, and left alone where it cannot, so
``[0.61, 0.70]``, ``<0.001`` and ``char_precision@10`` read the same in the raw file:

- ``<`` before a letter, ``/``, ``!`` or ``?`` (an HTML tag, comment, declaration or block), or
  before a ``>`` later on (an autolink, ``<a@b.c>``), becomes ``&lt;``, and ``&`` that would begin
  an entity reference (``&lt;``, ``&#60;``) becomes ``&amp;`` (sections 4.6, 6.5, 6.6 and 2.5):
  ``<img src=x onerror=...>`` shows as text;
- ``]`` before ``(``, ``[`` or ``:`` is backslash-escaped (section 2.4), so no link, image or link
  reference definition can form; ``\\``, `````, ``*``, ``|`` (a table cell's end), ``~`` (GFM
  strikethrough) and ``$`` (GitHub's math) always are, and ``_`` except inside a word, where it
  never means emphasis;
- line breaks and tabs become single spaces, so text cannot start a new block or end the table
  cell it is in; text that starts a block itself (a paragraph, a list item) has a leading list
  marker, ``#`` or ``>`` escaped too (``starts_block``), so it stays a paragraph.

A code span takes a fence longer than any run of backticks inside it (section 6.1), and a link's
destination that holds a space, a parenthesis, ``<``, ``>``, ``|`` or ``\\`` goes between ``<`` and ``>``
with those escaped (section 6.3; GFM splits table cells before it reads links).

Worked example: ``md_text("<b>x</b> | [y](z)")`` is ``&lt;b>x&lt;/b> \\| [y\\](z)``.
"""

from __future__ import annotations

import re

_SPECIAL = re.compile(
    r"<(?=[A-Za-z/!?]|\S.*>)|&(?=#?\w+;)|\](?=[(\[:])|[\\`*|~$]"
    r"|(?<![^\W_])_|_(?![^\W_])"  # "_" unless it has a letter or digit on both sides
)
_BLOCK_START = re.compile(r"^( *)([-+#>]|\d{1,9}(?=[.)]))")  # a list item, heading or quote; "1." escapes as "1\."
_SPACE = re.compile(r"\s+")


def md_text(text: object, starts_block: bool = False) -> str:
    """``text`` (``str()`` of it) as Markdown that renders as exactly that text, on one line; ``starts_block``
    when it begins a paragraph or list item (not a table cell or the middle of a line)."""
    flat = _SPACE.sub(" ", str(text))
    escaped = _SPECIAL.sub(lambda m: {"<": "&lt;", "&": "&amp;"}.get(m.group(), "\\" + m.group()), flat)
    return _BLOCK_START.sub(_escape_marker, escaped, count=1) if starts_block else escaped


def md_code(text: object) -> str:
    """``text`` as a code span (shown verbatim, in a monospace font), on one line; ``|`` escaped for table cells."""
    flat = _SPACE.sub(" ", str(text)).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith(("`", " ")) or flat.endswith(("`", " ")) or not flat else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def md_link(text: object, href: str) -> str:
    """A link showing ``text`` that points at ``href`` (a relative path or URL we wrote ourselves)."""
    return f"[{md_text(text)}]({md_destination(href)})"


def md_destination(href: str) -> str:
    """``href`` as a link or image destination: as it is when plain, else between angle brackets (where spaces and
    parentheses are safe) with ``\\``, ``<``, ``>`` and ``|`` escaped."""
    flat = _SPACE.sub(" ", href)
    if not re.search(r"[\s()<>|\\]", flat):
        return flat
    return "<" + re.sub(r"[\\<>|]", lambda m: "\\" + m.group(), flat) + ">"


def _escape_marker(match: re.Match) -> str:
    indent, marker = match.groups()
    return indent + (marker + "\\" if marker[0].isdigit() else "\\" + marker)
