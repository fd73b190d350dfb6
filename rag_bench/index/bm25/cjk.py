"""Chinese, Japanese and Korean text cut into terms: character bigrams, or Japanese words by MeCab.

A CJK run is a maximal run of Han ideographs, kana and Hangul (``_RUN``). ``bigrams`` cuts a run
into its overlapping character pairs, and a run of one character into itself, as Lucene's
CJKBigramFilter does: "東京都庁" -> ["東京", "京都", "都庁"]. No dictionary, no dependency; a word of
two characters always matches, at the price of some spurious pairs ("京都" above).

``Mecab`` cuts Japanese runs into words with MeCab and the UniDic-lite dictionary (fugashi; both
install from PyPI: ``pip install "rag-bench[japanese]"``), keeps each word's dictionary form
(書いた -> 書く) and drops particles, auxiliary verbs and symbols, as Lucene's JapaneseAnalyzer drops
its stop tags. Runs are cut one at a time: a run never spans whitespace, so analysis stays word by word.
"""

from __future__ import annotations

import re
import threading

from rag_bench.core.errors import ConfigError

# Han (with 々 and the compatibility and supplementary ideographs), hiragana, katakana (not its
# punctuation ゠ and ・), half-width katakana, Hangul syllables and jamo.
_CJK = (
    "\u3005\u3040-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uff66-\uff9f\uac00-\ud7af\u1100-\u11ff\u3130-\u318f\U00020000-\U0002fa1f"
)
RUN = re.compile(f"([{_CJK}]+)")  # split() with it alternates other text and CJK runs
SEGMENTERS = ("bigram", "mecab")  # retrieval.segmenter
_SKIPPED = frozenset({"助詞", "助動詞", "補助記号", "記号", "空白"})  # UniDic pos1: particles, auxiliaries, symbols


def bigrams(run: str) -> list[str]:
    """Overlapping character pairs of a CJK run: "情報検索" -> ["情報", "報検", "検索"]; one character stays whole."""
    return [run[i : i + 2] for i in range(len(run) - 1)] if len(run) > 1 else [run]


class Mecab:
    """Japanese runs cut into dictionary forms by MeCab (fugashi + unidic-lite); one tagger per thread."""

    def __init__(self) -> None:
        try:
            import fugashi
            import unidic_lite
        except ImportError:
            raise ConfigError(
                "retrieval.segmenter (mecab) needs fugashi and unidic-lite; install them with "
                "pip install 'rag-bench[japanese]', or set retrieval.segmenter=bigram"
            ) from None
        self._make = lambda: fugashi.Tagger(f'-d "{unidic_lite.DICDIR}" -r /dev/null')
        self._local = threading.local()

    def __call__(self, run: str) -> list[str]:
        tagger = getattr(self._local, "tagger", None)
        if tagger is None:
            tagger = self._local.tagger = self._make()
        return [
            (w.feature.orthBase or w.surface).lower()
            for w in tagger(run)
            if w.feature.pos1 not in _SKIPPED and w.surface.strip()
        ]
