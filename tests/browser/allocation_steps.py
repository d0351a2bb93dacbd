"""Steps the live adaptive-allocation tests share: the researcher turning the policy on, workers
coming through the join link one after another until it refuses, the Run tab after the
study stopped by itself, and its Run and Design tabs on a phone."""

from playwright.sync_api import expect

from annotations.models import AllocationRecord
from studies.models import Study
from tests.browser.audit import assert_accessible, assert_no_overflow
from tests.browser.logins import log_in_to_the_console

DESKTOP, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}


def researcher_sets_the_allocation(page, live_server, study, *, username, password):
    """Logs in and chooses the `uncertain` policy with the `settled` rule on the Design tab."""
    log_in_to_the_console(page, live_server, username, password)
    page.goto(f"{live_server.url}/console/studies/{study.pk}/?tab=design")
    page.get_by_label("Uncertain", exact=False).check()
    page.get_by_label("every pair of systems is settled").check()
    page.click("#save-allocation")
    expect(page.locator("body")).to_contain_text("The allocation settings are saved.")


def joined(browser, join_link):
    """A new worker's browser at the join link: (context, page) on the welcome page, or the
    refusal's text (the context closed) when the link gave no place."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(join_link)
    if page.locator("text=Start").count() == 0:
        text = page.locator("#refused").inner_text()
        context.close()
        return text
    return context, page


def workers_until_refused(browser, join_link, work_one, most):
    """(the assignments done, the refusal) of new workers joining one after another, each doing
    `work_one(browser, join_link)` (an assignment, or the refusal's text), at most `most` of them."""
    done = []
    for _ in range(most):
        outcome = work_one(browser, join_link)
        if isinstance(outcome, str):
            return done, outcome
        done.append(outcome)
    return done, None


def assert_stopped_by_itself(researcher, live_server, study, *, rated, planned, pairs):
    """The study closed by the `settled` rule, and its Run tab says so with what was spent."""
    study.refresh_from_db()
    assert study.status == Study.Status.CLOSED
    assert AllocationRecord.objects.get(study=study).stopped_rule == "settled"
    researcher.goto(f"{live_server.url}/console/studies/{study.pk}/?tab=run")
    expect(researcher.locator("#stopped-rule")).to_contain_text("Stopped by itself")
    expect(researcher.locator("#stopped-rule")).to_contain_text("settled")
    expect(researcher.locator("#ratings-spent")).to_contain_text(f"{rated} of {planned} planned")
    expect(researcher.locator("#pairs-settled")).to_contain_text(f"{pairs} of {pairs}")


def assert_tabs_fit_a_phone(researcher, live_server, study, tabs=("run", "design")):
    """At 390 px the study's Run and Design tabs (what the researcher reads and sets about the
    allocation) scroll nothing sideways, and axe-core finds no serious or critical violation."""
    researcher.set_viewport_size(PHONE)
    for tab in tabs:
        researcher.goto(f"{live_server.url}/console/studies/{study.pk}/?tab={tab}")
        expect(researcher.locator(f'[aria-current="page"][href$="?tab={tab}"]')).to_be_visible()
        assert_no_overflow(researcher)
        assert_accessible(researcher)
    researcher.set_viewport_size(DESKTOP)
