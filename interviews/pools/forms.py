"""The pools' page forms: shape only; interviews.pools.services decides and writes."""

from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.db.models import QuerySet

from interviews.pools.models import InterviewerLimits, PoolMembership, TrainingPath
from kit.models import Competency, Level, LoopSlot, Role


class PoolForm(forms.Form):
    name = forms.CharField(max_length=120)
    slot = forms.ModelChoiceField(
        queryset=LoopSlot.objects.none(),
        required=False,
        label="Template slot",
        empty_label="(none)",
        help_text="The most specific: this slot's interviews draw on the pool.",
    )
    competency = forms.ModelChoiceField(
        queryset=Competency.objects.order_by("name"),
        required=False,
        empty_label="(none)",
        help_text="Or every interview on this competency.",
    )
    role = forms.ModelChoiceField(
        queryset=Role.objects.none(),
        required=False,
        empty_label="(none)",
        help_text="Or the role's interviews (optionally only some levels).",
    )
    level_min = forms.ModelChoiceField(
        queryset=Level.objects.order_by("rank"),
        required=False,
        label="From level",
        empty_label="(the lowest)",
    )
    level_max = forms.ModelChoiceField(
        queryset=Level.objects.order_by("rank"),
        required=False,
        label="To level",
        empty_label="(the highest)",
    )

    def __init__(self, *args: Any, roles: QuerySet[Role], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Only the roles (and their templates' slots) the user keeps pools of.
        self.fields["role"].queryset = roles  # type: ignore[attr-defined]  # a ModelChoiceField
        self.fields["slot"].queryset = (  # type: ignore[attr-defined]  # a ModelChoiceField
            LoopSlot.objects.filter(template__role__in=roles)
            .select_related("template__role", "template__level")
            .order_by("template__role__name", "template__level__rank", "order")
        )
        self.fields["slot"].label_from_instance = _slot_label  # type: ignore[attr-defined]


def _slot_label(slot: LoopSlot) -> str:
    return f"{slot.template.role} {slot.template.level}: {slot.title}"


class RenameForm(forms.Form):
    name = forms.CharField(max_length=120)


class MemberForm(forms.Form):
    user = forms.ModelChoiceField(queryset=User.objects.none(), label="Person")
    status = forms.ChoiceField(
        choices=PoolMembership.Status.choices, initial=PoolMembership.Status.QUALIFIED
    )

    def __init__(self, *args: Any, people: QuerySet[User], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["user"].queryset = people  # type: ignore[attr-defined]  # a ModelChoiceField
        self.fields["user"].label_from_instance = (  # type: ignore[attr-defined]
            lambda u: u.get_full_name() or u.get_username()
        )


class LimitsForm(forms.ModelForm):
    class Meta:
        model = InterviewerLimits
        fields = ["per_day", "per_week", "day_start", "day_end"]
        labels = {
            "per_day": "Interviews a day at most",
            "per_week": "Interviews a week at most",
            "day_start": "Working day starts",
            "day_end": "Working day ends",
        }
        widgets = {
            "day_start": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
            "day_end": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
        }

    def _post_clean(self) -> None:
        # The service checks the model (limits_set); the form checks shape only.
        pass


class PathForm(forms.ModelForm):
    class Meta:
        model = TrainingPath
        fields = [
            "shadows",
            "reverse_shadows",
            "calibration_max_gap",
            "no_severity_flag",
            "flag_min_ratings",
        ]
        labels = {
            "shadows": "Shadow seats (they sit in)",
            "reverse_shadows": "Reverse-shadow seats (they lead, a trainer signs off)",
            "calibration_max_gap": "Calibration exercise within this distance of the key",
            "no_severity_flag": "No severity flag this period",
            "flag_min_ratings": "Ratings before the severity rule applies",
        }
        help_texts = {
            "calibration_max_gap": "Mean absolute distance in rating points; empty: no exercise.",
        }

    def _post_clean(self) -> None:
        # The service checks the model (path_set); the form checks shape only.
        pass


class SignOffForm(forms.Form):
    outcome = forms.ChoiceField(
        choices=[("ready", "Ready"), ("not_yet", "Not yet")],
        widget=forms.RadioSelect,
        label="Is the trainee ready for the next step?",
    )
    note = forms.CharField(
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="Required for 'not yet': the trainee reads it before the retake.",
    )
