"""tests/conftest.py's grouping for `make test --dist loadgroup`: a module with a module-
or class-scoped fixture of ours goes whole to one xdist worker, its tests in file order."""

import pytest


@pytest.fixture(scope="module")
def built_once() -> object:
    return object()


def test_a_test_using_a_module_fixture_is_in_its_modules_group(
    request: pytest.FixtureRequest, built_once: object
) -> None:
    marker = request.node.get_closest_marker("xdist_group")
    assert marker is not None and marker.args == (__name__,)


def test_a_test_beside_it_without_the_fixture_is_in_the_same_group(
    request: pytest.FixtureRequest,
) -> None:
    # Otherwise it could run on the other worker, or on this one while the fixture is alive.
    marker = request.node.get_closest_marker("xdist_group")
    assert marker is not None and marker.args == (__name__,)
