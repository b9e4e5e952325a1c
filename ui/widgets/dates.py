"""One way to show a date or time: relative when recent, the user's locale otherwise.

Winnow stores times as ISO-8601 (UTC, ``2026-03-01T14:03:00.123+00:00``); posts bring
their own timestamps (``…Z``, naive, or a bare date). Every label, table cell and
tooltip in the UI goes through :func:`format_when` (and :func:`when_tooltip` for the
exact value), never the raw ISO text (ADR 083).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from PySide6.QtCore import QDateTime, QLocale


def parse_when(value: object) -> datetime | None:
    """An aware datetime from ISO text, a ``datetime`` or a ``date``; None if unreadable.

    Naive values are taken as UTC (how Winnow and most exports store them).
    """
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    else:
        text = str(value).strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _locale(locale: QLocale | None) -> tuple[QLocale, str | QLocale.FormatType,
                                             str | QLocale.FormatType]:
    """(locale, date format, time format): the user's short formats; the bare "C" locale
    (no LANG set) reads best as ISO order with a 24-hour clock."""
    locale = locale or QLocale()
    if locale.language() == QLocale.Language.C:
        return QLocale(QLocale.Language.English), "yyyy-MM-dd", "HH:mm"
    short = QLocale.FormatType.ShortFormat
    return locale, short, short


def _qt(moment: datetime) -> QDateTime:
    return QDateTime.fromSecsSinceEpoch(int(moment.timestamp()))


def _is_bare_date(value: object) -> bool:
    return isinstance(value, date) and not isinstance(value, datetime) or (
        isinstance(value, str) and len(value.strip()) == 10)


def format_when(value: object, now: datetime | None = None,
                locale: QLocale | None = None) -> str:
    """``just now``, ``5 min ago``, ``today 14:03``, ``yesterday 09:12``, ``Mon 18:40``
    (within a week), else the locale's short date and time. Unreadable text is shown as
    it is (never an error); empty values give ``""``."""
    moment = parse_when(value)
    if moment is None:
        return "" if value is None else str(value)
    locale, date_format, time_format = _locale(locale)
    stamp = _qt(moment)
    if _is_bare_date(value):
        return locale.toString(stamp.toUTC().date(), date_format)
    now = now or datetime.now(UTC)
    local, local_now = moment.astimezone(), now.astimezone()
    clock = locale.toString(stamp.time(), time_format)
    age = now - moment
    if timedelta(0) <= age < timedelta(minutes=1):
        return "just now"
    if timedelta(0) <= age < timedelta(hours=1):
        return f"{int(age.total_seconds() // 60)} min ago"
    days = (local_now.date() - local.date()).days
    if days == 0:
        return f"today {clock}"
    if days == 1:
        return f"yesterday {clock}"
    if 1 < days < 7:
        return f"{locale.dayName(local.isoweekday(), QLocale.FormatType.ShortFormat)} {clock}"
    return f"{locale.toString(stamp.date(), date_format)} {clock}"


def when_tooltip(value: object, locale: QLocale | None = None) -> str:
    """The exact moment in the locale's long format, with the stored text."""
    moment = parse_when(value)
    if moment is None:
        return "" if value is None else str(value)
    locale = _locale(locale)[0]
    if _is_bare_date(value):
        return locale.toString(_qt(moment).toUTC().date(), QLocale.FormatType.LongFormat)
    return f"{locale.toString(_qt(moment), QLocale.FormatType.LongFormat)}  ({value})"
