"""Return a larger unit than the one searched (``expand=parent|window|merge``): sections, windows, auto-merging."""
