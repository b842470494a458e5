"""What the calibration pages' tests share: the dashboard's URL, a signed-in client, a page."""

from django.contrib.auth.models import User
from django.test import Client

DASHBOARD = "/calibration/"


def signed_in(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def page(client: Client, user: User, **params: object) -> str:
    response = signed_in(client, user).get(DASHBOARD, params)
    assert response.status_code == 200
    return response.content.decode()
