"""Every response carries a content security policy that allows no inline script."""

import re
from pathlib import Path

from django.conf import settings

TEMPLATES = Path(settings.BASE_DIR) / "templates"


def test_pages_forbid_inline_script_and_foreign_sources(client, interviewer):
    client.force_login(interviewer)
    for path in ("/login/", "/bank/", "/interviews/", "/calibration/"):
        policy = client.get(path).headers["Content-Security-Policy"]
        directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
        assert directives["script-src"] == "'self'", path
        assert directives["style-src"] == "'self'", path
        assert directives["frame-ancestors"] == "'none'", path
        assert directives["object-src"] == "'none'", path


def test_the_api_docs_allow_inline_styles_but_still_no_inline_script(client, interviewer):
    client.force_login(interviewer)
    response = client.get("/api/docs/")
    policy = response.headers["Content-Security-Policy"]
    assert "style-src 'self' 'unsafe-inline'" in policy
    assert "script-src 'self';" in policy
    # The split view loads Swagger UI's start-up code as a script file.
    assert re.search(r"<script(?![^>]*\bsrc=)[^>]*>", response.content.decode()) is None


def test_no_template_has_an_inline_script():
    offenders = []
    for template in TEMPLATES.rglob("*.html"):
        for tag in re.findall(r"<script\b[^>]*>", template.read_text()):
            if "src=" not in tag:
                offenders.append(f"{template.relative_to(TEMPLATES)}: {tag}")
    assert offenders == []


def test_debug_error_pages_may_style_themselves_but_product_pages_may_not(client, settings):
    # Development (make run): Django's technical 404 page carries inline styles.
    settings.DEBUG = True
    not_found = client.get("/no-such-page/")
    assert not_found.status_code == 404
    assert b"Using the URLconf" in not_found.content
    assert "style-src 'self' 'unsafe-inline'" in not_found.headers["Content-Security-Policy"]
    login = client.get("/login/").headers["Content-Security-Policy"]
    assert "unsafe-inline" not in login
    # Production: the product's own 404 page, under the strict policy.
    settings.DEBUG = False
    not_found = client.get("/no-such-page/")
    assert b"Using the URLconf" not in not_found.content
    assert "unsafe-inline" not in not_found.headers["Content-Security-Policy"]
