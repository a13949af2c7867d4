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


class Citation(BaseModel):
    """Where a quoted passage of a knowledge library comes from: its file, page and offsets."""

    source: str = Field(description="The document's file name.")
    page: int | None = Field(default=None, description="1-based page number (paged documents).")
    start: int = Field(
        description="Offset of the passage's first character in the document's "
        "extracted text (for PDFs, in its page's text)."
    )
    end: int = Field(description="Offset just past the passage's last character.")
    text: str = Field(description="The passage quoted.")
