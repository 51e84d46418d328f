"""What a serving engine's API server does to a burst before the engine sees it (read from the engines' sources; its
time a public measurement, not fitted).

An engine whose release parses the model's chat template anew for every chat request
(:data:`planner.engines.frontend.CHAT_FRONTENDS`; vLLM 0.11.0: ``apply_hf_chat_template`` calls
``resolve_chat_template_kwargs``, which builds a jinja2 environment and parses the whole template to find its
variables, uncached, ``vllm/entrypoints/chat_utils.py:1575-1638``) does it inside the request's preprocessing
(``entrypoints/openai/serving_engine.py:791``) on the API server's one event loop. A burst sent at once is so
preprocessed request after request, each parse holding the loop, before most of it reaches the engine: the engine
starts on the queue after ``requests x`` :data:`CHAT_TEMPLATE_PARSE_S`. Models whose chat is rendered without the
template (gpt-oss's Harmony) and requests to the completions endpoint do not wait; a burst its client caps
(``--max-concurrency``) is sent a few at a time, so the parses overlap the engine's work and are not counted.

Only the parse is priced: the rest of the server's work per request (HTTP, validation, the template's rendering,
tokenization, streaming) is not, so this is a lower bound of what such a burst waits. GPUStack's 128-token,
4-answer bursts on vLLM 0.11.0 show 11.0-14.8 s of dead time per 1,000 Qwen3 requests and at most 1.4 s for
gpt-oss (tests/advisor/test_chat_template_wait.py).

The server also renders each chat request into the prompt the engine prefills: the client counts its prompt's
tokens, the engine prefills those and the chat format's (:func:`chat_prompt_tokens`; only the format read from the
source is counted, gpt-oss's Harmony under vLLM 0.10.2 / 0.11.0: 69 tokens, 54 % more than a 128-token prompt).
"""

from __future__ import annotations

from model_catalog import get_model
from planner.advisor.benchmarks import BenchmarkRow
from planner.engines.frontend import chat_format_tokens, parses_chat_template
from planner.engines.registry import engine_labelled

# One parse of a chat template on an API server: vLLM PR 20065 (2025-06-25, "[Perf][Frontend] Cached resolution for
# resolving chat templates") found the same uncached parse of the template (``_detect_content_format`` then, which
# vLLM 0.11.0 caches) "results in 6-8 seconds delay before prompts actually are started to process" when 1,000
# requests are sent to the OpenAI server at once: the middle of that range, per request.
CHAT_TEMPLATE_PARSE_S = 7.0 / 1000


def burst_wait_seconds(row: BenchmarkRow) -> float:
    """Seconds a burst row's requests wait on the engine's API server before the engine sees them: its requests times
    one parse of the chat template (vLLM 0.11.0 ``vllm/entrypoints/chat_utils.py:1585-1591``, the parse; vLLM PR
    20065, its time), where the release parses it per request; 0 where the row does not state its endpoint or
    release, caps its client, or serves a model whose chat needs no template."""
    engine = engine_labelled(row.engine)
    if engine is None or row.requests is None or row.endpoint != "chat" or row.concurrency != "max":
        return 0.0
    if not parses_chat_template(engine.name, row.engine_version, get_model(row.model_id).spec.model_type):
        return 0.0
    return row.requests * CHAT_TEMPLATE_PARSE_S


def chat_prompt_tokens(row: BenchmarkRow) -> int:
    """Tokens a chat row's engine prefills for each request besides the prompt the client counts: the chat format's
    (:func:`planner.engines.frontend.chat_format_tokens`, vLLM 0.11.0 ``entrypoints/openai/serving_chat.py:1564-1591``
    for gpt-oss); 0 where the row does not state the chat endpoint or names no engine."""
    engine = engine_labelled(row.engine)
    if engine is None or row.endpoint != "chat":
        return 0
    return chat_format_tokens(engine.name, row.engine_version, get_model(row.model_id).spec.model_type)
