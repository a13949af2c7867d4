"""API keys under `/api/v1/keys`: list the caller's, make one (never with more rights than the
key asking), revoke one. The key gate forgets what it cached after each change."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from datapilot.assistants.repo import Assistants
from datapilot.server.deps import MANAGE, InStoreDep, KeyGateDep, PrincipalDep, TenantDep
from datapilot.server.errors import ROW_ERRORS, VALIDATION_RESPONSES, NotFound, Refused
from datapilot.store import Scope
from datapilot.store.accounts import KeyInfo, Keys
from datapilot.store.models import ApiKey, User

router = APIRouter(prefix="/api/v1", tags=["Assistant platform"], responses=VALIDATION_RESPONSES)


class KeyIn(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    scopes: list[Scope] = Field(default_factory=lambda: list[Scope](["chat"]))
    assistant_id: str | None = None


class NewKeyOut(BaseModel):
    key: str = Field(description="The key itself: shown this once, never again.")
    info: KeyInfo


@router.get("/keys", response_model=list[KeyInfo], dependencies=MANAGE)
async def list_keys(tenant: TenantDep, in_store: InStoreDep) -> Any:
    return await in_store(lambda s: [k for k in Keys(s).list() if k.owner_id == tenant.user_id])


@router.post(
    "/keys", response_model=NewKeyOut, status_code=201, dependencies=MANAGE, responses=ROW_ERRORS
)
async def create_key(
    body: KeyIn,
    tenant: TenantDep,
    principal: PrincipalDep,
    in_store: InStoreDep,
    gate: KeyGateDep,
) -> Any:
    if principal is not None and not principal.allows("admin"):
        extra = set(body.scopes) - set(principal.scopes)
        if extra:  # a key never mints one with more rights than its own
            raise Refused(f"your key lacks the scope(s) {', '.join(sorted(extra))}")
    if principal is not None and principal.assistant_id not in (None, body.assistant_id):
        # A bound key mints keys of its own assistant only.
        raise Refused(
            f"this API key is bound to the assistant {principal.assistant_id!r}: a key it "
            "makes must be bound to that assistant too (set assistant_id)"
        )

    def work(session: Session) -> NewKeyOut:
        assistant_id = body.assistant_id
        if assistant_id is not None:  # by id or name; the key is bound by id
            assistant_id = Assistants(session, tenant).get(assistant_id).id
        user = session.get(User, tenant.user_id)
        assert user is not None  # the tenant's own user
        new = Keys(session).create(
            body.name, body.scopes, user=user.name, assistant_id=assistant_id
        )
        return NewKeyOut(key=new.key.get_secret_value(), info=new.info)

    created = await in_store(work)
    gate.forget()
    return created


@router.delete("/keys/{key_id}", response_model=KeyInfo, dependencies=MANAGE, responses=ROW_ERRORS)
async def revoke_key(key_id: str, tenant: TenantDep, in_store: InStoreDep, gate: KeyGateDep) -> Any:
    def work(session: Session) -> KeyInfo:
        row = session.get(ApiKey, key_id)
        if row is None or row.owner_id != tenant.user_id:
            raise NotFound(f"no key {key_id!r}; list yours with GET /api/v1/keys")
        return Keys(session).revoke(row.id)

    revoked = await in_store(work)
    gate.forget()
    return revoked
