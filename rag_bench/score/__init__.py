"""The score stage: metrics (spans, documents, budgets, filters), aggregates, paired tests and failure classes."""
