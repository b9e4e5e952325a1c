"""The API key of a proposal endpoint: from the environment or the OS keyring, never
from (or into) a project file.

``WINNOW_PROPOSE_API_KEY`` wins when set (CI, scripts, a shared machine); otherwise the
OS keyring (Keychain, Windows Credential Locker, Secret Service) holds one key per
endpoint URL, through the optional ``keyring`` package (``winnow[keyring]``).  Without
it, or without a keyring service (a headless server), only the environment works, and
the messages say so.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from core import extras

KEY_ENV = "WINNOW_PROPOSE_API_KEY"
SERVICE = "winnow-propose"


class KeyStoreError(Exception):
    """The key cannot be kept in the OS keyring (message says why and what to do)."""


def account(base_url: str) -> str:
    """The keyring account name for an endpoint: its scheme, host, port and path (never
    a user name or password written into the URL: keyrings show account names)."""
    from core.http_pools import HIDDEN, shown_url

    text = base_url.strip()
    if not urlsplit(text).netloc and shown_url(text).startswith(f"{HIDDEN}@"):
        text = "//" + shown_url(text)  # the scheme forgotten: 'alice:pw@host/v1' (ADR 208)
    parts = urlsplit(text)
    host = parts.netloc.rpartition("@")[2]
    return f"{parts.scheme}://{host}{parts.path.rstrip('/')}".lower()


def _keyring() -> Any:
    """The keyring module when the [keyring] extra is installed (its backends vary by OS,
    so it is used as an untyped module)."""
    if not extras.available("keyring"):
        return None
    import keyring

    return keyring


def api_key(base_url: str) -> tuple[str | None, str]:
    """(key, where it came from: "environment", "keyring" or "none")."""
    env = os.environ.get(KEY_ENV, "").strip()
    if env:
        return env, "environment"
    kr = _keyring()
    if kr is None or not base_url.strip():
        return None, "none"
    try:
        key = kr.get_password(SERVICE, account(base_url))
    except Exception:  # noqa: BLE001 - no keyring service, a locked one: no key
        return None, "none"
    return (key, "keyring") if key else (None, "none")


def store_key(base_url: str, key: str) -> None:
    """Keep ``key`` for ``base_url`` in the OS keyring (an empty key removes it)."""
    kr = _keyring()
    if kr is None:
        raise KeyStoreError(extras.missing_message(
            "keyring", "Keeping the API key in the OS keyring")
            + f"\nOr set {KEY_ENV} in the environment instead.")
    try:
        if key:
            kr.set_password(SERVICE, account(base_url), key)
        else:
            try:
                kr.delete_password(SERVICE, account(base_url))
            except kr.errors.PasswordDeleteError:
                pass
    except Exception as exc:  # noqa: BLE001 - NoKeyringError, a locked keyring …
        raise KeyStoreError(f"the OS keyring cannot keep the key ({exc}); set {KEY_ENV} in "
                            "the environment instead") from exc
