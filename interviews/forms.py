from typing import Any

from django import forms
from django.contrib.auth.models import User

from interviews.models import Candidate
from interviews.services import SEATABLE
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


def interviewer_choices() -> list[User]:
    """Return the people who can sit on a panel; one query, shared by every form on a page."""
    return list(User.objects.filter(SEATABLE).order_by("username"))


class PanelForm(forms.Form):
    interviewers = forms.TypedMultipleChoiceField(
        coerce=int, widget=forms.SelectMultiple(attrs={"size": 6})
    )
    shadow = forms.TypedChoiceField(coerce=int, required=False, empty_value=None)
    scheduled_start = forms.DateTimeField(
        required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    scheduled_end = forms.DateTimeField(
        required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
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

    def clean_interviewers(self) -> list[User]:
        return [self.people[pk] for pk in self.cleaned_data["interviewers"]]

    def clean_shadow(self) -> User | None:
        pk = self.cleaned_data["shadow"]
        return self.people[pk] if pk is not None else None
