"""People and their accounts: the account pages (views.py), time zones, API tokens
(tokens.py, and their endpoints in api.py), single sign-on (oidc.py, oidc_views.py,
oidc_urls.py) and the provider identities it signs in with."""
