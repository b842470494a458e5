from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "People and audit"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from core.accounts.zones import on_sign_in

        # The zone goes into the new session at sign-in, so no page pays a query for it.
        user_logged_in.connect(on_sign_in, dispatch_uid="core.accounts.time_zone")
