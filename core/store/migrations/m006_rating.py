"""Schema for rating (filled in by that feature; empty until then)."""

SQL = ""
