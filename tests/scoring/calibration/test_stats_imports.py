"""The stats package is pure numpy/scipy: no module of it imports Django.

The modules are imported in a fresh interpreter, because in this test process
pytest-django has long since loaded Django. One interpreter sees what one per
module would: importing any module of the package first runs the package's
__init__, which imports them all. The probe reports where each module came
from (so an import from another checkout cannot pass for this one) and every
module of the django package loaded by then.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

from scoring.calibration import stats

ROOT = Path(__file__).resolve().parents[3]
MODULES = [
    stats.__name__,
    *sorted(f"{stats.__name__}.{info.name}" for info in pkgutil.iter_modules(stats.__path__)),
]
PROBE = """
import importlib, json, sys
files = {name: importlib.import_module(name).__file__ for name in sys.argv[1:]}
loaded = sorted(name for name in sys.modules if name.partition(".")[0] == "django")
print(json.dumps({"files": files, "django": loaded}))
"""


def _import_in_a_fresh_interpreter(*modules: str) -> dict[str, dict[str, str] | list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *modules],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_no_stats_module_imports_django() -> None:
    families = {"agreement", "intraclass", "gtheory", "raters", "questions", "summary"}
    assert {f"{stats.__name__}.{name}" for name in families} <= set(MODULES)

    probed = _import_in_a_fresh_interpreter(*MODULES)

    files = probed["files"]
    assert isinstance(files, dict) and set(files) == set(MODULES)
    here = ROOT / "scoring" / "calibration" / "stats"
    assert all(Path(path).parent == here for path in files.values()), files
    assert probed["django"] == []


def test_the_probe_sees_django_when_a_module_imports_it() -> None:
    assert "django" in _import_in_a_fresh_interpreter("django.utils.timezone")["django"]
