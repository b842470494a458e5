"""What every app uses: personas (who may do what), the database helpers of the plain-SQL
hot paths, validators, logs and metrics; the API's plumbing (api/), what every request
passes through (http/), people and their accounts (accounts/), the audit log (audit/),
email (outbox/) and webhooks (webhooks/)."""
