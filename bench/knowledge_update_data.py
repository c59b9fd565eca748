# ruff: noqa: E501  (data: one wording a line)
"""Knowledge updates generated for `bench/knowledge_updates.py`: facts stated, then restated later.

Deterministic for a seed. Sixteen families of facts (versions, schedules, counts, owners,
endpoints, policies, regions, times, tools, dates...), each with its own wordings for the first
statement, for the updates (naming the old value or not) and for a question about the current
value, plus two kinds of traps: the same wording about another subject ("the reporting service
runs on Python 3.12" beside the billing service's) and a negated proposal ("we will not move
the billing service to Python 3.13"). The families are split in two halves by the seed: one the
update rule may be tuned on, one held out. A project takes its facts from one half only; each
fact is stated, then updated once or twice in later sessions, among notes about other work.
Nothing here was written with Itachi's rule in view. The rule was since changed with both halves'
wordings read (2026-11-28). `FRESH`: twelve more families written afterwards by someone who had
not read the rule; measured once, then read and used to change the rule (a development set).
`UNSEEN`: twelve more, written by another who had not read the rule either, never read by the
rule's author: the held-out set.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any


@dataclass(frozen=True)
class Family:
    name: str
    values: tuple[str, ...]
    states: tuple[str, ...]  # "{v}"
    updates: tuple[str, ...]  # "{v}", perhaps "{old}"
    question: str
    other: str  # the same wording about another subject, "{v}"
    refused: str  # a negated proposal of another value, "{v}"


FAMILIES = (
    Family("python version", ("3.10", "3.11", "3.12", "3.13"),
           ("The billing service runs on Python {v}.", "Billing is deployed with a Python {v} runtime."),
           ("We upgraded the billing service from Python {old} to {v}.",
            "The billing service is on Python {v} now.", "Billing service: Python {v} (was {old})."),
           "Which Python version does the billing service use?",
           "The reporting service runs on Python {v}.",
           "We will not move the billing service to Python {v} yet."),
    Family("retro day", ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays"),
           ("The team retro takes place every {v} at 4pm.", "Retros are held on {v}."),
           ("Retros moved to {v}; {old} did not work for the Berlin folks.",
            "From now on the retro is on {v} instead of {old}.", "The retro happens on {v} these days."),
           "When is the team retro?",
           "The design review takes place every {v} at 4pm.", "The retro is not moving to {v}."),
    Family("search nodes", ("3", "5", "6", "9", "12"),
           ("The search cluster has {v} nodes.", "We run {v} nodes in the search cluster."),
           ("We scaled the search cluster to {v} nodes, up from {old}.",
            "The search cluster now has {v} nodes.", "Search cluster resized: {old} nodes became {v}."),
           "How many nodes are in the search cluster?",
           "The cache cluster has {v} nodes.", "We decided not to grow the search cluster to {v} nodes."),
    Family("on-call owner", ("Priya", "Tomas", "Aiko", "Lena", "Marcus"),
           ("The payments on-call rotation is owned by {v}.", "{v} owns the payments on-call rotation."),
           ("{v} took over the payments on-call rotation from {old}.",
            "The payments on-call rotation is owned by {v} now.",
            "Payments on-call: {v} replaces {old} as owner."),
           "Who owns the payments on-call rotation?",
           "The identity on-call rotation is owned by {v}.",
           "{v} will not take the payments on-call rotation."),
    Family("partner endpoint", ("https://api.partner.example/v1", "https://api.partner.example/v2",
                                "https://partner-gw.example.net/api", "https://edge.partner.example/rest"),
           ("The partner API base URL is {v}.", "Calls to the partner go to {v}."),
           ("The partner API moved from {old} to {v}.", "Use {v} for the partner API from now on.",
            "Partner API base URL changed to {v}; {old} is retired."),
           "What is the partner API's base URL?",
           "The shipping API base URL is {v}.", "We are not switching the partner API to {v}."),
    Family("reset expiry", ("10", "15", "30", "60"),
           ("Password reset links expire after {v} minutes.", "A reset link stays valid for {v} minutes."),
           ("Reset links now expire after {v} minutes rather than {old}.",
            "We shortened the reset link lifetime to {v} minutes.",
            "Password reset link validity: {v} minutes (previously {old})."),
           "How long is a password reset link valid?",
           "Email verification links expire after {v} minutes.",
           "Reset links will not expire after {v} minutes."),
    Family("upload limit", ("10", "25", "50", "100"),
           ("Uploads are limited to {v} MB per file.", "The maximum upload size is {v} MB."),
           ("We raised the upload limit from {old} MB to {v} MB.", "Files up to {v} MB can be uploaded now.",
            "Upload cap changed: {v} MB instead of {old} MB."),
           "What is the largest file a user can upload?",
           "Avatars are limited to {v} MB per file.", "The upload limit is not going to {v} MB."),
    Family("production region", ("eu-west-1", "us-east-1", "eu-central-1", "ap-southeast-2"),
           ("Production runs in {v}.", "Our production stack is deployed to {v}."),
           ("Production was migrated from {old} to {v}.", "Production lives in {v} now.",
            "We finished moving production out of {old} into {v}."),
           "Which AWS region hosts production?",
           "The staging stack runs in {v}.", "Production will not move to {v}."),
    Family("backup time", ("01:00", "02:30", "03:00", "04:15"),
           ("The nightly backup starts at {v} UTC.", "Backups kick off every night at {v} UTC."),
           ("Nightly backups start at {v} UTC now, not {old}.",
            "We shifted the nightly backup from {old} to {v} UTC.",
            "The backup window opens at {v} UTC these days."),
           "What time does the nightly backup run?",
           "The nightly report email goes out at {v} UTC.", "The backup will not start at {v} UTC."),
    Family("docs tool", ("Sphinx", "MkDocs", "Docusaurus", "Hugo"),
           ("The docs site is built with {v}.", "We generate the documentation with {v}."),
           ("We replaced {old} with {v} for the docs build.", "The docs site is built with {v} now.",
            "Docs tooling switched to {v}; {old} config was deleted."),
           "Which tool builds the documentation site?",
           "The marketing site is built with {v}.", "We are not adopting {v} for the docs site."),
    Family("coverage gate", ("70", "75", "80", "90"),
           ("The CI coverage gate is {v}%.", "Pull requests fail below {v}% line coverage."),
           ("The coverage gate was bumped to {v}% from {old}%.", "The CI coverage gate is {v}% now.",
            "Coverage threshold: {v}% (it used to be {old}%)."),
           "What coverage does CI require?",
           "The CI mutation score gate is {v}%.", "We will not lower the coverage gate to {v}%."),
    Family("sunset date", ("March 1", "April 15", "June 30", "September 1"),
           ("API v1 will be switched off on {v}.", "The v1 sunset date is {v}."),
           ("The v1 sunset was pushed back from {old} to {v}.", "API v1 now shuts down on {v}.",
            "New v1 sunset date: {v} instead of {old}."),
           "When does API v1 go away?",
           "The legacy SDK will be switched off on {v}.", "The v1 sunset is not moving to {v}."),
    Family("platform headcount", ("4", "5", "6", "8"),
           ("The platform team has {v} engineers.", "There are {v} engineers on the platform team."),
           ("The platform team grew from {old} to {v} engineers.", "The platform team has {v} engineers now.",
            "Platform headcount is {v} engineers after the reorg, no longer {old}."),
           "How many engineers work on the platform team?",
           "The data team has {v} engineers.", "The platform team will not reach {v} engineers this year."),
    Family("analytics replica", ("replica-a", "replica-b", "replica-c", "replica-east"),
           ("Analytics queries go to the `{v}` database replica.", "Dashboards read from `{v}`."),
           ("Analytics traffic moved from `{old}` to `{v}`.", "Dashboards read from `{v}` now.",
            "Point analytics at `{v}`; `{old}` is being decommissioned."),
           "Which database replica serves the analytics queries?",
           "Billing exports read from the `{v}` database replica.", "Analytics will not use `{v}`."),
    Family("dependency cadence", ("1", "2", "3", "4"),
           ("Dependency updates are merged every {v} weeks.", "We batch dependency bumps every {v} weeks."),
           ("Dependency updates are merged every {v} weeks now instead of every {old}.",
            "We changed the dependency update cadence from {old} to {v} weeks.",
            "Dependency bumps: every {v} weeks from now on."),
           "How often are dependency updates merged?",
           "Base image rebuilds happen every {v} weeks.",
           "Dependency updates will not be merged every {v} weeks."),
    Family("auth approvals", ("1", "2", "3"),
           ("Changes to the auth module need {v} approvals.",
            "The auth module requires {v} reviewer approvals."),
           ("Changes to the auth module now need {v} approvals instead of {old}.",
            "We raised the auth module review requirement from {old} to {v} approvals.",
            "Auth module: {v} approvals required from now on."),
           "How many approvals does a change to the auth module need?",
           "Changes to the billing module need {v} approvals.",
           "The auth module will not need {v} approvals."),
)

# Written on 2026-11-28 by someone who had not read the update rule; never used to change it.
FRESH = (
    Family(
        name="web build node version",
        values=("18.19.1", "20.11.0", "22.3.0", "16.20.2"),
        states=(
            "The web build runs on Node.js {v}.",
            "We pin the frontend build to Node {v}.",
        ),
        updates=(
            "We moved the web build to Node.js {v}, off {old}.",
            "Web build Node version: {v}.",
            "As of this week the frontend pipeline uses Node {v} instead of {old}.",
            "Priya switched the web bundle's runtime to Node.js {v}.",
        ),
        question="Which Node.js version does the web build use?",
        other="The docs site builds with Node.js {v}.",
        refused="We will not move the web build to Node.js {v}.",
    ),
    Family(
        name="log retention",
        values=("7 days", "14 days", "30 days", "90 days"),
        states=(
            "We keep application logs for {v}.",
            "Log retention is set to {v}.",
        ),
        updates=(
            "Log retention: {v}.",
            "Logs are now kept for {v} instead of {old}.",
            "Compliance asked us to change how long logs stick around, so it's {v} these days.",
            "Heads up: app logs now expire after {v}.",
        ),
        question="How long do we keep application logs?",
        other="We keep audit-trail exports for {v}.",
        refused="We will not change log retention to {v}.",
    ),
    Family(
        name="public api rate limit",
        values=("60 requests", "120 requests", "600 requests", "1,000 requests"),
        states=(
            "The public API allows {v} per minute per key.",
            "Rate limit on the public API is {v} a minute.",
        ),
        updates=(
            "Public API rate limit: {v} per minute.",
            "We retuned the per-key throttle to {v} per minute, replacing {old}.",
            "As of this week, external clients get {v} per minute instead of {old}.",
            "Marco changed the public API quota; it's {v} per minute now.",
        ),
        question="What is the public API rate limit per minute?",
        other="The internal admin API allows {v} per minute per key.",
        refused="We will not set the public API limit to {v} per minute.",
    ),
    Family(
        name="default git branch",
        values=("main", "trunk", "develop", "release-2024"),
        states=(
            "Our default git branch is {v}.",
            "Open PRs against {v}; that's the default branch.",
        ),
        updates=(
            "The default branch is now {v}; {old} is gone.",
            "{v} is the new default branch.",
            "Renamed the repo's primary branch to {v}.",
            "From today, branch off {v} instead of {old}.",
        ),
        question="What is the repository's default git branch?",
        other="The infra repo's default git branch is {v}.",
        refused="We will not make {v} the default branch.",
    ),
    Family(
        name="container registry",
        values=("registry.acme.io", "ghcr.io/acme", "acme.azurecr.io", "harbor.internal.acme.net"),
        states=(
            "Images are pushed to {v}.",
            "Our container registry lives at {v}.",
        ),
        updates=(
            "Container registry: {v}.",
            "We migrated images off {old}; push to {v} from now on.",
            "These days the CI pipeline publishes images to {v}.",
            "Docker images now go to {v} rather than {old}.",
        ),
        question="Which container registry host do we push images to?",
        other="The data team's images are pushed to {v}.",
        refused="We will not move our images to {v}.",
    ),
    Family(
        name="feature flag vendor",
        values=("LaunchDarkly", "Unleash", "Flagsmith", "ConfigCat"),
        states=(
            "We manage feature flags with {v}.",
            "Feature toggles are handled in {v}.",
        ),
        updates=(
            "We swapped {old} for {v} for feature flags.",
            "{v} is our flag provider now.",
            "Toggles moved to {v} this sprint; {old} is being retired.",
            "Feature-flag vendor: {v}.",
        ),
        question="Which vendor do we use for feature flags?",
        other="The mobile team manages its experiments with {v}.",
        refused="We will not adopt {v} for feature flags.",
    ),
    Family(
        name="release day",
        values=("Monday", "Tuesday", "Thursday", "Friday"),
        states=(
            "We ship releases every {v}.",
            "Release day is {v}.",
        ),
        updates=(
            "Releases moved to {v}.",
            "As of this week we cut releases on {v}, no longer on {old}.",
            "Dana says ship day is {v} from now on.",
            "Release train: {v}.",
        ),
        question="On which day do we ship releases?",
        other="The marketing newsletter goes out every {v}.",
        refused="We will not ship releases on {v}.",
    ),
    Family(
        name="db pool size",
        values=("10 connections", "25 connections", "50 connections", "80 connections"),
        states=(
            "The app's database pool is capped at {v}.",
            "Each service instance opens up to {v} to Postgres.",
        ),
        updates=(
            "DB pool size: {v}.",
            "We resized the connection pool to {v}, replacing the old limit of {old}.",
            "Postgres pool is now {v} per instance.",
            "After the load test, Kenji set the max pool to {v}.",
        ),
        question="What is the database connection pool size?",
        other="The reporting worker's database pool is capped at {v}.",
        refused="We will not set the database pool to {v}.",
    ),
    Family(
        name="kubernetes namespace",
        values=("payments-prod", "web-v2", "team-checkout-01", "apps-eu1"),
        states=(
            "Our services deploy into the {v} namespace.",
            "In Kubernetes we live in namespace {v}.",
        ),
        updates=(
            "Namespace: {v}.",
            "We moved the workloads out of {old} and into {v}.",
            "Deploy to {v} now; {old} is being torn down.",
            "The Helm charts target {v} as of this week.",
        ),
        question="Which Kubernetes namespace do our services deploy into?",
        other="The batch jobs deploy into the {v} namespace.",
        refused="We will not deploy our services into {v}.",
    ),
    Family(
        name="availability slo",
        values=("99.5%", "99.9%", "99.95%", "99.0%"),
        states=(
            "Our availability SLO is {v}.",
            "We promise {v} uptime for the API.",
        ),
        updates=(
            "The availability target is {v} now, not {old}.",
            "SLO: {v}.",
            "Leadership revised our uptime objective to {v}.",
            "{v} is the new availability SLO.",
        ),
        question="What is our availability SLO?",
        other="The internal dashboard's availability SLO is {v}.",
        refused="We will not commit to a {v} SLO.",
    ),
    Family(
        name="incident channel",
        values=("#incidents", "#inc-war-room", "#sev-alerts", "#ops-fire"),
        states=(
            "Incidents are coordinated in {v}.",
            "Post outage updates to {v}.",
        ),
        updates=(
            "Incident comms moved to {v}; {old} is archived.",
            "Use {v} for incidents these days.",
            "Incident channel: {v}.",
            "Sam renamed the outage room to {v}.",
        ),
        question="Which Slack channel do we use for incidents?",
        other="Deploy announcements are coordinated in {v}.",
        refused="We will not use {v} for incidents.",
    ),
    Family(
        name="jwt lifetime",
        values=("15 minutes", "30 minutes", "1 hour", "12 hours"),
        states=(
            "Access tokens (JWTs) expire after {v}.",
            "Our JWT lifetime is {v}.",
        ),
        updates=(
            "Security changed the token TTL to {v}.",
            "JWTs are now valid for {v} instead of {old}.",
            "Token lifetime: {v}.",
            "As of this week, access tokens last {v}; the old {old} expiry is gone.",
        ),
        question="How long are our JWT access tokens valid?",
        other="Refresh tokens expire after {v}.",
        refused="We will not set the JWT lifetime to {v}.",
    ),
)

# Written on 2026-11-28 by a second person who had not read the update rule, and not read by the
# rule's author either: measured once, after the rule's last change.
UNSEEN = (
    Family(
        name="frontend node version",
        values=("18.20.4", "20.11.1", "20.18.0", "22.12.0", "22.14.0"),
        states=(
            "The frontend build runs on Node {v}.",
            "We pin Node {v} in the web app's .nvmrc, so use that version locally too.",
            "Node.js version for building the frontend: {v}.",
        ),
        updates=(
            "Bumped the frontend build to Node {v}.",
            "The web app now builds on Node {v}; {old} is no longer supported in CI.",
            "Frontend toolchain: Node {v}.",
            "Dana rolled the frontend over to Node {v} this week, so update your local nvm.",
        ),
        question="Which Node.js version should be used to build the web frontend?",
        other="The Lambda@Edge functions run on Node {v}.",
        refused="We will not move the frontend build to Node {v} yet.",
    ),
    Family(
        name="app log retention days",
        values=("7", "14", "30", "60", "90"),
        states=(
            "Application logs are kept for {v} days.",
            "We retain app logs in Loki for {v} days and then they get dropped.",
        ),
        updates=(
            "Log retention: {v} days.",
            "Changed the retention window for application logs to {v} days instead of {old}.",
            "As of this week app logs stick around for {v} days.",
            "{v} days is the new retention period for service logs; the {old}-day policy is gone.",
        ),
        question="How long do we hold on to application logs before they are deleted?",
        other="Audit logs are kept for {v} days.",
        refused="Security floated {v}-day retention for application logs, but we are not doing that.",
    ),
    Family(
        name="public api rate limit",
        values=("60", "120", "300", "600", "1000"),
        states=(
            "The public API allows {v} requests per minute per API key.",
            "Public API clients are throttled at {v} req/min.",
        ),
        updates=(
            "Retuned the public API throttle to {v} requests per minute.",
            "Public API rate limit: {v}/min per key.",
            "Going forward, public API keys get {v} requests per minute, no longer {old}.",
            "{v} requests a minute is what each public API key is allowed now.",
        ),
        question="How many calls per minute can a single key make against the public API?",
        other="The internal admin API allows {v} requests per minute per API key.",
        refused="We decided not to set the public API limit to {v} requests per minute.",
    ),
    Family(
        name="container registry host",
        values=(
            "registry.acme.io",
            "ghcr.io",
            "acme.azurecr.io",
            "harbor.build.acme.net",
            "quay.acme-internal.net",
        ),
        states=(
            "CI pushes our Docker images to {v}.",
            "Our container registry lives at {v}.",
        ),
        updates=(
            "Swapped the image registry from {old} to {v}.",
            "Registry host is {v} these days, not {old}.",
            "Container registry: {v}.",
            "{old} is retired as our registry; push images to {v} going forward.",
        ),
        question="Which registry host do our built container images get pushed to?",
        other="Helm charts are published to {v}.",
        refused="We are not migrating our images to {v}.",
    ),
    Family(
        name="payments kubernetes namespace",
        values=("payments-prod", "pay-core-2", "team-payments-01", "fin-svc-3", "billing-payments"),
        states=(
            "The payments service is deployed to the {v} namespace.",
            "Payments pods live in Kubernetes namespace {v}.",
        ),
        updates=(
            "Migrated the payments service into namespace {v}.",
            "Payments namespace: {v}.",
            "Payments runs in {v} now; {old} has been emptied.",
            "When you kubectl into payments, use -n {v} from now on.",
        ),
        question="In which Kubernetes namespace does the payments service run?",
        other="The notifications service is deployed to the {v} namespace.",
        refused="We won't move payments into the {v} namespace.",
    ),
    Family(
        name="feature flag vendor",
        values=("LaunchDarkly", "Unleash", "Flagsmith", "Split", "ConfigCat"),
        states=(
            "Feature flags are managed in {v}.",
            "We use {v} for feature flagging across all services.",
        ),
        updates=(
            "Went with {v} for feature flags after the trial.",
            "Flags live in {v} now; {old} is gone.",
            "Feature flag service: {v}.",
            "{v} replaced {old} as our flag provider, so create new toggles there.",
        ),
        question="Which vendor do we manage feature toggles with?",
        other="The mobile team keeps its remote config in {v}.",
        refused="We are not switching our feature flags to {v}.",
    ),
    Family(
        name="release train day",
        values=("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"),
        states=(
            "The release train leaves every {v}.",
            "We cut and ship the weekly release on {v}s.",
        ),
        updates=(
            "Release day moved to {v}.",
            "Releases go out on {v} now, no longer on {old}.",
            "Release train: {v}.",
            "Priya shifted the weekly ship day to {v}, so freeze the branch the day before.",
        ),
        question="On what day of the week does the weekly release go out?",
        other="The architecture review meets every {v}.",
        refused="We will not move the release train to {v}.",
    ),
    Family(
        name="checkout availability slo",
        values=("99.0%", "99.5%", "99.9%", "99.95%", "99.99%"),
        states=(
            "The checkout API's availability SLO is {v}.",
            "We target {v} availability for checkout, measured over 30 days.",
        ),
        updates=(
            "Checkout SLO: {v}.",
            "Product signed off on a {v} availability target for checkout.",
            "The checkout availability objective is {v} as of this quarter, replacing {old}.",
            "{v} is the checkout target going forward; the old {old} objective is retired.",
        ),
        question="What uptime percentage are we committed to for the checkout API?",
        other="The search API's availability SLO is {v}.",
        refused="We are not committing to {v} availability for checkout.",
    ),
    Family(
        name="cleanup job cron",
        values=("0 3 * * *", "30 2 * * *", "0 */6 * * *", "15 4 * * 0", "0 1 * * 1-5"),
        states=(
            "The temp-file cleanup job runs on the cron schedule `{v}`.",
            "Cron for cleanup-tmp: `{v}` (UTC).",
        ),
        updates=(
            "Rescheduled the cleanup job to `{v}`.",
            "The temp-file sweeper now fires on `{v}` instead of `{old}`.",
            "cleanup-tmp schedule: `{v}`.",
            "Changed the cleanup cron so it's `{v}` going forward.",
        ),
        question="When does the job that deletes temporary files get triggered?",
        other="The report-export job runs on the cron schedule `{v}`.",
        refused="We are not changing the cleanup cron to `{v}`.",
    ),
    Family(
        name="incident slack channel",
        values=("#incidents", "#inc-war-room", "#sev-alerts", "#ops-incidents", "#incident-response"),
        states=(
            "Incidents are coordinated in {v} on Slack.",
            "Post anything sev1 or sev2 in {v}.",
        ),
        updates=(
            "Incident comms moved to {v}.",
            "{v} is the incident channel now; {old} is archived.",
            "Incident Slack channel: {v}.",
            "Going forward, open outage threads in {v} rather than {old}.",
        ),
        question="Which Slack channel should people use to coordinate an outage?",
        other="Deploy notifications are posted in {v}.",
        refused="We will not use {v} for incidents.",
    ),
    Family(
        name="email queue visibility timeout",
        values=("30", "60", "120", "300", "900"),
        states=(
            "The email-jobs SQS queue has a visibility timeout of {v} seconds.",
            "Messages on email-jobs stay invisible for {v} seconds after a worker picks them up.",
        ),
        updates=(
            "Visibility timeout on email-jobs: {v}s.",
            "Set the email-jobs visibility timeout to {v} seconds; {old} didn't match how long the workers actually take.",
            "Workers now get {v} seconds before an email-jobs message becomes visible again.",
            "Marco adjusted the email queue so in-flight messages are hidden for {v} seconds.",
        ),
        question="How long does a message on the email-jobs queue stay hidden after a worker receives it?",
        other="The webhook-retries queue has a visibility timeout of {v} seconds.",
        refused="We will not change the email-jobs visibility timeout to {v} seconds.",
    ),
    Family(
        name="mobile code freeze date",
        values=("March 14", "March 21", "March 28", "April 4", "April 11"),
        states=(
            "Code freeze for the mobile 5.0 release is on {v}.",
            "Mobile 5.0 branches off and freezes on {v}.",
        ),
        updates=(
            "The 5.0 code freeze moved to {v}.",
            "Mobile 5.0 freeze: {v}.",
            "We now freeze the 5.0 app on {v} instead of {old}.",
            "{v} is the new freeze date for mobile 5.0; forget {old}.",
        ),
        question="What is the last day for merging features into the mobile 5.0 release?",
        other="The desktop client's code freeze is on {v}.",
        refused="We will not move the mobile 5.0 code freeze to {v}.",
    ),
)

NOTES = (
    "Fixed the flaky test in test_{w}.py by waiting for the queue to drain instead of sleeping.",
    "The {w} importer skips rows without an email address and logs their line numbers.",
    "Renamed the {w} helper to make its side effects obvious; callers were updated in the same PR.",
    "The {w} endpoint returns 404 for unknown ids and 403 for ids of another tenant.",
    "Profiling showed the {w} job spends most of its time serialising JSON.",
    "The {w} migration adds an index concurrently so it does not lock the table.",
    "Added a retry with jitter around the {w} client; it gives up after {n} attempts.",
    "The {w} worker processes {n} messages per batch and acknowledges them together.",
    "Code review note: the {w} module mixes parsing and I/O, split it before adding features.",
    "The {w} cache is keyed by tenant and user id; entries live {n} minutes.",
)
WORDS = ("invoice", "export", "search", "upload", "audit", "webhook", "report", "session", "ledger", "notify")


def split(seed: int) -> dict[str, list[Family]]:
    """The families in two halves by the seed, "tuning" and "held-out", the "fresh" and "unseen" ones."""
    order = list(FAMILIES)
    random.Random(seed).shuffle(order)
    half = len(order) // 2
    return {"tuning": order[:half], "held-out": order[half:], "fresh": list(FRESH), "unseen": list(UNSEEN)}


def project(rng: random.Random, name: str, families: list[Family], start: datetime) -> dict[str, Any]:
    """One project's notes over six sessions two days apart, and its questions."""
    sessions: list[list[dict[str, Any]]] = [[] for _ in range(6)]
    questions: list[dict[str, Any]] = []
    for k, family in enumerate(rng.sample(families, min(6, len(families)))):
        values = rng.sample(family.values, 3)
        changes = 1 + (k % 2)  # updated once or twice
        times = sorted(rng.sample(range(6), changes + 1))
        chain: list[str] = []
        for step, session in enumerate(times):
            text = (rng.choice(family.states).format(v=values[0]) if step == 0 else
                    rng.choice(family.updates).format(v=values[step], old=values[step - 1]))
            ident = f"{name}-{family.name}-{step}"
            sessions[session].append({"id": ident, "text": text, "fact": family.name})
            chain.append(ident)
        spare = [v for v in family.values if v not in values[:changes + 1]] or [values[0]]
        if rng.random() < 0.5:
            sessions[rng.randrange(6)].append({"id": f"{name}-{family.name}-other", "fact": "",
                                               "text": family.other.format(v=rng.choice(family.values))})
        if rng.random() < 0.5:
            sessions[rng.randrange(times[-1], 6)].append({"id": f"{name}-{family.name}-refused", "fact": "",
                                                          "text": family.refused.format(v=rng.choice(spare))})
        questions.append({"qid": f"{name}-{family.name}", "text": family.question, "current": chain[-1],
                          "outdated": chain[:-1], "chain": chain})
    for s, notes in enumerate(sessions):
        for n in range(rng.randint(3, 6)):
            template, word = rng.randrange(len(NOTES)), rng.choice(WORDS)
            text = NOTES[template].format(w=word, n=rng.choice((3, 5, 10, 20, 50)))
            # the same note about the same thing with another number is an update of it
            note = {"id": f"{name}-note-{s}-{n}", "text": text, "fact": f"note {template} {word}"}
            notes.insert(rng.randint(0, len(notes)), note)
    dated = [{"date": (start + timedelta(days=2 * s)).isoformat(), "notes": notes}
             for s, notes in enumerate(sessions)]
    return {"id": name, "sessions": dated, "questions": questions}


def generate(projects: int, seed: int) -> dict[str, Any]:
    """`projects` projects per half, deterministic for `seed`."""
    rng = random.Random(seed)
    start = datetime(2026, 4, 6, 9, tzinfo=UTC)
    return {"seed": seed, "halves": {
        half: [project(rng, f"ku-{half}-{i + 1}", families, start + timedelta(days=30 * i))
               for i in range(projects)]
        for half, families in split(seed).items()}}
