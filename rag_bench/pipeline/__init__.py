"""The reference pipeline wired in plain Python (``run.py``: load, chunk, retrieve, rerank, score) and what a run produced (``result.py``)."""
