"""The reference pipeline in plain Python: ``run.py`` wires load, chunk, retrieve, rerank, score;
``result.py`` is what a run produced."""
