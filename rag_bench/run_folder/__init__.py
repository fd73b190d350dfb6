"""The run folder's one owner: the files a run writes, reading them back, reuse, and a run's identity."""
