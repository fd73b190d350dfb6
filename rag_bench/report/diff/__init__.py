"""``rag-bench diff``: the questions that flipped between two runs, as a page and as Markdown."""
