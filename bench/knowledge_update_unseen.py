# ruff: noqa: E501  (data: one wording a line)
"""Knowledge-update families written by a second person who had not read the update rule, and not
read by the rule's author either: the held-out set of `bench/knowledge_update_data.py`.
"""

from __future__ import annotations

from bench.knowledge_update_families import Family

# Written on 2026-11-28 by a second person who had not read the update rule, and not read by the
# rule's author either: measured once, after the rule's last change. The first four families (to
# "container registry host") were read later that night, with no change to the rule since: a
# change to the rule can count only the other eight as unseen.
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
