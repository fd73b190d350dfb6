"""Entry points: the ``rag-bench`` command (verbs, runs and sweeps under Hydra) and the Python API."""
