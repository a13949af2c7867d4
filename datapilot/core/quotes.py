"""Quotes: passages of a user's document that an answer rests on, and where they are."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class BoundingBox(BaseModel):
    """A region of a page in PDF points, measured from the page's top-left corner."""

    model_config = ConfigDict(frozen=True)

    x0: float
    top: float
    x1: float
    bottom: float
    text: str = Field(default="", description="The text inside the box, when it is one line.")


class Quote(BaseModel):
    """A passage an answer quotes: its text, document, page and line boxes (for highlights)."""

    source: str = Field(description="The document's name.")
    text: str
    page: int | None = Field(default=None, description="1-based page number.")
    boxes: list[BoundingBox] = Field(default_factory=list, description="One box per line.")
    widget_uuid: str | None = Field(
        default=None, description="The dashboard widget the document came from, if any."
    )
