"""How the API writes values, for building the JSON a test expects."""

from datetime import datetime

from rest_framework import serializers


def iso(value: datetime | None) -> str | None:
    """A datetime as the API writes it (None as null)."""
    return serializers.DateTimeField().to_representation(value) if value else None
