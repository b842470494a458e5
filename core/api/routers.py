"""The API's router: integer ids in paths, one path per resource."""

from rest_framework.routers import DefaultRouter


class ApiRouter(DefaultRouter):
    """DefaultRouter with path converters and no format suffixes.

    Path converters (each viewset's ``lookup_value_converter = "int"``) give the
    schema integer ids, and a non-numeric id matches no route: a 404. Format
    suffixes (``/questions/1.json``) would add a second path per operation, and the
    API speaks JSON only.
    """

    include_format_suffixes = False

    def __init__(self) -> None:
        super().__init__(use_regex_path=False)
