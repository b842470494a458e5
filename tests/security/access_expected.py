"""The access matrix's table: the status each persona must get from each URL and method.

`EXPECTED` has a row per (URL name, method) the walk finds (tests/security/access_walk.py)
and a column per persona; `DRAFT_EXPECTED` the scorecard endpoints again on Omar's draft.
tests/security/test_access_matrix.py sends every cell and fails on a row missing or stale.
"""

# The columns of EXPECTED, in order:
#   anonymous; omar, on the loop, his card a draft (blind); ines, on the loop, card
#   submitted (unblinded); sam, shadow on interview 1 with no card (blind); olga, an
#   interviewer on no loop; rita, recruiter; leo, calibration lead.
# And hank, a hiring manager owning the loop's role, on no panel: olga's column but for
# the cells HANK names (see `expected_status`).
PERSONAS = ("anonymous", "omar", "ines", "sam", "olga", "rita", "leo", "hank")

# (url name, method): status for (anonymous, omar, ines, sam, olga, rita, leo)
EXPECTED: dict[tuple[str, str], tuple[int, int, int, int, int, int, int]] = {
    # --- site pages: anonymous visitors are sent to the login page -----------------------
    ("home", "GET"): (302, 302, 302, 302, 302, 302, 302),
    ("home", "POST"): (302, 302, 302, 302, 302, 302, 302),
    ("login", "GET"): (200, 302, 302, 302, 302, 302, 302),
    ("login", "POST"): (200, 302, 302, 302, 302, 302, 302),
    ("login", "PUT"): (200, 302, 302, 302, 302, 302, 302),
    ("logout", "GET"): (405, 405, 405, 405, 405, 405, 405),
    ("logout", "POST"): (302, 302, 302, 302, 302, 302, 302),
    # the bank: everyone signed in reads it
    ("kit:question-list", "GET"): (302, 200, 200, 200, 200, 200, 200),
    ("kit:question-list", "POST"): (302, 200, 200, 200, 200, 200, 200),
    ("kit:question-detail", "GET"): (302, 200, 200, 200, 200, 200, 200),
    ("kit:question-detail", "POST"): (302, 200, 200, 200, 200, 200, 200),
    # retire / restore / draft: the leads' form; a bad status is a 400 with nothing written
    ("kit:question-new", "GET"): (302, 404, 404, 404, 404, 404, 200),
    ("kit:question-new", "POST"): (302, 404, 404, 404, 404, 404, 200),
    ("kit:question-edit", "GET"): (302, 404, 404, 404, 404, 404, 200),
    ("kit:question-edit", "POST"): (302, 404, 404, 404, 404, 404, 200),
    ("kit:question-status", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("kit:question-status", "POST"): (302, 404, 404, 404, 404, 404, 400),
    # who owns a role: the recruiters' page (an empty form clears the owners: a redirect)
    ("kit:role-owners", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("kit:role-owners", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("kit:role-owners-edit", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("kit:role-owners-edit", "POST"): (302, 404, 404, 404, 404, 302, 404),
    # candidates and loops: recruiters' pages, 404 for everyone else
    ("interviews:candidate-list", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:candidate-list", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:candidate-new", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:candidate-new", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:candidate-detail", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:candidate-detail", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:candidate-edit", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:candidate-edit", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:loop-list", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:loop-list", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:loop-new", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:loop-new", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:loop-detail", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:loop-detail", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("interviews:loop-staff", "GET"): (302, 404, 404, 404, 404, 200, 404),
    # an empty form seats nothing: back to the loop page
    ("interviews:loop-staff", "POST"): (302, 404, 404, 404, 404, 302, 404),
    # the pools' pages: keepers only (404 for the rest, Sam the member included); an
    # empty form is a 400 with nothing written
    ("interviews:pool-new", "GET"): (302, 404, 404, 404, 404, 200, 200),
    ("interviews:pool-new", "POST"): (302, 404, 404, 404, 404, 400, 400),
    ("interviews:pool-detail", "GET"): (302, 404, 404, 404, 404, 200, 200),
    ("interviews:pool-detail", "POST"): (302, 404, 404, 404, 404, 400, 400),
    ("interviews:pool-path", "GET"): (302, 404, 404, 404, 404, 200, 200),
    ("interviews:pool-path", "POST"): (302, 404, 404, 404, 404, 400, 400),
    ("interviews:pool-member-add", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("interviews:pool-member-add", "POST"): (302, 404, 404, 404, 404, 400, 400),
    ("interviews:pool-member-remove", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("interviews:pool-member-remove", "POST"): (302, 404, 404, 404, 404, 302, 302),
    # graduating Sam by hand: refused (his path is not complete), said on the pool page
    ("interviews:pool-member-graduate", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("interviews:pool-member-graduate", "POST"): (302, 404, 404, 404, 404, 302, 302),
    # Omar's limits: his own and the keepers'
    ("interviews:pool-limits", "GET"): (302, 200, 404, 404, 404, 200, 200),
    ("interviews:pool-limits", "POST"): (302, 400, 404, 404, 404, 400, 400),
    # Sam's seat: Ines signs it off (beside him), and the keepers; not Sam himself
    ("interviews:pool-seat", "GET"): (302, 404, 200, 404, 404, 200, 200),
    ("interviews:pool-seat", "POST"): (302, 404, 400, 404, 404, 400, 400),
    ("interviews:pool-list", "GET"): (302, 404, 404, 404, 404, 200, 200),
    ("interviews:pool-list", "POST"): (302, 404, 404, 404, 404, 200, 200),
    ("interviews:interview-panel", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("interviews:interview-panel", "POST"): (302, 404, 404, 404, 404, 200, 404),
    # an empty form adds nothing: the loop page again, with what is missing
    ("interviews:interview-add", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("interviews:interview-add", "POST"): (302, 404, 404, 404, 404, 200, 404),
    # Interview 1 has started: removing it is refused, back to the loop page with why.
    ("interviews:interview-remove", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("interviews:interview-remove", "POST"): (302, 404, 404, 404, 404, 302, 404),
    # a kit's questions: recruiters, and its interviewers until it starts (interviews.editing:
    # interview 1 has started, 400 for Ines; Sam shadows it, 403)
    ("interviews:question-swap", "GET"): (302, 404, 400, 403, 404, 200, 404),
    ("interviews:question-swap", "POST"): (302, 404, 400, 403, 404, 200, 404),
    ("interviews:question-move", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("interviews:question-move", "POST"): (302, 404, 400, 403, 404, 302, 404),
    ("scoring:candidate-export", "GET"): (302, 404, 404, 404, 404, 200, 404),
    ("scoring:candidate-export", "POST"): (302, 404, 404, 404, 404, 200, 404),
    ("scoring:candidate-erase", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("scoring:candidate-erase", "POST"): (302, 404, 404, 404, 404, 302, 404),
    # an interviewer's pages: interview 1 is Ines's and Sam's, not Omar's
    ("interviews:my-interviews", "GET"): (302, 200, 200, 200, 200, 200, 200),
    ("interviews:my-interviews", "POST"): (302, 200, 200, 200, 200, 200, 200),
    ("interviews:kit", "GET"): (302, 404, 200, 200, 404, 200, 404),
    ("interviews:kit", "POST"): (302, 404, 200, 200, 404, 200, 404),
    ("interviews:kit-markdown", "GET"): (302, 404, 200, 200, 404, 200, 404),
    ("interviews:kit-markdown", "POST"): (302, 404, 200, 200, 404, 200, 404),
    ("scoring:scorecard", "GET"): (302, 404, 200, 200, 404, 404, 404),
    ("scoring:scorecard", "POST"): (302, 404, 200, 302, 404, 404, 404),
    ("scoring:amend", "GET"): (302, 404, 200, 404, 404, 404, 404),
    ("scoring:amend", "POST"): (302, 404, 200, 404, 404, 404, 404),
    # the debrief: everyone on the loop (blind until they submit), and recruiters
    ("scoring:debrief", "GET"): (302, 200, 200, 200, 404, 200, 404),
    ("scoring:debrief", "POST"): (302, 403, 403, 403, 404, 200, 404),
    # calibration: the dashboard for all (others see their own row), the rest for leads
    ("scoring:calibration", "GET"): (302, 200, 200, 200, 200, 200, 200),
    ("scoring:calibration", "POST"): (302, 200, 200, 200, 200, 200, 200),
    ("scoring:calibration-run", "GET"): (302, 405, 405, 405, 405, 405, 405),
    ("scoring:calibration-run", "POST"): (302, 404, 404, 404, 404, 404, 302),
    ("scoring:calibration-export", "GET"): (302, 404, 404, 404, 404, 404, 200),
    ("scoring:calibration-export", "POST"): (302, 404, 404, 404, 404, 404, 200),
    ("core:audit-log", "GET"): (302, 404, 404, 404, 404, 404, 200),
    ("core:audit-log", "POST"): (302, 404, 404, 404, 404, 404, 200),
    ("core:account-token", "GET"): (302, 200, 200, 200, 200, 200, 200),
    ("core:account-token", "POST"): (302, 400, 400, 400, 400, 400, 400),
    # Without an action the account page saves the form: an empty one is shown again.
    ("core:account", "GET"): (302, 200, 200, 200, 200, 200, 200),
    ("core:account", "POST"): (302, 200, 200, 200, 200, 200, 200),
    # A calendar feed opens with its secret alone, whoever asks: any other is a 404.
    ("interviews:calendar-feed", "GET"): (404, 404, 404, 404, 404, 404, 404),
    ("interviews:calendar-feed", "POST"): (405, 405, 405, 405, 405, 405, 405),
    ("scoring:exercises", "GET"): (302, 200, 200, 200, 200, 200, 200),
    ("scoring:exercises", "POST"): (302, 200, 200, 200, 200, 200, 200),
    ("scoring:exercise-new", "GET"): (302, 404, 404, 404, 404, 404, 200),
    ("scoring:exercise-new", "POST"): (302, 404, 404, 404, 404, 404, 200),
    ("scoring:exercise", "GET"): (302, 404, 404, 404, 200, 404, 200),
    ("scoring:exercise", "POST"): (302, 404, 404, 404, 302, 404, 403),
    # --- API: anonymous callers get 401 ---------------------------------------------------
    ("api-root", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("api-token", "GET"): (405, 405, 405, 405, 405, 405, 405),
    ("api-token", "POST"): (400, 400, 400, 400, 400, 400, 400),
    ("api-token", "DELETE"): (401, 204, 204, 204, 204, 204, 204),
    ("api-token-rotate", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("api-token-rotate", "POST"): (401, 201, 201, 201, 201, 201, 201),
    ("schema", "GET"): (200, 200, 200, 200, 200, 200, 200),
    # --- probes for orchestrators: no sign-in, nothing about anyone ----------------------
    ("healthz", "GET"): (200, 200, 200, 200, 200, 200, 200),
    ("readyz", "GET"): (200, 200, 200, 200, 200, 200, 200),
    # Prometheus' scrape: 404 to everyone while METRICS_TOKEN is unset (tests/core/test_metrics.py)
    ("prometheus-metrics", "GET"): (404, 404, 404, 404, 404, 404, 404),
    ("prometheus-metrics", "POST"): (404, 404, 404, 404, 404, 404, 404),
    ("swagger-ui", "GET"): (200, 200, 200, 200, 200, 200, 200),
    # the bank: everyone signed in reads it, leads edit it (templates: recruiters too)
    ("role-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("role-list", "POST"): (401, 403, 403, 403, 403, 403, 400),
    ("role-detail", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("role-detail", "PATCH"): (401, 403, 403, 403, 403, 403, 200),
    ("level-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("level-detail", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("competency-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("competency-list", "POST"): (401, 403, 403, 403, 403, 403, 400),
    ("competency-detail", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("competency-detail", "PATCH"): (401, 403, 403, 403, 403, 403, 200),
    ("question-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("question-list", "POST"): (401, 403, 403, 403, 403, 403, 400),
    ("question-detail", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("question-detail", "PUT"): (401, 403, 403, 403, 403, 403, 400),
    ("loop-template-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("loop-template-list", "POST"): (401, 403, 403, 403, 403, 400, 400),
    ("loop-template-detail", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("loop-template-detail", "PUT"): (401, 403, 403, 403, 403, 400, 400),
    # candidates: recruiters only; by id, 404 for everyone else
    ("candidate-list", "GET"): (401, 403, 403, 403, 403, 200, 403),
    ("candidate-list", "POST"): (401, 403, 403, 403, 403, 400, 403),
    ("candidate-detail", "GET"): (401, 404, 404, 404, 404, 200, 404),
    ("candidate-detail", "PATCH"): (401, 404, 404, 404, 404, 200, 404),
    ("candidate-export", "GET"): (401, 404, 404, 404, 404, 200, 404),
    ("candidate-erase", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("candidate-erase", "POST"): (401, 404, 404, 404, 404, 200, 404),
    # loops and interviews: scoped reads, recruiter writes (seen but not yours: 403)
    ("loop-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("loop-list", "POST"): (401, 403, 403, 403, 403, 400, 403),
    ("loop-preview", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("loop-preview", "POST"): (401, 403, 403, 403, 403, 400, 403),
    ("loop-detail", "GET"): (401, 200, 200, 200, 404, 200, 404),
    ("interview-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("interview-detail", "GET"): (401, 404, 200, 200, 404, 200, 404),
    ("interview-detail", "PUT"): (401, 404, 403, 403, 404, 400, 404),
    # its questions: as the pages above (interviews.editing)
    # Ines may read the alternatives of her started interview, not change it (swap: 400).
    ("interview-alternatives", "GET"): (401, 404, 200, 403, 404, 200, 404),
    ("interview-reorder", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("interview-reorder", "POST"): (401, 404, 400, 403, 404, 400, 404),
    ("interview-swap", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("interview-swap", "POST"): (401, 404, 400, 403, 404, 400, 404),
    # scorecards: your own; others' submitted ones once you owe none (recruiters: all)
    ("scorecard-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("scorecard-list", "POST"): (401, 400, 400, 400, 400, 400, 400),
    ("scorecard-detail", "GET"): (401, 404, 200, 404, 404, 200, 404),
    ("scorecard-detail", "PUT"): (401, 404, 409, 404, 404, 404, 404),
    ("scorecard-submit", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("scorecard-submit", "POST"): (401, 404, 409, 404, 404, 404, 404),
    ("scorecard-amend", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("scorecard-amend", "POST"): (401, 404, 400, 404, 404, 404, 404),
    ("loop-debrief", "GET"): (401, 200, 200, 200, 404, 200, 404),
    # interviewer pools and training (interviews.pools): keepers (recruiters, leads, the
    # role's hiring managers) write; members read their pools; a 403 before the body
    ("pool-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("pool-list", "POST"): (401, 403, 403, 403, 403, 400, 400),
    ("pool-detail", "GET"): (401, 404, 200, 200, 404, 200, 200),
    ("pool-detail", "PATCH"): (401, 404, 403, 403, 404, 400, 400),
    ("pool-membership-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("pool-membership-list", "POST"): (401, 403, 403, 403, 403, 400, 400),
    ("pool-membership-detail", "GET"): (401, 404, 200, 200, 404, 200, 200),
    ("pool-membership-detail", "DELETE"): (401, 404, 403, 403, 404, 204, 204),
    ("pool-membership-graduate", "GET"): (401, 405, 405, 405, 405, 405, 405),
    # Sam's path is not complete: 409 path_incomplete
    ("pool-membership-graduate", "POST"): (401, 404, 403, 403, 404, 409, 409),
    # everyone sets their own limits (an empty body changes nothing); Omar's row
    ("interviewer-limits-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("interviewer-limits-list", "POST"): (401, 200, 201, 201, 201, 201, 201),
    ("interviewer-limits-detail", "GET"): (401, 200, 404, 404, 404, 200, 200),
    ("interviewer-limits-detail", "PUT"): (401, 200, 404, 404, 404, 200, 200),
    ("training-path-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("training-path-detail", "GET"): (401, 404, 200, 200, 404, 200, 200),
    ("training-path-detail", "PUT"): (401, 404, 403, 403, 404, 400, 400),
    # Sam's seat: his own, Ines's to sign off (she sits beside him), the keepers'
    ("training-seat-list", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("training-seat-detail", "GET"): (401, 404, 200, 200, 404, 200, 200),
    ("training-seat-sign-off", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("training-seat-sign-off", "POST"): (401, 404, 400, 403, 404, 400, 400),
    # staffing a loop: as building it (interviews.staffing)
    ("loop-staff", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("loop-staff", "POST"): (401, 404, 404, 404, 404, 200, 404),
    ("loop-staff-accept", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("loop-staff-accept", "POST"): (401, 404, 404, 404, 404, 400, 404),
    ("loop-decision", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("loop-decision", "POST"): (401, 403, 403, 403, 404, 400, 404),
    ("loop-cancel", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("loop-cancel", "POST"): (401, 403, 403, 403, 404, 400, 404),
    ("loop-reopen", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("loop-reopen", "POST"): (401, 403, 403, 403, 404, 400, 404),
    # calibration: the latest snapshot for all (filtered), the rest for leads
    ("calibration-latest", "GET"): (401, 200, 200, 200, 200, 200, 200),
    ("calibration-history", "GET"): (401, 403, 403, 403, 403, 403, 200),
    ("calibration-runs", "GET"): (401, 403, 403, 403, 403, 403, 405),
    ("calibration-runs", "POST"): (401, 403, 403, 403, 403, 403, 400),
    # a run is an object: those who may not see it get 404, as everywhere else
    ("calibration-run", "GET"): (401, 404, 404, 404, 404, 404, 200),
    # webhooks: leads and recruiters, each their own (the world's is rita's); by id,
    # 404 for everyone else
    ("webhook-list", "GET"): (401, 403, 403, 403, 403, 200, 200),
    ("webhook-list", "POST"): (401, 403, 403, 403, 403, 400, 400),
    ("webhook-detail", "GET"): (401, 404, 404, 404, 404, 200, 404),
    ("webhook-detail", "PATCH"): (401, 404, 404, 404, 404, 200, 404),
    ("webhook-detail", "DELETE"): (401, 404, 404, 404, 404, 204, 404),
    ("webhook-deliveries", "GET"): (401, 404, 404, 404, 404, 200, 404),
    ("webhook-delivery", "GET"): (401, 404, 404, 404, 404, 200, 404),
    ("webhook-delivery-replay", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("webhook-delivery-replay", "POST"): (401, 404, 404, 404, 404, 202, 404),
}

# Hank's column where it is not Olga's: he builds and staffs loops of the role he owns
# (interviews.staffing), and reads no more than an interviewer on no loop otherwise.
HANK: dict[tuple[str, str], int] = {
    # the pages of the loops he staffs, as Rita's (candidates' pages stay hers: 404)
    ("interviews:loop-list", "GET"): 200,
    ("interviews:loop-list", "POST"): 200,
    ("interviews:loop-new", "GET"): 200,
    ("interviews:loop-new", "POST"): 200,
    ("interviews:loop-detail", "GET"): 200,
    ("interviews:loop-detail", "POST"): 200,
    ("interviews:interview-panel", "POST"): 200,
    ("interviews:interview-add", "POST"): 200,
    ("interviews:interview-remove", "POST"): 302,
    ("interviews:question-swap", "GET"): 200,
    ("interviews:question-swap", "POST"): 200,
    ("interviews:question-move", "POST"): 302,
    # the API: builds (an empty body is a 400 past the permission check), reads and staffs
    ("interviews:loop-staff", "GET"): 200,
    ("interviews:loop-staff", "POST"): 302,
    ("interviews:pool-list", "GET"): 200,
    ("interviews:pool-list", "POST"): 200,
    ("interviews:pool-new", "GET"): 200,
    ("interviews:pool-new", "POST"): 400,
    ("interviews:pool-detail", "GET"): 200,
    ("interviews:pool-detail", "POST"): 400,
    ("interviews:pool-path", "GET"): 200,
    ("interviews:pool-path", "POST"): 400,
    ("interviews:pool-member-add", "POST"): 400,
    ("interviews:pool-member-remove", "POST"): 302,
    ("interviews:pool-member-graduate", "POST"): 302,
    ("interviews:pool-limits", "GET"): 200,
    ("interviews:pool-limits", "POST"): 400,
    ("interviews:pool-seat", "GET"): 200,
    ("interviews:pool-seat", "POST"): 400,
    ("pool-list", "POST"): 400,
    ("pool-detail", "GET"): 200,
    ("pool-detail", "PATCH"): 400,
    ("pool-membership-list", "POST"): 400,
    ("pool-membership-detail", "GET"): 200,
    ("pool-membership-detail", "DELETE"): 204,
    ("pool-membership-graduate", "POST"): 409,
    ("interviewer-limits-detail", "GET"): 200,
    ("interviewer-limits-detail", "PUT"): 200,
    ("training-path-detail", "GET"): 200,
    ("training-path-detail", "PUT"): 400,
    ("training-seat-detail", "GET"): 200,
    ("training-seat-sign-off", "POST"): 400,
    ("loop-staff", "POST"): 200,
    ("loop-staff-accept", "POST"): 400,
    ("loop-list", "POST"): 400,
    ("loop-preview", "POST"): 400,
    ("loop-detail", "GET"): 200,
    ("interview-detail", "GET"): 200,
    ("interview-detail", "PUT"): 400,
    ("interview-alternatives", "GET"): 200,
    ("interview-reorder", "POST"): 400,
    ("interview-swap", "POST"): 400,
    # Olga's exercise is not his
    ("scoring:exercise", "GET"): 404,
    ("scoring:exercise", "POST"): 404,
}


def expected_status(persona: str, cell: tuple[str, str], row: tuple[int, ...]) -> int:
    """Return the status `persona` must get for `cell`, whose EXPECTED row is `row`."""
    if persona == "hank":
        return HANK.get(cell, row[PERSONAS.index("olga")])
    return row[PERSONAS.index(persona)]


# The same endpoints on Omar's draft card: a draft is only ever seen by its author.
DRAFT_EXPECTED: dict[tuple[str, str], tuple[int, int, int, int, int, int, int]] = {
    ("scorecard-detail", "GET"): (401, 200, 404, 404, 404, 404, 404),
    ("scorecard-detail", "PUT"): (401, 200, 404, 404, 404, 404, 404),
    ("scorecard-submit", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("scorecard-submit", "POST"): (401, 200, 404, 404, 404, 404, 404),
    ("scorecard-amend", "GET"): (401, 405, 405, 405, 405, 405, 405),
    ("scorecard-amend", "POST"): (401, 400, 404, 404, 404, 404, 404),
    ("scoring:amend", "GET"): (302, 302, 404, 404, 404, 404, 404),
    ("scoring:amend", "POST"): (302, 302, 404, 404, 404, 404, 404),
}
