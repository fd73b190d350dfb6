"""Configuration: the run's schema, the option groups, and Hydra composition (cached, once per job)."""
