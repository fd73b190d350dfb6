"""Configuration: the run's schema, the option groups, and Hydra composition (cached, once per job).

``compose_cache.py`` and ``compose_once.py`` patch Hydra internals, which holds only while
``pyproject.toml`` pins ``hydra-core<1.4`` (docs/architecture.md, "Hydra").
"""
