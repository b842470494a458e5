from django import forms
from django.contrib.auth.models import User

from interviews.models import Candidate
from kit.models import Level, Role
from kit.permissions import INTERVIEWER


class CandidateForm(forms.ModelForm):
    class Meta:
        model = Candidate
        fields = ["name", "email", "phone", "notes"]
        widgets = {"notes": forms.Textarea(attrs={"rows": 4})}


class LoopBuildForm(forms.Form):
    candidate = forms.ModelChoiceField(queryset=Candidate.objects.all())
    role = forms.ModelChoiceField(queryset=Role.objects.all())
    level = forms.ModelChoiceField(queryset=Level.objects.all())


def _interviewers() -> "forms.QuerySet[User]":
    return User.objects.filter(is_active=True, groups__name=INTERVIEWER).order_by("username")


class PanelForm(forms.Form):
    interviewers = forms.ModelMultipleChoiceField(
        queryset=User.objects.none(), widget=forms.SelectMultiple(attrs={"size": 4})
    )
    shadow = forms.ModelChoiceField(queryset=User.objects.none(), required=False)
    scheduled_start = forms.DateTimeField(
        required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    scheduled_end = forms.DateTimeField(
        required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        people = _interviewers()
        self.fields["interviewers"].queryset = people
        self.fields["shadow"].queryset = people
        label = lambda u: u.get_full_name() or u.username  # noqa: E731
        self.fields["interviewers"].label_from_instance = label
        self.fields["shadow"].label_from_instance = label
