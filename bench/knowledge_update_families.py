"""The families of facts `bench/knowledge_update_data.py` states and updates: each with its wordings
for the first statement, the updates (naming the old value or not), a question about the current
value and two traps (the same wording about another subject, a negated proposal).

`FAMILIES` were written first and split by a seed into a tuning and a held-out half. The sets
written later by people who had not read the update rule are kept apart, one module each, by
who may read them: `knowledge_update_fresh` (read after it was measured) and
`knowledge_update_unseen` (not read by the rule's author before it was measured; see its note).
"""

from __future__ import annotations

from dataclasses import dataclass


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
