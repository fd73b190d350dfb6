"""One run's report: the explorer page (report.html), its data model, and the console table."""
