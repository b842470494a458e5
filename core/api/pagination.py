"""The API's one way of paging a list."""

from rest_framework.pagination import PageNumberPagination


class Pages(PageNumberPagination):
    """``?page=N`` and ``?page_size=N`` (1 to 200, default 50) on every list.

    One shape for every list (``count``, ``next``, ``previous``, ``results``), small
    or growing: the levels and competencies as much as the loops and calibration
    history, so a client pages them all the same way.
    """

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
