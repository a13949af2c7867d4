"""How the Workspace discovers Datapilot: `agents.json` and the legacy `copilots.json`."""

from __future__ import annotations

from openbb_ai.models import AgentFeature, AgentFeatureOption, AgentFeatureSelectOption
from pydantic import BaseModel, Field

from datapilot.settings import Settings

# The Workspace options the agent offers (read back from each query by `context`).
MODEL_OPTION = "model"
OFFLINE_OPTION = "offline-only"

AGENT_ID = "datapilot"
NAME = "Datapilot"
DESCRIPTION = (
    "A data copilot for finance. Ask in English or Chinese about stocks, indices, macro series "
    "or the widgets and documents (PDFs) on your dashboard; get a planned analysis with charts, "
    "tables and a summary that quotes only computed numbers, or the passages of a document that "
    "answer you, cited by page. Works offline on bundled real data."
)


class AgentEndpoints(BaseModel):
    query: str
    feedback: str | None = None


class AgentDescriptor(BaseModel):
    """One entry of `agents.json`."""

    name: str
    description: str
    image: str
    endpoints: AgentEndpoints
    features: dict[str, AgentFeature] = Field(default_factory=dict)


class LegacyCopilotDescriptor(BaseModel):
    """One entry of the v1 `copilots.json`."""

    name: str
    description: str
    image: str
    hasStreaming: bool = True
    hasDocuments: bool = True  # PDFs and text files are read (see `documents`)
    hasFunctionCalling: bool = True
    endpoints: AgentEndpoints


def agent_descriptor(base_url: str, settings: Settings) -> AgentDescriptor:
    """The agent as the Workspace sees it, with absolute URLs under `base_url`."""
    base = base_url.rstrip("/")
    return AgentDescriptor(
        name=NAME,
        description=DESCRIPTION,
        image=f"{base}/assets/logo.png",
        endpoints=AgentEndpoints(query=f"{base}/v1/query", feedback=f"{base}/v1/feedback"),
        features={
            "streaming": True,
            "widget-dashboard-select": True,
            "widget-dashboard-search": True,
            "feedback": True,
            MODEL_OPTION: AgentFeatureOption(
                label="Model",
                type="select",
                default="auto",
                description="Who reads the question: the offline planner or a language model.",
                options=_model_options(settings),
            ),
            OFFLINE_OPTION: AgentFeatureOption(
                label="Offline only",
                type="toggle",
                default=settings.offline,
                description="Use only the bundled data and never reach the network.",
            ),
        },
    )


def legacy_descriptor(base_url: str) -> LegacyCopilotDescriptor:
    base = base_url.rstrip("/")
    return LegacyCopilotDescriptor(
        name=NAME,
        description=DESCRIPTION,
        image=f"{base}/assets/logo.png",
        endpoints=AgentEndpoints(query=f"{base}/v1/query"),
    )


def _model_options(settings: Settings) -> list[AgentFeatureSelectOption]:
    options = [
        AgentFeatureSelectOption(label="Automatic", value="auto"),
        AgentFeatureSelectOption(label="Offline planner", value="offline"),
    ]
    if settings.llm_model:
        options.append(AgentFeatureSelectOption(label=settings.llm_model, value=settings.llm_model))
    return options
