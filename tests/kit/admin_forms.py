"""Submit the Django admin's real change forms from tests."""

from typing import Any

from django import forms
from django.test import Client


def change_form_data(client: Client, url: str) -> dict[str, Any]:
    """Return the POST data of the admin form at `url` as the browser would submit it unchanged.

    Read from the form the admin itself renders, so a test edits only the fields it
    names and every other field goes back as it was.
    """
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return form_data(response.context["adminform"].form)


def form_data(form: forms.BaseForm) -> dict[str, Any]:
    """The POST data of a form as the browser would submit it unchanged, keyed as rendered."""
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        if field.disabled:
            continue
        key = form.add_prefix(name)
        value = form[name].value()
        if isinstance(field.widget, forms.MultiWidget):
            for index, part in enumerate(field.widget.decompress(value)):
                data[f"{key}_{index}"] = "" if part is None else str(part)
        elif isinstance(value, bool):
            if value:
                data[key] = "on"
        elif isinstance(value, list | tuple):
            data[key] = [str(item) for item in value]
        else:
            data[key] = "" if value is None else str(value)
    return data
