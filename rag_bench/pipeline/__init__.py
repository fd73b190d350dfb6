"""The reference pipeline wired in plain Python: load, chunk, retrieve, rerank, score."""
