"""A run's explorer page: one self-contained report.html from the data model of ``run_view.py``.

The top of the page is static HTML: the settings, the headline metrics with their 95% intervals,
the per-category table, and the failure counts per class and category (a count filters the list).
The questions are rendered in the browser from the embedded model (packed: ``packed.py``), misses first,
in batches as the reader scrolls (``assets/run_page.js``), with filters by category and class, a text search and sorts
by evidence rank. CSS and script are inlined: the page reads nothing from the network.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.report.blocks import write_text
from rag_bench.report.page_assets import asset, table_html
from rag_bench.report.run.packed import PACKED, QUESTION_KEYS, pack_view, unpack_view
from rag_bench.report.run.view import FORMAT
from rag_bench.run_folder.read import RunFolder
from rag_bench.score.failures import MISSES

DATA_START = '<script id="run-data" type="application/json">'
FAMILIES = ("hit", "recall", "mrr", "ndcg", "coverage")  # rows of the metrics grid, when measured
CATEGORY_METRICS = ("hit@{k}", "recall@{k}", "mrr@{k}", "ndcg@{k}")


def render_run_page(view: dict) -> str:
    """The whole page as one HTML string (``view``: ``run_view``'s model, or ``packed_view``'s)."""
    view = view if view.get("format") == PACKED else pack_view(view)
    run = view["run"]
    title = html.escape(run["title"])
    body = [
        f"<h1>{title}</h1>",
        f"<p class=sub>{html.escape(_subtitle(view))}</p>",
        '<div class="row">',
        _metricstable_html(view),
        _categoriestable_html(view),
        _groups_html(view, "languages", "language") if view.get("languages") else "",
        "</div>",
        f"<h2>Why questions missed (failure class at k = {run['report_k']})</h2>",
        _failurestable_html(view),
        _settings(view),
        "<h2>Questions</h2>",
        _controls(view),
        '<div id="questions"></div>',
        '<button id="more" hidden>show more</button>',
        f"{DATA_START}{embed_json(view)}</script>",
        f"<script>{asset('run_page.js')}</script>",
    ]
    head = f"<head><meta charset=utf-8><title>{title}</title><style>{asset('page.css')}</style></head>"
    return "<!doctype html>\n<html lang=en>" + head + "\n<body>\n" + "\n".join(body) + "\n</body></html>\n"


def write_run_page(view: dict, path: Path) -> Path:
    """Write the page to ``path`` atomically; return the path."""
    write_text(path, render_run_page(view))
    return path


def read_run_view(path: Path) -> dict:
    """The data model a run's report.html embeds (``path``: the run folder or the page); a DataError if none."""
    fix = "pass a run folder written by this version of rag-bench (every run writes report.html), or rerun it"
    page = RunFolder(path, needs=("report.html",)).file("report.html") if path.is_dir() else path
    try:
        text = page.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(page, f"cannot be read ({exc.strerror})", fix=fix) from exc
    start = text.find(DATA_START)
    end = text.find("</script>", start)  # the model's own "<" are escaped: the first one closes it
    if start < 0 or end < 0:
        raise DataError(page, "holds no run data: it is not a rag-bench run report", fix=fix)
    try:
        view = json.loads(text[start + len(DATA_START) : end])
    except json.JSONDecodeError as exc:
        raise DataError(page, f"holds damaged run data ({exc.msg})", fix=fix) from exc
    if not isinstance(view, dict):
        raise DataError(page, f"holds damaged run data (a JSON {type(view).__name__}, not an object)", fix=fix)
    if view.get("format") == PACKED:
        try:
            return unpack_view(view, FORMAT)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise DataError(page, f"holds damaged run data ({type(exc).__name__}: {exc})", fix=fix) from exc
    if view.get("format") != FORMAT:
        raise DataError(
            page, f"holds run data of format {view.get('format')!r}; this version reads {FORMAT} and {PACKED}", fix=fix
        )
    return view


def embed_json(value: object) -> str:
    """JSON safe inside a <script> element: no ``</`` (which could close it) and no raw ``<!--``."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def _subtitle(view: dict) -> str:
    counts = view["failures"]["all"]
    scored = sum(n for c, n in counts.items() if c != "unlabelled")
    missed = sum(counts[c] for c in MISSES)
    return (
        f"{view['run']['dataset']}: {scored} labelled questions, {missed} missed at k = {view['run']['report_k']}, "
        f"{counts['unlabelled']} unlabelled; stages: {' -> '.join(view['run']['stages'])}"
    )


def _metricstable_html(view: dict) -> str:
    """Rank metrics as a grid (family x k): mean and 95% interval."""
    metrics = {m["name"]: m for m in view["metrics"]}
    ks = sorted({int(name.split("@")[1]) for name in metrics if "@" in name and name.split("@")[1].isdigit()})
    rows = []
    for family in FAMILIES:
        cells = [_interval(metrics.get(f"{family}@{k}")) for k in ks]
        if any(cells):
            rows.append(f"<tr><th class=l>{family}</th>" + "".join(f"<td>{c or '-'}</td>" for c in cells) + "</tr>")
    head = "<tr><th class=l>mean [95% interval]</th>" + "".join(f"<th>@{k}</th>" for k in ks) + "</tr>"
    return table_html("metrics", head, rows)


def _categoriestable_html(view: dict) -> str:
    return _groups_html(view, "categories", "category")


def _groups_html(view: dict, key: str, label: str) -> str:
    """The table of ``view[key]`` (categories, or language groups with cross-language last)."""
    k = view["run"]["report_k"]
    names = [m.format(k=k) for m in CATEGORY_METRICS]
    head = f"<tr><th class=l>{label}</th><th>n</th>" + "".join(f"<th>{html.escape(n)}</th>" for n in names) + "</tr>"
    rows = [
        f"<tr><td class=l>{html.escape(c['name'])}</td><td>{c['n']}</td>"
        + "".join(f"<td>{_fixed(c['metrics'].get(n))}</td>" for n in names)
        + "</tr>"
        for c in view[key]
    ]
    return table_html(key, head, rows)


def _failurestable_html(view: dict) -> str:
    """Counts per category (rows, ``all`` first) and class (columns, misses first); each count filters the list."""
    classes = view["classes"]
    head = "<tr><th class=l>category</th>" + "".join(f'<th><span class="badge {c}">{c}</span></th>' for c in classes)
    rows = []
    for category, counts in view["failures"].items():
        name = "" if category == "all" else category
        cells = "".join(
            f'<td class="count{"" if counts[c] else " zero"}" data-category="{html.escape(name)}" data-failure="{c}">'
            f"{counts[c]}</td>"
            for c in classes
        )
        rows.append(f"<tr><th class=l>{html.escape(category)}</th>{cells}</tr>")
    return table_html("failures", head + "</tr>", rows)


def _settings(view: dict) -> str:
    rows = "".join(
        f"<tr><td class=l>{html.escape(key)}</td><td class=l>{html.escape(json.dumps(value))}</td></tr>"
        for key, value in view["run"]["settings"].items()
    )
    return f'<details class="settings"><summary>Settings of this run</summary><table>{rows}</table></details>'


def _controls(view: dict) -> str:
    at = QUESTION_KEYS.index("category")
    categories = sorted({q[at] or "(none)" for q in view["questions"]})  # packed: each question a list
    category_options = "".join(f'<option value="{html.escape(c)}">{html.escape(c)}</option>' for c in categories)
    class_options = "".join(f'<option value="{c}">{c}</option>' for c in view["classes"])
    return (
        '<div class="controls">'
        '<label>category <select id="filter-category"><option value="">all</option>'
        f"{category_options}</select></label>"
        '<label>class <select id="filter-class"><option value="">all</option>'
        f'<option value="misses">every miss</option>{class_options}</select></label>'
        '<label>search <input id="search" type="search" placeholder="question, id or evidence text"></label>'
        '<label>sort <select id="sort"><option value="misses">misses first</option>'
        '<option value="rank-asc">evidence rank, best first</option>'
        '<option value="rank-desc">evidence rank, worst first</option>'
        '<option value="id">question id</option></select></label>'
        '<span id="status"></span></div>'
    )


def _interval(metric: dict | None) -> str:
    if metric is None or metric["mean"] is None:
        return ""
    return f"{metric['mean']:.3f} [{_fixed(metric['low'])}, {_fixed(metric['high'])}]"


def _fixed(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
