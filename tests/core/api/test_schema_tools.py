"""/api/schema/ through an integrator's other tools: TypeScript types and Spectral.

The tools are npm packages pinned in tools/api-contract (package-lock.json), which
.ci/run installs with `npm ci`; here they run on the live schema. The TypeScript
types must compile under `tsc --strict` with a small consumer (consumer.ts), and
Spectral's OpenAPI ruleset must report nothing at all, warnings included.
"""

import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from tests.conftest import need

TOOLS = Path(settings.BASE_DIR) / "tools" / "api-contract"
BIN = TOOLS / "node_modules" / ".bin"


def _run(*command: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command], capture_output=True, text=True, cwd=cwd, timeout=300
    )


@pytest.fixture
def schema(tmp_path: Path) -> Path:
    need("the npm tools of tools/api-contract (npm ci --prefix tools/api-contract)", BIN.is_dir())
    path = tmp_path / "schema.json"
    response = Client().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    path.write_bytes(response.content)
    return path


def test_the_typescript_types_compile_under_strict_with_a_consumer(
    schema: Path, tmp_path: Path
) -> None:
    for name in ("consumer.ts", "tsconfig.json"):
        shutil.copy(TOOLS / name, tmp_path / name)
    # Without --default-non-nullable false, openapi-typescript 7 makes every request
    # field that has a default (allow_duplicate, say) one the caller must send.
    generate = _run(
        BIN / "openapi-typescript", schema, "--default-non-nullable", "false",
        "-o", tmp_path / "api.d.ts", cwd=tmp_path,
    )  # fmt: skip
    output = generate.stdout + generate.stderr
    assert generate.returncode == 0, output
    assert "warn" not in output.lower(), output
    assert "paths" in (tmp_path / "api.d.ts").read_text()

    compiled = _run(BIN / "tsc", "-p", tmp_path / "tsconfig.json", cwd=tmp_path)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr


@pytest.mark.slow  # a second tsc run on a deliberately wrong consumer
def test_the_typescript_check_fails_when_the_consumer_misreads_a_type(
    schema: Path, tmp_path: Path
) -> None:
    """The check above can fail: a consumer treating an integer id as text does not compile."""
    shutil.copy(TOOLS / "tsconfig.json", tmp_path / "tsconfig.json")
    (tmp_path / "consumer.ts").write_text(
        'import type { components } from "./api";\n'
        'export const id: string = ({} as components["schemas"]["Loop"]).id;\n'
    )
    _run(BIN / "openapi-typescript", schema, "-o", tmp_path / "api.d.ts", cwd=tmp_path)
    compiled = _run(BIN / "tsc", "-p", tmp_path / "tsconfig.json", cwd=tmp_path)
    assert compiled.returncode != 0
    assert "Type 'number' is not assignable to type 'string'" in compiled.stdout


def test_spectral_reports_nothing_on_the_schema(schema: Path) -> None:
    lint = _run(
        BIN / "spectral", "lint", schema, "--ruleset", TOOLS / ".spectral.yaml",
        "--fail-severity", "hint", cwd=TOOLS,
    )  # fmt: skip
    output = lint.stdout + lint.stderr
    assert lint.returncode == 0, output
    assert "No results with a severity of 'hint' or higher found!" in output, output
