"""Metrics workspace (SPEC §7)."""
