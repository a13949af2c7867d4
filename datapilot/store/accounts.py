"""Users and API keys: the typed repository the CLI and the server use.

A key is `dp_` + 43 url-safe characters (32 random bytes). The store keeps only its SHA-256 (a
plain hash suffices for a high-entropy token; nothing to guess) and its first characters, the
`prefix`, which both shows the key in lists and finds its row through a unique index; the hash
is then compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, SecretStr
from sqlalchemy import func, or_, select, update
from sqlalchemy.orm import Session

from datapilot.store.models import ApiKey, User, utcnow

Scope = Literal["chat", "manage", "admin", "run"]  # run: code may run without asking
SCOPES: tuple[Scope, ...] = get_args(Scope)
KEY_MARK = "dp_"
PREFIX_LENGTH = len(KEY_MARK) + 8  # 48 random bits: unique among any realistic number of keys
# Writing `last_used_at` on every request would turn each read into a write; once a minute is
# enough to tell a key in use from a forgotten one.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class AccountError(ValueError):
    """A user or key request that cannot be done; the message says what to do instead."""


class UserInfo(BaseModel):
    model_config = ConfigDict(from_attributes=True, frozen=True)

    id: str
    name: str
    created_at: datetime


class KeyInfo(BaseModel):
    """A key as lists show it: never the key itself."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    prefix: str
    scopes: tuple[Scope, ...]
    owner_id: str
    owner_name: str
    assistant_id: str | None
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class NewKey(BaseModel):
    """A key just created: the only time the key itself exists outside its holder's hands."""

    model_config = ConfigDict(frozen=True)

    key: SecretStr
    info: KeyInfo


class Principal(BaseModel):
    """Who a request acts for, as an authenticated key says."""

    model_config = ConfigDict(frozen=True)

    key_id: str
    key_prefix: str
    user_id: str
    scopes: frozenset[Scope]
    assistant_id: str | None = None
    last_used_at: datetime | None = None

    def allows(self, scope: Scope) -> bool:
        """`admin` may do everything; other scopes only what they name."""
        return scope in self.scopes or "admin" in self.scopes


def parse_scopes(text: str | Iterable[str]) -> tuple[Scope, ...]:
    """`chat,manage` (or a list) as known scopes, in canonical order; unknown ones are an error."""
    names = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    names = [name.strip().lower() for name in names if name.strip()]
    unknown = sorted(set(names) - set(SCOPES))
    if unknown:
        raise AccountError(
            f"unknown scope(s) {', '.join(unknown)}; choose from {', '.join(SCOPES)}"
        )
    if not names:
        raise AccountError(f"a key needs at least one scope: {', '.join(SCOPES)}")
    return tuple(scope for scope in SCOPES if scope in names)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def key_prefix(key: str) -> str | None:
    """The display prefix of a well-formed key, or None when the text cannot be a key."""
    if not key.startswith(KEY_MARK) or not 20 <= len(key) <= 200:
        return None
    return key[:PREFIX_LENGTH]


class Users:
    """Users of one session."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def create(self, name: str) -> UserInfo:
        name = name.strip()
        if not name:
            raise AccountError("a user needs a name")
        if self.session.scalar(select(User).where(User.name == name)) is not None:
            raise AccountError(f"a user named {name!r} exists already")
        user = User(name=name)
        self.session.add(user)
        self.session.flush()
        return UserInfo.model_validate(user)

    def list(self) -> list[UserInfo]:
        users = self.session.scalars(select(User).order_by(User.created_at, User.name))
        return [UserInfo.model_validate(user) for user in users]

    def by_name(self, name: str) -> UserInfo | None:
        user = self.session.scalar(select(User).where(User.name == name.strip()))
        return UserInfo.model_validate(user) if user else None

    def count(self) -> int:
        return self.session.scalar(select(func.count()).select_from(User)) or 0


class Keys:
    """API keys of one session."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def create(
        self,
        name: str,
        scopes: str | Iterable[str],
        *,
        user: str | None = None,
        assistant_id: str | None = None,
        first_user: str = "owner",
    ) -> NewKey:
        """A new key for `user` (a name). Without one: the only user; with no users yet, a
        first user named `first_user` is created."""
        name = name.strip()
        if not name:
            raise AccountError("a key needs a name (--name), to tell it from others in lists")
        chosen = parse_scopes(scopes)
        owner = self._owner(user, first_user)
        while True:
            key = KEY_MARK + secrets.token_urlsafe(32)
            prefix = key[:PREFIX_LENGTH]
            if self.session.scalar(select(ApiKey.id).where(ApiKey.prefix == prefix)) is None:
                break
        row = ApiKey(
            owner_id=owner.id,
            name=name,
            prefix=prefix,
            key_hash=hash_key(key),
            scopes=" ".join(chosen),
            assistant_id=assistant_id,
        )
        self.session.add(row)
        self.session.flush()
        return NewKey(key=SecretStr(key), info=self._info(row, owner.name))

    def list(self) -> list[KeyInfo]:
        rows = self.session.execute(
            select(ApiKey, User.name)
            .join(User, ApiKey.owner_id == User.id)
            .order_by(ApiKey.created_at, ApiKey.prefix)
        )
        return [self._info(key, owner) for key, owner in rows.all()]

    def revoke(self, id_or_prefix: str) -> KeyInfo:
        """Revoke a key named by its id, its prefix or the start of either."""
        text = id_or_prefix.strip()
        if len(text) < 3:
            raise AccountError("name the key by its id or prefix (at least 3 characters)")
        rows = self.session.execute(
            select(ApiKey, User.name)
            .join(User, ApiKey.owner_id == User.id)
            .where(or_(ApiKey.id.startswith(text), ApiKey.prefix.startswith(text)))
        ).all()
        if not rows:
            raise AccountError(f"no key has the id or prefix {text!r}; see `datapilot keys list`")
        if len(rows) > 1:
            prefixes = ", ".join(row[0].prefix for row in rows)
            raise AccountError(f"{text!r} matches several keys ({prefixes}); give more of it")
        key, owner = rows[0]
        if key.revoked_at is None:
            key.revoked_at = utcnow()
            self.session.flush()
        return self._info(key, owner)

    def any_active(self) -> bool:
        """Whether any key can be used (then the server requires one)."""
        found = select(ApiKey.id).where(ApiKey.revoked_at.is_(None)).limit(1)
        return self.session.scalar(found) is not None

    def authenticate(self, key: str) -> Principal | None:
        """The principal of an active key, or None for a malformed, unknown or revoked one."""
        prefix = key_prefix(key)
        if prefix is None:
            return None
        row = self.session.scalar(select(ApiKey).where(ApiKey.prefix == prefix))
        if row is None or not hmac.compare_digest(row.key_hash, hash_key(key)):
            return None
        if row.revoked_at is not None:
            return None
        return Principal(
            key_id=row.id,
            key_prefix=row.prefix,
            user_id=row.owner_id,
            scopes=frozenset(parse_scopes(row.scopes)),
            assistant_id=row.assistant_id,
            last_used_at=row.last_used_at,
        )

    def mark_used(self, key_id: str, when: datetime | None = None) -> None:
        """Record that a key was used, at most once per `LAST_USED_RESOLUTION`."""
        when = when or utcnow()
        self.session.execute(
            update(ApiKey)
            .where(ApiKey.id == key_id)
            .where(
                or_(
                    ApiKey.last_used_at.is_(None),
                    ApiKey.last_used_at < when - LAST_USED_RESOLUTION,
                )
            )
            .values(last_used_at=when)
        )

    def _owner(self, user: str | None, first_user: str) -> UserInfo:
        users = Users(self.session)
        if user is not None:
            found = users.by_name(user)
            if found is None:
                raise AccountError(
                    f"no user named {user!r}; create one with `datapilot users create {user}`"
                )
            return found
        existing = users.list()
        if not existing:
            return users.create(first_user)
        if len(existing) == 1:
            return existing[0]
        names = ", ".join(found.name for found in existing)
        raise AccountError(f"several users exist ({names}); say whose key it is with --user NAME")

    @staticmethod
    def _info(row: ApiKey, owner_name: str) -> KeyInfo:
        return KeyInfo(
            id=row.id,
            name=row.name,
            prefix=row.prefix,
            scopes=parse_scopes(row.scopes),
            owner_id=row.owner_id,
            owner_name=owner_name,
            assistant_id=row.assistant_id,
            created_at=row.created_at,
            last_used_at=row.last_used_at,
            revoked_at=row.revoked_at,
        )
