from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring and calibration"

    def ready(self) -> None:
        # What a webhook subscription's owner may read of scoring's events, decided at
        # each delivery (core.webhooks.readers): core may not import scoring itself.
        from core.webhooks.readers import reader_register
        from interviews.cards import CardRule, card_rule_register
        from scoring import visibility
        from scoring.calibration.webhooks import read_snapshot
        from scoring.scorecards.webhooks import read_card, read_decision

        # The seat and blind rule interviews' selectors ask (interviews.cards):
        # interviews sits below scoring and may not import it.
        card_rule_register(
            CardRule(
                loop_status_seen=visibility.loop_status_seen,
                own_card_status=visibility.own_card_status,
                owes=visibility.owes,
                submitted=visibility.SUBMITTED,
            )
        )

        reader_register("scorecard.submitted", read_card)
        reader_register("scorecard.amended", read_card)
        reader_register("loop.decided", read_decision)
        reader_register("calibration.completed", read_snapshot)
        # What a training path may ask of calibration and of exercises
        # (interviews.pools.evidence).
        from scoring.calibration import pool_evidence
        from scoring.exercises import pool_evidence as exercise_evidence

        pool_evidence.register()
        exercise_evidence.register()
