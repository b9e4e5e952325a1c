"""The field's exchange formats: Hugging Face dataset folders (parquet shards with
embedded images and a dataset card) out and in, and parquet tables of results.

Everything here needs the optional ``pyarrow`` package (``pip install
'winnow[parquet]'``, ADR 100); :func:`core.interop.deps.require_pyarrow` says so by name
when it is missing.  Nothing here imports Qt.
"""
