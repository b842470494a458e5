"""The API's error responses, documented once for every operation.

Views declare the successes and the errors peculiar to them (a 409 where a service
raises `Conflict`, say) with `extend_schema`; the postprocessing hook below adds the
errors every operation of a kind can give, and the body every error has: RFC 9457
problem details as `core.api.exceptions` answers them (`application/problem+json`,
core/api/problems.py), `ValidationProblem` for 400s and `Problem` for the rest.

Which operations give which error, and why:

* 401 on every operation that needs credentials (all but obtaining a token): none
  sent, or a token that is unknown, expired or revoked; WWW-Authenticate names the
  schemes (Bearer and Token, the same key). Obtaining a token declares its own 401,
  for a username and password that match no active user.
* 403 on the same writes (a session without its CSRF token, or a known caller whose
  persona may not act) and on the reads that refuse a persona outright
  (FORBIDDEN_READS); other reads answer 404 or an empty list instead.
* 404 where the path names an object (unknown, or one the caller may not see:
  ids leak nothing), and on paginated lists (a page past the end).
* 400 where there is a body to validate, or query parameters to validate (filters,
  a calibration scope).
* 415 where there is a body: it must be JSON.
* 429 on every operation: the caller went over its rate (API_ANON_RATE, API_USER_RATE);
  Retry-After says when to try again.
* 503 on every operation: the database was unreachable (core/http/middleware.py);
  Retry-After says when to try again.
"""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiResponse

from core.api.problems import PROBLEM_JSON, TYPE_PREFIX

PROBLEM = "Problem"
VALIDATION_PROBLEM = "ValidationProblem"

COMPONENTS: dict[str, dict[str, Any]] = {
    PROBLEM: {
        "type": "object",
        "description": (
            "RFC 9457 problem details. Branch on `code` (stable), not on `detail` (for "
            "people). Some problems carry more members (a 413's `limit`)."
        ),
        "properties": {
            "type": {
                "type": "string",
                "description": f"`{TYPE_PREFIX}` followed by the code.",
                "example": f"{TYPE_PREFIX}scorecard_already_submitted",
            },
            "title": {"type": "string", "example": "Scorecard already submitted"},
            "status": {"type": "integer", "example": 409},
            "detail": {
                "type": "string",
                "example": "This scorecard was already submitted at 2026-12-01 09:12 UTC.",
            },
            "code": {
                "type": "string",
                "description": (
                    "What went wrong, machine-readable: `validation_error`, "
                    "`not_authenticated`, `authentication_failed`, `token_expired`, "
                    "`token_revoked`, `permission_denied`, `not_found`, "
                    "`method_not_allowed`, `unsupported_media_type`, `parse_error`, "
                    "`throttled`, `locked_out`, `request_too_large`, `bad_query`, "
                    "`input_refused`, `database_unavailable`, `server_error`, or the "
                    "business rule broken (`scorecard_already_submitted`, "
                    "`hire_waits_for_scorecards`, `interview_clash`, `loop_decided`, ...)."
                ),
                "example": "scorecard_already_submitted",
            },
            "instance": {"type": "string", "description": "The request's path."},
        },
        "required": ["type", "title", "status", "detail", "code"],
    },
    VALIDATION_PROBLEM: {
        "allOf": [
            {"$ref": f"#/components/schemas/{PROBLEM}"},
            {
                "type": "object",
                "properties": {
                    "errors": {
                        "type": "object",
                        "description": (
                            "Each failed field's dotted path (`ratings.0.rating`; "
                            "`non_field_errors` for the body as a whole) and its errors. "
                            "Absent when the problem is not about fields (a business rule "
                            "broken, a body that is not JSON)."
                        ),
                        "additionalProperties": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "code": {"type": "string", "example": "max_length"},
                                    "detail": {"type": "string"},
                                },
                                "required": ["code", "detail"],
                            },
                        },
                        "example": {
                            "title": [
                                {
                                    "code": "max_length",
                                    "detail": "Ensure this field has no more than 120 characters.",
                                }
                            ]
                        },
                    }
                },
            },
        ],
    },
}

DESCRIPTIONS = {
    400: "Invalid input.",
    401: "No credentials, or a token that is unknown, expired or revoked.",
    403: "Signed in, but not allowed to do this.",
    404: "No such object, or not one the caller may see.",
    409: "Conflicts with a change already made.",
    412: "The object changed since it was read: If-Match no longer matches its ETag.",
    413: "The request body is too large.",
    415: "The request body is not JSON.",
    422: "The Idempotency-Key was used before with a different request.",
    429: "Too many requests: over the caller's rate. Try again after Retry-After seconds.",
    503: "The database is unreachable for a moment. Try again after Retry-After seconds.",
}
# Errors any operation can give, whatever it is: throttling and a database outage.
ANYWHERE = {429, 503}
RETRY_AFTER = {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}}
CHALLENGE = {
    "WWW-Authenticate": {
        "description": "The schemes to sign in with.",
        "schema": {"type": "string", "example": 'Bearer realm="api", Token realm="api"'},
    }
}

HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


class TokenSchemes(OpenApiAuthenticationExtension):
    """The API token, documented as either scheme a client may send it under.

    Generators default to `Authorization: Bearer <key>`; DRF's own prefix is `Token`.
    Either works (core/accounts/tokens.py), so the schema offers both, as alternatives.
    """

    target_class = "core.accounts.tokens.ExpiringTokenAuthentication"
    name = ["bearerAuth", "tokenAuth"]
    priority = 1

    def get_security_requirement(self, auto_schema: Any) -> list[dict[str, list[Any]]]:
        return [{"bearerAuth": []}, {"tokenAuth": []}]

    def get_security_definition(self, auto_schema: Any) -> list[dict[str, Any]]:
        return [
            {
                "type": "http",
                "scheme": "bearer",
                "description": "The key from POST /api/v1/auth/token/: "
                "`Authorization: Bearer <key>`.",
            },
            {
                "type": "apiKey",
                "in": "header",
                "name": "Authorization",
                "description": "The same key with DRF's prefix: `Authorization: Token <key>`.",
            },
        ]


def error(description: str) -> OpenApiResponse:
    """Document an error peculiar to one operation (a 409, a 404 without an id) for
    `extend_schema`; the hook gives it the error body."""
    return OpenApiResponse(description=description)


def _ref(name: str) -> dict[str, Any]:
    return {PROBLEM_JSON: {"schema": {"$ref": f"#/components/schemas/{name}"}}}


# Reads that answer 403 to a persona who may not make them (instead of an empty list
# or a 404), by operation id: core's webhooks (recruiters and leads), and the apps'
# reads they register beside their views (forbidden_reads_register).
FORBIDDEN_READS: set[str] = {"webhooks_list"}


def forbidden_reads_register(*operation_ids: str) -> None:
    """Say that these reads refuse a persona who may not make them (403 in the schema)."""
    FORBIDDEN_READS.update(operation_ids)


def _errors(method: str, operation: dict[str, Any]) -> set[int]:
    parameters = operation.get("parameters", [])
    query = {p["name"] for p in parameters if p["in"] == "query"}
    codes: set[int] = set(ANYWHERE)
    if operation.get("security"):
        codes.add(401)
        # 403: a write from a session without its CSRF token, or a persona refused
        # outright (the reads that refuse rather than hide: FORBIDDEN_READS).
        if method != "get" or operation.get("operationId") in FORBIDDEN_READS:
            codes.add(403)
    if operation.get("requestBody"):
        codes |= {400, 413, 415}
    if query - {"page", "page_size"}:  # a bad page_size falls back to the default
        codes.add(400)
    if any(p["in"] == "path" for p in parameters) or "page" in query:
        codes.add(404)
    return codes


# Response members that may be absent, as (component, member): a problem's instance
# (errors outside a request), and what the apps register (optional_members_register):
# a serializer that sends some members only to some readers, or only for some kinds,
# says so beside its own definition, so this module names no component of theirs.
OPTIONAL: set[tuple[str, str]] = {(PROBLEM, "instance")}


def optional_members_register(component: str, *members: str) -> None:
    """Let the response component's `members` be absent (not required in the schema)."""
    OPTIONAL.update((component, member) for member in members)


def require_response_fields(
    result: dict[str, Any], generator: Any, **kwargs: Any
) -> dict[str, Any]:
    """Mark every member of a response component required: serializers always send them.

    drf-spectacular marks a model field with a default (a blank-able text, a boolean)
    optional even in a response, and generated clients then type it `Unset | T`. Request
    components (`*Request`, with COMPONENT_SPLIT_REQUEST) keep what the serializer says.
    """
    for name, schema in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request") or "properties" not in schema:
            continue
        given = set(schema.pop("required", []))
        required = [
            key for key in schema["properties"] if key in given or (name, key) not in OPTIONAL
        ]
        if required:  # OpenAPI 3.0 allows no empty list here
            schema["required"] = required
    return result


def add_error_responses(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """Add the errors each operation can give, and the body of every error response."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(COMPONENTS)
    for methods in result.get("paths", {}).values():
        for method, operation in methods.items():
            if method not in HTTP_METHODS:
                continue
            responses = operation.setdefault("responses", {})
            for code in sorted(_errors(method, operation)):
                responses.setdefault(str(code), {"description": DESCRIPTIONS[code]})
            for code, response in responses.items():
                if code[0] in "45" and "content" not in response:
                    response["content"] = _ref(VALIDATION_PROBLEM if code == "400" else PROBLEM)
                    if not response.get("description"):
                        response["description"] = DESCRIPTIONS.get(int(code), "")
                if int(code) in ANYWHERE:
                    response.setdefault("headers", RETRY_AFTER)
                if code == "401":
                    response.setdefault("headers", CHALLENGE)
            operation["responses"] = dict(sorted(responses.items()))
    return result


IDEMPOTENCY_KEY = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    "schema": {"type": "string", "maxLength": 255},
    "description": "Any unique string, up to 255 characters. A retry with the same key "
    "within 24 hours answers the first answer again (Idempotent-Replayed: true) instead "
    "of creating a second object; the same key with another body is a 422.",
}
IF_MATCH = {
    "in": "header",
    "name": "If-Match",
    "required": False,
    "schema": {"type": "string"},
    "description": "The ETag of the object as you read it: if it changed since, nothing "
    "is written and the answer is 412.",
}
ETAG = {
    "ETag": {"description": "The object's version, for If-Match.", "schema": {"type": "string"}}
}
LOCATION = {
    "Location": {"description": "The path of what was created.", "schema": {"type": "string"}}
}


def _has_id(response: dict[str, Any], components: dict[str, Any]) -> bool:
    """Whether a response's JSON body is an object with an ``id`` (what Location names)."""
    body = response.get("content", {}).get("application/json", {}).get("schema", {})
    if "$ref" in body:
        body = components.get(body["$ref"].rsplit("/", 1)[-1], {})
    return "id" in body.get("properties", {})


def add_http_conventions(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """Document Idempotency-Key and Location on creating POSTs, ETag and If-Match on writes.

    What core/api/idempotency.py, core.http.middleware.CreatedLocationMiddleware and
    core/api/etags.py do: a creating POST is one answering 201 or 202; an object that can
    be PUT or PATCH carries an ETag on its GET, PUT and PATCH.
    """
    components = result.get("components", {}).get("schemas", {})
    for methods in result.get("paths", {}).values():
        writable = bool({"put", "patch"} & set(methods))
        for method, operation in methods.items():
            if method not in HTTP_METHODS:
                continue
            responses = operation.get("responses", {})
            created = [code for code in ("201", "202") if code in responses]
            if method == "post" and created:
                operation.setdefault("parameters", []).append(IDEMPOTENCY_KEY)
                responses.setdefault("400", {"description": DESCRIPTIONS[400]})  # a bad key
                responses.setdefault("422", {"description": DESCRIPTIONS[422]})
                for code in created:
                    if _has_id(responses[code], components):
                        responses[code].setdefault("headers", {}).update(LOCATION)
            if writable and method in ("get", "put", "patch") and "200" in responses:
                responses["200"].setdefault("headers", {}).update(ETAG)
            if writable and method in ("put", "patch"):
                operation.setdefault("parameters", []).append(IF_MATCH)
                responses.setdefault("412", {"description": DESCRIPTIONS[412]})
    return result


def _type_of(schema: dict[str, Any], components: dict[str, Any]) -> str | None:
    if "$ref" in schema:
        schema = components.get(schema["$ref"].rsplit("/", 1)[-1], {})
    kind = schema.get("type")
    return kind if isinstance(kind, str) else "object" if "properties" in schema else None


def _allows_null(schema: dict[str, Any], components: dict[str, Any]) -> bool:
    if "$ref" in schema:
        schema = components.get(schema["$ref"].rsplit("/", 1)[-1], {})
    return None in schema.get("enum", [])


def type_nullable_schemas(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """Give every `nullable` schema the `type` beside it that OpenAPI 3.0 asks for.

    drf-spectacular writes a nullable reference as `allOf: [$ref], nullable: true` and a
    nullable choice as `oneOf: [Enum, NullEnum], nullable: true`, with no `type`, which
    OpenAPI 3.0 leaves undefined (Redocly's nullable-type-sibling). And `nullable` does
    not reach into `allOf`, so a strict validator (Spectral's) refuses null there. Here
    a reference becomes a choice of it or null, as drf-spectacular writes a nullable
    choice; a choice whose branches already allow null drops the outer flag; a union
    of scalars carries the flag on each branch instead. And an operation that needs no
    credentials says so with `security: []` rather than by silence.
    """
    components = result.get("components", {}).get("schemas", {})
    null = {"$ref": "#/components/schemas/NullEnum"}

    def fix(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                fix(item)
            return
        if not isinstance(node, dict):
            return
        if node.get("nullable") and "type" not in node:
            branches = node.get("allOf") or node.get("oneOf") or node.get("anyOf") or []
            if "allOf" in node and len(branches) == 1 and "$ref" in branches[0]:
                components.setdefault("NullEnum", {"enum": [None]})
                del node["nullable"], node["allOf"]
                node["oneOf"] = [branches[0], null]
            elif "allOf" in node and len(branches) == 1 and _type_of(branches[0], components):
                node["type"] = _type_of(branches[0], components)
            elif any(_allows_null(branch, components) for branch in branches):
                del node["nullable"]
            elif branches and all("type" in branch for branch in branches):
                del node["nullable"]
                for branch in branches:
                    branch["nullable"] = True
        for value in node.values():
            fix(value)

    fix(components)
    fix(result.get("paths", {}))
    for methods in result.get("paths", {}).values():
        for method, operation in methods.items():
            if method in HTTP_METHODS:
                operation.setdefault("security", [])
    return result
