"""Settings from `DATAPILOT_*` environment variables and an optional `datapilot.toml`.

Precedence (highest first): explicit arguments, environment, `datapilot.toml` in the working
directory (or the file named by `DATAPILOT_CONFIG`), defaults.
"""

import json
import os
import re
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from platformdirs import user_data_dir
from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

BrainChoice = Literal["auto", "offline", "llm"]
# host:port with IPv6 in brackets, as DATAPILOT_OUTBOUND_ALLOW takes them.
_HOST_PORT = re.compile(r"^(?:\[[0-9A-Fa-f:.]+\]|[^\s:\[\]/]+):(\d{1,5})$")


def _config_file() -> Path:
    return Path(os.environ.get("DATAPILOT_CONFIG", "datapilot.toml"))


class Settings(BaseSettings):
    """Every knob Datapilot has; docs/settings.md (generated from this model) lists them all."""

    model_config = SettingsConfigDict(env_prefix="DATAPILOT_", extra="ignore")

    data_dir: Path = Field(
        default_factory=lambda: Path(user_data_dir("datapilot", appauthor=False)),
        description="Where the warehouse, the default SQLite store, chat and library files, "
        "knowledge indexes, chart images, feedback, your vocabulary and entity files and "
        "designed plugins live.",
    )
    today: date | None = Field(
        default=None, description="Treat this date as today (relative windows resolve against it)."
    )
    host: str = Field(
        default="127.0.0.1",
        description="The interface `datapilot serve` binds to (`--host` overrides it); beyond "
        "loopback the server refuses to start until an API key exists.",
    )
    port: int = Field(default=7777, description="The port `datapilot serve` listens on.")
    brain: BrainChoice = Field(
        default="auto",
        description="Which brain answers: `auto` (the model when one is configured and "
        "reachable, else the offline brain), `offline` or `llm`; `--brain` and a request's own "
        "`brain` choose per request.",
    )
    offline: bool = Field(default=False, description="Forbid every network access.")
    providers: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["bundled"],
        description="Data providers in order of preference: bundled, yahoo, fred, sec, akshare, "
        "datahub (DATAPILOT_PROVIDERS=bundled,yahoo,fred or a JSON list).",
    )
    outbound_allow: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="host:port pairs outbound requests may reach although they are loopback, "
        "private or otherwise non-public (DATAPILOT_OUTBOUND_ALLOW=127.0.0.1:8080,[::1]:8080).",
    )
    secret_key: SecretStr | None = Field(
        default=None,
        description="Fernet key (DATAPILOT_SECRET_KEY, shared by replicas) that encrypts stored "
        "secrets such as imported tools' API keys; without it a secret may only name an "
        "environment variable.",
    )
    tool_secret_env_prefix: str = Field(
        default="",
        description="The prefix of the environment variables (e.g. DATAPILOT_TOOL_SECRET_) "
        "that a tool source added over HTTP may name as its secret (`secret_env`); every key "
        "with the manage scope may then use any of them. Empty (the default): only a source "
        "added in the server's terminal (`datapilot tools add --secret-env`) names one.",
    )
    tool_calls_per_minute: int = Field(
        default=60, ge=1, description="Most calls of one imported tool per minute and process."
    )
    tool_max_kb: float = Field(
        default=512.0,
        gt=0,
        description="Largest response of an imported tool call read, in KB (cut beyond it, "
        "marked truncated).",
    )
    sec_user_agent: str | None = Field(
        default=None,
        description="User-Agent for SEC EDGAR, which asks for a name and an email address.",
    )
    fred_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("datapilot_fred_api_key", "fred_api_key"),
        description="FRED API key (FRED_API_KEY or DATAPILOT_FRED_API_KEY); optional.",
    )
    cache_ttl_hours: dict[str, float] = Field(
        default_factory=dict,
        description="Override how long live data stay fresh, per dataset: prices, series, "
        "fundamentals, news, profile (hours).",
    )
    request_timeout_s: float = Field(default=120.0, description="Whole-request timeout.")
    worker_threads: int = Field(
        default=8,
        ge=1,
        description="Requests answered at once per server process, each on a worker thread off "
        "the event loop (more wait for a free thread; the request timeout counts the wait).",
    )
    offline_threads: int = Field(
        default_factory=lambda: os.cpu_count() or 1,
        ge=1,
        description="Of those, requests answered by the offline brain at once (default: the "
        "number of CPU cores). Their work is CPU from start to end, and more threads than cores "
        "only make Python switch between them: under load that cost ~30% more CPU per request. "
        "Requests that may wait on a model keep worker_threads.",
    )
    # Limits on what one request may send: each error names the setting that set it.
    max_body_mb: float = Field(
        default=20.0,
        gt=0,
        description="Largest request body in MB (room for a base64 PDF in a Workspace request); "
        "larger bodies get 413 before they are read. A compressed data import (.csv.gz, "
        "Parquet) may inflate to this much at most.",
    )
    max_question_chars: int = Field(
        default=4000, ge=1, description="Longest question, in characters (422 beyond it)."
    )
    max_message_chars: int = Field(
        default=100_000,
        ge=1,
        description="Longest earlier message of a conversation, in characters.",
    )
    max_messages: int = Field(
        default=200, ge=1, description="Most messages (history included) in one request."
    )
    max_tables: int = Field(default=50, ge=0, description="Most client tables in one request.")
    max_table_cells: int = Field(
        default=500_000, ge=1, description="Most cells (rows × columns) of one client table."
    )
    max_cell_chars: int = Field(
        default=10_000, ge=1, description="Longest cell of a client table, in characters."
    )
    max_feedback_kb: float = Field(
        default=64.0, gt=0, description="Largest feedback record, in KB (413 beyond it)."
    )
    max_feedback_mb: float = Field(
        default=50.0,
        gt=0,
        description="Disk budget of stored feedback in MB: `feedback.jsonl` rotates to "
        "`feedback.1.jsonl` at half of it, and the older file is dropped.",
    )
    call_timeout_s: float = Field(default=30.0, description="Timeout of one interface call.")
    cors_origins: list[str] = Field(
        default_factory=lambda: [
            "https://pro.openbb.co",
            "http://localhost",
            "http://127.0.0.1",
        ],
        description="Browser origins allowed to call the server (CORS, a JSON list): besides the "
        "server's own pages, the only ones whose WebSockets and state-changing requests it "
        "takes (others get 403).",
    )
    cors_origin_regex: str = Field(
        default=r"^https?://(localhost|127\.0\.0\.1)(:\d+)?$",
        description="A regular expression of further allowed browser origins (CORS); empty "
        "allows none beyond cors_origins.",
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names the server answers to besides IP addresses, `localhost` and the "
        "name it binds to (DNS-rebinding protection, every route and WebSocket; others get 421): "
        'name, name:port, name:*, *.domain or *, e.g. \'["data.example.com", "*.corp.example"]\'.',
    )
    mcp_allowed_hosts: list[str] = Field(
        default_factory=list,
        description="The older name of DATAPILOT_ALLOWED_HOSTS, still read: its entries are "
        "added to those.",
    )
    plugin_contact_email: str = Field(
        default="",
        description="The contact_email of the published ai-plugin.json manifest; plugin hosts "
        "ask for one (`datapilot serve` warns while it is empty).",
    )
    plugin_legal_url: str = Field(
        default="/legal",
        description="The legal_info_url of the manifest: a path on this server (its `/legal` "
        "page by default) or a full `https://` URL of your own terms.",
    )
    mcp_text_rows: int = Field(
        default=100,
        ge=2,
        description="Rows of a table an MCP tool result carries in its text content (the first "
        "and last halves, with a note); `structuredContent` always has every row.",
    )

    database_url: SecretStr | None = Field(
        default=None,
        description="The platform's SQL store (users, keys, assistants, chats): a "
        "`postgresql://` URL (any driver suffix; unix sockets as `?host=/path`) or "
        "`sqlite:///path`. Default: SQLite in the data dir.",
    )
    auth_cache_s: float = Field(
        default=2.0,
        ge=0,
        description="How long the server trusts an API key lookup before reading the store "
        "again (seconds); a key revoked from another process stops working within this time.",
    )

    redis_url: SecretStr | None = Field(
        default=None,
        description="Optional Redis (`redis://host:port/0`, `unix:///path/redis.sock`) for "
        "counters shared by server replicas, such as guests' rate limits; default: the store.",
    )

    watch_scheduler: bool = Field(
        default=True,
        description="Run watches (scheduled reports, alerts) in `datapilot serve`; replicas "
        "may all run it: each due time runs once, on the replica that claims it first.",
    )
    watch_sync_s: float = Field(
        default=30.0,
        gt=0,
        description="How often a server reads the store for watches added, paused or deleted "
        "on another replica (seconds); its own changes apply at once.",
    )
    watch_late_after_s: float = Field(
        default=60.0,
        gt=0,
        description="A watch run this many seconds past its due time is marked late.",
    )
    webhook_attempts: int = Field(
        default=4,
        ge=1,
        le=10,
        description="Tries of a watch's webhook delivery, the first included.",
    )
    webhook_backoff_s: float = Field(
        default=2.0,
        gt=0,
        description="Wait before the second try of a webhook delivery; doubled for each "
        "further try (with jitter, at most 60 s).",
    )
    webhook_timeout_s: float = Field(
        default=10.0, gt=0, description="Whole-request timeout of one webhook try (seconds)."
    )
    smtp_host: str | None = Field(
        default=None,
        description="The SMTP server watches send email through; unset: email delivery is "
        "refused when a watch is created with an address.",
    )
    smtp_port: int = Field(default=587, ge=1, le=65535, description="The SMTP server's port.")
    smtp_security: Literal["starttls", "tls", "none"] = Field(
        default="starttls",
        description="`starttls` (upgrade after connecting, usually port 587), `tls` (TLS from "
        "the start, usually 465) or `none` (plain, only for a relay on this machine).",
    )
    smtp_user: str | None = Field(default=None, description="SMTP login name, if it asks.")
    smtp_password: SecretStr | None = Field(
        default=None, description="SMTP password (never logged or shown)."
    )
    smtp_from: str = Field(
        default="Datapilot <datapilot@localhost>",
        description="The From address of watch emails.",
    )
    smtp_timeout_s: float = Field(
        default=20.0, gt=0, description="Timeout of one SMTP conversation (seconds)."
    )

    guest_chat_hours: float = Field(
        default=24.0, gt=0, description="How long a guest's chat with a public assistant lasts."
    )
    guest_messages_per_minute: int = Field(
        default=10, ge=1, description="How many messages one guest may send per minute."
    )
    guest_requests_per_minute_per_address: int = Field(
        default=30,
        ge=1,
        description="How many guest chats, messages and files one client address (an IPv6 "
        "/64) may send per minute, whatever guest ids it uses.",
    )
    guest_messages_per_hour_per_assistant: int = Field(
        default=600,
        ge=1,
        description="How many guest messages and files one public assistant takes per hour, "
        "from all its guests together: the most its owner's model spends on guests.",
    )

    # Knowledge libraries: upload limits (each error names its setting) and optional retrieval
    # endpoints; BM25 alone answers when no embeddings endpoint is set.
    kb_max_file_mb: float = Field(
        default=20.0, gt=0, description="Largest document a knowledge library accepts, in MB."
    )
    kb_max_pages: int = Field(default=300, ge=1, description="Most pages of one PDF in a library.")
    kb_max_documents: int = Field(default=200, ge=1, description="Most documents in one library.")
    # Reading one document (library uploads and the Workspace's documents): decompression bombs
    # and documents too costly to read are refused before they hold a core or the memory.
    kb_max_inflated_mb: float = Field(
        default=100.0,
        gt=0,
        description="Most MB a document may inflate to when read: the declared sizes of an "
        "XLSX/DOCX's zip members, or the decoded streams of a PDF.",
    )
    kb_max_compression_ratio: float = Field(
        default=100.0,
        gt=1,
        description="Highest compression ratio (inflated over stored size) of any compressed "
        "part of a document that inflates beyond 1 MB; zip and PDF bombs run to thousands.",
    )
    kb_max_page_objects: int = Field(
        default=100_000,
        ge=1,
        description="Most characters, lines, shapes and images on one PDF page (each holds about "
        "2 KB while the page is read).",
    )
    kb_max_cells: int = Field(
        default=500_000, ge=1, description="Most table cells in one CSV, XLSX or DOCX."
    )
    kb_max_chunks: int = Field(
        default=20_000, ge=1, description="Most chunks (passages and table parts) of one document."
    )
    kb_read_timeout_s: float = Field(
        default=60.0,
        gt=0,
        description="Most seconds reading one document may take (embedding aside); a slower "
        "read is stopped and refused.",
    )
    kb_job_stall_s: float = Field(
        default=120.0,
        gt=0,
        description="Seconds an upload job may go without news (its server writes one at "
        "least every quarter of this) before a poll reports it failed: the server that read "
        "it stopped, and the document must be uploaded again.",
    )
    max_watches: int = Field(
        default=50, ge=0, description="Most watches (reports and alerts) one user may keep."
    )
    watch_timezone: str = Field(
        default="UTC",
        description="The time zone of a watch's schedule when its sentence names none "
        "(an IANA name such as Asia/Shanghai).",
    )
    embeddings_base_url: str | None = Field(
        default=None, description="An OpenAI-compatible endpoint serving /embeddings (…/v1)."
    )
    embeddings_model: str | None = Field(
        default=None,
        description="The embeddings model's name; vectors are used only when both it and "
        "embeddings_base_url are set.",
    )
    embeddings_input_type: bool = Field(
        default=False,
        description="Send input_type (query or passage) with each embeddings request, for "
        "asymmetric models (e5, NIM, Voyage) whose servers take it.",
    )
    embeddings_api_key: SecretStr | None = Field(
        default=None,
        description="Sent as `Authorization: Bearer` to the embeddings and rerank endpoints.",
    )
    rerank_url: str | None = Field(
        default=None,
        description="A rerank endpoint ({model, query, documents} → {results: [{index, "
        "relevance_score}]}), called on the fused candidates when set.",
    )
    rerank_model: str | None = Field(
        default=None, description="The `model` sent to the rerank endpoint."
    )
    # The code interpreter (a sandboxed Python kernel per session; see `datapilot/interpreter`).
    interpreter_auto_run: bool = Field(
        default=False,
        description="Run code without asking, for callers whose key has the `run` scope only.",
    )
    interpreter_min_isolation: Literal["none", "audit", "namespace"] = Field(
        default="namespace",
        description="Refuse to run code below this isolation level (namespace > audit > none).",
    )
    interpreter_timeout_s: float = Field(default=60.0, gt=0, description="Wall clock per run.")
    interpreter_idle_s: float = Field(
        default=900.0, gt=0, description="An idle session's kernel stops after this long."
    )
    interpreter_max_sessions: int = Field(default=8, ge=1, description="Kernels at once.")
    interpreter_memory_mb: int = Field(default=2048, ge=256, description="Address space cap.")
    interpreter_cpu_s: int = Field(default=600, ge=1, description="CPU seconds per kernel.")
    interpreter_processes: int = Field(
        default=64, ge=8, description="Processes and threads per kernel."
    )
    interpreter_disk_mb: int = Field(default=100, ge=1, description="Scratch directory size.")
    interpreter_output_chars: int = Field(
        default=100_000, ge=1000, description="Console characters kept per run."
    )

    llm_base_url: str | None = Field(
        default=None,
        description="The `/v1` URL of an OpenAI-compatible endpoint; unset with an API key "
        "given: OpenAI's.",
    )
    llm_api_key: SecretStr | None = Field(
        default=None, description="The model endpoint's API key (any value for local servers)."
    )
    llm_model: str | None = Field(
        default=None, description="The model (or Azure deployment) name to call."
    )
    llm_timeout_s: float = Field(
        default=60.0,
        description="Timeout of one model call in seconds (also of an embeddings or rerank "
        "request).",
    )
    llm_max_retries: int = Field(
        default=3, description="Retries of a model call on HTTP 429, 5xx and connection errors."
    )
    llm_prompt_tokens: int = Field(
        default=4000,
        ge=1000,
        description="Token budget of the planning prompt (o200k, schema included): history, "
        "client data and the entity list are shortened to fit it.",
    )

    chat_prompt_tokens: int = Field(
        default=8000,
        ge=1000,
        description="Token budget of one assistant turn's prompt (o200k): older turns of a long "
        "chat are summarised, retrieved when relevant or dropped to fit it.",
    )
    chat_recent_turns: int = Field(
        default=4, ge=0, description="Exchanges before the current one that are sent verbatim."
    )

    @field_validator("providers", mode="before")
    @classmethod
    def _split_providers(cls, value: object) -> object:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip().lower() for part in text.split(",") if part.strip()]
        return value

    @field_validator("outbound_allow", mode="before")
    @classmethod
    def _split_allow(cls, value: object) -> object:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith('["'):  # a JSON list; "[::1]:8080" is an IPv6 entry
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value

    @field_validator("outbound_allow")
    @classmethod
    def _check_allow(cls, value: list[str]) -> list[str]:
        for entry in value:
            match = _HOST_PORT.match(entry.strip())
            if not match or not 0 < int(match.group(1)) < 65536:
                raise ValueError(
                    f"DATAPILOT_OUTBOUND_ALLOW entry {entry!r} is not host:port; write e.g. "
                    "127.0.0.1:8080,[::1]:8080,intranet.example:443"
                )
        return value

    @property
    def warehouse_path(self) -> Path:
        return self.data_dir / "warehouse.duckdb"

    @property
    def database_path(self) -> Path:
        """The default SQLite store, used when no `database_url` is set."""
        return self.data_dir / "datapilot.sqlite3"

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_base_url or self.llm_api_key) and bool(self.llm_model)

    def effective_today(self) -> date:
        return self.today or date.today()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = TomlConfigSettingsSource(settings_cls, toml_file=_config_file())
        return init_settings, env_settings, toml, file_secret_settings


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return Settings()
