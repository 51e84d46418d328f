"""What an engine's API server does for each chat request before the engine sees it, per engine and release (read
from the engines' sources): whether it parses the model's chat template anew each time
(:func:`planner.advisor.frontend.burst_wait_seconds` prices what that costs a burst), and the tokens its chat
rendering adds to the user's prompt (:func:`planner.advisor.frontend.chat_prompt_tokens` adds them to a burst's)."""

from __future__ import annotations

from typing import NamedTuple


class ChatFrontend(NamedTuple):
    """The releases whose API server parses the chat template for every chat request, the model types whose chat it
    renders with Harmony instead of that template, and the releases whose Harmony rendering is read
    (:data:`HARMONY_CHAT_TOKENS`)."""

    parse_releases: tuple[str, ...]
    template_free_model_types: tuple[str, ...]
    harmony_releases: tuple[str, ...] = ()


CHAT_FRONTENDS: dict[str, ChatFrontend] = {
    # vLLM 0.11.0 (the wheel): apply_hf_chat_template (vllm/entrypoints/chat_utils.py:1602-1638) calls
    # resolve_chat_template_kwargs (:1575-1599), which builds a jinja2 environment and parses the whole template
    # (:1585-1591) for every chat request, uncached (vLLM PR 25794, a security fix, added the call); 0.22.0 caches the
    # parse (vllm/renderers/hf.py:546-557). gpt-oss's chat is rendered by Harmony instead
    # (entrypoints/openai/serving_chat.py:146, :254-260), read at 0.10.2 and 0.11.0 (HARMONY_CHAT_TOKENS). The
    # releases between are not read.
    "vllm": ChatFrontend(
        parse_releases=("0.11.0",), template_free_model_types=("gpt_oss",), harmony_releases=("0.10.2", "0.11.0")
    ),
}


def parses_chat_template(engine: str, release: str | None, model_type: str) -> bool:
    """Whether ``engine`` at ``release`` parses a ``model_type`` model's chat template for every chat request
    (:data:`CHAT_FRONTENDS`, with its sources); ``False`` for an engine or release not read."""
    frontend = CHAT_FRONTENDS.get(engine)
    if frontend is None or release not in frontend.parse_releases:
        return False
    return model_type not in frontend.template_free_model_types


# vLLM renders a gpt-oss chat request with Harmony, not the model's chat template: 0.10.2 and 0.11.0 (the wheels)
# ``OpenAIServingChat._make_request_with_harmony`` (entrypoints/openai/serving_chat.py:1564-1591 in 0.11.0,
# :1558-1585 in 0.10.2) puts a system message (entrypoints/harmony_utils.py:61-100, ``get_system_message``:
# openai-harmony's default identity, knowledge cutoff 2024-06, the date, "Reasoning: medium", the channels less
# commentary) and an empty developer message (:117-121) before the user's, and renders them for the assistant's
# turn. openai/harmony src/encoding.rs renders that as ``<|start|>system<|message|>You are ChatGPT, a large
# language model trained by OpenAI.\nKnowledge cutoff: 2024-06\nCurrent date: YYYY-MM-DD\n\nReasoning:
# medium\n\n# Valid channels: analysis, final. Channel must be included for every message.<|end|><|start|>
# developer<|message|><|end|><|start|>user<|message|>`` + the prompt + ``<|end|><|start|>assistant``: 69 tokens of
# o200k_harmony besides the prompt's (counted with quicktok-v1 0.4.0's bundled o200k_harmony; the same for any date).
HARMONY_CHAT_TOKENS = 69


def chat_format_tokens(engine: str, release: str | None, model_type: str) -> int:
    """Tokens ``engine`` at ``release`` adds to a one-message chat prompt of a ``model_type`` model before its engine
    prefills it: :data:`HARMONY_CHAT_TOKENS` where it renders the chat with Harmony (:data:`CHAT_FRONTENDS`, with
    its sources); 0 for a model, engine or release not read."""
    frontend = CHAT_FRONTENDS.get(engine)
    if frontend is None or release not in frontend.harmony_releases:
        return 0
    return HARMONY_CHAT_TOKENS if model_type in frontend.template_free_model_types else 0
