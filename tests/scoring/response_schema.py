"""Validate real API answers against the components of the OpenAPI document.

The document is OpenAPI 3.0 (`nullable`, `$ref` into `#/components/schemas`);
`validator` turns its components into JSON Schema 2020-12 for `jsonschema`:
`nullable: true` becomes a union with null, and every object with properties
gets `additionalProperties: false`, so a key the schema does not describe fails
validation as surely as a key it requires and the answer lacks.
"""

from collections.abc import Iterator
from datetime import datetime
from functools import cache
from typing import Any

from drf_spectacular.generators import SchemaGenerator
from jsonschema import Draft202012Validator, FormatChecker

REF = "#/components/schemas/"
# Keywords that give a schema a shape: a schema with none of them accepts anything.
SHAPED = {"type", "$ref", "allOf", "oneOf", "anyOf", "enum", "properties"}


# jsonschema checks date-time only with an optional package; this is the API's own format.
FORMATS = FormatChecker()


@FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    return not isinstance(value, str) or datetime.fromisoformat(value).tzinfo is not None


@cache
def document() -> dict[str, Any]:
    schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return schema


def components() -> dict[str, Any]:
    schemas: dict[str, Any] = document()["components"]["schemas"]
    return schemas


def strict(node: Any) -> Any:
    """Return `node` as strict JSON Schema: nullable as a union, no undescribed keys."""
    if isinstance(node, list):
        return [strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: strict(value) for key, value in node.items()}
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    if not out.pop("nullable", False):
        return out
    composed = {"enum", "allOf", "oneOf", "anyOf"} & set(out)
    if isinstance(out.get("type"), str) and not composed:
        return {**out, "type": [out["type"], "null"]}
    return {"anyOf": [out, {"type": "null"}]}


def validator(name: str) -> Draft202012Validator:
    root = {"$ref": REF + name, "components": {"schemas": strict(components())}}
    return Draft202012Validator(root, format_checker=FORMATS)


def errors(name: str, instance: Any) -> list[str]:
    """Return where and why `instance` does not match the component `name` (none: it does)."""
    found = validator(name).iter_errors(instance)
    return sorted(f"{error.json_path}: {error.message}" for error in found)


def response_schema(path: str, method: str, code: str = "200") -> dict[str, Any]:
    schema: dict[str, Any] = document()["paths"][path][method]["responses"][code]["content"][
        "application/json"
    ]
    return schema


def reachable(name: str) -> set[str]:
    """Return the component `name` and every component it refers to, however deep."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        todo += [ref[len(REF) :] for ref in _refs(components()[current])]
    return seen


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def free_spots(node: Any, where: str) -> Iterator[str]:
    """Yield where `node` accepts any value or an untyped object (a free-form dict)."""
    if not isinstance(node, dict) or not SHAPED & set(node):
        yield where
        return
    if node.get("type") == "object" and not {"properties", "allOf", "oneOf", "anyOf"} & set(node):
        extra = node.get("additionalProperties")
        if not isinstance(extra, dict):
            yield where
        else:
            yield from free_spots(extra, f"{where}{{}}")
    for key, value in node.get("properties", {}).items():
        yield from free_spots(value, f"{where}.{key}")
    if "items" in node:
        yield from free_spots(node["items"], f"{where}[]")
    for key in ("allOf", "oneOf", "anyOf"):
        for n, part in enumerate(node.get(key, [])):
            yield from free_spots(part, f"{where}<{key}{n}>")
