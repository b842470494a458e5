"""ETag and If-Match on the API's objects that can be replaced or changed.

Every object a client may PUT or PATCH answers its GET, PUT and PATCH with an
``ETag``; a PUT or PATCH that sends ``If-Match`` with a tag that no longer names
the object (someone changed it since) is refused with 412 ``precondition_failed``
and changes nothing. Without If-Match the write goes ahead, as before.

The tag of most objects is a hash of their representation (what GET answers),
so it changes exactly when what a client can see changes. Scorecards, which
autosave, carry a version from their last save instead, checked under the card's
lock by the save itself (scoring.scorecards.selectors.scorecard_version).
"""

import hashlib
import json
from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.viewsets import GenericViewSet

from core.api.exceptions import PreconditionFailed

WRITES = ("update", "partial_update")
READS = ("retrieve", *WRITES)


def etag_for(representation: Any) -> str:
    """Return the strong entity tag of a JSON representation."""
    text = json.dumps(representation, sort_keys=True, separators=(",", ":"), default=str)
    return '"' + hashlib.sha256(text.encode()).hexdigest()[:32] + '"'


def if_match_holds(header: str | None, etag: str) -> bool:
    """Whether an If-Match header (absent, ``*`` or a list of tags) lets a write go ahead."""
    if header is None:
        return True
    tags = {tag.strip().removeprefix("W/") for tag in header.split(",")}
    return "*" in tags or etag in tags


class ETagMixin(GenericViewSet):
    """For a viewset whose objects can be PUT or PATCH (see the module docstring).

    ``representation(obj)`` is what GET answers for the object; the default is the
    viewset's serializer, which viewsets with a separate detail serializer override.
    """

    def representation(self, obj: Any) -> Any:
        return self.get_serializer(obj).data

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        header = request.headers.get("If-Match")
        if self.action in WRITES and header is not None:
            current = etag_for(self.representation(self.get_object()))
            if not if_match_holds(header, current):
                raise PreconditionFailed(
                    "This object changed since you read it (If-Match no longer matches its"
                    " ETag); GET it again and reapply your change.",
                    code="precondition_failed",
                )

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)
        if (
            self.action in READS
            and response.status_code == 200
            and isinstance(getattr(response, "data", None), dict)
            and "ETag" not in response
        ):
            response["ETag"] = etag_for(response.data)
        return response
