"""Memories chosen by vectors as well as words when an embeddings endpoint is configured.

The question and the memories still without a vector of the endpoint's model are embedded in
one call, outside any store transaction (SQLite's write lock is never held across the network);
the new vectors are then written, and the memories ranked by BM25 and cosine fused by reciprocal
rank (knowledge's `fuse`), then the newest. A failing endpoint leaves BM25's choice.
"""

from __future__ import annotations

import logging

import numpy as np
from sqlalchemy import select, update

from datapilot.assistants.context import ContextInputs
from datapilot.assistants.memory import PROMPT_MEMORIES, MemoryInfo, choose
from datapilot.assistants.models import Tenant
from datapilot.knowledge.embeddings import EmbeddingsError, embed, embeddings_configured
from datapilot.settings import Settings
from datapilot.store import Store
from datapilot.store.models import Memory

log = logging.getLogger(__name__)


def with_vectors(
    store: Store, tenant: Tenant, settings: Settings, inputs: ContextInputs, question: str
) -> None:
    """Re-choose `inputs.memories` with vectors fused in, when an endpoint is configured and
    the user has more memories than a prompt takes (else all of them are in it already)."""
    if not inputs.memory or tenant.user_id is None or not embeddings_configured(settings):
        return
    columns = [getattr(Memory, name) for name in MemoryInfo.model_fields]
    with store.session() as session:
        rows = session.execute(
            select(*columns, Memory.embedding, Memory.dim)
            .where(Memory.owner_id == tenant.user_id)
            .order_by(Memory.created_at)
        ).all()
    if len(rows) <= PROMPT_MEMORIES:
        return
    memories = [MemoryInfo.model_validate(row) for row in rows]
    stored = {row.id: row.embedding for row in rows if row.embedding is not None}
    try:
        query, fresh = _embedded(settings, question, memories, stored)
    except EmbeddingsError as error:
        log.warning("memory vectors unavailable, choosing by words: %s", error)
        return
    if fresh:
        _keep(store, tenant.user_id, memories, fresh)
    vectors = {**stored, **fresh}
    scored = [  # unit vectors: the dot product is the cosine
        (n, float(np.dot(vectors[m.id], query)))
        for n, m in enumerate(memories)
        if m.id in vectors and len(vectors[m.id]) == len(query)
    ]
    dense = sorted(scored, key=lambda item: -item[1])
    inputs.memories = choose(memories, question, PROMPT_MEMORIES, dense)


def _embedded(
    settings: Settings,
    question: str,
    memories: list[MemoryInfo],
    stored: dict[str, np.ndarray],
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The question's vector and the vectors made now for memories that had none of its
    dimension (a changed model gives another dimension: those are embedded again)."""
    missing = [m for m in memories if m.id not in stored]
    if settings.embeddings_input_type:  # questions and passages are embedded apart
        query = embed(settings, [question], kind="query")[0]
        made = list(embed(settings, [m.text for m in missing])) if missing else []
    else:  # one call for both
        vectors = embed(settings, [question, *(m.text for m in missing)])
        query, made = vectors[0], list(vectors[1:])
    fresh = {m.id: vector for m, vector in zip(missing, made, strict=True)}
    other = [m for m in memories if m.id in stored and len(stored[m.id]) != len(query)]
    if other:
        again = embed(settings, [m.text for m in other])
        fresh |= {m.id: again[n] for n, m in enumerate(other)}
    return query, fresh


def _keep(
    store: Store, owner: str, memories: list[MemoryInfo], fresh: dict[str, np.ndarray]
) -> None:
    """Write the new vectors; a memory changed meanwhile (its text differs) keeps none."""
    texts = {m.id: m.text for m in memories}
    with store.session(write=True) as session:
        for memory_id, vector in fresh.items():
            session.execute(
                update(Memory)
                .where(
                    Memory.id == memory_id,
                    Memory.owner_id == owner,
                    Memory.text == texts[memory_id],
                )
                # updated_at kept: it orders the newest memories, and the text did not change
                .values(embedding=vector, dim=len(vector), updated_at=Memory.updated_at)
                .execution_options(synchronize_session=False)
            )
