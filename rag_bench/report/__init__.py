"""Reports: a run's explorer page (``run/``), the diff of two runs (``diff/``), a sweep's report (``sweep/``)."""
