"""Per-feature schema migrations, applied in the order listed in ``core.store.schema``.

Each module exposes ``SQL`` (statements run in one transaction).  Never edit a
migration once it has been released: add a new module instead.
"""
