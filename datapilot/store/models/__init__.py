"""The platform's tables (after Amber's entities), as SQLAlchemy 2 typed models, one module per
concept: accounts (users, API keys, token usage), assistants (and scene prompts), chats (messages,
files), tools (and imported tool sources), knowledge libraries (and their upload jobs), memory
(and context compression), rates (counters replicas share), watches (their events and claims).
All of them join `Base.metadata`, which the Alembic migrations compare against; import the
tables from here.

Every row names its owner (`owner_id`, a user) so that routes scope each query to the caller's
tenant; chats, messages and files opened by a guest of a public assistant carry a `guest_id`
instead. Ids are random (not guessable, not counting rows), except chat messages and usage
entries, whose integer ids give their order. The schema itself is created and changed only by
the Alembic migrations in `migrations/`, which must match these models
(`tests/store/test_store.py` compares them).
"""

from datapilot.store.models.accounts import ApiKey, UsageEntry, User
from datapilot.store.models.assistants import Assistant, ScenePrompt
from datapilot.store.models.base import Base, utcnow
from datapilot.store.models.chats import Chat, ChatMessage, File
from datapilot.store.models.knowledge import Library, LibraryChunk, LibraryDocument, LibraryJob
from datapilot.store.models.memory import (
    ChatSummary,
    Memory,
    MemoryEvent,
    MessageBlock,
    TurnContext,
)
from datapilot.store.models.rates import DataEntry, RateCounter, SharedBlob
from datapilot.store.models.tools import AssistantTool, Tool, ToolSource
from datapilot.store.models.watches import Watch, WatchClaim, WatchEventRow

__all__ = [
    "ApiKey",
    "Assistant",
    "AssistantTool",
    "Base",
    "Chat",
    "ChatMessage",
    "ChatSummary",
    "DataEntry",
    "File",
    "Library",
    "LibraryChunk",
    "LibraryDocument",
    "LibraryJob",
    "Memory",
    "MemoryEvent",
    "MessageBlock",
    "RateCounter",
    "ScenePrompt",
    "SharedBlob",
    "Tool",
    "ToolSource",
    "TurnContext",
    "UsageEntry",
    "User",
    "Watch",
    "WatchClaim",
    "WatchEventRow",
    "utcnow",
]
