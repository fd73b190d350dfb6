"""The grounded prompt: numbered passages in tags, best first, then the question.

system:  instructions (answer only from the passages, cite [n], the refusal phrase)
user:    <passages>
         <passage id="1">
         ...chunk text...
         </passage>
         ...
         </passages>

         Question: ...
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from rag_bench.core.types import Chunk, Question

REFUSAL = "The answer is not in the passages."

INSTRUCTIONS = f"""\
You answer questions using only the numbered passages you are given.
- Use only facts stated in the passages, never outside knowledge.
- After each statement, cite the passages that support it by number in square brackets, e.g. [1] or [2][3].
- When you quote a passage, put the exact words in double quotation marks and cite that passage.
- If the passages do not contain the answer, reply with exactly this sentence and nothing else: {REFUSAL}
- Keep the answer short: one to three sentences."""


@dataclass(frozen=True)
class Prompt:
    """One question's prompt; ``passages[n - 1]`` is passage ``n``."""

    question: Question
    passages: tuple[Chunk, ...]
    system: str
    user: str

    @property
    def hash(self) -> str:
        """sha256 of the system and user texts: what a model sees."""
        h = hashlib.sha256()
        for part in (self.system, self.user):
            data = part.encode("utf-8")
            h.update(len(data).to_bytes(8, "little") + data)
        return h.hexdigest()


def build_prompt(question: Question, passages: Sequence[Chunk]) -> Prompt:
    """The prompt for ``question`` over ``passages`` (best first; numbered from 1)."""
    blocks = [f'<passage id="{n}">\n{chunk.text}\n</passage>' for n, chunk in enumerate(passages, start=1)]
    user = "<passages>\n" + "\n".join(blocks) + "\n</passages>\n\nQuestion: " + question.text
    return Prompt(question=question, passages=tuple(passages), system=INSTRUCTIONS, user=user)
