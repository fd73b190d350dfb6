"""The languages rag-bench knows, by ISO 639-1 code: a document's or question's optional ``language`` field.

A value is a BCP 47 tag whose primary subtag is one of ``LANGUAGES`` ("de", "pt-BR", "zh-Hans"); it is
stored as that subtag in lower case ("pt-BR" -> "pt"). The names are the analyzer names of
``retrieval.analyzer`` (rag_bench/index/bm25/languages.py): a language with a Snowball stemmer is
named as Snowball names it.
"""

from __future__ import annotations

from pathlib import Path

from rag_bench.core.errors import DataError

# fmt: off
LANGUAGES: dict[str, str] = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech", "da": "danish",
    "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian", "fi": "finnish", "fr": "french",
    "de": "german", "el": "greek", "hi": "hindi", "hu": "hungarian", "id": "indonesian", "ga": "irish",
    "it": "italian", "lt": "lithuanian", "ne": "nepali", "no": "norwegian", "nb": "norwegian",
    "nn": "norwegian", "fa": "persian", "pl": "polish", "pt": "portuguese", "ro": "romanian",
    "ru": "russian", "sr": "serbian", "st": "sesotho", "es": "spanish", "sv": "swedish", "ta": "tamil",
    "tr": "turkish", "yi": "yiddish",
    "zh": "chinese", "ja": "japanese", "ko": "korean",
}
# fmt: on
CODES: dict[str, str] = {name: code for code, name in reversed(LANGUAGES.items())}  # name -> its first code


def language_code(value: str) -> str | None:
    """The known ISO 639-1 code of a BCP 47 tag or language name ("pt-BR" -> "pt", "German" -> "de"), else None."""
    tag = value.strip().replace("_", "-").lower()
    primary = tag.split("-", 1)[0]
    if primary in LANGUAGES:
        return primary
    return CODES.get(tag)


def check_language(path: Path | str, line: int | None, value: object) -> str | None:
    """A ``language`` field's code (None when absent); a DataError naming the file, line and field otherwise."""
    if value is None:
        return None
    code = language_code(value) if isinstance(value, str) else None
    if code is None:
        known = ", ".join(sorted(set(LANGUAGES)))
        raise DataError(
            path,
            f"unknown language {value!r}",
            line=line,
            field="language",
            fix=f"write an ISO 639-1 code (BCP 47 tags such as pt-BR are fine) among: {known}; or leave it out",
        )
    return code
