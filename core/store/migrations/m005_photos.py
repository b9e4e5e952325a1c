"""Schema for photos (filled in by that feature; empty until then)."""

SQL = ""
