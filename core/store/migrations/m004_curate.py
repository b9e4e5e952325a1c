"""Schema for curate (filled in by that feature; empty until then)."""

SQL = ""
