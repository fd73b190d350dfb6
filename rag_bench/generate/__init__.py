"""Generation checks, separate from retrieval scoring: prompt -> answer -> checks -> attribution."""
