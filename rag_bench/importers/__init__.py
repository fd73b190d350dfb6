"""Importers: datasets in standard formats (BEIR, Chroma, SQuAD, pre-chunked, TREC) to native folders."""
