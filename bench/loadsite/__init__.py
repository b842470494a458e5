"""Bench-only Django site: the product plus a bare DRF create endpoint as the load baseline."""
