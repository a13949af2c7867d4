"""What a route asks for, as typed aliases of FastAPI dependencies: `tenant: TenantDep` (whom
the request acts for), `principal: PrincipalDep` (its API key, if any), `settings: SettingsDep`,
`store: StoreDep`, `in_store: InStoreDep` (store work off the event loop, see `store_calls`) and
`gate: KeyGateDep`; and the scope a route needs, as `dependencies=CHAT` or `dependencies=MANAGE`
(see `auth.require_scope`)."""

from __future__ import annotations

from typing import Annotated

import anyio
from fastapi import Depends, Request
from sqlalchemy import select
from starlette.requests import HTTPConnection

from datapilot.assistants.models import Tenant
from datapilot.assistants.repo import local_user
from datapilot.server.auth import KeyGate, require_scope
from datapilot.server.store_calls import InStore
from datapilot.settings import Settings
from datapilot.store import Principal, Store
from datapilot.store.models import User


async def settings_of(connection: HTTPConnection) -> Settings:
    """The app's settings."""
    settings: Settings = connection.app.state.settings
    return settings


async def store_of(connection: HTTPConnection) -> Store:
    """The app's store."""
    store: Store = connection.app.state.store
    return store


async def key_gate_of(connection: HTTPConnection) -> KeyGate:
    """The app's key gate (a route that changes keys makes it forget what it cached)."""
    gate: KeyGate = connection.app.state.key_gate
    return gate


async def principal_of(connection: HTTPConnection) -> Principal | None:
    """Who the request's API key speaks for; None without keys (a loopback caller)."""
    principal: Principal | None = getattr(connection.state, "principal", None)
    return principal


async def tenant_of(connection: HTTPConnection) -> Tenant:
    """The caller's tenant: the key's user, or the local user of a keyless loopback server."""
    principal = await principal_of(connection)
    if principal is not None:
        return Tenant(
            user_id=principal.user_id,
            key_id=principal.key_id,
            assistant_id=principal.assistant_id,
            scopes=frozenset(principal.scopes),
        )
    store = await store_of(connection)
    return Tenant(user_id=await anyio.to_thread.run_sync(_local_user, store))


def _local_user(store: Store) -> str:
    with store.session() as session:  # the usual case: it exists, a read suffices
        found = session.scalar(select(User.id).order_by(User.created_at).limit(1))
    if found is not None:
        return found
    with store.session(write=True) as session:
        return local_user(session)


async def in_store_of(request: Request) -> InStore:
    """The request's store calls: write transactions unless it is a GET (GETs may record
    tools too; rarely, and idempotently)."""
    return InStore(request.app.state.store, write=request.method != "GET")


SettingsDep = Annotated[Settings, Depends(settings_of)]
StoreDep = Annotated[Store, Depends(store_of)]
KeyGateDep = Annotated[KeyGate, Depends(key_gate_of)]
PrincipalDep = Annotated[Principal | None, Depends(principal_of)]
TenantDep = Annotated[Tenant, Depends(tenant_of)]
InStoreDep = Annotated[InStore, Depends(in_store_of)]

# The scope a route needs once keys exist: `chat` to use, `manage` to change.
CHAT = [Depends(require_scope("chat"))]
MANAGE = [Depends(require_scope("manage"))]
