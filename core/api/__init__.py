"""The API's plumbing, shared by every app's endpoints: errors as problem details
(problems.py) and the exception handler that makes them (exceptions.py), the JSON parser,
the OpenAPI schema's hooks and summaries, the router, pagination, serializer fields, ETags
and Idempotency-Key."""
