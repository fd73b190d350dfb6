"""Helpers for tests and for users' own test suites: the fakes of the stage protocols, the gate as an
assertion, fake API servers on 127.0.0.1 (Voyage, OpenAI-compatible, Cohere, TEI, Anthropic, a retrieval
service), and tiny ONNX models built on the spot (``tiny_onnx.py``).

``FakeEmbedder`` (``embed/fake.py``) and ``FakeReranker`` (``rerank/fake.py``) need no model or network;
``assert_no_regression`` (``gate.py``) runs ``rag-bench gate`` on two run folders inside a test.
"""

from rag_bench.embed.fake import FakeEmbedder
from rag_bench.rerank.fake import FakeReranker
from rag_bench.testing.gate import assert_no_regression

__all__ = ["FakeEmbedder", "FakeReranker", "assert_no_regression"]
