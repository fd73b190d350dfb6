"""A sweep's report: the summary table, marks of the best point and its ties, plots, report.md/.html."""
