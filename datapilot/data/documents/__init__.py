"""A user's documents: read into passages (`reading`), and the passages that answer a question
(`answers`), every read within bounds (`limits`). PDFs keep each passage's page and line boxes
for citations; documents given by URL are fetched only through `datapilot.net`, the SSRF-safe
client."""

from datapilot.data.documents.answers import (
    DOCUMENT_SYSTEM_PROMPT,
    find_passages,
    nothing_found,
    opening_passages,
    passages_prompt,
    quoted_answer,
    quotes,
    refers_to_document,
)
from datapilot.data.documents.limits import (
    DocumentError,
    DocumentTooLarge,
    Reading,
    ReadLimits,
    check_zip,
    within,
)
from datapilot.data.documents.progress import PageProgress, reporting_pages
from datapilot.data.documents.reading import (
    MAX_PAGES,
    Document,
    DocumentKind,
    DocumentSource,
    decode_base64,
    describe_failure,
    kind_of,
    load_document,
    read_document,
    read_pdf,
    read_text,
)

__all__ = [
    "DOCUMENT_SYSTEM_PROMPT",
    "MAX_PAGES",
    "Document",
    "DocumentError",
    "DocumentKind",
    "DocumentSource",
    "DocumentTooLarge",
    "PageProgress",
    "ReadLimits",
    "Reading",
    "check_zip",
    "decode_base64",
    "describe_failure",
    "find_passages",
    "kind_of",
    "load_document",
    "nothing_found",
    "opening_passages",
    "passages_prompt",
    "quoted_answer",
    "quotes",
    "read_document",
    "read_pdf",
    "read_text",
    "refers_to_document",
    "reporting_pages",
    "within",
]
