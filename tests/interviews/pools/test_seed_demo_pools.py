"""seed_demo's pool: a trainee midway and someone at their limit."""

from io import StringIO

import pytest
from django.core.management import call_command

from interviews.pools.models import InterviewerLimits, Pool, TrainingSeat
from interviews.pools.selectors import progress


@pytest.mark.slow  # seed_demo
def test_the_demo_has_a_pool_a_trainee_midway_and_someone_at_their_limit(db):
    call_command("seed_demo", "--password", "demo", stdout=StringIO())
    pool = Pool.objects.get()
    assert (pool.name, pool.level_min.name) == ("AI Infrastructure Engineer L5+", "L5")
    assert pool.memberships.filter(status="qualified").count() == 5
    trainee = pool.memberships.get(status="training")
    assert trainee.user.username == "demo-interviewer-6"
    assert progress(trainee)["shadows"] == {"ready": 1, "pending": 0, "not_yet": 0, "required": 2}
    assert TrainingSeat.objects.get().signed_off_by.username == "demo-lead"
    limits = InterviewerLimits.objects.get()
    assert (limits.user.username, limits.per_day) == ("demo-interviewer-1", 1)
