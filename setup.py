"""Packaging detail pyproject.toml cannot express: ship configs/ and datasets/ inside the package.

``hydra_plugins.rag_bench_launchers`` holds the cluster launchers: Hydra instantiates launcher
classes only from its ``hydra_plugins`` namespace package.

From a clone, rag-bench reads the top-level folders; an installed copy reads them as
``rag_bench/_configs`` and ``rag_bench/_datasets`` (see rag_bench/data/bundled.py).

``rag_bench.index.bm25._loops`` is a small C extension (the hot loops of BM25 indexing and search; see
rag_bench/index/bm25/compiled.py). It is optional: where no C compiler is found, the install still
succeeds and rag-bench runs the same computations in numpy. An editable install
(``pip install -e .``) builds it in place, beside its source. ``rag_bench.index._topk`` (the
streaming top-k of exact dense search; see rag_bench/index/compiled_topk.py) is built and falls back
the same way.
"""

from setuptools import Extension, find_packages, setup

setup(
    ext_modules=[
        Extension(
            "rag_bench.index.bm25._loops",
            [
                f"rag_bench/index/bm25/{name}.c"
                for name in (
                    "_loops", "_loops_words", "_loops_postings", "_loops_search",
                    "_loops_shingles", "_loops_copies", "_loops_headings",
                )
            ],
            depends=["rag_bench/index/bm25/_loops.h", "rag_bench/index/heap.h"],
            optional=True,
        ),
        Extension(
            "rag_bench.index._topk", ["rag_bench/index/_topk.c"], depends=["rag_bench/index/heap.h"], optional=True
        ),
    ],
    packages=[
        *find_packages(include=["rag_bench", "rag_bench.*"]),
        "rag_bench._configs",
        "rag_bench._datasets",
        "hydra_plugins.rag_bench_launchers",
    ],
    package_dir={"rag_bench._configs": "configs", "rag_bench._datasets": "datasets"},
    package_data={
        "rag_bench._configs": ["**/*.yaml"],
        "rag_bench._datasets": [
            "**/*.md", "**/*.txt", "**/*.jsonl", "**/*.py",
            "**/*.pdf", "**/*.html", "**/*.docx", "**/*.pptx", "**/*.xlsx",
        ],
        "rag_bench.embed": ["data/*/*"],
        "rag_bench.report": ["assets/*.css", "assets/*.js"],
        "rag_bench.label": ["page.html"],
    },
)
