"""The notice of an answer given without a model: what a model would add, said beside the
answer (the Answer's `notice`), never in its text, in the question's language."""

from __future__ import annotations

from datapilot.data.text import is_chinese

NO_MODEL_NOTE = (
    "No model is configured for this assistant, so Datapilot's offline brain answered the last "
    "question on its own (trying the assistant's tools when its data could not answer). With a "
    "model (DATAPILOT_LLM_MODEL and DATAPILOT_LLM_BASE_URL, or the assistant's own model), the "
    "assistant would follow its prompt, read the earlier turns and combine its tools freely."
)
NO_MODEL_NOTE_ZH = (
    "这个助手没有配置模型，所以最后一个问题由 Datapilot 的离线大脑独自回答"
    "（数据无法回答时会尝试助手的工具）。配置模型后"
    "（DATAPILOT_LLM_MODEL 和 DATAPILOT_LLM_BASE_URL，或助手自己的模型），助手会遵循它的提示词、"
    "阅读之前的对话，并自由组合它的工具。"
)


def no_model_notice(question: str) -> str:
    """The notice of an answer given without a model, in the question's language."""
    return NO_MODEL_NOTE_ZH if is_chinese(question) else NO_MODEL_NOTE
