"""/loops/{id}/debrief/: the panel's grid of interviewers by questions, then the decision.

Who sees which card is tested across every endpoint in test_blind_feedback.py; the
decision form in test_loop_decide.py.
"""

import numpy as np
from django.contrib.auth.models import User
from django.test import Client
from scipy import stats as scipy_stats

from interviews.models import Interview
from kit.models import RubricItem
from scoring.models import CalibrationSnapshot
from scoring.scorecards import services
from tests.scoring.helpers import count_queries, draft, ratings_for, rubric, submitted
from tests.support.loops import Built


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def url(built: Built) -> str:
    return f"/loops/{built.loop.pk}/debrief/"


def test_a_recruiter_sees_the_grid_summaries_and_who_is_pending(
    panel: Built,
    first: Interview,
    second: Interview,
    recruiter: User,
    pia: User,
    other_interviewer: User,
) -> None:
    # Pia covers every point of question 1, red flag included.
    ratings = ratings_for(first, rating=4)
    q1 = first.questions.order_by("order")[0]
    ratings[0] = services.RatingInput(item=q1.pk, rating=2, checked=tuple(r.pk for r in rubric(q1)))
    card = services.scorecard_start(interview=first, by=pia)
    services.scorecard_save_draft(
        scorecard=card,
        by=pia,
        recommendation="strong_yes",
        summary="Deep on serving.\nWould hire.",
        ratings=ratings,
    )
    services.scorecard_submit(scorecard=card, by=pia)
    submitted(other_interviewer, second, rating=1, recommendation="strong_no", summary="No.")

    response = signed_in(recruiter).get(url(panel))

    assert response.status_code == 200
    body = response.content.decode()
    assert "<h1>Debrief: Casey Quinn</h1>" in body
    for item in [*panel.questions(first), *panel.questions(second)]:
        assert f'<th title="{item.question.title}">' in body
    assert '<span class="rec rec-strong_yes">Strong yes</span>' in body
    assert '<span class="rec rec-strong_no">Strong no</span>' in body
    assert body.count('<span class="score">4</span>') == 3
    assert body.count('<span class="score">1</span>') == 4
    assert '<span class="score">2</span>' in body
    assert "core 2/2 · strong 1/1" in body
    assert "core 2/2 · strong 0/1" in body
    red = rubric(q1, RubricItem.Kind.RED_FLAG)[0]
    assert f'<div class="redflag small" title="{red.text}">' in body
    assert "Deep on serving.<br>Would hire." in body
    assert "<p>No.</p>" in body
    assert "Waiting for:" in body
    # Who is pending, and on which interview (one person may hold two seats).
    assert f'<span class="tag">Ines · {second.title}</span>' in body
    assert f'<span class="tag">Sam · {first.title} (shadow)</span>' in body
    assert "Record the decision" in body


def test_a_blind_interviewer_is_told_to_finish_her_cards(
    panel: Built, first: Interview, second: Interview, interviewer: User, pia: User
) -> None:
    submitted(pia, first, summary="Pia's verdict")
    draft(interviewer, first)
    draft(interviewer, second)

    response = signed_in(interviewer).get(url(panel))

    body = response.content.decode()
    assert response.status_code == 200
    assert "Feedback stays blind until you submit." in body
    assert f'href="/interviews/{first.pk}/scorecard/">Finish my scorecard for Interview 1' in body
    assert f'href="/interviews/{second.pk}/scorecard/">Finish my scorecard for Interview 2' in body
    assert '<table class="table grid">' not in body
    assert "Pia" not in body.split("<main", 1)[1]
    assert "Record the decision" not in body


def test_after_submitting_an_interviewer_sees_the_grid_and_can_amend_her_card(
    panel: Built,
    first: Interview,
    second: Interview,
    interviewer: User,
    pia: User,
) -> None:
    submitted(pia, first, summary="Pia's verdict")
    mine = submitted(interviewer, first, summary="My verdict")
    submitted(interviewer, second)

    response = signed_in(interviewer).get(url(panel))

    body = response.content.decode()
    assert response.status_code == 200
    assert "Feedback stays blind" not in body
    assert '<table class="table grid">' in body
    assert "Pia&#x27;s verdict" in body and "My verdict" in body
    assert f'href="/scorecards/{mine.pk}/amend/">Amend my scorecard' in body
    assert body.count("Amend my scorecard") == 2  # her two cards, not Pia's


def test_it_sends_anonymous_visitors_to_the_login_page(panel: Built) -> None:
    response = Client().get(url(panel))

    assert (response.status_code, response["Location"]) == (
        302,
        f"/login/?next=/loops/{panel.loop.pk}/debrief/",
    )


def test_it_answers_404_for_an_unknown_loop(panel: Built, recruiter: User) -> None:
    assert signed_in(recruiter).get("/loops/999999/debrief/").status_code == 404


def test_it_renders_in_a_fixed_number_of_queries(
    sized: dict[int, Built], recruiter: User, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    def read(client: Client, size: int) -> None:
        response = client.get(url(sized[size]))
        assert response.status_code == 200
        assert response.content.decode().count('<section class="card">') == size

    def client(username: str) -> Client:
        return signed_in(User.objects.get(username=username))

    # Recruiter: 1 session, 2 user, 3 persona groups, 4 loop (candidate, role, level,
    # decided_by joined), 5 interviews, 6 panels (users joined), 7 questions (question,
    # version joined), 8 rubric items, 9 scorecards (interviewer, loop joined), 10 ratings
    # (item, question, version joined), 11 rubric items checked, 12 follow-ups asked,
    # 13 amendments, 14 the newest calibration's interviewer rows, 15 the record that
    # she read the panel's cards (one INSERT that keeps the first read).
    rita = client("rita")
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(16):
        read(rita, 6)
    assert count_queries(lambda: read(rita, 2)) == count_queries(lambda: read(rita, 6)) == 16

    # An interviewer who has submitted: the same, plus "owes nothing?" (her seats in the
    # loop, each with whether it is submitted) asked once.
    big = client("6-panelist-1")
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(16):
        read(big, 6)
    small = client("2-panelist-1")
    assert count_queries(lambda: read(small, 2)) == count_queries(lambda: read(big, 6)) == 16


def calibrated(
    built: Built, severity: dict[str, float | None], *, ids: bool = True
) -> CalibrationSnapshot:
    """A role-wide calibration of the loop's role that found these severities (its rows
    name each interviewer by username and, unless `ids` is false, by user id)."""
    rows = []
    for username, value in severity.items():
        row = {"interviewer": username, "severity": value}
        if ids:
            row["interviewer_id"] = User.objects.get(username=username).pk
        rows.append(row)
    return CalibrationSnapshot.objects.create(
        role=built.loop.role, level=None, watermark=f"test {CalibrationSnapshot.objects.count()}",
        result={"interviewers": rows},
    )  # fmt: skip


def adjusted_section(page: str) -> str:
    start = page.index('<section class="card adjusted"')
    return page[start : page.index("</section>", start)]


def test_a_recruiter_reads_the_panel_score_adjusted_for_each_interviewers_severity(
    panel: Built,
    first: Interview,
    second: Interview,
    recruiter: User,
    pia: User,
    sam: User,
    other_interviewer: User,
) -> None:
    # Pia rates 4 and is harsh by 0.5 (her 4.5s are kept to the scale's 4); Omar rates 2
    # and is lenient by 0.3. Sam, a shadow, is not counted. An older calibration is not used.
    calibrated(panel, {"pia": -2.0, "omar": 2.0})
    submitted(pia, first, rating=4)
    submitted(sam, first, rating=1)
    submitted(other_interviewer, second, rating=2)
    n_first, n_second = first.questions.count(), second.questions.count()
    calibrated(panel, {"pia": 0.5, "omar": -0.3, "sam": 3.0})

    section = adjusted_section(signed_in(recruiter).get(url(panel)).content.decode())

    raw = (4 * n_first + 2 * n_second) / (n_first + n_second)
    adjusted = (4 * n_first + 1.7 * n_second) / (n_first + n_second)
    assert "Panel score, adjusted for interviewer severity" in section
    assert (
        f'<span class="score">{adjusted:.2f}</span><span class="muted"> / 4</span> adjusted · '
        f"{raw:.2f} as rated, over {n_first + n_second} ratings."
    ) in section
    # Each interviewer's severity stays on the leads' calibration page.
    assert "Pia" not in section and "0.50" not in section


def test_severity_is_matched_by_user_id_and_a_missing_one_counts_as_rated(
    panel: Built, first: Interview, second: Interview, recruiter: User, pia: User,
    other_interviewer: User,
) -> None:  # fmt: skip
    submitted(pia, first, rating=3)
    submitted(other_interviewer, second, rating=3)
    snapshot = calibrated(panel, {"pia": -0.5, "omar": None})
    pia.username = "pia.renamed"  # renamed since the calibration: still her estimate
    pia.save()
    n_first, n_second = first.questions.count(), second.questions.count()

    section = adjusted_section(signed_in(recruiter).get(url(panel)).content.decode())

    adjusted = (2.5 * n_first + 3 * n_second) / (n_first + n_second)
    assert f'<span class="score">{adjusted:.2f}</span>' in section
    assert f"({n_first} of them from interviewers with a severity estimate)" in section
    # A row without an id (a calibration from before ids were stored) matches no one,
    # not even the user who holds that username now.
    snapshot.result = {"interviewers": [{"interviewer": "omar", "severity": 1.0}]}
    snapshot.save()
    section = adjusted_section(signed_in(recruiter).get(url(panel)).content.decode())
    assert "(0 of them from interviewers with a severity estimate)" in section


def test_without_a_calibration_two_interviewers_or_a_single_scale_there_is_no_adjusted_score(
    panel: Built, first: Interview, second: Interview, recruiter: User, pia: User,
    other_interviewer: User,
) -> None:  # fmt: skip
    def shown() -> bool:
        page = signed_in(recruiter).get(url(panel)).content.decode()
        return "adjusted for interviewer severity" in page

    draft(pia, first)
    assert not shown()
    calibrated(panel, {"pia": 0.5})  # a calibration, but only a draft
    assert not shown()
    submitted(pia, first)  # the card is in, but the calibration is of the levels only
    CalibrationSnapshot.objects.update(level=panel.loop.level)
    assert not shown()
    CalibrationSnapshot.objects.update(level=None)
    # One interviewer's ratings: adjusted minus raw would be her severity, leads' only.
    assert not shown()
    submitted(other_interviewer, second)
    assert shown()
    # Severity is in rating points: ratings out of 4 and out of 10 are not mixed.
    version = second.questions.order_by("order")[0].version
    type(version).objects.filter(pk=version.pk).update(scale_max=10)
    assert not shown()


def test_interviewers_do_not_see_the_adjusted_score(
    panel: Built, first: Interview, second: Interview, pia: User, other_interviewer: User
) -> None:
    submitted(pia, first, rating=4)
    submitted(other_interviewer, second, rating=2)
    calibrated(panel, {"pia": 0.5, "omar": -0.25})

    page = signed_in(pia).get(url(panel)).content.decode()

    assert "Omar" in page  # she reads the panel's cards
    assert "adjusted for interviewer severity" not in page


def test_the_panel_score_uses_shrunk_severities_and_question_easiness_with_an_interval(
    panel: Built, first: Interview, second: Interview, recruiter: User, pia: User,
    other_interviewer: User,
) -> None:  # fmt: skip
    submitted(pia, first, rating=3)
    submitted(other_interviewer, second, rating=2)
    asked_first = list(first.questions.values_list("version__question_id", flat=True))
    asked_second = list(second.questions.values_list("version__question_id", flat=True))
    # Raw severities would move Pia by 0.9; shrunk, by 0.4 (interval 0.4 ± 1.96 x 0.1).
    rows = [
        {"interviewer": "pia", "interviewer_id": pia.pk, "severity": 0.9,
         "severity_shrunk": 0.4, "severity_shrunk_ci": [0.4 - 0.196, 0.4 + 0.196]},
        {"interviewer": other_interviewer.username, "interviewer_id": other_interviewer.pk,
         "severity": -0.5, "severity_shrunk": -0.2, "severity_shrunk_ci": [-0.396, -0.004]},
    ]  # fmt: skip
    # Every question Pia asked is easy by 0.25 points; Omar's are average.
    questions = [{"question_id": qid, "easiness": 0.25, "easiness_se": 0.0} for qid in asked_first]
    CalibrationSnapshot.objects.create(
        role=panel.loop.role, level=None, watermark="shrunk",
        result={"interviewers": rows, "questions": questions},
    )  # fmt: skip
    n_first, n_second = len(asked_first), len(asked_second)
    assert not set(asked_first) & set(asked_second)

    section = adjusted_section(signed_in(recruiter).get(url(panel)).content.decode())

    pia_adjusted, omar_adjusted = 3 + 0.4 - 0.25, 2 - 0.2
    n = n_first + n_second
    adjusted = (pia_adjusted * n_first + omar_adjusted * n_second) / n
    assert f'<span class="score">{adjusted:.2f}</span>' in section
    # Two interviewers: t with 1 degree of freedom over their adjusted means, plus the
    # severities' own errors (0.1 each), weighted by their shares of the ratings.
    shares = np.array([n_first, n_second]) / n
    means = np.array([pia_adjusted, omar_adjusted])
    spread = np.sum(shares**2 * (means - adjusted) ** 2) * 2
    half = scipy_stats.t.ppf(0.975, 1) * np.sqrt(spread + np.sum(shares**2 * 0.1**2))
    assert f"95% interval {adjusted - half:.2f} to {adjusted + half:.2f}" in section
