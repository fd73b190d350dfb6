"""``rag-bench label``: a local web app to write and review labelled questions."""
