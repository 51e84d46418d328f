"""The verdict names a quantized KV cache in the words the Memory page's header uses for it (the format's label):
an INT8 cache is llama.cpp's q8_0 there, and the sentence forwarded alone said only "INT8"."""

from __future__ import annotations

import pytest

from planner.assessment.words import cache_words
from planner.core.kv_formats import KV_FORMATS


@pytest.mark.parametrize("name", sorted(KV_FORMATS))
def test_every_quantized_format_is_named_by_its_label(name: str) -> None:
    fmt = KV_FORMATS[name]
    expected = "KV cache" if fmt.bits_per_value >= 16 else f"{fmt.label} KV cache"
    assert cache_words(name) == expected


def test_llama_cpp_caches_say_their_ggml_type() -> None:
    assert cache_words("int8") == "INT8 (q8_0) KV cache"
    assert cache_words("int4") == "INT4 (q4_0) KV cache"
