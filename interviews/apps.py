from django.apps import AppConfig


class InterviewsConfig(AppConfig):
    name = "interviews"
    verbose_name = "Interviews"

    def ready(self) -> None:
        # What a webhook subscription's owner may read of a graduation, decided at each
        # delivery (core.webhooks.readers): core may not import interviews.
        from core.webhooks.readers import reader_register
        from interviews.pools.webhooks import read_graduation

        reader_register("interviewer.graduated", read_graduation)
