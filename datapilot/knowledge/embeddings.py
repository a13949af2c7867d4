"""Dense vectors from an OpenAI-compatible `/embeddings` endpoint, and an optional rerank call.

Both go through `datapilot.net` like every outbound request. The endpoints are the operator's
own settings, so their host:port is allowed past the private-address check; offline mode
allows them only on this machine.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

import httpx
import numpy as np

from datapilot.knowledge.errors import EmbeddingsError
from datapilot.net import OutboundError, OutboundLimits, OutboundPolicy, fetch
from datapilot.settings import Settings

BATCH = 64
_LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def embeddings_configured(settings: Settings) -> bool:
    return bool(settings.embeddings_base_url and settings.embeddings_model)


def _policy(settings: Settings, url: str, setting: str) -> OutboundPolicy:
    parsed = httpx.URL(url)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    if settings.offline and parsed.host not in _LOOPBACK:
        raise EmbeddingsError(
            f"{setting} points to {parsed.host}, off this machine, and offline mode forbids "
            "network access; unset it or use an endpoint on localhost"
        )
    host = f"[{parsed.host}]" if ":" in parsed.host else parsed.host
    return OutboundPolicy.from_entries([*settings.outbound_allow, f"{host}:{port}"])


def _post(settings: Settings, url: str, body: dict[str, object], setting: str) -> object:
    headers = {"Content-Type": "application/json"}
    if settings.embeddings_api_key is not None:
        headers["Authorization"] = f"Bearer {settings.embeddings_api_key.get_secret_value()}"
    limits = OutboundLimits(total_s=settings.llm_timeout_s, max_bytes=64_000_000)
    try:
        response = fetch(
            url,
            method="POST",
            headers=headers,
            content=json.dumps(body).encode(),
            policy=_policy(settings, url, setting),
            limits=limits,
        ).raise_for_status()
        return json.loads(response.content)
    except (OutboundError, ValueError) as error:
        raise EmbeddingsError(f"the endpoint of {setting} failed: {error}") from error


def embed(
    settings: Settings, texts: Sequence[str], kind: Literal["query", "passage"] = "passage"
) -> np.ndarray:
    """Unit-length vectors of `texts` (one row each), in batches; `kind` is sent as
    `input_type` when `embeddings_input_type` is set."""
    if not embeddings_configured(settings):
        raise EmbeddingsError(
            "no embeddings endpoint: set DATAPILOT_EMBEDDINGS_BASE_URL and "
            "DATAPILOT_EMBEDDINGS_MODEL"
        )
    url = f"{str(settings.embeddings_base_url).rstrip('/')}/embeddings"
    rows: list[list[float]] = []
    for first in range(0, len(texts), BATCH):
        batch = list(texts[first : first + BATCH])
        body: dict[str, object] = {"model": settings.embeddings_model, "input": batch}
        if settings.embeddings_input_type:
            body["input_type"] = kind
        reply = _post(
            settings,
            url,
            body,
            "DATAPILOT_EMBEDDINGS_BASE_URL",
        )
        try:
            data = sorted(reply["data"], key=lambda item: item["index"])  # type: ignore[index]
            vectors = [[float(x) for x in item["embedding"]] for item in data]
        except (KeyError, TypeError, ValueError) as error:
            raise EmbeddingsError(
                f"the embeddings endpoint answered without data[].embedding ({error!r}); check "
                "that DATAPILOT_EMBEDDINGS_BASE_URL serves OpenAI's /embeddings"
            ) from error
        if len(vectors) != len(batch) or len({len(v) for v in vectors}) > 1:
            raise EmbeddingsError(
                f"the embeddings endpoint sent {len(vectors)} vectors for {len(batch)} texts"
            )
        rows.extend(vectors)
    return normalised(np.asarray(rows, dtype=np.float32))


def normalised(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def rerank(settings: Settings, query: str, documents: Sequence[str]) -> list[int]:
    """The positions of `documents`, best first, as the rerank endpoint orders them."""
    reply = _post(
        settings,
        str(settings.rerank_url),
        {"model": settings.rerank_model, "query": query, "documents": list(documents)},
        "DATAPILOT_RERANK_URL",
    )
    try:
        results = sorted(
            reply["results"],  # type: ignore[index]
            key=lambda item: -float(item["relevance_score"]),
        )
        order = [int(item["index"]) for item in results]
    except (KeyError, TypeError, ValueError) as error:
        raise EmbeddingsError(
            f"the rerank endpoint answered without results[].index/relevance_score ({error!r})"
        ) from error
    seen = [i for i in dict.fromkeys(order) if 0 <= i < len(documents)]
    return seen + [i for i in range(len(documents)) if i not in seen]
