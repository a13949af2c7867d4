"""How an imported tool authenticates, and its secret kept encrypted or in the environment.

A secret given inline is stored only as a Fernet token under `DATAPILOT_SECRET_KEY` (shared by
replicas); without that key it may only be the name of an environment variable holding it. The
clear secret exists only while a call is built; it is never returned or logged.

The server's environment is the operator's: a variable is named by the operator (a source added
in the server's terminal) or lies under the prefix the operator set aside for tool secrets
(`DATAPILOT_TOOL_SECRET_ENV_PREFIX`). Anything else is refused with the same words whether or not
the variable exists, when the source is added and again before every call.
"""

from __future__ import annotations

import base64
import os
from typing import Literal

from cryptography.fernet import Fernet, InvalidToken
from pydantic import BaseModel, ConfigDict, Field, SecretStr

from datapilot.settings import Settings
from datapilot.store.sealed import SealError, fernet
from datapilot.tools.errors import SecretsError

AuthType = Literal["none", "service_http", "user_http"]


class AuthIn(BaseModel):
    """The auth a caller gives when adding a source (the secret inline or as an env name)."""

    model_config = ConfigDict(extra="forbid")

    type: AuthType = "none"
    scheme: Literal["bearer", "basic", "header"] = "bearer"
    header: str = Field(default="Authorization", description="The header of the `header` scheme.")
    secret: SecretStr | None = Field(default=None, description="Stored encrypted; never shown.")
    secret_env: str | None = Field(default=None, description="Environment variable holding it.")


class AuthStored(BaseModel):
    """The auth as stored and shown: the secret only as a token or an env name."""

    type: AuthType = "none"
    scheme: Literal["bearer", "basic", "header"] = "bearer"
    header: str = "Authorization"
    secret_token: str | None = Field(default=None, exclude=True)
    secret_env: str | None = None
    env_named_by_operator: bool = Field(
        default=False, description="secret_env was named in the server's terminal."
    )

    @property
    def has_secret(self) -> bool:
        return bool(self.secret_token or self.secret_env)


def _fernet(settings: Settings) -> Fernet:
    try:
        found = fernet(settings)
    except SealError as error:
        raise SecretsError(str(error)) from error
    if found is None:
        raise SecretsError(
            'storing a secret needs DATAPILOT_SECRET_KEY (make one with `python -c "from '
            'cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"`), '
            "or give the secret as an environment variable name (secret_env)"
        )
    return found


def env_refusal(name: str, settings: Settings) -> SecretsError:
    """The one refusal of an environment variable a caller may not name (never saying whether
    it exists)."""
    prefix = settings.tool_secret_env_prefix
    where = (
        f"only variables whose names start with {prefix} may be named over the API"
        if prefix
        else "over the API none may be named"
    )
    return SecretsError(
        f"secret_env {name[:100]!r} is not readable: the server's environment belongs to its "
        f"operator, and {where}. Give the secret itself (stored encrypted), or ask the operator "
        "to add the source in the server's terminal (datapilot tools add --secret-env NAME)."
    )


def env_allowed(name: str, settings: Settings, *, operator: bool) -> bool:
    """Whether `name` may be read as a tool's secret: named by the operator, or under the
    prefix the operator set aside."""
    prefix = settings.tool_secret_env_prefix
    return operator or (bool(prefix) and name.startswith(prefix) and name != prefix)


def store_auth(auth: AuthIn, settings: Settings, *, operator: bool = False) -> AuthStored:
    """The auth to store: an inline secret encrypted, an env name kept as it is. `operator`:
    the source is added in the server's terminal, where any variable may be named."""
    if auth.type == "service_http" and auth.secret is None and not auth.secret_env:
        raise SecretsError("service_http auth needs a secret (or secret_env naming one)")
    if auth.secret_env and not env_allowed(auth.secret_env, settings, operator=operator):
        raise env_refusal(auth.secret_env, settings)
    token = None
    if auth.secret is not None:
        token = _fernet(settings).encrypt(auth.secret.get_secret_value().encode()).decode()
    return AuthStored(
        type=auth.type,
        scheme=auth.scheme,
        header=auth.header,
        secret_token=token,
        secret_env=auth.secret_env,
        env_named_by_operator=operator and bool(auth.secret_env),
    )


def reveal(auth: AuthStored, settings: Settings) -> str | None:
    """The clear secret, for building one call only."""
    if auth.secret_env:
        # Checked again at each call: a source stored before the rule, or a prefix changed since.
        if not env_allowed(auth.secret_env, settings, operator=auth.env_named_by_operator):
            raise env_refusal(auth.secret_env, settings)
        value = os.environ.get(auth.secret_env)
        if not value:
            raise SecretsError(f"the environment variable {auth.secret_env} is not set")
        return value
    if auth.secret_token:
        try:
            return _fernet(settings).decrypt(auth.secret_token.encode()).decode()
        except InvalidToken as error:
            raise SecretsError(
                "the stored secret cannot be decrypted with this DATAPILOT_SECRET_KEY; use the "
                "key it was stored with, or add the source again"
            ) from error
    return None


def auth_headers(auth: AuthStored, settings: Settings, user_token: str | None) -> dict[str, str]:
    """The headers that authenticate one call."""
    if auth.type == "none":
        return {}
    secret = user_token if auth.type == "user_http" else reveal(auth, settings)
    if not secret:
        raise SecretsError(
            "this tool authenticates with the user's own token (user_http); give it with the call"
        )
    if auth.scheme == "bearer":
        return {"Authorization": f"Bearer {secret}"}
    if auth.scheme == "basic":
        encoded = secret if ":" not in secret else base64.b64encode(secret.encode()).decode()
        return {"Authorization": f"Basic {encoded}"}
    return {auth.header: secret}
