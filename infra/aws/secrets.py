"""The secrets table: each production secret, how it gets its value, and its Secrets Manager resource.

Names come from the stage's `<VAR>_SECRET_ID` in `.chalice/config.json`; values never enter the
template or the repository. `database` and `generated` secrets are filled by AWS at creation;
`user` secrets start as the placeholder `unset` (the feature stays off) until `infra/deploy.py`
or the operator puts the real value. CloudFormation never overwrites a value put later, because
the template's own property never changes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from infra.aws.cfn import Json, pascal, ref, tags
from infra.aws.stage import StageConfig


@dataclass(frozen=True)
class SecretSpec:
    var: str  # its name: the stage names it as <var>_SECRET_ID in .chalice/config.json
    kind: str  # database | app-database | generated | user
    description: str
    fills: str = ""  # the setting it fills in a function (chalicelib/kernel/secrets.py); default var

    @property
    def logical_id(self) -> str:
        return pascal(self.var.lower()) + "Secret"

    @property
    def setting(self) -> str:
        return self.fills or self.var


SECRETS: tuple[SecretSpec, ...] = (
    SecretSpec("DATABASE_URL", "database", "Itachi database master login (migrations and RDS Proxy only)"),
    SecretSpec("DATABASE_APP", "app-database", "Itachi database application login (not a superuser; the "
               "migrations create the role and its grants)", fills="DATABASE_URL"),
    SecretSpec("ITACHI_API_KEYS", "generated", "Itachi API keys for hooks and agents, comma-separated"),
    SecretSpec("TELEGRAM_WEBHOOK_SECRET", "generated", "Telegram webhook secret token"),
    SecretSpec("TELEGRAM_BOT_TOKEN", "user", "Telegram bot token from BotFather"),
    SecretSpec("OPENAI_API_KEY", "user", "OpenAI API key (embeddings and the LLM)"),
    SecretSpec("GITHUB_TOKEN", "user", "GitHub token for the daily repos sync (read-only repository access) "
               "and the back-link comments of GitHub-triggered tasks (issues: write)"),
    SecretSpec("GITHUB_WEBHOOK_SECRET", "user",
               "GitHub webhook secret: signs the deliveries that start tasks"),
)
DATABASE_SECRET = SECRETS[0]
APP_DATABASE_SECRET = SECRETS[1]
APP_ROLE = "itachi_app"
USER_SECRETS = tuple(s for s in SECRETS if s.kind == "user")
SECRET_SUFFIX = "_SECRET_ID"


def secrets_named(variables: tuple[str, ...]) -> tuple[SecretSpec, ...]:
    """The secrets that fill these settings, in the table's order."""
    unknown = set(variables) - {s.var for s in SECRETS}
    if unknown:
        raise KeyError(f"no secret fills {', '.join(sorted(unknown))}")
    return tuple(s for s in SECRETS if s.var in variables)


def _value(spec: SecretSpec) -> Json:
    if spec.kind in ("database", "app-database"):
        user = "itachi" if spec.kind == "database" else APP_ROLE
        return {"GenerateSecretString": {
            "SecretStringTemplate": json.dumps({"username": user, "dbname": "itachi", "port": 5432}),
            "GenerateStringKey": "password", "PasswordLength": 40, "ExcludePunctuation": True}}
    if spec.kind == "generated":
        # Telegram's secret token allows only letters, digits, _ and -; API keys need no more.
        return {"GenerateSecretString": {"PasswordLength": 48, "ExcludePunctuation": True}}
    return {"SecretString": "unset"}


def resources(stage: StageConfig) -> Json:
    res: Json = {}
    for spec in SECRETS:
        res[spec.logical_id] = {
            "Type": "AWS::SecretsManager::Secret",
            "DeletionPolicy": "Retain" if spec.kind == "user" else "Delete",
            "UpdateReplacePolicy": "Retain" if spec.kind == "user" else "Delete",
            "Properties": {"Name": stage.secret_name(spec.var), "Description": spec.description,
                           **_value(spec), "Tags": tags(stage.stage)},
        }
    return res


def secret_environment(specs: tuple[SecretSpec, ...] = SECRETS) -> Json:
    """`<SETTING>_SECRET_ID` -> the secret's ARN, for a function's environment."""
    return {f"{s.setting}{SECRET_SUFFIX}": ref(s.logical_id) for s in specs}


def secret_arns(specs: tuple[SecretSpec, ...] = SECRETS) -> list[Json]:
    return [ref(s.logical_id) for s in specs]
