"""What a refused request tells the user: the setting to fix, named the same way by every provider."""

from __future__ import annotations

from rag_bench.remote.retry import Verdict


def refusal(status: int | None, detail: str, group: str, key_variable: str | None) -> Verdict:
    """The verdict for a 4xx answer (not 429): the key, the model, the dimension, or the request.

    ``group`` names the settings (``embedder``, ``reranker``), ``key_variable`` the environment
    variable the key came from. The reason is one line that names the setting and the fix.
    """
    detail = " ".join(str(detail).split())[:200].rstrip(".")
    if status in (401, 403):
        where = f"the key in {key_variable}" if key_variable else "the request (no key was sent)"
        fix = f"set {key_variable} to a valid key" if key_variable else f"set {group}.api_key_env to the key's variable"
        return Verdict(False, f"HTTP {status}: the server refused {where} ({detail}); {fix}", setting=True)
    low = detail.lower()
    if "dimension" in low:
        return Verdict(
            False,
            f"HTTP {status}: {detail}; {group}.dimension is not a size this model takes: set it to one the model"
            " supports, or null for its native size",
            setting=True,
        )
    if status == 404 or "model" in low:
        return Verdict(
            False,
            f"HTTP {status}: {detail}; the server does not serve {group}.model: set it to a model it serves",
            setting=True,
        )
    return Verdict(False, f"HTTP {status}: {detail}; check the {group} settings", setting=True)
