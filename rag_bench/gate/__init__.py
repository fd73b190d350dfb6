"""CI gate and run statistics: paired tests, Holm correction, gate and compare verbs, sweep honesty."""
