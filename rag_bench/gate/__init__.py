"""CI gate and comparison: the gate and compare verbs, their verdicts, Markdown summaries and JUnit XML."""
