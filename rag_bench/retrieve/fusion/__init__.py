"""Fusion of ranked lists: reciprocal rank fusion, and the retriever that fuses other retrievers."""
