"""What an engine's API server does for each chat request before the engine sees it, per engine and release (read
from the engines' sources): whether it parses the model's chat template anew each time
(:func:`planner.advisor.frontend.burst_wait_seconds` prices what that costs a burst)."""

from __future__ import annotations

from typing import NamedTuple


class ChatFrontend(NamedTuple):
    """The releases whose API server parses the chat template for every chat request, and the model types whose chat
    it renders without that template."""

    parse_releases: tuple[str, ...]
    template_free_model_types: tuple[str, ...]


CHAT_FRONTENDS: dict[str, ChatFrontend] = {
    # vLLM 0.11.0 (the wheel): apply_hf_chat_template (vllm/entrypoints/chat_utils.py:1602-1638) calls
    # resolve_chat_template_kwargs (:1575-1599), which builds a jinja2 environment and parses the whole template
    # (:1585-1591) for every chat request, uncached (vLLM PR 25794, a security fix, added the call); 0.22.0 caches the
    # parse (vllm/renderers/hf.py:546-557). gpt-oss's chat is rendered by Harmony instead
    # (entrypoints/openai/serving_chat.py:146, :254-260). The releases between are not read.
    "vllm": ChatFrontend(parse_releases=("0.11.0",), template_free_model_types=("gpt_oss",)),
}


def parses_chat_template(engine: str, release: str | None, model_type: str) -> bool:
    """Whether ``engine`` at ``release`` parses a ``model_type`` model's chat template for every chat request
    (:data:`CHAT_FRONTENDS`, with its sources); ``False`` for an engine or release not read."""
    frontend = CHAT_FRONTENDS.get(engine)
    if frontend is None or release not in frontend.parse_releases:
        return False
    return model_type not in frontend.template_free_model_types
