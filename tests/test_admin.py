"""Every model has a Django admin page that opens for a superuser."""

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import User

from config.urls import urlpatterns  # noqa: F401  (admin autodiscovery)

APPS = ("core", "kit", "interviews", "scoring")
MODELS = [model for label in APPS for model in apps.get_app_config(label).get_models()]


@pytest.mark.parametrize("app_label", APPS)
def test_every_model_of_the_app_is_registered(app_label):
    missing = [
        model.__name__
        for model in apps.get_app_config(app_label).get_models()
        if not admin.site.is_registered(model)
    ]
    assert missing == []


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_the_changelist_opens(client, db, model):
    client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
    response = client.get(f"/admin/{model._meta.app_label}/{model._meta.model_name}/")
    assert response.status_code == 200


def test_amendments_cannot_be_added_in_the_admin(client, db):
    # An amendment is its author's, made through the scorecard (before, after, audit).
    from scoring.models import Amendment

    client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
    response = client.post("/admin/scoring/amendment/add/", {"reason": "Sneaky"})
    assert response.status_code == 403
    assert not Amendment.objects.exists()
