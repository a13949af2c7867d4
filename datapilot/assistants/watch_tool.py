"""Watches made in a chat: the `create_watch` tool, which shows what a sentence was understood
as and waits for the user's `run` before it saves anything (`cancel` saves nothing).

A model calls it like any tool; a chat without a model calls it itself when a message asks for
a watch ("remind me every Friday …", 跌破150时提醒我: `watches.requests.asks_for_watch`).
Only a user's own chat has it: a guest, or a key bound to an assistant, cannot have watches
(as over the API), and the turn says so instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from datapilot.assistants.models import Tenant
from datapilot.assistants.normalise import HistoryMessage
from datapilot.core.watches import WatchChannels, WatchSpec
from datapilot.settings import Settings
from datapilot.store import Store

if TYPE_CHECKING:
    from datapilot.tools.base import ToolOutput

NAME = "create_watch"
NO_GUESTS = (
    "Guests cannot have watches; ask the owner for an API key.",
    "访客不能创建关注（定期报告或提醒）；请向所有者申请 API 密钥。",
)
BOUND = (
    "This key is bound to an assistant; watches need a key bound to no assistant.",
    "此密钥绑定了某个助手；创建关注需要未绑定助手的密钥。",
)
ASK = ("Create this watch?", "创建这个关注吗？")
HOW = (
    "Run creates it; Cancel creates nothing.",
    "点“运行”即创建；点“取消”则不创建。",
)
SAVED = ("Saved the watch {id}.", "已保存关注 {id}。")
SEE = (
    "Its reports and alerts arrive in the inbox (datapilot watch list shows it too).",
    "它的报告和提醒会出现在收件箱里（datapilot watch list 也能看到）。",
)


def watch_refusal(tenant: Tenant) -> tuple[str, str] | None:
    """Why this tenant cannot have watches (the API's rule), in English and Chinese, or None."""
    if tenant.user_id is None:
        return NO_GUESTS
    if tenant.assistant_id is not None:
        return BOUND
    return None


def with_watch_tool(
    tools: dict[str, Any],
    store: Store,
    tenant: Tenant,
    settings: Settings,
    history: Sequence[HistoryMessage],
) -> dict[str, Any]:
    """A user's chat tools with `create_watch` (unless a tool of theirs has its name), in a
    chat that has asked for a watch or has a call of it to resume: an assistant's own tools
    stay what its owner chose everywhere else."""
    if watch_refusal(tenant) is not None or NAME in tools or tenant.user_id is None:
        return tools
    if not any(_about_watches(message) for message in history):
        return tools
    return {**tools, NAME: CreateWatchTool(store, tenant.user_id, settings)}


def _about_watches(message: HistoryMessage) -> bool:
    if message.tool_call is not None:
        return message.tool_call.name == NAME
    if message.role in ("human", "human_hidden", "human_later"):
        from datapilot.watches.requests import asks_for_watch

        return asks_for_watch(message.content)
    return False


def proposal(spec: WatchSpec) -> str:
    """What the user confirms: the watch as understood, in the sentence's language."""
    from datapilot.watches.described import lines

    zh = spec.language == "zh"
    return "\n".join([ASK[zh], *(f"- {line}" for line in lines(spec))])


@dataclass
class CreateWatchTool:
    """`create_watch`: one user's watch from a sentence, saved once the user confirms."""

    store: Store
    owner: str
    settings: Settings
    name: str = NAME
    source: str = "watch"
    # Its text is what the user reads once it ran (not quoted as a tool's returned data).
    plain_result: bool = True
    description: str = (
        "Create a watch for the user: a scheduled report (a question answered on a schedule, "
        "e.g. 'every Monday at 8, how did Apple do last week') or an alert (e.g. 'tell me when "
        "Apple closes below 150'). Pass the user's request as one sentence in their words and "
        "language; it is read without guessing (words not read are refused by name) and the "
        "user confirms what was understood before it is saved."
    )

    @property
    def parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "text": {
                    "type": "string",
                    "description": "The watch in the user's words: what, and when or on what "
                    "condition.",
                }
            },
            "required": ["text"],
            "additionalProperties": False,
        }

    def understand(self, arguments: dict[str, Any]) -> WatchSpec:
        """The watch the call's sentence asks for; raises `WatchRefused` naming unread words."""
        from datapilot.watches.service import understand

        text = str(arguments.get("text") or "").strip()
        return understand(text, self.settings, self.owner)

    def confirmation(self, arguments: dict[str, Any]) -> str | None:
        """The watch as understood, for the user to confirm; None when the sentence is refused
        (the call then fails with the refusal and saves nothing)."""
        from datapilot.watches.reading import WatchRefused

        try:
            return proposal(self.understand(arguments))
        except WatchRefused:
            return None

    async def call(self, arguments: dict[str, Any]) -> ToolOutput:
        from datapilot.tools.base import ToolOutput

        spec = await anyio.to_thread.run_sync(lambda: self.understand(arguments))
        return ToolOutput(text=await anyio.to_thread.run_sync(lambda: self._save(spec)))

    def _save(self, spec: WatchSpec) -> str:
        from datapilot.store.watches import Watches
        from datapilot.watches.described import lines

        with self.store.session(write=True) as session:
            new = Watches(session, self.owner, self.settings).create(spec, WatchChannels())
        zh = spec.language == "zh"
        said = [SAVED[zh].format(id=new.watch.id), *(f"- {line}" for line in lines(spec))]
        return "\n".join([*said, SEE[zh]])
