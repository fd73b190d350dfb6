"""Packaging detail pyproject.toml cannot express: ship configs/ and datasets/ inside the package.

``hydra_plugins.rag_bench_launchers`` holds the cluster launchers: Hydra instantiates launcher
classes only from its ``hydra_plugins`` namespace package.

From a clone, rag-bench reads the top-level folders; an installed copy reads them as
``rag_bench/_configs`` and ``rag_bench/_datasets`` (see rag_bench/data/bundled.py).
"""

from setuptools import find_packages, setup

setup(
    packages=[
        *find_packages(include=["rag_bench", "rag_bench.*"]),
        "rag_bench._configs",
        "rag_bench._datasets",
        "hydra_plugins.rag_bench_launchers",
    ],
    package_dir={"rag_bench._configs": "configs", "rag_bench._datasets": "datasets"},
    package_data={
        "rag_bench._configs": ["**/*.yaml"],
        "rag_bench._datasets": ["**/*.md", "**/*.txt", "**/*.jsonl"],
        "rag_bench.embed": ["data/*/*"],
    },
)
