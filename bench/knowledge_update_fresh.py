"""Knowledge-update families written by someone who had not read the update rule: measured once,
then read and used to change the rule (a development set for `bench/knowledge_update_data.py`).
"""

from __future__ import annotations

from bench.knowledge_update_families import Family

# Written on 2026-11-28 by someone who had not read the update rule; measured, then read and used
# to change it (a development set).
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
