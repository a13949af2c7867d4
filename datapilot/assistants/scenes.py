"""Choosing an assistant's scene prompt for a turn from the last three messages.

Offline, by word matching (the retrieval tokens of each scene's label and prompt against those of
the messages, the latest message weighing most); with a model, by asking it to pick a label, and
by word matching again when its answer names no scene of the list.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

from datapilot.assistants.models import ScenePromptInfo
from datapilot.core.model_messages import SystemPrompt, UserPrompt
from datapilot.model_client.errors import LLMError
from datapilot.model_client.jsontext import NoJSONError, extract_json_object
from datapilot.retrieval import tokenize

if TYPE_CHECKING:  # the client (and the OpenAI SDK) loads when a model is called
    from datapilot.model_client import LLMClient

log = logging.getLogger(__name__)
LAST_MESSAGES = 3
NONE = "none"


class SceneChoice(BaseModel):
    scene: ScenePromptInfo | None = None
    by: str = "words"  # "words" or "model"


def by_words(scenes: Sequence[ScenePromptInfo], messages: Sequence[str]) -> ScenePromptInfo | None:
    """The scene whose label and prompt share the most words with the last messages (the
    latest counting three times, the one before twice); None when none shares a word."""
    recent = list(messages)[-LAST_MESSAGES:]
    weights: dict[str, float] = {}
    for age, text in enumerate(reversed(recent)):
        for token in set(tokenize(text)):
            weights[token] = weights.get(token, 0.0) + (LAST_MESSAGES - age)
    best: tuple[float, ScenePromptInfo] | None = None
    for scene in scenes:
        label = set(tokenize(scene.label))
        words = label | set(tokenize(scene.prompt))
        # A label word is the scene's name: it counts double.
        score = sum(weights.get(t, 0.0) * (2 if t in label else 1) for t in words)
        if score > 0 and (best is None or score > best[0]):
            best = (score, scene)
    return best[1] if best else None


CHOOSE_PROMPT = (
    "Choose the scene that fits the conversation's latest messages. Reply with one JSON object "
    '{"label": "<one of the labels below, exactly>"}, or {"label": "none"} when none fits.'
)


async def by_model(
    client: LLMClient, scenes: Sequence[ScenePromptInfo], messages: Sequence[str]
) -> SceneChoice:
    """The model's pick; word matching when the call fails or names no listed scene."""
    labels = [scene.label for scene in scenes]
    recent = "\n".join(f"- {text[:500]}" for text in list(messages)[-LAST_MESSAGES:])
    listed = "\n".join(f"- {scene.label}: {scene.prompt[:200]}" for scene in scenes)
    schema = {
        "type": "object",
        "properties": {"label": {"type": "string", "enum": [*labels, NONE]}},
        "required": ["label"],
    }
    try:
        reply = await client.complete_json(
            [
                SystemPrompt(text=CHOOSE_PROMPT),
                UserPrompt(content=f"Scenes:\n{listed}\n\nLatest messages:\n{recent}"),
            ],
            schema=schema,
            schema_name="scene",
            purpose="scene",
            max_tokens=100,
        )
        label = extract_json_object(reply.text).get("label")
    except (LLMError, NoJSONError) as error:
        log.warning("scene choice by the model failed (%s); matching words instead", error)
        return SceneChoice(scene=by_words(scenes, messages), by="words")
    if label == NONE:
        return SceneChoice(scene=None, by="model")
    for scene in scenes:
        if isinstance(label, str) and scene.label.strip().lower() == label.strip().lower():
            return SceneChoice(scene=scene, by="model")
    return SceneChoice(scene=by_words(scenes, messages), by="words")
