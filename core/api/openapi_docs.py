"""What the schema says about each operation beyond its types: summaries and examples.

A summary per operation id, in one table, so a new operation without one fails
tests/core/api/test_openapi.py rather than reaching clients as a bare id; and one
example per success response, built from its schema where the view gives none
(`example_for`), so docs and mock servers show a whole body.
"""

from typing import Any

SUMMARIES = {
    "auth_token_create": "Sign in for an API token",
    "auth_token_destroy": "Revoke your API token",
    "auth_token_rotate_create": "Replace your API token",
    "calibration_history_list": "List past calibration snapshots",
    "calibration_latest_retrieve": "Get the latest calibration snapshot",
    "calibration_runs_create": "Start a calibration run",
    "calibration_runs_retrieve": "Follow a calibration run",
    "candidates_list": "List candidates",
    "candidates_create": "Add a candidate",
    "candidates_retrieve": "Get a candidate",
    "candidates_partial_update": "Update a candidate",
    "candidates_erase_create": "Erase a candidate's personal data",
    "candidates_export_retrieve": "Export everything held about a candidate",
    "competencies_list": "List competencies",
    "competencies_create": "Add a competency",
    "competencies_retrieve": "Get a competency",
    "competencies_partial_update": "Update a competency",
    "interviews_list": "List interviews",
    "interviews_retrieve": "Get an interview",
    "interviews_update": "Set an interview's panel and time",
    "interviews_alternatives_list": "Rank replacements for one of an interview's questions",
    "interviews_reorder_create": "Reorder an interview's questions",
    "interviews_swap_create": "Swap one of an interview's questions",
    "levels_list": "List levels",
    "levels_retrieve": "Get a level",
    "loop_templates_list": "List loop templates",
    "loop_templates_create": "Save a loop template",
    "loop_templates_retrieve": "Get a loop template",
    "loop_templates_update": "Replace a loop template",
    "loops_list": "List loops",
    "loops_create": "Assemble a loop for a candidate",
    "loops_retrieve": "Get a loop",
    "loops_debrief_retrieve": "Read a loop's debrief",
    "loops_decision_create": "Record a loop's hire or no-hire decision",
    "loops_cancel_create": "Cancel an undecided loop, cancelling its open seats",
    "loops_reopen_create": "Reopen a decided or cancelled loop",
    "loops_preview_create": "Preview the loop assembly would build",
    "questions_list": "List questions in the bank",
    "questions_create": "Add a question",
    "questions_retrieve": "Get a question with its versions",
    "questions_update": "Edit a question",
    "roles_list": "List roles",
    "roles_create": "Add a role",
    "roles_retrieve": "Get a role",
    "roles_partial_update": "Update a role",
    "scorecards_list": "List scorecards you may read",
    "scorecards_create": "Start your scorecard for an interview",
    "scorecards_retrieve": "Get a scorecard",
    "scorecards_update": "Save your draft scorecard",
    "scorecards_amend_create": "Amend your submitted scorecard",
    "scorecards_submit_create": "Submit your scorecard",
    "webhooks_list": "List webhook subscriptions",
    "webhooks_create": "Subscribe to webhook events",
    "webhooks_retrieve": "Get a webhook subscription",
    "webhooks_partial_update": "Update a webhook subscription",
    "webhooks_destroy": "Delete a webhook subscription",
    "webhooks_deliveries_list": "List a subscription's deliveries",
    "webhooks_deliveries_replay_create": "Send a delivery again",
    "webhooks_deliveries_retrieve": "Get a delivery",
    # Pools and training (interviews/pools/api.py).
    "pools_list": "List interviewer pools",
    "pools_create": "Make an interviewer pool",
    "pools_retrieve": "Get an interviewer pool",
    "pools_partial_update": "Rename an interviewer pool",
    "pool_memberships_list": "List pool memberships",
    "pool_memberships_create": "Add someone to a pool, qualified or training",
    "pool_memberships_retrieve": "Get a pool membership",
    "pool_memberships_destroy": "Take someone out of a pool",
    "pool_memberships_graduate_create": "Graduate a trainee whose path is complete",
    "interviewer_limits_list": "List interviewers' limits and working hours",
    "interviewer_limits_create": "Set an interviewer's limits and working hours",
    "interviewer_limits_retrieve": "Get an interviewer's limits",
    "interviewer_limits_update": "Replace an interviewer's limits",
    "training_paths_list": "List pools' training paths",
    "training_paths_retrieve": "Get a pool's training path",
    "training_paths_update": "Replace a pool's training path",
    "training_seats_list": "List trainees' shadow and reverse-shadow seats",
    "training_seats_retrieve": "Get a training seat",
    "training_seats_sign_off_create": "Sign a training seat off",
    "loops_staff_create": "Propose panels for a loop from its pools",
    "loops_staff_accept_create": "Seat a loop's panels, with warnings",
}

# The codes each operation's errors can carry (problem details' `code`), beyond the
# ones every operation of its kind can (GENERIC_CODES). tests/core/api/test_openapi.py
# holds every code the services raise to being listed here or in PAGE_ONLY_CODES.
_RATING = [
    "question_not_in_interview", "question_rated_twice", "rating_for_question_not_asked",
    "not_asked_with_answers", "rating_out_of_scale", "rubric_item_foreign",
    "follow_up_foreign", "unknown_recommendation", "loop_decided",
]  # fmt: skip
_TEMPLATE = ["template_without_slots", "unknown_competency"]
_PANEL = [
    "panel_empty", "interviewer_listed_twice", "shadow_is_interviewer", "time_incomplete",
    "time_reversed", "time_in_past", "interview_clash", "interviewer_busy", "loop_decided",
]  # fmt: skip
_EDIT_400 = ["loop_decided", "interview_started"]
_EDIT_403 = ["shadow", "seat_cancelled"]
ERROR_CODES: dict[str, dict[int, list[str]]] = {
    "auth_token_create": {403: ["password_login_off"], 429: ["locked_out"]},
    "candidates_erase_create": {409: ["candidate_already_erased"]},
    "interviews_update": {400: [*_PANEL, "trainee_not_counted"]},
    "pools_create": {
        400: ["pool_target_missing", "pool_target_ambiguous", "level_range_reversed"],
        403: ["pool_not_kept"],
    },
    "pools_partial_update": {403: ["pool_not_kept"]},
    "pool_memberships_create": {403: ["pool_not_kept"], 409: ["already_in_pool"]},
    "pool_memberships_destroy": {403: ["pool_not_kept"], 409: ["already_removed"]},
    "pool_memberships_graduate_create": {
        403: ["pool_not_kept"],
        409: ["not_training", "path_incomplete"],
    },
    "interviewer_limits_create": {
        400: ["hours_reversed", "week_below_day"],
        403: ["limits_not_yours"],
    },
    "interviewer_limits_update": {
        400: ["hours_reversed", "week_below_day"],
        403: ["limits_not_yours"],
    },
    "training_paths_update": {400: ["path_empty"], 403: ["pool_not_kept"]},
    "training_seats_sign_off_create": {
        400: ["note_required"],
        403: ["own_sign_off", "not_trainer"],
        409: ["already_signed_off", "not_training"],
    },
    "loops_staff_accept_create": {
        400: [*_PANEL, "trainee_not_counted", "not_training", "shadows_first"],
    },
    # Who may change an interview's questions, and until when: interviews/editing.py.
    "interviews_alternatives_list": {403: _EDIT_403},
    "interviews_swap_create": {
        400: ["question_not_eligible", "question_rated", *_EDIT_400],
        403: _EDIT_403,
    },
    "interviews_reorder_create": {400: ["order_incomplete", *_EDIT_400], 403: _EDIT_403},
    "loop_templates_create": {400: _TEMPLATE},
    "loop_templates_update": {400: [*_TEMPLATE, "template_moved"]},
    "loops_create": {
        400: ["no_loop_template"],
        403: ["role_not_owned"],
        409: ["candidate_has_open_loop"],
    },
    "loops_preview_create": {400: ["no_loop_template"]},
    "loops_decision_create": {
        400: [
            "unknown_decision",
            "rationale_missing",
            "rationale_required",
            "hire_waits_for_interviews",
            "hire_waits_for_interview_end",
            "hire_waits_for_scorecards",
        ],
        409: ["loop_already_decided", "loop_closed"],
    },
    "loops_cancel_create": {400: ["reason_missing"], 409: ["loop_closed"]},
    "loops_reopen_create": {400: ["reason_missing"], 409: ["loop_open"]},
    "questions_create": {400: ["unknown_status"]},
    "questions_update": {400: ["unknown_status"]},
    "scorecards_create": {400: ["loop_decided"]},
    "scorecards_update": {
        400: _RATING,
        409: ["scorecard_already_submitted", "question_swapped"],
        412: ["scorecard_changed_elsewhere"],
    },
    "scorecards_submit_create": {
        400: [
            "scorecard_incomplete",
            "scorecard_too_few_rated",
            "not_asked_reason_missing",
            "recommendation_missing",
            "loop_decided",
            "interview_not_started",
            "interview_not_scheduled",
        ],
        409: ["scorecard_already_submitted"],
    },
    "scorecards_amend_create": {
        400: [
            "amendment_of_draft",
            "amendment_reason_missing",
            "recommendation_missing",
            "amendment_empty",
            "scorecard_incomplete",
            "scorecard_too_few_rated",
            "not_asked_reason_missing",
            *_RATING,
        ],
        409: ["question_swapped"],
    },
    "webhooks_create": {400: ["webhook_target_private"], 403: ["webhook_details_forbidden"]},
    "webhooks_partial_update": {
        400: ["webhook_target_private"],
        403: ["webhook_details_forbidden"],
    },
    "webhooks_deliveries_replay_create": {409: ["webhook_subscription_inactive"]},
}
# What any operation's response of that status can carry.
GENERIC_CODES: dict[int, list[str]] = {
    400: ["validation_error", "parse_error", "too_deep", "bad_query", "input_refused"],
    401: ["not_authenticated", "authentication_failed", "token_expired", "token_revoked"],
    403: ["permission_denied"],
    404: ["not_found"],
    405: ["method_not_allowed"],
    412: ["precondition_failed"],
    413: ["request_too_large"],
    415: ["unsupported_media_type"],
    429: ["throttled"],
    503: ["database_unavailable"],
}  # fmt: skip
# What a POST sent with an Idempotency-Key can answer besides (core/api/idempotency.py).
IDEMPOTENCY_CODES: dict[int, list[str]] = {
    400: ["idempotency_key_invalid"],
    409: ["idempotency_key_in_flight"],
    422: ["idempotency_key_reused"],
}
# Raised by services behind the pages only (calibration exercises, the scorecard form).
PAGE_ONLY_CODES = {
    "exercise_too_few_answers", "exercise_title_missing", "exercise_not_invited",
    "exercise_no_invitees", "exercise_closed", "exercise_answer_unknown",
    "exercise_answer_empty", "exercise_already_closed", "exercise_title_not_one_line",
    "rating_not_a_number", "bad_ids",
    "bad_question_id",
    # Taking an interview out of its loop is a page's (interviews.views.interview_remove).
    "interview_has_scorecards", "loop_needs_an_interview",
    # Role owners are set on a recruiter's page (kit.views.role_owners).
    "role_owner_inactive",
    # Adding an interview to an open loop is a page's (interviews.views.interview_add).
    "competency_unknown",
    # Linking a provider identity is the admin's and manage.py link_identity's.
    "linked_elsewhere", "account_linked",
}  # fmt: skip

_BY_FORMAT = {
    "date-time": "2026-12-01T09:00:00Z",
    "date": "2026-12-01",
    "email": "ada@example.com",
    "uri": "https://ats.example.com/hooks/interview-kit",
    "uuid": "3f0c5d3e-8a5e-4a53-9c5b-2f6a1c1e9b7d",
}
# Property names whose example reads better as the product's own words than as "string".
_BY_NAME = {
    "name": "Ada Lovelace",
    "username": "demo-interviewer-1",
    "interviewer": "demo-interviewer-1",
    "by": "demo-recruiter",
    "role": "AI Infrastructure Engineer",
    "level": "L5",
    "title": "Distributed training at scale",
    "prompt": "How would you shard a 70B-parameter model across 64 GPUs?",
    "reason": "Covers the slot's competencies at this level.",
    "token": "h3Q0yq6g1mVbG1Ykq1YJt2nR.0s1A8cXyZkPqLmN",
}
_DEPTH = 10  # schemas nest (a loop's interviews' panelists); examples stop here


def example_for(
    schema: dict[str, Any], components: dict[str, Any], depth: int = 0, name: str = ""
) -> Any:
    """Return an example value of ``schema``: its own example, else one built from its types."""
    if "$ref" in schema:
        return example_for(components[schema["$ref"].rsplit("/", 1)[-1]], components, depth, name)
    if "example" in schema:
        return schema["example"]
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            value = example_for(part, components, depth)
            if isinstance(value, dict):
                merged.update(value)
            else:
                return value
        return merged
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return example_for(schema[key][0], components, depth)
    if "enum" in schema:
        return next((v for v in schema["enum"] if v is not None), None)
    kind = schema.get("type")
    if depth >= _DEPTH:
        return [] if kind == "array" else {} if kind == "object" else None
    if kind == "object" or "properties" in schema:
        return {
            key: example_for(prop, components, depth + 1, key)
            for key, prop in schema.get("properties", {}).items()
        }
    if kind == "array":
        return [example_for(schema.get("items", {}), components, depth + 1)]
    if kind == "integer":
        return max(1, schema.get("minimum", 1))
    if kind == "number":
        return 0.5
    if kind == "boolean":
        return False
    if kind == "string" and schema.get("format") == "decimal":
        return "0.75"  # a decimal travels as a string its pattern admits
    if kind == "string":
        return _BY_FORMAT.get(schema.get("format", ""), _BY_NAME.get(name, "string"))
    return None


def add_summaries_and_examples(
    result: dict[str, Any], generator: Any, **kwargs: Any
) -> dict[str, Any]:
    """Give every operation its summary, and every JSON success response an example."""
    components = result.get("components", {}).get("schemas", {})
    for methods in result.get("paths", {}).values():
        for method, operation in methods.items():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            operation.setdefault("summary", SUMMARIES.get(operation["operationId"], ""))
            _name_codes(operation, posted=method == "post")
            for code, response in operation.get("responses", {}).items():
                if not code.startswith("2"):
                    continue
                for media in response.get("content", {}).values():
                    if "schema" in media and "example" not in media and "examples" not in media:
                        media["example"] = example_for(media["schema"], components)
    return result


def _name_codes(operation: dict[str, Any], *, posted: bool) -> None:
    """Append to each error response's description the codes its problems can carry."""
    own = ERROR_CODES.get(operation["operationId"], {})
    for code, response in operation.get("responses", {}).items():
        if not code.isdigit() or int(code) < 400:
            continue
        status = int(code)
        codes = [*own.get(status, []), *GENERIC_CODES.get(status, [])]
        if posted:
            codes += IDEMPOTENCY_CODES.get(status, [])
        if codes:
            listed = ", ".join(f"`{c}`" for c in dict.fromkeys(codes))
            response["description"] = f"{response.get('description', '')} Codes: {listed}."
