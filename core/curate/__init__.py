"""Curate: sample list queries, sample detail, undoable edits, fill-in-the-blank, export.

Qt-free, so the CLI, the tests and the GUI share the same code.
"""
