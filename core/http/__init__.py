"""What every request passes through, page or API: middleware (413, 503, Location), the
security headers, the client's address, query parameters read the same way everywhere,
and the liveness and readiness probes."""
