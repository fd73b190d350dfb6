"""Diversity of the retrieved list (``diversity=mmr|collapse``): maximal marginal relevance, near-duplicate collapse."""
