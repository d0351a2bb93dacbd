"""A researcher in a real browser: from the listings to a study's workforce dashboard, its charts and CSV."""

import pytest
from django.utils import timezone

from accounts.models import Worker
from accounts.services import researcher_create
from annotations.models import Assignment
from tests.browser.logins import log_in
from tests.factories import make_span_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_researcher_sees_who_is_under_the_target_and_downloads_the_csv(page, live_server, tmp_path):
    researcher = researcher_create(username="ada", password="pass-w0rd-for-tests")
    study = make_span_study(
        documents=2, researcher=researcher, title="Pay check <b>study</b>",
        config={"pay": {"reward": 2.0, "currency": "GBP", "target_hourly": 12.0}},
    )  # fmt: skip
    fast, slow = (
        Worker.objects.create(platform="prolific", external_id=pid) for pid in ("PID-FAST", "PID-SLOW")
    )
    for worker, seconds in ((fast, 300), (slow, 1800)):
        Assignment.objects.create(
            study=study, document=study.documents.first(), worker=worker, active_seconds=seconds,
            status=Assignment.Status.SUBMITTED, submitted_at=timezone.now(),
        )  # fmt: skip
    log_in(page, live_server, "ada")
    page.goto(f"{live_server.url}/admin/crowd/listing/")
    page.click("#workforce-dashboard-link")
    page.get_by_role("link", name="Pay check <b>study</b>").click()
    page.wait_for_selector("#workforce-workers")

    rows = page.locator("#workforce-workers tbody tr")
    assert rows.count() == 2
    slow_row = rows.filter(has_text="PID-SLOW")
    assert "under target" in slow_row.inner_text()  # 2.00 for half an hour: 4.00 an hour
    assert "under target" not in rows.filter(has_text="PID-FAST").inner_text()  # 24.00 an hour
    assert "under-target" in slow_row.get_attribute("class")
    assert page.locator("#workforce-hourly").inner_text().startswith("6.86")  # 4.00 over 35 minutes
    assert page.locator("figure.chart svg").count() == 2
    assert page.locator("b", has_text="study").count() == 0  # the title is text, not markup

    with page.expect_download() as download:
        page.click("#workforce-csv")
    path = tmp_path / "workforce.csv"
    download.value.save_as(path)
    text = path.read_text()
    assert text.splitlines()[0].startswith("annotator,platform_id,submitted")
    assert "PID-SLOW" in text and "PID-FAST" in text
    assert page.dialogs == []
