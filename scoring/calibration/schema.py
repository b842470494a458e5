"""The calibration snapshot's JSON, described for the OpenAPI schema only.

Nothing serialises through these: the API answers the stored result as
`selectors.result_visible_to` trims it (jobs.compute and stats.summarise build
it). They name each key, its type and when it is null, so that generated
clients get typed objects instead of a free-form dict. Help texts come from the
snapshot's own `definitions` block (definitions.py) where it defines the key.

A lead reads every key; anyone else (and a lead still blind in a loop of the
scope) reads the trimmed view: the scope, the day it was computed, their own
interviewer row, empty question and candidate lists, the definitions and
perhaps a `note`. The keys only leads read are not required and say so.
"""

from typing import Any

from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers

from core.api.openapi import optional_members_register
from scoring.calibration.definitions import DEFINITIONS

LEADS_ONLY = "Leads only (absent from the view of anyone else, or of a lead still blind)."


def defined(key: str) -> str:
    """Return what the snapshot's definitions block says of `key`, its unit and sign."""
    entry = DEFINITIONS[key]
    parts = [entry["what"]]
    if "unit" in entry:
        parts.append(f"Unit: {entry['unit']}.")
    if "sign" in entry:
        parts.append(f"Sign: {entry['sign']}.")
    return " ".join(parts)


def interval_of(key: str) -> str:
    """Return what the definitions block says the interval of `key` means."""
    return f"[low, high]; null with no estimate. {DEFINITIONS[key]['interval']}"


def interval(
    help_text: str, *, bounds_nullable: bool = False, required: bool = True
) -> serializers.ListField:
    """A 95% interval: [low, high], or null where there is no estimate."""
    return serializers.ListField(
        required=required,
        child=serializers.FloatField(allow_null=bounds_nullable),
        min_length=2,
        max_length=2,
        allow_null=True,
        help_text=help_text,
    )


def number(help_text: str = "", *, required: bool = True) -> serializers.FloatField:
    """A figure that is null where it is undefined (too few ratings, not estimable).

    ``required=False`` for keys added after snapshots were first stored.
    """
    return serializers.FloatField(allow_null=True, required=required, help_text=help_text)


class PeriodBoundsSerializer(serializers.Serializer):
    start = serializers.CharField(help_text="ISO 8601 date-time, UTC")
    end = serializers.CharField(help_text="ISO 8601 date-time, UTC")


class SnapshotPeriodSerializer(PeriodBoundsSerializer):
    months = serializers.IntegerField(help_text="CALIBRATION_PERIOD_MONTHS when computed")
    previous = PeriodBoundsSerializer(
        required=False,
        help_text="the as many months before start (leads; a non-lead reads their row's period)",
    )


optional_members_register("SnapshotPeriod", "previous")


class SnapshotScopeSerializer(serializers.Serializer):
    role = serializers.CharField(help_text="role name")
    level = serializers.CharField(allow_null=True, help_text="level name; null for all levels")
    period = SnapshotPeriodSerializer(
        required=False, allow_null=True, help_text=defined("scope.period")
    )
    flags = serializers.ChoiceField(
        choices=["confirmatory", "exploratory"], required=False, help_text=defined("scope.flags")
    )


class CalibrationInputsSerializer(serializers.Serializer):
    ratings = serializers.IntegerField(help_text="ratings counted")
    scorecards = serializers.IntegerField(help_text="scorecards counted")
    candidates = serializers.IntegerField(help_text="candidates with a counted rating")
    interviewers = serializers.IntegerField(help_text="interviewers with a counted rating")
    questions = serializers.IntegerField(help_text="questions with a counted rating")


class AlphaLevelsSerializer(serializers.Serializer):
    nominal = number()
    ordinal = number()
    interval = number()


class AlphaIntervalsSerializer(serializers.Serializer):
    nominal = interval("95% interval of the nominal alpha")
    ordinal = interval("95% interval of the ordinal alpha")
    interval = interval("95% interval of the interval alpha")


class VarianceComponentsSerializer(serializers.Serializer):
    candidate = serializers.FloatField(help_text="variance between candidates (targets)")
    interviewer = number(
        "variance between interviewers; null when confounded with the residual (each"
        " interviewer rating one candidate only)"
    )
    residual = serializers.FloatField(
        help_text="residual variance (with the interviewers' where those are null)"
    )
    q = serializers.FloatField(
        help_text="Putka's q: how far the panels overlap (0 crossed, 1 nested)"
    )
    k_harmonic = serializers.FloatField(help_text="harmonic mean of interviewers per candidate")
    method = serializers.CharField(help_text="how the components were estimated")


class IccIntervalsSerializer(serializers.Serializer):
    ICC1 = interval("F-based 95% interval", bounds_nullable=True)
    ICC2 = interval("F-based 95% interval", bounds_nullable=True)
    ICC3 = interval("F-based 95% interval", bounds_nullable=True)
    ICC1k = interval("F-based 95% interval", bounds_nullable=True)
    ICC2k = interval("F-based 95% interval", bounds_nullable=True)
    ICC3k = interval("F-based 95% interval", bounds_nullable=True)


class IntraclassCorrelationSerializer(serializers.Serializer):
    ICC1 = number("one-way random, single rater")
    ICC2 = number("two-way random, single rater, absolute agreement")
    ICC3 = number("two-way mixed, single rater, consistency")
    ICC1k = number("one-way random, mean of k raters")
    ICC2k = number("two-way random, mean of k raters, absolute agreement")
    ICC3k = number("two-way mixed, mean of k raters, consistency")
    ci95 = IccIntervalsSerializer(help_text=DEFINITIONS["reliability.icc"]["interval"])
    question = serializers.CharField(help_text="the question whose grid was used")
    n_candidates = serializers.IntegerField()
    n_interviewers = serializers.IntegerField()


class ReliabilitySerializer(serializers.Serializer):
    krippendorff_alpha = AlphaLevelsSerializer(help_text=defined("reliability.krippendorff_alpha"))
    krippendorff_alpha_ci95 = AlphaIntervalsSerializer(
        help_text=DEFINITIONS["reliability.krippendorff_alpha"]["interval"]
    )
    krippendorff_alpha_headline = AlphaLevelsSerializer(
        required=False, help_text=defined("reliability.krippendorff_alpha_headline")
    )
    krippendorff_alpha_headline_reason = serializers.CharField(
        required=False,
        allow_null=True,
        help_text="why ordinal and interval alpha are not headlined; null when they are",
    )
    pairable_ratings_per_question = number(
        "pairable ratings of the typical question (ratings-weighted median)", required=False
    )
    krippendorff_alpha_pooled = AlphaLevelsSerializer(
        help_text=defined("reliability.krippendorff_alpha_pooled")
    )
    pairable_units = serializers.IntegerField(
        help_text="(loop, question) units rated by two or more interviewers"
    )
    fleiss_kappa = number(defined("reliability.fleiss_kappa"))
    fleiss_kappa_reason = serializers.CharField(
        allow_null=True, help_text="why fleiss_kappa is null; null when it is not"
    )
    g_qk = number(defined("reliability.g_qk"))
    g_qk_ci95 = interval("grouped-jackknife 95% interval of g_qk")
    variance_components = VarianceComponentsSerializer(
        allow_null=True,
        help_text="of the crossed model behind g_qk; null with under two candidates",
    )
    icc = IntraclassCorrelationSerializer(allow_null=True, help_text=defined("reliability.icc"))
    icc_reason = serializers.CharField(
        allow_null=True, help_text="why the dashboard does not headline the ICC; null when it does"
    )


class EstimabilityGroupSerializer(serializers.Serializer):
    group = serializers.IntegerField(help_text="interviewers.estimability_group")
    interviewers = serializers.ListField(
        child=serializers.CharField(), help_text="the interviewers' usernames"
    )
    interviewer_ids = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="their user ids"
    )
    questions = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="titles of the questions only this group asks (questions_only_theirs), else"
        " of every question it asks",
    )
    questions_only_theirs = serializers.BooleanField(required=False)
    reference = serializers.BooleanField(help_text="the group whose severities are reported")


class EstimabilitySerializer(serializers.Serializer):
    aliased_directions = serializers.IntegerField(
        help_text="aliases beyond the sum-to-zero constraints; 0: every severity is estimable"
    )
    method = serializers.ChoiceField(
        choices=["null space", "components"],
        help_text="the design's null space, or (largest designs) the interviewer-question"
        " components only",
    )
    groups = EstimabilityGroupSerializer(
        many=True, help_text="groups of mutually comparable interviewers; empty without aliases"
    )


class ComparedWithinSerializer(serializers.Serializer):
    group = serializers.IntegerField(help_text="interviewers.estimability_group")
    interviewers = serializers.IntegerField(help_text="interviewers in the group")
    relative_to = serializers.CharField(help_text="what severity_within is relative to")
    names = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="the group's usernames"
    )


class DetectableSeveritySerializer(serializers.Serializer):
    power = number("the probability of a flag the detectable severity is stated at (0.8)")
    alpha = number("the per-test level the next flag would need (Benjamini-Hochberg)")
    median = number("median detectable_severity over the scope's interviewers, in points")
    interviewers = serializers.IntegerField(help_text="interviewers with a detectable severity")
    undetectable = serializers.IntegerField(
        help_text="interviewers with a severity that no size of severity would get flagged"
    )


class CalibrationModelSerializer(serializers.Serializer):
    mu = number("overall mean of the additive model, in rating points")
    residual_sd = number("residual SD of the additive model, in rating points")
    df_residual = serializers.IntegerField(help_text="residual degrees of freedom")
    components = serializers.IntegerField(
        help_text="connected panels (candidates and interviewers linked by ratings)"
    )
    main_component_share = number("share of the ratings in the largest connected panel")
    severity_sd = number(defined("model.severity_sd"))
    halo_sd = number(defined("model.halo_sd"))
    within_sd = number("SD of the residual within a scorecard (see halo_sd), in rating points")
    estimability = EstimabilitySerializer(required=False, help_text=defined("model.estimability"))
    interaction_sd = number(defined("model.interaction_sd"), required=False)
    ceiling_share = number(defined("model.ceiling_share"), required=False)
    ceiling_warning = serializers.CharField(
        required=False,
        allow_null=True,
        help_text="why severities may be compressed at the top of the scale; null below"
        " a ceiling_share of 0.3",
    )
    detectable_severity = DetectableSeveritySerializer(
        required=False, help_text=defined("model.detectable_severity")
    )


class InterviewerCalibrationSerializer(serializers.Serializer):
    interviewer = serializers.CharField(help_text="username")
    interviewer_id = serializers.IntegerField(help_text="user id")
    ratings = serializers.IntegerField(help_text="counted ratings")
    mean = number(defined("interviewers.mean"))
    distribution = serializers.DictField(
        child=serializers.IntegerField(), help_text="how many times they gave each rating"
    )
    copanelist_gap = number(defined("interviewers.copanelist_gap"))
    copanelist_gap_ci = interval(interval_of("interviewers.copanelist_gap"))
    leniency = number(defined("interviewers.leniency"))
    leniency_ci = interval(interval_of("interviewers.leniency") + "; deprecated with leniency")
    leniency_candidates = serializers.IntegerField(
        help_text="candidates shared with a co-panelist, behind leniency and copanelist_gap"
    )
    severity = number(defined("interviewers.severity"))
    severity_se = number("standard error of severity, allowing for the scorecard halo")
    severity_ci = interval(interval_of("interviewers.severity"))
    severity_shrunk = number(defined("interviewers.severity_shrunk"))
    severity_shrunk_ci = interval(interval_of("interviewers.severity_shrunk"))
    severity_reliability = number(defined("interviewers.severity_reliability"))
    severity_se_robust = number(defined("interviewers.severity_se_robust"), required=False)
    severity_named_ci = interval(interval_of("interviewers.severity_named_ci"), required=False)
    detectable_severity = number(defined("interviewers.detectable_severity"), required=False)
    severity_p = number(defined("interviewers.severity_p"))
    severity_q = number(defined("interviewers.severity_q"))
    shared_question_share = number(defined("interviewers.shared_question_share"))
    comparable = serializers.BooleanField(
        help_text="in the main connected panel, so comparable with the others"
    )
    separable = serializers.BooleanField(help_text=defined("interviewers.separable"))
    reason = serializers.CharField(
        allow_null=True, help_text="why there is no severity; null when there is"
    )
    estimability_group = serializers.IntegerField(
        required=False, allow_null=True, help_text=defined("interviewers.estimability_group")
    )
    severity_within = number(defined("interviewers.severity_within"), required=False)
    severity_within_se = number("standard error of severity_within", required=False)
    severity_within_ci = interval(interval_of("interviewers.severity_within"), required=False)
    compared_within = ComparedWithinSerializer(
        required=False, allow_null=True, help_text=defined("interviewers.compared_within")
    )
    agreement = number(defined("interviewers.agreement"))
    agreement_n = serializers.IntegerField(help_text="loops with a decision behind agreement")
    agreement_kappa = number(defined("interviewers.agreement_kappa"), required=False)
    agreement_kappa_n = serializers.IntegerField(
        required=False, help_text="loops behind agreement_kappa"
    )
    peer_agreement_kappa = number(defined("interviewers.peer_agreement_kappa"), required=False)
    peer_agreement_n = serializers.IntegerField(
        required=False, help_text="loops behind peer_agreement_kappa"
    )
    flag = serializers.ChoiceField(
        choices=["harsh", "lenient"], allow_null=True, help_text=defined("interviewers.flag")
    )
    period = PeriodBoundsSerializer(required=False, help_text=defined("interviewers.period"))
    ratings_previous = serializers.IntegerField(
        required=False, help_text="counted ratings in the previous period"
    )
    severity_previous = number(defined("interviewers.severity_previous"), required=False)
    severity_previous_ci = interval(interval_of("interviewers.severity_previous"), required=False)
    severity_change = number(defined("interviewers.severity_change"), required=False)
    severity_change_se = number("standard error of severity_change", required=False)
    severity_change_ci = interval(interval_of("interviewers.severity_change"), required=False)


class QuestionExposureSerializer(serializers.Serializer):
    last_30_days = serializers.IntegerField(help_text="times asked in the last 30 days")
    last_90_days = serializers.IntegerField(help_text="times asked in the last 90 days")


class QuestionCalibrationSerializer(serializers.Serializer):
    question = serializers.CharField(help_text="the question's title")
    question_id = serializers.IntegerField()
    ratings = serializers.IntegerField(help_text="counted ratings")
    mean = number("mean rating, in rating points")
    sd = number("SD of the ratings, in rating points; null under two ratings")
    discrimination = number(defined("questions.discrimination"))
    discrimination_pairs = serializers.IntegerField(help_text="pairs behind discrimination")
    discrimination_decision = number(
        "correlation of the question's rating with the hire decision; null under 10 pairs"
    )
    discrimination_decision_pairs = serializers.IntegerField(
        help_text="pairs behind discrimination_decision"
    )
    easiness = number(
        "the question effect of the additive model: positive is rated higher, in rating points"
    )
    easiness_se = number("standard error of easiness")
    share_at_max = number("share of ratings at the top of the scale")
    share_at_min = number("share of ratings at the bottom of the scale")
    flag = serializers.CharField(
        allow_null=True,
        help_text="`low discrimination: consider retiring`, `ceiling`, `floor`, joined by"
        " `; `; null when none applies",
    )
    rubric_hit_rates = serializers.DictField(
        child=serializers.FloatField(),
        help_text="each rubric item's text and the share of ratings that ticked it (0 to 1)",
    )
    exposure = QuestionExposureSerializer()


class CandidateCalibrationSerializer(serializers.Serializer):
    candidate = serializers.CharField(help_text="the candidate's name")
    candidate_id = serializers.IntegerField()
    ratings = serializers.IntegerField(help_text="counted ratings")
    raw_mean = number(defined("candidates.raw_mean"))
    adjusted = number(defined("candidates.adjusted"))
    adjusted_se = number("standard error of adjusted, allowing for the scorecard halo")
    adjusted_ci = interval(interval_of("candidates.adjusted"))
    comparable = serializers.BooleanField(help_text="in the main connected panel")
    estimable = serializers.BooleanField(help_text=defined("candidates.estimable"))
    reason = serializers.CharField(
        allow_null=True, help_text="why there is no adjusted score; null when there is"
    )


class CalibrationDefinitionSerializer(serializers.Serializer):
    what = serializers.CharField()
    unit = serializers.CharField(required=False, help_text="absent where a figure has none")
    sign = serializers.CharField(required=False, help_text="absent where a figure has none")
    interval = serializers.CharField(
        required=False, help_text="what the figure's interval means; absent without one"
    )


optional_members_register("CalibrationDefinition", "unit", "sign", "interval")


class CalibrationSnapshotResultSerializer(serializers.Serializer):
    scope = SnapshotScopeSerializer()
    computed_at = serializers.CharField(
        allow_null=True,
        help_text="when the snapshot was computed: an ISO 8601 date-time for leads, the"
        " day only (YYYY-MM-DD) for anyone else",
    )
    watermark = serializers.CharField(
        required=False, help_text=f"The inputs the snapshot was computed from. {LEADS_ONLY}"
    )
    inputs = CalibrationInputsSerializer(required=False, help_text=LEADS_ONLY)
    reliability = ReliabilitySerializer(required=False, help_text=LEADS_ONLY)
    model = CalibrationModelSerializer(
        required=False,
        help_text="The additive model rating = overall + candidate + interviewer + question"
        f" + noise. {LEADS_ONLY}",
    )
    interviewers = InterviewerCalibrationSerializer(
        many=True, help_text="every interviewer for leads; anyone else, their own row or none"
    )
    questions = QuestionCalibrationSerializer(many=True, help_text="empty but for leads")
    candidates = CandidateCalibrationSerializer(many=True, help_text="empty but for leads")
    definitions = serializers.DictField(
        child=CalibrationDefinitionSerializer(),
        help_text="each figure's key (`interviewers.severity`), what it means, its unit, sign"
        " and interval",
    )
    note = serializers.CharField(
        required=False,
        help_text="Absent from a lead's whole view: why figures are held back from a reader"
        " blind in a loop of the scope (a lead too).",
    )


# The keys only leads read, and the note only a held-back view has.
optional_members_register(
    "CalibrationSnapshotResult", "watermark", "inputs", "reliability", "model", "note"
)


def _example() -> dict[str, Any]:
    """Return a lead's view of a small role's snapshot, one row per list."""
    return {
        "scope": {
            "role": "AI Infrastructure Engineer", "level": None, "flags": "confirmatory",
            "period": {
                "start": "2025-11-30T15:00:00+00:00", "end": "2026-11-30T15:00:00+00:00",
                "months": 12,
                "previous": {
                    "start": "2024-11-30T15:00:00+00:00", "end": "2025-11-30T15:00:00+00:00",
                },
            },
        },
        "computed_at": "2026-12-01T06:00:14.832727+00:00",
        "watermark": "140|140|2026-12-01T06:00:14.391966+00:00|-|0|3f9c2a61d0b7e845|-",
        "inputs": {
            "ratings": 140, "scorecards": 70, "candidates": 10, "interviewers": 7, "questions": 2,
        },
        "reliability": {
            "krippendorff_alpha": {"nominal": -0.0273, "ordinal": 0.303, "interval": 0.3193},
            "krippendorff_alpha_ci95": {
                "nominal": [-0.0652, 0.0008],
                "ordinal": [0.0848, 0.4778],
                "interval": [0.0916, 0.4828],
            },
            "krippendorff_alpha_pooled": {
                "nominal": -0.0345, "ordinal": 0.2979, "interval": 0.3144,
            },
            "krippendorff_alpha_headline": {"nominal": -0.0273, "ordinal": None, "interval": None},
            "krippendorff_alpha_headline_reason": "the typical question has 20 ratings shared"
            " with another interviewer, fewer than 40: ordinal and interval alpha judge each"
            " question against its own spread, which so few ratings estimate too narrowly, so"
            " they read low and their intervals cover less than 95%",
            "pairable_ratings_per_question": 20.0,
            "pairable_units": 20,
            "fleiss_kappa": -0.0419,
            "fleiss_kappa_reason": None,
            "g_qk": 0.9607,
            "g_qk_ci95": [0.9391, 0.9823],
            "variance_components": {
                "candidate": 0.6405, "interviewer": 0.3048, "residual": 0.1833, "q": 0.0,
                "k_harmonic": 7.0, "method": "Henderson method 3 on (target, rater) cell means",
            },
            "icc": None,
            "icc_reason": "no complete grid: needs one question that every interviewer rated"
            " for every candidate",
        },
        "model": {
            "mu": 3.2143, "residual_sd": 0.8303, "df_residual": 123, "components": 1,
            "main_component_share": 1.0, "severity_sd": 0.4923, "halo_sd": 0.0,
            "within_sd": 0.9706,
            "estimability": {"aliased_directions": 0, "method": "null space", "groups": []},
            "interaction_sd": 0.0, "ceiling_share": 0.1, "ceiling_warning": None,
            "detectable_severity": {
                "power": 0.8, "alpha": 0.0071, "median": 0.7402, "interviewers": 7,
                "undetectable": 0,
            },
        },
        "interviewers": [
            {
                "interviewer": "demo-interviewer-1", "interviewer_id": 2, "ratings": 20,
                "mean": 3.05, "distribution": {"1": 3, "2": 3, "3": 7, "4": 4, "5": 3},
                "copanelist_gap": 0.1917, "copanelist_gap_ci": [-0.1737, 0.557],
                "leniency": -0.1917, "leniency_ci": [-0.557, 0.1737], "leniency_candidates": 10,
                "severity": 0.1643, "severity_se": 0.2009, "severity_ci": [-0.2295, 0.5581],
                "severity_shrunk": 0.1408, "severity_shrunk_ci": [-0.2238, 0.5054],
                "severity_reliability": 0.8572, "severity_se_robust": 0.2009,
                "severity_named_ci": [-0.2295, 0.5581], "detectable_severity": 0.7402,
                "severity_p": 0.4136, "severity_q": 0.4136,
                "shared_question_share": 1.0, "comparable": True, "separable": True,
                "reason": None, "agreement": None, "agreement_n": 0, "flag": None,
                "agreement_kappa": None, "agreement_kappa_n": 0,
                "peer_agreement_kappa": None, "peer_agreement_n": 0,
                "estimability_group": 0, "severity_within": None, "severity_within_se": None,
                "severity_within_ci": None, "compared_within": None,
                "period": {
                    "start": "2025-11-30T15:00:00+00:00", "end": "2026-11-30T15:00:00+00:00",
                },
                "ratings_previous": 24, "severity_previous": 0.6012,
                "severity_previous_ci": [0.2101, 0.9923], "severity_change": -0.4369,
                "severity_change_se": 0.2815, "severity_change_ci": [-0.9886, 0.1148],
            }
        ],
        "questions": [
            {
                "question": "Sharding a 70B model", "question_id": 1, "ratings": 70,
                "mean": 3.2143, "sd": 1.2382, "discrimination": 0.9842,
                "discrimination_pairs": 10, "discrimination_decision": None,
                "discrimination_decision_pairs": 0, "easiness": 0.0, "easiness_se": 0.082,
                "share_at_max": 0.0, "share_at_min": 0.0857, "flag": None,
                "rubric_hit_rates": {"Names tensor and pipeline parallelism.": 0.6},
                "exposure": {"last_30_days": 10, "last_90_days": 10},
            }
        ],
        "candidates": [
            {
                "candidate": "Ada Lovelace", "candidate_id": 1, "ratings": 14, "raw_mean": 3.2143,
                "adjusted": 3.2143, "adjusted_se": 0.2594, "adjusted_ci": [2.7059, 3.7227],
                "comparable": True, "estimable": True, "reason": None,
            }
        ],
        "definitions": {
            key: DEFINITIONS[key] for key in ("interviewers.severity", "candidates.adjusted")
        },
    }  # fmt: skip


SNAPSHOT_EXAMPLE = OpenApiExample(
    "Lead",
    summary="A lead's view (one row per list; definitions shortened)",
    value=_example(),
    response_only=True,
)
