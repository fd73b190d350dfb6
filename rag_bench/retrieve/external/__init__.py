"""Retrievers that run elsewhere: a run file, an HTTP service, a Python function, a LangChain retriever."""
