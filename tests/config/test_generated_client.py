"""The API as an integrator meets it: a typed client generated from /api/schema/.

openapi-python-client (a dev dependency) generates the client into a temporary
folder; the test imports every module and calls a live server through it: a token
under the Bearer scheme the generator defaults to, a paginated list, a create, a
validation error and a 404 parsed into their problem models.
"""

import importlib
import json
import pkgutil
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from django.test import Client

from core.permissions import RECRUITER
from interviews.models import Candidate
from tests.conftest import make_user

GENERATOR = Path(sys.executable).with_name("openapi-python-client")
PACKAGE = "kitclient"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    assert GENERATOR.exists(), "openapi-python-client is in requirements-dev.txt"
    root = tmp_path_factory.mktemp("client")
    schema = root / "schema.json"
    schema.write_bytes(Client().get("/api/schema/", {"format": "json"}).content)
    out = root / "out"
    command = [str(GENERATOR), "generate", "--path", str(schema), "--output-path", str(out)]
    run = subprocess.run(
        [*command, "--meta", "none"],
        capture_output=True,
        text=True,
        # The generator formats what it writes with ruff, found on PATH.
        env={"PATH": f"{GENERATOR.parent}:/usr/bin:/bin"},
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Warning" not in run.stdout + run.stderr, run.stdout + run.stderr
    shutil.move(out, root / PACKAGE)
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{PACKAGE}.{name}")


def test_every_generated_module_imports(generated: ModuleType) -> None:
    api = _module("api")
    names = [m.name for m in pkgutil.walk_packages(api.__path__, f"{PACKAGE}.api.")]
    for name in names:
        importlib.import_module(name)
    assert len(names) > 50


@pytest.mark.django_db(transaction=True)
def test_a_generated_client_signs_in_lists_creates_and_reads_errors(
    generated: ModuleType, live_server: object
) -> None:
    make_user("rita", RECRUITER)
    models = _module("models")
    base = f"{live_server.url}/api/v1"  # type: ignore[attr-defined]  # pytest-django's LiveServer

    token = _module("api.auth.auth_token_create").sync(
        client=generated.Client(base_url=base),
        body=models.SignInRequest(username="rita", password="pw"),
    )
    assert isinstance(token, models.Token)
    client = generated.AuthenticatedClient(base_url=base, token=token.token)  # Bearer

    created = _module("api.candidates.candidates_create").sync_detailed(
        client=client, body=models.CandidateRequest(name="Grace Hopper", email="grace@example.com")
    )
    assert created.status_code == 201
    assert isinstance(created.parsed, models.Candidate)
    assert Candidate.objects.get(pk=created.parsed.id).name == "Grace Hopper"

    page = _module("api.candidates.candidates_list").sync(client=client)
    assert [c.name for c in page.results] == ["Grace Hopper"]

    refused = _module("api.candidates.candidates_create").sync_detailed(
        client=client, body=models.CandidateRequest(name="x" * 500)
    )
    assert refused.status_code == 400
    assert isinstance(refused.parsed, models.ValidationProblem)
    assert refused.parsed.code == "validation_error"
    errors = refused.parsed.errors.to_dict()
    assert [e["code"] for e in errors["name"]] == ["max_length"]
    assert Candidate.objects.count() == 1

    missing = _module("api.candidates.candidates_retrieve").sync_detailed(
        client=client, id=created.parsed.id + 1000
    )
    assert missing.status_code == 404
    assert isinstance(missing.parsed, models.Problem)
    assert (missing.parsed.code, missing.parsed.status) == ("not_found", 404)
    assert json.loads(missing.content)["detail"] == "Not found."
