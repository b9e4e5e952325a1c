"""Schema for metrics (filled in by that feature; empty until then)."""

SQL = ""
