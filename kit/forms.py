"""The question editor's form (calibration leads)."""

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from kit import services
from kit.models import (
    FOLLOW_UP_MAX_LENGTH,
    OUTLINE_MAX_LENGTH,
    PROMPT_MAX_LENGTH,
    RUBRIC_ITEM_MAX_LENGTH,
    Competency,
    Level,
    Question,
    Role,
    RubricItem,
)

# How a rubric line starts, in the editor's plain-text rubric: "core: Names the trade-off."
RUBRIC_PREFIXES = {
    "core": RubricItem.Kind.CORE,
    "strong": RubricItem.Kind.STRONG,
    "red flag": RubricItem.Kind.RED_FLAG,
}


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _rubric_text(items: list[RubricItem]) -> str:
    """Return the rubric as the editor shows it, one "kind: text" line per item."""
    labels: dict[str, str] = {kind: prefix for prefix, kind in RUBRIC_PREFIXES.items()}
    return "\n".join(f"{labels[item.kind]}: {item.text}" for item in items)


def question_initial(question: Question) -> dict[str, Any]:
    """Return the editor's starting values: the question and its current version."""
    current = question.current
    assert current is not None  # question_create sets it with the question
    return {
        "title": question.title,
        "prompt": current.prompt,
        "outline": current.outline,
        "rubric": _rubric_text(list(current.rubric.all())),
        "follow_ups": "\n".join(f.text for f in current.follow_ups.all()),
        "competencies": list(question.competencies.all()),
        "min_level": question.min_level,
        "max_level": question.max_level,
        "minutes": current.minutes,
        "scale_max": current.scale_max,
    }


class QuestionForm(forms.Form):
    role = forms.ModelChoiceField(queryset=Role.objects.order_by("name"))
    title = forms.CharField(max_length=120)
    # The limits are the models' (kit.models) and are checked by the services, whose
    # refusal lands on the field (refuse()); the hints only say what they are. No
    # maxlength attribute: a browser would cut a long paste short without a word.
    prompt = forms.CharField(
        label="As asked",
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=f"At most {PROMPT_MAX_LENGTH:,} characters.",
    )
    outline = forms.CharField(
        label="Sample answer outline",
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=f"At most {OUTLINE_MAX_LENGTH:,} characters.",
    )
    rubric = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 7}),
        help_text="One item per line, starting core:, strong: or red flag:, each at most "
        f"{RUBRIC_ITEM_MAX_LENGTH:,} characters. "
        "Leave it empty to derive the rubric from the outline, one item per sentence.",
    )
    follow_ups = forms.CharField(
        label="Follow-ups to expect",
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=f"One per line, each at most {FOLLOW_UP_MAX_LENGTH:,} characters.",
    )
    competencies = forms.ModelMultipleChoiceField(
        queryset=Competency.objects.order_by("slug"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    min_level = forms.ModelChoiceField(
        queryset=Level.objects.order_by("rank"), required=False, empty_label="any", label="From"
    )
    max_level = forms.ModelChoiceField(
        queryset=Level.objects.order_by("rank"), required=False, empty_label="any", label="To"
    )
    minutes = forms.IntegerField(min_value=1, max_value=240, initial=15)
    scale_max = forms.IntegerField(min_value=2, max_value=10, initial=4, label="Rated 1 to")

    def __init__(self, *args: Any, editing: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if editing:  # a question keeps its role
            del self.fields["role"]

    def clean_rubric(self) -> tuple[tuple[str, str], ...]:
        items = []
        for n, line in enumerate(_lines(self.cleaned_data["rubric"]), start=1):
            prefix, colon, text = line.partition(":")
            kind = RUBRIC_PREFIXES.get(prefix.strip().casefold()) if colon else None
            if kind is None or not text.strip():
                raise forms.ValidationError(
                    f"Line {n} (“{line[:40]}”): start it with core:, strong: or red flag:, "
                    "then the point."
                )
            items.append((text.strip(), str(kind)))
        return tuple(items)

    def clean_follow_ups(self) -> tuple[str, ...]:
        return tuple(_lines(self.cleaned_data["follow_ups"]))

    def clean(self) -> dict[str, Any]:
        # The services' level-range rule, asked here too so that a reversed range is
        # shown with the other fields' errors rather than only once they are fixed.
        data = super().clean() or {}
        low, high = data.get("min_level"), data.get("max_level")
        try:
            services.check_level_range(low, high)
        except ValidationError:
            self.add_error(
                "min_level",
                f"The level range is reversed: {low} is above {high}. Choose a “From” level"
                " at or below the “To” level.",
            )
        return data

    def parts(self, status: str) -> tuple[services.Meta, services.Content]:
        """The cleaned form as the bank services take it, with the question's `status`."""
        data = self.cleaned_data
        meta = services.Meta(
            title=data["title"].strip(),
            status=status,
            competencies=list(data["competencies"]),
            min_level=data["min_level"],
            max_level=data["max_level"],
        )
        content = services.Content(
            prompt=data["prompt"].strip(),
            outline=data["outline"].strip(),
            minutes=data["minutes"],
            scale_max=data["scale_max"],
            follow_ups=data["follow_ups"],
            rubric=data["rubric"],
        )
        return meta, content

    def refuse(self, error: ValidationError) -> None:
        """Show a service's refusal: its checks (full_clean, the level range) name model
        fields, which the form's fields share."""
        for field, messages in error.message_dict.items():
            self.add_error(field if field in self.fields else None, messages)
