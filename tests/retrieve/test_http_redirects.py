"""retrieval=http never sends a question or its bearer token to another origin, whatever a redirect says.

Two fake services on 127.0.0.1 (two ports: two origins); the first redirects, the second records whatever reaches
it. Every server stops when its ``with`` block ends.
"""

import pytest

from rag_bench.core.errors import ServiceError
from rag_bench.remote.redirects import origin
from rag_bench.testing.retrieval_server import FakeRetrievalServer

from .conftest import rag_bench_cli

FAST = ("retrieval.max_retries=2", "retrieval.backoff_s=0.05", "retrieval.timeout_s=2", "retrieval.concurrency=1")
ANSWERS = {"q1": [{"doc_id": "a.md", "start": 19, "end": 58}]}


def redirect_message(source: str, code: int, target: str) -> str:
    return (
        f"retrieval.url {source} redirected (HTTP {code}) to {target}, another origin; rag-bench sends no question "
        f"or credential there (fix: if you trust that address, set retrieval.url={target})"
    )


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_origin_fails_and_the_token_stays_home(tiny, run_with, monkeypatch, code):
    monkeypatch.setenv("SEARCH_TOKEN", "s3cret")
    with FakeRetrievalServer(ANSWERS) as elsewhere, FakeRetrievalServer(ANSWERS) as service:
        service.inject("redirect", status=code, location=elsewhere.url)
        overrides = (f"dataset.path={tiny}", "retrieval=http", f"retrieval.url={service.url}", *FAST)
        with pytest.raises(ServiceError) as err:
            run_with(*overrides, "retrieval.token_env=SEARCH_TOKEN")
        assert elsewhere.received() == []  # before the fix, a 30[123] was followed: GET with "Bearer s3cret"
        assert [(r.question_id, r.authorization, r.outcome) for r in service.received()] == [
            ("q1", "Bearer s3cret", "redirect")  # asked once: a redirect is not retried
        ]
    assert str(err.value) == redirect_message(service.url, code, elsewhere.url)


def test_the_command_says_so_in_one_line_and_exits_2(tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("SEARCH_TOKEN", "s3cret")
    with FakeRetrievalServer(ANSWERS) as elsewhere, FakeRetrievalServer(ANSWERS) as service:
        target = elsewhere.url.replace("127.0.0.1", "localhost")  # the same machine under another name: another origin
        service.inject("redirect", location=target)
        done = rag_bench_cli(
            f"dataset.path={tiny}",
            "embedder=fake",
            "retrieval=http",
            f"retrieval.url={service.url}",
            "retrieval.token_env=SEARCH_TOKEN",
            *FAST,
            f"hydra.run.dir={tmp_path / 'out'}",
            cache=tmp_path / "cache",
        )
        assert elsewhere.received() == []
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == f"rag-bench: error: {redirect_message(service.url, 302, target)}"
    assert "Traceback" not in done.stderr
    assert "s3cret" not in done.stderr + done.stdout


def test_a_redirect_inside_the_origin_is_still_followed(tiny, run_with, monkeypatch):
    """A 302 to a path of the same service is followed as urllib always has (a GET, which this service refuses)."""
    monkeypatch.setenv("SEARCH_TOKEN", "s3cret")
    with FakeRetrievalServer(ANSWERS) as service:
        service.inject("redirect", location="/moved")
        with pytest.raises(ServiceError, match=r"question 'q1' failed: HTTP 405: "):
            run_with(f"dataset.path={tiny}", "retrieval=http", f"retrieval.url={service.url}", *FAST)
        assert [(r.method, r.outcome) for r in service.received()] == [("POST", "redirect"), ("GET", "405")]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://Svc.example/search", ("http", "svc.example", 80)),
        ("http://svc.example:80/other", ("http", "svc.example", 80)),
        ("HTTPS://svc.example/search", ("https", "svc.example", 443)),
        ("https://svc.example:8443/", ("https", "svc.example", 8443)),
        ("http://[::1]:9000/x", ("http", "::1", 9000)),
        ("http://svc.example:port/x", None),
    ],
)
def test_an_origin_is_scheme_host_and_port_with_the_default_filled_in(url, expected):
    assert origin(url) == expected
