"""Hostile JSON: a body nested beyond MAX_JSON_DEPTH is a 400 too_deep before it is parsed,
and no parser failure reaches a 500 (core/api/parsers.py)."""

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from core.api.parsers import MAX_JSON_DEPTH, TooDeep, json_depth_check
from core.models import ApiToken
from interviews.models import Candidate, Loop
from tests.conftest import client_for
from tests.problems import detail, field_errors, problem
from tests.support.loops import World, make_world

TOO_DEEP = (
    f"The JSON body is nested deeper than {MAX_JSON_DEPTH} levels of arrays and objects; "
    "no request to this API needs more."
)


@pytest.fixture
def world(db) -> World:  # type: ignore[no-untyped-def]
    return make_world()


def post_raw(client: APIClient, path: str, body: str) -> object:
    return client.post(path, body, content_type="application/json")


def nested_objects(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def test_it_refuses_a_thousand_nested_arrays_to_candidates_and_writes_nothing(recruiter):
    response = post_raw(client_for(recruiter), "/api/v1/candidates/", "[" * 1000)

    body = problem(response, 400, "too_deep")
    assert body["detail"] == TOO_DEEP
    assert body["limit"] == MAX_JSON_DEPTH
    assert not Candidate.objects.exists()


def test_it_refuses_a_balanced_deep_body_too(recruiter):
    response = post_raw(client_for(recruiter), "/api/v1/candidates/", "[" * 500 + "]" * 500)

    assert detail(response, 400, "too_deep") == TOO_DEEP
    assert not Candidate.objects.exists()


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 500, 5000])
def test_it_refuses_nested_objects_to_the_loop_preview(recruiter, world, depth):
    body = (
        f'{{"candidate": {world.candidate.pk}, "role": "{world.role.name}", '
        f'"level": "L5", "deep": {nested_objects(depth)}}}'
    )

    response = post_raw(client_for(recruiter), "/api/v1/loops/preview/", body)

    assert detail(response, 400, "too_deep") == TOO_DEEP
    assert not Loop.objects.exists()


def test_a_body_at_the_limit_gets_past_the_parser_to_the_shape_check(recruiter):
    # The name is a string, so the serializer refuses it: the parser let it through.
    deep = nested_objects(MAX_JSON_DEPTH - 1)
    body = f'{{"name": {deep}}}'

    response = post_raw(client_for(recruiter), "/api/v1/candidates/", body)

    assert field_errors(response) == {"name": ["Not a valid string."]}
    assert not Candidate.objects.exists()


def test_brackets_inside_strings_do_not_count(recruiter):
    name = 'Ada [{"' + "[" * 100 + "\\\\"

    response = client_for(recruiter).post(
        "/api/v1/candidates/", {"name": name, "email": "ada@example.com"}, format="json"
    )

    assert response.status_code == 201, response.json()
    assert Candidate.objects.get().name == name


def test_an_escaped_quote_does_not_end_a_string():
    # Were \" taken as the end of the string, the 40 brackets after it would count.
    json_depth_check('["a\\"' + "[" * 40 + '"]')
    with pytest.raises(TooDeep):
        json_depth_check('["a\\\\"' + "[" * 40 + "]" * 40 + "]")


def test_invalid_json_is_a_400_parse_error(recruiter):
    response = post_raw(client_for(recruiter), "/api/v1/candidates/", '{"name": "Ada",')

    assert detail(response, 400, "parse_error").startswith("JSON parse error")
    assert not Candidate.objects.exists()


def test_a_body_that_is_not_utf8_is_a_400_parse_error(recruiter):
    response = client_for(recruiter).post(
        "/api/v1/candidates/", b'{"name": "\xff"}', content_type="application/json"
    )

    assert detail(response, 400, "parse_error").startswith("JSON parse error")
    assert not Candidate.objects.exists()


def test_the_token_endpoint_with_its_own_parser_refuses_deep_bodies(interviewer: User):
    body = '{"username": "ines", "password": "pw", "x": ' + "[" * 1000 + "}"

    response = post_raw(APIClient(), "/api/v1/auth/token/", body)

    assert detail(response, 400, "too_deep") == TOO_DEEP
    assert not ApiToken.objects.exists()
