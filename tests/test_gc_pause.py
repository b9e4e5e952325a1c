"""The collector pause around bulk parsing: off inside, as it was afterwards, even when
the block raises (a malformed CSV) or nests."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from core.gc_pause import paused_gc
from core.stats import csvcolumns, tables
from core.stats.tables import CsvFormatError


def test_paused_inside_restored_after_and_nested() -> None:
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block leaves the outer pause alone
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # off before: stays off
    finally:
        gc.enable()


def test_restored_when_the_block_raises() -> None:
    with pytest.raises(ZeroDivisionError), paused_gc():
        1 / 0  # noqa: B018
    assert gc.isenabled()


def test_a_csv_read_pauses_and_restores_it(tmp_path: Path, monkeypatch) -> None:
    seen: list[bool] = []
    real = csvcolumns.CsvColumns._parse_slow

    def spy(self, wanted):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return real(self, wanted)

    monkeypatch.setattr(csvcolumns.CsvColumns, "_parse_slow", spy)
    good = tmp_path / "good.csv"
    good.write_text("a,b,winner\nm1,m2,a\n")
    assert len(tables.read_votes(good)) == 1
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,winner\nm1,m2\n")
    with pytest.raises(CsvFormatError, match="row 2"):
        tables.read_votes(bad)
    assert seen == [False, False]
    assert gc.isenabled()
