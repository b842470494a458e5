"""What every app uses: personas (who may do what), the audit log of sensitive
actions, and the database helpers of the plain-SQL hot paths."""
