"""Promote to a namespace from the console's rules page, over real HTTP with the session's cookie and
CSRF token: a member project's rule gets a button per namespace, the press moves it up through the
same promotion as the API's, and the page shows it as the namespace's rule."""

from __future__ import annotations

import html
import re

import pytest

from tests.conftest import RunningApi
from tests.support.console_client import ConsoleUser

pytestmark = pytest.mark.integration
WEB, API, OTHER = "github.com/acme/web", "github.com/acme/api", "github.com/someone/else"
YARN = "Use yarn, not npm, for package installs"
NPM = "Use npm, not yarn, for package installs"


def promote_forms(page: str) -> list[tuple[str, str]]:
    """(action, namespace) of every Promote form on the page."""
    found = []
    for form in re.finditer(r'<form method="post" action="([^"]+/promote)".*?</form>', page, flags=re.S):
        namespace = re.search(r'name="namespace" value="([^"]+)"', form.group(0))
        assert namespace is not None
        found.append((html.unescape(form.group(1)), namespace.group(1)))
    return found


def rows_of(page: str) -> list[str]:
    table = page.split('id="learned-table"', 1)[1].split("</table>", 1)[0]
    return [html.unescape(re.sub(r"<[^>]+>", " ", row)) for row in table.split("<tr>")[2:]]


@pytest.fixture
def user(api: RunningApi) -> ConsoleUser:
    api.container.namespaces.create("acme", [WEB, API])
    api.container.namespaces.create("beta", [WEB])
    signed_in = ConsoleUser(api.url)
    signed_in.sign_in(api.key)
    return signed_in


def test_a_member_projects_rule_is_promoted_from_the_rules_page_and_shown_as_the_namespaces(
        api: RunningApi, user: ConsoleUser) -> None:
    rule = api.container.project_rules.teach(WEB, YARN)
    outsider = api.container.project_rules.teach(OTHER, NPM)

    page = user.get("/console/learning", params={"project": WEB}).text
    action = f"/console/learning/{rule['id']}/promote"
    assert sorted(promote_forms(page)) == [(action, "acme"), (action, "beta")]
    assert "Promote to acme" in page and "Promote to beta" in page
    assert promote_forms(user.get("/console/learning", params={"project": OTHER}).text) == []
    everything = user.get("/console/learning").text
    assert {a for a, _ in promote_forms(everything)} == {action}  # the outsider's rule has none
    assert f"/console/learning/{outsider['id']}/promote" not in everything

    refused = user.post(action, {"namespace": "acme", "project": WEB})
    assert refused.status_code == 403
    assert [r["namespace"] for r in api.container.project_rules.listed(API) if "namespace" in r] == []

    done = user.post(action, {"csrf": user.csrf, "namespace": "acme", "project": WEB})
    assert done.status_code == 303, done.text
    assert done.headers["Location"] == f"/console/learning?project={WEB.replace('/', '%2F')}&promoted=acme"
    shown = user.get(done.headers["Location"]).text
    assert "Promoted to acme: every project of acme reads the rule." in shown
    (row,) = rows_of(shown)
    assert rule["rule"] in row and "ns:acme" in row
    assert promote_forms(shown) == []  # a namespace's rule goes no higher from here
    (shared,) = [r for r in api.container.project_rules.listed(API) if r["text"] == rule["rule"]]
    assert shared["namespace"] == "acme"
    stored = api.container.memory.get(shared["id"], record_access=False)
    assert stored.metadata["promoted_by"] == "console:deployment"
    assert stored.metadata["promoted_from"] == {"project": WEB, "id": rule["id"]}


def test_a_promotion_the_service_refuses_answers_with_its_status_and_changes_nothing(
        api: RunningApi, user: ConsoleUser) -> None:
    rule = api.container.project_rules.teach(OTHER, NPM)
    user.get("/console/learning")
    action = f"/console/learning/{rule['id']}/promote"

    not_a_member = user.post(action, {"csrf": user.csrf, "namespace": "acme"})
    assert not_a_member.status_code == 400 and "not in the namespace" in html.unescape(not_a_member.text)
    assert user.post(action, {"csrf": user.csrf, "namespace": "nope"}).status_code == 404
    assert user.post(action, {"csrf": user.csrf, "namespace": ""}).status_code == 400
    assert user.post("/console/learning/not-a-uuid/promote",
                     {"csrf": user.csrf, "namespace": "acme"}).status_code == 400
    assert [r["id"] for r in api.container.project_rules.listed(OTHER)] == [rule["id"]]
