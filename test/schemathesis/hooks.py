"""Schemathesis hooks for Rehearsal's API (test/integration/schemathesis.test.ts runs them).

CreateTestInput has rules JSON Schema cannot state; its description in openapi/openapi.json lists
them and the server answers 400 naming the field. A *schema-valid* (positive) case generated at
random breaks them easily (a reversed cron range such as 5-3, a made-up time zone, alertOnExceed
without maxRTO, a PUT body naming another test), and the positive_data_acceptance check would then
report the server's correct 400 as a failure. The sandbox ttl is capped by the installation (168h here). Two more depend on state, not on shape: a RestoreTest is
created in a namespace that exists (the server's own, rehearsal-system, in these runs), and a
`continue` token of GET /api/v1/reports is opaque, valid only as the server issued it. The
restore transforms (`restore`) have three such rules: patch names are unique, `from` belongs to copy
and move (and only to them), and a `when` value is not null. The subset of a restore
(`labelSelector`, `includedResources`) has four: a label key's syntax in matchLabels (a map's keys
have no pattern in OpenAPI 3.0) and at most 16 of them, In/NotIn have values and Exists/DoesNotExist
none, a resource type is listed once, and provider trilio does not take both. The backup selection
(`backupSelect`) has two: randomWithin needs a window of 1h to 8784h and backup latest, latest takes
no window. The schedule (issue 32) has three: cron is required unless onBackup is true,
everyNthBackup needs onBackup true, and onBackup needs backup latest. These hooks
bring positive cases within those rules and nothing else: negative (schema-violating) cases are left exactly as generated, and every
other field of a positive case keeps its generated value.
"""
import re

import schemathesis

CRON_MACROS = {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}
# Fields of a cron expression: (lowest, highest) value, and names where they exist.
CRON_FIELDS = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]
MONTH_NAMES = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
DAY_NAMES = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"}
# Zones every runtime knows; a generated zone outside them is replaced.
TIME_ZONES = {"UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney"}


def _cron_field_ok(text: str, position: int) -> bool:
    """A conservative subset of what the server accepts: *, */N, one value or one name."""
    low, high = CRON_FIELDS[position]
    if text == "*":
        return True
    step = re.fullmatch(r"\*/([0-9]{1,2})", text)
    if step:
        return int(step.group(1)) >= 1
    if re.fullmatch(r"[0-9]{1,2}", text):
        value = int(text)
        # Days 29-31 do not exist in every month; keep the day of month within 1-28.
        return low <= value <= (28 if position == 2 else high)
    lowered = text.lower()
    return (position == 3 and lowered in MONTH_NAMES) or (position == 4 and lowered in DAY_NAMES)


def _cron_ok(cron: str) -> bool:
    trimmed = cron.strip(" ")
    if trimmed.startswith("@"):
        return trimmed in CRON_MACROS
    fields = [field for field in trimmed.split(" ") if field]
    return len(fields) == 5 and all(_cron_field_ok(field, i) for i, field in enumerate(fields))


def _is_positive(case) -> bool:
    meta = case.meta
    return meta is not None and meta.generation.mode.is_positive


# The installation's sandbox ttl cap (decision 0009; REHEARSAL_MAX_SANDBOX_TTL, not set in these runs).
MAX_SANDBOX_TTL_SECONDS = 168 * 3600


def _seconds(ttl):
    """Seconds of a ttl such as 1h, 15m or 11m35s; None when it is not of that shape."""
    if not isinstance(ttl, str):
        return None
    match = re.fullmatch(r"(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?", ttl)
    if not match or ttl == "":
        return None
    hours, minutes, seconds = (int(part or 0) for part in match.groups())
    return hours * 3600 + minutes * 60 + seconds


# Namespaces that exist on the server under test (the server's default is rehearsal-system).
EXISTING_NAMESPACES = {"", None, "rehearsal-system"}


def _restore_ok(restore):
    """The restore block within the rules JSON Schema cannot state (see the module docstring)."""
    restore = dict(restore)
    patches = restore.get("patches")
    if not isinstance(patches, list):
        return restore
    fixed, seen = [], set()
    for index, patch in enumerate(patches):
        if not isinstance(patch, dict):
            fixed.append(patch)
            continue
        patch = dict(patch)
        if patch.get("name") in seen:
            patch["name"] = f"p{index}"
        seen.add(patch.get("name"))
        if isinstance(patch.get("when"), list):
            patch["when"] = [
                {**condition, "value": 0} if isinstance(condition, dict) and condition.get("value") is None else condition
                for condition in patch["when"]
            ]
        if isinstance(patch.get("operations"), list):
            operations = []
            for operation in patch["operations"]:
                if isinstance(operation, dict):
                    operation = dict(operation)
                    if operation.get("op") in ("copy", "move"):
                        operation.setdefault("from", "/a")
                    else:
                        operation.pop("from", None)
                operations.append(operation)
            patch["operations"] = operations
        fixed.append(patch)
    restore["patches"] = fixed
    return restore


LABEL_NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")
LABEL_PREFIX = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def _label_key_ok(key) -> bool:
    if not isinstance(key, str):
        return False
    prefix, slash, name = key.rpartition("/")
    if not slash:
        return LABEL_NAME.fullmatch(key) is not None
    return len(prefix) <= 253 and LABEL_PREFIX.fullmatch(prefix) is not None and LABEL_NAME.fullmatch(name) is not None


def _subset_ok(body) -> None:
    """labelSelector and includedResources within the rules JSON Schema cannot state (in place)."""
    selector = body.get("labelSelector")
    if isinstance(selector, dict):
        selector = dict(selector)
        labels = selector.get("matchLabels")
        if isinstance(labels, dict):
            selector["matchLabels"] = dict([(key, value) for key, value in labels.items() if _label_key_ok(key)][:16])
        expressions = selector.get("matchExpressions")
        if isinstance(expressions, list):
            fixed = []
            for requirement in expressions:
                if isinstance(requirement, dict):
                    requirement = dict(requirement)
                    if requirement.get("operator") in ("In", "NotIn"):
                        if not requirement.get("values"):
                            requirement["values"] = ["a"]
                    else:
                        requirement.pop("values", None)
                fixed.append(requirement)
            selector["matchExpressions"] = fixed
        body["labelSelector"] = selector
    types = body.get("includedResources")
    if isinstance(types, list):
        kept, seen = [], set()
        for entry in types:
            key = (entry.get("group") or "", entry.get("resource")) if isinstance(entry, dict) else None
            if key is not None and key in seen:
                continue
            if key is not None:
                seen.add(key)
            kept.append(entry)
        body["includedResources"] = kept
    if body.get("provider") == "trilio" and body.get("labelSelector") is not None and body.get("includedResources") is not None:
        body.pop("includedResources")


def _backup_select_ok(body) -> None:
    """backupSelect within its rules (in place): randomWithin with a 1h-8784h window and backup latest."""
    select = body.get("backupSelect")
    if not isinstance(select, dict):
        return
    select = dict(select)
    if select.get("strategy") == "randomWithin":
        within = _seconds(select.get("within"))
        if within is None or not 3600 <= within <= 8784 * 3600:
            select["within"] = "720h"
        if body.get("backupName") not in (None, "", "latest"):
            body["backupName"] = "latest"
    elif select.get("within") not in (None, ""):
        select.pop("within")
    body["backupSelect"] = select


def _schedule_ok(body) -> None:
    """cron, onBackup and everyNthBackup within their rules (in place)."""
    on_backup = body.get("onBackup") is True
    if body.get("cron") is None and not on_backup:
        body["cron"] = "0 3 * * *"
    if body.get("everyNthBackup") is not None and not on_backup:
        body.pop("everyNthBackup")
    if on_backup and body.get("backupName") not in (None, "", "latest"):
        body["backupName"] = "latest"


@schemathesis.hook
def map_case(context, case):
    operation = case.operation
    if operation.path == "/api/v1/reports" and _is_positive(case) and "continue" in (case.query or {}):
        case.query = {key: value for key, value in case.query.items() if key != "continue"}
        return case
    if operation.path not in ("/api/v1/tests", "/api/v1/tests/{name}") or operation.method.upper() not in ("POST", "PUT"):
        return case
    if not _is_positive(case) or not isinstance(case.body, dict):
        return case
    # A copy: generated cases can share one body object.
    body = dict(case.body)
    case.body = body
    if isinstance(body.get("cron"), str) and not _cron_ok(body["cron"]):
        body["cron"] = "0 3 * * *"
    if body.get("timezone") not in (None, "") and body["timezone"] not in TIME_ZONES:
        body["timezone"] = "UTC"
    if body.get("alertOnExceed") is True and body.get("maxRTO") in (None, ""):
        body["maxRTO"] = "15m"
    if isinstance(body.get("restore"), dict):
        body["restore"] = _restore_ok(body["restore"])
    _subset_ok(body)
    _backup_select_ok(body)
    _schedule_ok(body)
    ttl = _seconds(body.get("ttl"))
    if ttl is not None and ttl > MAX_SANDBOX_TTL_SECONDS:
        body["ttl"] = "1h"
    if operation.method.upper() == "POST":
        if body.get("namespace") not in EXISTING_NAMESPACES:
            body.pop("namespace")
        # The namespace the request acts on (the query's, decision 0009) must exist too.
        case.query = dict(case.query or {})
        if case.query.get("namespace") not in EXISTING_NAMESPACES:
            case.query.pop("namespace")
    if operation.method.upper() == "PUT":
        # The body may repeat the test's name and namespace, but must not name another test.
        body["name"] = case.path_parameters["name"]
        case.query = dict(case.query or {})
        namespace = case.query.get("namespace")
        if body.get("namespace") not in (None, "") and body["namespace"] != namespace:
            body.pop("namespace")
    return case
