from typing import Any

from django import forms
from django.contrib.auth.models import User

from interviews.models import Candidate
from interviews.selectors import seatable_people
from kit.models import Level, Role


class CandidateForm(forms.ModelForm):
    class Meta:
        model = Candidate
        fields = ["name", "email", "phone", "notes"]
        widgets = {"notes": forms.Textarea(attrs={"rows": 4})}


class LoopBuildForm(forms.Form):
    candidate = forms.ModelChoiceField(queryset=Candidate.objects.all())
    role = forms.ModelChoiceField(queryset=Role.objects.all())
    level = forms.ModelChoiceField(queryset=Level.objects.all())
    allow_duplicate = forms.BooleanField(
        required=False, label="Build another loop for this candidate anyway"
    )


class InterviewAddForm(forms.Form):
    """One more interview for an open loop; its questions are chosen as a slot's."""

    title = forms.CharField(max_length=120)
    minutes = forms.IntegerField(min_value=5, max_value=240, initial=45)
    question_count = forms.IntegerField(min_value=1, max_value=10, initial=2, label="Questions")
    interviewers_wanted = forms.IntegerField(
        min_value=1, max_value=6, initial=1, label="Interviewers"
    )
    competencies = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Questions are chosen on these; none means any of the role's.",
    )

    def __init__(self, *args: Any, competencies: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["competencies"]
        assert isinstance(field, forms.ChoiceField)  # declared above
        field.choices = competencies


def interviewer_choices() -> list[User]:
    """Return the people who can sit on a panel; one query, shared by every form on a page."""
    return list(seatable_people())


class PanelForm(forms.Form):
    # Not required here: an untouched draft interview has nobody yet, and an emptied
    # panel is interview_update's to refuse (panel_empty), beside this field.
    interviewers = forms.TypedMultipleChoiceField(
        coerce=int, required=False, widget=forms.CheckboxSelectMultiple
    )
    shadow = forms.TypedChoiceField(
        coerce=int, required=False, empty_value=None, label="Shadow (optional)"
    )
    # In the viewer's time zone (core's middleware activates it), as the page says.
    scheduled_start = forms.DateTimeField(
        required=False, label="Starts", widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    scheduled_end = forms.DateTimeField(
        required=False, label="Ends", widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )

    def __init__(self, *args: Any, people: list[User], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.people = {user.pk: user for user in people}
        choices = [(user.pk, user.get_full_name() or user.username) for user in people]
        interviewers, shadow = self.fields["interviewers"], self.fields["shadow"]
        assert isinstance(interviewers, forms.ChoiceField)  # declared above
        assert isinstance(shadow, forms.ChoiceField)
        interviewers.choices = choices
        shadow.choices = [("", "No shadow"), *choices]

    def describe_errors(self) -> None:
        """Point each field with an error at its message (aria-describedby), for the
        template's `<span id="…-error">` beside the field."""
        for name in self.errors:
            if name in self.fields:
                widget = self.fields[name].widget
                widget.attrs["aria-describedby"] = f"{self[name].auto_id}-error"
                widget.attrs["aria-invalid"] = "true"

    def clean_interviewers(self) -> list[User]:
        return [self.people[pk] for pk in self.cleaned_data["interviewers"]]

    def clean_shadow(self) -> User | None:
        pk = self.cleaned_data["shadow"]
        return self.people[pk] if pk is not None else None
