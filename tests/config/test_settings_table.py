"""docs/settings.md names every environment variable the service reads, and no other.

The variables are found in the source (the syntax tree) of config/settings.py and of
every other module of the service that reads the environment itself: the first
argument of each os.getenv / os.environ.get / os.environ[...] and of the module's
helpers (envbool, envint, envlist, envsecret; envsecret also reads NAME_FILE), and,
where that argument is a loop variable, every name the loop goes over.
"""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = ROOT / "config" / "settings.py"
APPS = ("config", "core", "kit", "interviews", "scoring")
TABLE = ROOT / "docs" / "settings.md"
HELPERS = {"envbool", "envint", "envlist", "envsecret"}


def _reader(call: ast.Call) -> str | None:
    """Return the name of the function if `call` reads the environment, else None."""
    func = call.func
    if isinstance(func, ast.Name) and func.id in HELPERS:
        return func.id
    if isinstance(func, ast.Attribute):
        owner = ast.unparse(func.value)
        if (owner, func.attr) in {("os", "getenv"), ("os.environ", "get")}:
            return "getenv"
    return None


def _strings(node: ast.AST, tuples: dict[str, list[str]]) -> list[str]:
    """Return the string constants in `node`, module-level tuples it names expanded."""
    found: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            found.append(sub.value)
        elif isinstance(sub, ast.Name) and sub.id in tuples:
            found.extend(tuples[sub.id])
    return found


def sources() -> list[Path]:
    """Return the settings module and each other module of the service that reads the
    environment (os.getenv, os.environ)."""
    found = [SETTINGS]
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            text = path.read_text()
            if path != SETTINGS and ("os.getenv" in text or "os.environ" in text):
                found.append(path)
    return found


def variables_read() -> set[str]:
    names: set[str] = set()
    for path in sources():
        names |= variables_in(ast.parse(path.read_text()))
    return names


def variables_in(tree: ast.Module) -> set[str]:
    tuples = {
        target.id: _strings(node.value, {})
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    names: set[str] = set()

    def read(call: ast.Call, loops: dict[str, list[str]]) -> None:
        reader = _reader(call)
        if reader is None or not call.args:
            return
        arg = call.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            found = [arg.value]
        elif isinstance(arg, ast.Name) and arg.id in loops:
            found = loops[arg.id]
        else:
            return  # the helpers' own bodies, reading the name they were given
        names.update(found)
        if reader == "envsecret":
            names.update(f"{name}_FILE" for name in found)

    comprehensions = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
            if isinstance(node.slice, ast.Constant):
                names.add(str(node.slice.value))
        elif isinstance(node, ast.Call):
            read(node, {})
        elif isinstance(node, comprehensions):
            # The comprehension's loop variables, each with the names it goes over.
            loops = {
                gen.target.id: _strings(gen.iter, tuples)
                for gen in node.generators
                if isinstance(gen.target, ast.Name)
            }
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call):
                    read(sub, loops)
    return names


def variables_documented() -> set[str]:
    names: set[str] = set()
    for line in TABLE.read_text().splitlines():
        cells = line.split("|")
        if line.startswith("|") and len(cells) > 2:
            names.update(re.findall(r"`([A-Z][A-Z0-9_]+)`", cells[1]))
    return names


def test_the_reader_finds_literal_names_loop_names_and_secret_files():
    read = variables_read()
    assert {"DEBUG", "DATABASE_URL", "CONTENT_SECURITY_POLICY"} <= read
    assert {"OIDC_OP_TOKEN_ENDPOINT", "OIDC_OP_LOGOUT_ENDPOINT", "OIDC_GROUP_LEAD"} <= read
    assert {"SECRET_KEY_FILE", "EMAIL_HOST_PASSWORD_FILE"} <= read


def test_every_setting_read_is_in_the_table():
    missing = sorted(variables_read() - variables_documented())
    assert not missing, (
        f"the service reads {', '.join(missing)}, which docs/settings.md's table does "
        "not name: add a row for each (name, default, what it does)"
    )


def test_the_table_names_no_setting_that_is_no_longer_read():
    stale = sorted(variables_documented() - variables_read())
    assert not stale, (
        f"docs/settings.md's table names {', '.join(stale)}, which the service no longer "
        "reads: remove those rows"
    )


def test_beat_keeps_its_schedule_file_out_of_the_working_directory(settings):  # type: ignore[no-untyped-def]
    from config.celery import app

    path = Path(settings.CELERY_BEAT_SCHEDULE_FILENAME)
    assert path == ROOT / "var" / "celerybeat-schedule"
    assert path.parent.is_dir()  # kept in the repository (var/.gitignore)
    assert app.conf.beat_schedule_filename == str(path)
