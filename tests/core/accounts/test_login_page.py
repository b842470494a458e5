"""The sign-in page."""

from django.test import override_settings


@override_settings(SITE_NAME="Acme Interview Kit")
def test_it_carries_the_products_name_not_the_hosts(client, db):
    body = client.get("/login/", HTTP_HOST="testserver").content.decode()

    assert "<title>Sign in · Acme Interview Kit</title>" in body
    assert '<a class="brand" href="/">Acme Interview Kit</a>' in body
    assert "testserver" not in body
