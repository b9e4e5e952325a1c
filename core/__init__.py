"""Winnow core: data model, store, ingest, imaging, metrics, statistics. Imports no Qt."""

__version__ = "0.1.0"
