"""Everything a question arrives with besides its text: today, the conversation, client data."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from datapilot.settings import BrainChoice, Settings

if TYPE_CHECKING:
    import pandas as pd

    from datapilot.core.messages import Message


class ChatMessage(BaseModel):
    """A turn of the conversation as the stateless protocols send it (OpenBB's roles)."""

    role: Literal["human", "ai"]
    content: str

    def to_message(self) -> Message:
        """The turn as a platform `Message` (roles translated)."""
        # Here: a question from the terminal has no conversation, and no use for the chats'
        # message shapes.
        from datapilot.core.messages import Message, from_openbb

        return Message(role=from_openbb(self.role), content=self.content)


class ClientTable(BaseModel):
    """A table the client sent (widget data, explicit context), usable as an entity of kind `table`.

    Kept as plain columns/rows so it can travel inside resume state and be shown to a model.
    """

    name: str
    description: str = ""
    source: str = "client"
    columns: list[str]
    rows: list[list[Any]]
    params: dict[str, Any] = Field(
        default_factory=dict, description="The widget parameters the data was fetched with."
    )

    def to_frame(self) -> pd.DataFrame:
        import pandas as pd  # only when a table is used: this module is vocabulary for all

        return pd.DataFrame(self.rows, columns=self.columns)


class WidgetInfo(BaseModel):
    """A dashboard widget whose data the client can send on request."""

    uuid: str
    widget_id: str
    name: str = ""
    description: str = ""
    origin: str = ""
    params: dict[str, Any] = Field(default_factory=dict)
    primary: bool = False
    extra: bool = Field(
        default=False, description="Not on the dashboard: a data source fetched on request."
    )


class WidgetDataRequest(BaseModel):
    """Ask the client for widget data, then resume with `resume_state`."""

    widgets: list[WidgetInfo]
    resume_state: dict[str, Any] = Field(default_factory=dict)


class QuestionContext(BaseModel):
    today: date
    history: list[ChatMessage] = Field(default_factory=list)
    tables: list[ClientTable] = Field(default_factory=list)
    widgets: list[WidgetInfo] = Field(default_factory=list)
    resume_state: dict[str, Any] | None = None
    brain: BrainChoice = "auto"
    offline: bool = False
    # The request's own model key: never in a repr, a log line or a serialised context.
    llm_api_key: str | None = Field(default=None, repr=False, exclude=True)
    llm_model: str | None = None
    # The user whose own imports the data includes (`data.owners`); None: everyone's data only.
    data_owner: str | None = Field(default=None, exclude=True)


def check_question(question: Any, settings: Settings) -> str | None:
    """Why the question is refused (longer than DATAPILOT_MAX_QUESTION_CHARS), or None. Every
    face checks it first; the pipeline again, for questions from elsewhere (a model's call)."""
    if isinstance(question, str) and len(question) > settings.max_question_chars:
        return (
            f"The question has {len(question):,} characters; the limit is "
            f"{settings.max_question_chars:,} (DATAPILOT_MAX_QUESTION_CHARS). Ask a shorter "
            "question, and send long material as a table or a document instead."
        )
    return None
