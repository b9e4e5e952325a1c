"""A password or key written into an endpoint's URL is never shown or recorded (ADR 198).

``https://user:password@host/v1`` is how some self-hosted servers behind basic
authentication are reached, and httpx sends those credentials; but the URL also went
verbatim into every failure message (result rows, the jobs panel, the CLI's JSON), into
the parameters stored with each judge metric's results and into a proposal run's record.
"""

from __future__ import annotations

import json
import socket

import pytest
from judge_server import JudgeServer
from metrics_helpers import gradient_image, pair, save

from core.http_pools import shown_url
from core.metrics.registry import get
from core.metrics.runner import evaluate
from core.metrics.settings import JudgeEndpoint, MetricSettings
from core.propose.client import ProposeEndpoint
from core.propose.secrets import account

SECRETS = ("hunter2", "s3cr3t", "tok3n")


@pytest.mark.parametrize(("url", "shown"), [
    ("http://localhost:8000/v1", "http://localhost:8000/v1"),
    ("https://alice:hunter2@judge.example:8443/v1/", "https://***@judge.example:8443/v1/"),
    ("https://hunter2@judge.example/v1", "https://***@judge.example/v1"),
    ("https://h/v1?api-version=2024-06&api_key=s3cr3t&Token=tok3n",
     "https://h/v1?api-version=2024-06&api_key=***&Token=***"),
    ("https://h/v1#access_token=tok3n", "https://h/v1#access_token=***"),
    ("  http://u:p%40ss@h/  ", "http://***@h/"),
])
def test_shown_url_hides_credentials_and_keeps_the_rest(url: str, shown: str) -> None:
    assert shown_url(url) == shown


def test_an_unreadable_url_shows_no_part_that_may_be_secret() -> None:
    text = shown_url("http://alice:hunter2@[::1/v1")
    assert "hunter2" not in text and "alice" not in text
    assert text.startswith("http://")


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_judge_failures_and_parameters_name_no_credentials(tmp_path) -> None:  # type: ignore[no-untyped-def]
    items = [pair(save(gradient_image(seed=2 * k + 1), tmp_path / f"in{k}.png"),
                  save(gradient_image(seed=2 * k + 2), tmp_path / f"out{k}.png"),
                  prompt=f"make sky {k} pink") for k in range(4)]
    with JudgeServer() as server:
        host = server.url.split("//", 1)[1]
        judges = (
            # the server answers 404 for this model: "refused" and "stopped asking"
            JudgeEndpoint(f"http://alice:hunter2@{host}", "nosuchmodel", timeout=2,
                          max_retries=0, backoff=0.01, concurrency=1),
            # nobody listens: "cannot reach …"
            JudgeEndpoint(f"http://bob:s3cr3t@127.0.0.1:{_dead_port()}/v1", "any", timeout=2,
                          max_retries=0, backoff=0.01, concurrency=1),
        )
        settings = MetricSettings(judges=judges)
        metric = get("judge_overall")
        results = evaluate(metric, items, settings)
    assert results and all(r.status == "error" for r in results)
    shown = " ".join(r.error or "" for r in results)
    assert "cannot reach" in shown and "HTTP 404" in shown  # both failures were shown
    assert "***@127.0.0.1" in shown
    params = json.dumps(metric.params(settings))
    assert "***@" in params
    for secret in SECRETS:
        assert secret not in shown and secret not in params


def test_proposal_endpoint_records_and_refusals_name_no_credentials() -> None:
    endpoint = ProposeEndpoint("https://alice:hunter2@h.example/v1?key=s3cr3t", "m")
    assert endpoint.public()["base_url"] == "https://***@h.example/v1?key=***"
    with pytest.raises(ValueError) as err:
        ProposeEndpoint("ftp://alice:hunter2@h.example/v1", "m")
    assert "hunter2" not in str(err.value) and "ftp://***@h.example/v1" in str(err.value)
    assert account("https://alice:hunter2@h.example/v1/") == "https://h.example/v1"
