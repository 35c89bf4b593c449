"""Smoke test of the Python client that openapi-python-client generates from openapi/openapi.json.

Runs against a live Rehearsal API: health, list tests, create a test (and the 409 of creating it
again), summary. Prints one line per step; exits 1 on the first failed expectation, 2 on bad usage.
The generated package (rehearsal_api_client) must be importable, e.g. PYTHONPATH=<generated dir>:

    python smoke.py --base-url http://127.0.0.1:8080 --name smoke-py
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from http import HTTPStatus
from typing import Any, NoReturn

from rehearsal_api_client import AuthenticatedClient, Client
from rehearsal_api_client.api.dashboard import get_summary
from rehearsal_api_client.api.health import get_health
from rehearsal_api_client.api.tests import create_test, list_tests
from rehearsal_api_client.models import (
    Alert,
    ComplianceResponse,
    CreateTestInput,
    DailySummary,
    HealthResponseStatus,
    LicenseResponse,
    ProblemDetails,
    Provider,
    Summary,
    TestResponse,
    UpcomingTest,
)
from rehearsal_api_client.types import UNSET, Response


class SmokeFailure(Exception):
    pass


def expect_status(operation: str, response: Response[Any], want: HTTPStatus) -> None:
    if response.status_code != want:
        body = response.content.decode("utf-8", "replace").strip()
        raise SmokeFailure(f"{operation}: HTTP {int(response.status_code)}, want {int(want)}: {body}")


# The fields the seed specification types int (decision 0011): the generated models must
# annotate them int (optional ones: int | None | Unset), never float.
INTEGER_FIELDS: dict[type, list[str]] = {
    TestResponse: ["last_score", "history_limit"],
    Summary: ["average_score", "total_tests", "tests_last_night", "total_failures", "total_partial", "namespaces_covered"],
    DailySummary: ["score", "tests", "failures"],
    Alert: ["score", "prev_score"],
    ComplianceResponse: ["period", "total_tests", "avg_score", "namespaces_covered"],
    UpcomingTest: ["last_score"],
    LicenseResponse: ["trial_days_left"],
    CreateTestInput: ["history_limit"],
}


def check_integer_fields() -> None:
    checked = 0
    for model, fields in INTEGER_FIELDS.items():
        # The generated modules postpone annotations (strings such as "int | None | Unset") and
        # import some referenced models only for type checkers, so the text itself is read.
        annotations = model.__annotations__
        for field in fields:
            hint = annotations.get(field)
            members = {member.strip() for member in str(hint).split("|")}
            if "int" not in members or "float" in members:
                raise SmokeFailure(f"types: {model.__name__}.{field} is {hint}, want int")
            checked += 1
    print(f"types: {checked} int fields of the seed are Python int")


def check_optional_fields() -> None:
    # Fields added after the seed are optional (clients of older servers still parse the answers).
    hint = UpcomingTest.__annotations__.get("overdue")
    members = {member.strip() for member in str(hint).split("|")}
    if members != {"bool", "Unset"}:
        raise SmokeFailure(f"types: UpcomingTest.overdue is {hint}, want bool | Unset")
    print("types: UpcomingTest.overdue is bool | Unset")


def run(base_url: str, name: str, namespace: str | None, token: str | None) -> None:
    check_integer_fields()
    check_optional_fields()
    # Every operation but health declares bearer security, so the generated functions are typed
    # for AuthenticatedClient; with REHEARSAL_AUTH_MODE=none a plain Client sends no header at all.
    client: Any = (
        AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=True)
        if token
        else Client(base_url=base_url, raise_on_unexpected_status=True)
    )
    with client:
        health = get_health.sync_detailed(client=client)
        expect_status("getHealth", health, HTTPStatus.OK)
        if health.parsed is None or health.parsed.status != HealthResponseStatus.OK:
            raise SmokeFailure(f"getHealth: want status ok, got {health.content!r}")
        print(f"getHealth: 200 status={health.parsed.status.value}")

        before = list_tests.sync_detailed(client=client)
        expect_status("listTests", before, HTTPStatus.OK)
        if not isinstance(before.parsed, list):
            raise SmokeFailure(f"listTests: body is not a TestResponse array: {before.content!r}")
        for test in before.parsed:
            if test.name == name and (namespace is None or test.namespace == namespace):
                raise SmokeFailure(f"listTests: {name} exists already; pick a fresh --name")
        print(f"listTests: 200 tests={len(before.parsed)}")

        body = CreateTestInput(
            name=name,
            provider=Provider.VELERO,
            source_namespaces=["payments", "payments-db"],
            cron="0 3 * * *",
            namespace=namespace if namespace is not None else UNSET,
        )
        created = create_test.sync_detailed(client=client, body=body)
        expect_status("createTest", created, HTTPStatus.CREATED)
        test = created.parsed
        if not isinstance(test, TestResponse):
            raise SmokeFailure(f"createTest: body is not a TestResponse: {created.content!r}")
        problems = [
            f"{field} {got!r}, want {want!r}"
            for field, got, want in [
                ("name", test.name, name),
                ("provider", test.provider, "velero"),
                ("schedule", test.schedule, body.cron),
                ("sourceNamespaces", test.source_namespaces, body.source_namespaces),
                ("namespace", test.namespace, namespace if namespace is not None else test.namespace),
            ]
            if got != want
        ]
        if problems:
            raise SmokeFailure("createTest: " + "; ".join(problems))
        location = created.headers.get("Location", "")
        if not location.startswith(f"/api/v1/tests/{name}"):
            raise SmokeFailure(f"createTest: Location header {location!r} does not name the new test")
        print(f"createTest: 201 {test.namespace}/{test.name} location={location}")

        again = create_test.sync_detailed(client=client, body=body)
        expect_status("createTest (again)", again, HTTPStatus.CONFLICT)
        if not isinstance(again.parsed, ProblemDetails) or again.parsed.status != HTTPStatus.CONFLICT:
            raise SmokeFailure(f"createTest (again): 409 without a problem+json body: {again.content!r}")
        print(f"createTest (again): 409 type={again.parsed.type_}")

        # The summary reads the informer cache, which sees the new test a moment after the write.
        want_total = len(before.parsed) + 1
        deadline = time.monotonic() + 15
        while True:
            response = get_summary.sync_detailed(client=client)
            expect_status("getSummary", response, HTTPStatus.OK)
            summary = response.parsed
            if not isinstance(summary, Summary):
                raise SmokeFailure(f"getSummary: body is not a Summary: {response.content!r}")
            if summary.total_tests >= want_total or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        if summary.total_tests < want_total:
            raise SmokeFailure(f"getSummary: totalTests {summary.total_tests}, want at least {want_total}")
        if summary.namespaces_covered < 2 or not 0 <= summary.average_score <= 100:
            raise SmokeFailure(f"getSummary: implausible summary {summary.to_dict()}")
        print(
            f"getSummary: 200 totalTests={summary.total_tests:d} "
            f"namespacesCovered={summary.namespaces_covered:d} averageScore={summary.average_score:d}"
        )


def usage_error(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    parser.print_usage(sys.stderr)
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="API base URL, e.g. http://127.0.0.1:8080")
    parser.add_argument("--name", required=True, help="name of the RestoreTest to create; must not exist yet")
    parser.add_argument("--namespace", help="namespace of the RestoreTest; default: the server's namespace")
    parser.add_argument("--token", default=os.environ.get("REHEARSAL_TOKEN"), help="bearer token")
    args = parser.parse_args()
    if not args.base_url.startswith(("http://", "https://")):
        usage_error(parser, "--base-url must be an http(s) URL")
    try:
        run(args.base_url, args.name, args.namespace, args.token)
    except SmokeFailure as failure:
        print(f"error: {failure}", file=sys.stderr)
        sys.exit(1)
    print("python smoke: ok")


if __name__ == "__main__":
    main()
