"""Static files survive collectstatic with the manifest storage production uses.

Production's storage (whitenoise's CompressedManifestStaticFilesStorage) is Django's
ManifestStaticFilesStorage plus compression: the manifest part rewrites every
reference a CSS or JS file makes (url(...), sourceMappingURL) to its hashed name and
fails on one it cannot find. A vendored file that names a missing file must fail here,
not in a deploy. Compressing every file takes about a minute, so these tests use the
manifest storage alone; `make prodcheck` (CI) runs the real one under gunicorn.
"""

from pathlib import Path

import pytest
from django.contrib.staticfiles.storage import ManifestStaticFilesStorage
from django.core.files.storage import storages
from django.core.management import call_command
from django.test import override_settings

MANIFEST_STORAGE = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"},
}


@pytest.fixture
def collected(tmp_path: Path):  # type: ignore[no-untyped-def]
    # Changing STORAGES makes Django build staticfiles_storage anew (setting_changed).
    with override_settings(STATIC_ROOT=tmp_path, STORAGES=MANIFEST_STORAGE):
        assert isinstance(storages["staticfiles"], ManifestStaticFilesStorage)
        call_command("collectstatic", "--no-input", verbosity=0)
        yield tmp_path


def test_it_collects_every_static_file_with_the_manifest_storage(collected: Path) -> None:
    manifest = (collected / "staticfiles.json").read_text()
    for name in ("css/app.css", "js/scorecard.js", "vendor/chartjs/chart.umd.min.js"):
        assert f'"{name}"' in manifest
    assert list(collected.glob("vendor/chartjs/chart.umd.min.*.js"))


def test_it_names_a_missing_file_that_a_static_file_references(tmp_path: Path, settings) -> None:  # type: ignore[no-untyped-def]
    broken = tmp_path / "src" / "vendor"
    broken.mkdir(parents=True)
    (broken / "lib.min.js").write_text("var x = 1;\n//# sourceMappingURL=lib.min.js.map\n")
    settings.STATICFILES_DIRS = [tmp_path / "src"]
    with (
        override_settings(STATIC_ROOT=tmp_path / "out", STORAGES=MANIFEST_STORAGE),
        pytest.raises(ValueError, match=r"lib\.min\.js\.map"),
    ):
        call_command("collectstatic", "--no-input", verbosity=0)
