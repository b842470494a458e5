"""Serializer fields the API's outputs share."""

from typing import Any

from rest_framework import serializers


class ChosenField(serializers.ChoiceField):
    """A choice that may not be made yet: null until it is, never an empty string.

    The models keep "" for "not chosen" (a blank CharField); clients read null, which
    generated types show as optional rather than as an extra, empty enum value.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_null=True, read_only=True, **kwargs)

    def to_representation(self, value: Any) -> Any:
        return None if value in ("", None) else super().to_representation(value)
