"""The command's start-up without the cyclic garbage collector: paused while it imports and composes, resumed
when its first job starts, with what start-up made frozen out of the collector's sight.

The 170k objects that imports and Hydra's composition make set off about 250 collections during start-up
(0.05 s at 10k chunks), and each full collection in the stages walks them all again (0.1-0.15 s more). Only
the ``rag-bench`` command pauses it (``hydra_app.run_hydra``); a Python caller's process is never touched.
"""

from __future__ import annotations

import gc

_PAUSED = {"by us": False}


def pause_collection() -> None:
    """Stop collecting cyclic garbage until ``resume_collection`` (nothing when it is already off)."""
    if gc.isenabled():
        gc.disable()
        _PAUSED["by us"] = True


def resume_collection() -> None:
    """Once, if ``pause_collection`` paused it: move every object made so far out of the collector's sight for good
    (``gc.freeze``: the modules, classes and configs a run keeps, and start-up's own cyclic garbage, about 11k
    objects and a few MB at 10k chunks, which is then never freed), and collect again."""
    if _PAUSED["by us"]:
        _PAUSED["by us"] = False
        gc.freeze()
        gc.enable()


def paused() -> bool:
    """Whether ``pause_collection`` holds the collector off now."""
    return _PAUSED["by us"]
