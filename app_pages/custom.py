"""Custom model: describe an architecture that exists nowhere, or upload its config.json; it then travels in
the link like any other setting."""

from __future__ import annotations

import math
from typing import Any

import streamlit as st
from pydantic import ValidationError

from planner.errors import PlannerError
from planner.hf_config import MAX_CONFIG_BYTES, describe_validation_error, parse_config_text, spec_from_hf_config
from planner.kv import kv_bytes_per_token
from planner.model import ModelSpec
from planner.params import parameter_breakdown
from planner.precision import WEIGHT_FORMATS
from ui import frame, links, settings
from ui.custom_spec import encode_spec
from ui.guard import as_text
from ui.state import Selection

PATH = "custom"
PREFILL_KEY = "_hub_prefill"  # what a Hub import could read, set by the sidebar when fields are missing
PATTERNS = {
    "all full attention": None,
    "all sliding window": ["sliding"],
    "alternating sliding / full (Gemma 2, gpt-oss)": ["sliding", "full"],
    "5 sliding : 1 full (Gemma 3)": ["sliding"] * 5 + ["full"],
    "3 chunked : 1 full (Llama 4)": ["chunked"] * 3 + ["full"],
}


def _number(where: Any, label: str, low: int, high: int, value: Any) -> int:
    """A whole-number field whose starting value is clamped into its range (a prefill from the Hub or the
    current model can lie outside it: Llama 4 Scout's 10,485,760-token context)."""
    finite = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    start = max(low, min(high, int(value) if finite else low))
    number: int = where.number_input(label, low, high, start)
    return number


def _form(base: ModelSpec, prefill: dict[str, Any]) -> dict[str, Any] | None:
    """The form; returns the entered fields on submit."""

    def value(name: str, default: Any, high: int | None = None) -> Any:
        got = prefill.get(name, getattr(base, name, None))
        got = default if got is None else got
        return min(got, high) if high is not None and isinstance(got, int) else got

    with st.form("custom_model"):
        c1, c2 = st.columns(2)
        data: dict[str, Any] = {
            "id": c1.text_input("Name / id", value=str(prefill.get("id", "my-org/my-model")), max_chars=120),
            "native_dtype": c2.selectbox("Checkpoint precision", list(WEIGHT_FORMATS), index=1),
        }
        c1, c2, c3, c4 = st.columns(4)
        data["hidden_size"] = _number(c1, "hidden_size", 1, 65536, value("hidden_size", 4096))
        data["num_hidden_layers"] = _number(c2, "num_hidden_layers", 1, 1024, value("num_hidden_layers", 32))
        data["num_attention_heads"] = _number(c3, "num_attention_heads", 1, 1024, value("num_attention_heads", 32))
        data["num_key_value_heads"] = _number(c4, "num_key_value_heads", 1, 1024, value("num_key_value_heads", 8))
        c1, c2, c3, c4 = st.columns(4)
        data["head_dim"] = _number(c1, "head_dim (0: hidden / heads)", 0, 4096, value("head_dim", 0) or 0)
        data["intermediate_size"] = _number(c2, "intermediate_size", 1, 1_000_000, value("intermediate_size", 14336))
        data["vocab_size"] = _number(c3, "vocab_size", 1, 2_000_000, value("vocab_size", 128256))
        data["max_position_embeddings"] = _number(
            c4,
            "max_position_embeddings",
            512,
            settings.MAX_CONTEXT,
            value("max_position_embeddings", 131072, settings.MAX_CONTEXT),
        )
        c1, c2, c3 = st.columns(3)
        data["tie_word_embeddings"] = c1.checkbox("tie_word_embeddings", bool(value("tie_word_embeddings", False)))
        data["attention_bias"] = c2.checkbox("q/k/v bias", bool(value("attention_bias", False)))
        data["qk_norm"] = c3.checkbox("q/k norm", bool(value("qk_norm", False)))
        data["num_parameters"] = _number(
            st, "Total parameters, if known (0: compute from the shape)", 0, 10**13, value("num_parameters", 0) or 0
        )
        c1, c2 = st.columns(2)
        pattern = c1.selectbox("Attention layout", list(PATTERNS))
        window = _number(c2, "Window / chunk (tokens)", 1, 10_000_000, value("sliding_window", 4096))
        with st.expander("Mixture of experts"):
            moe_on = st.checkbox("MoE layers", bool(prefill.get("num_experts")))
            m1, m2, m3, m4 = st.columns(4)
            experts = _number(m1, "experts", 1, 4096, prefill.get("num_experts", 8) or 8)
            per_token = _number(m2, "experts per token", 1, 4096, prefill.get("num_experts_per_tok", 2) or 2)
            width = _number(m3, "expert width", 1, 1_000_000, prefill.get("moe_intermediate_size", 1408) or 1408)
            shared = _number(m4, "shared experts", 0, 64, prefill.get("n_shared_experts", 0) or 0)
        with st.expander("Multi-head latent attention (DeepSeek)"):
            mla_on = st.checkbox("MLA", bool(prefill.get("kv_lora_rank")))
            a1, a2, a3, a4 = st.columns(4)
            kv_lora = _number(a1, "kv_lora_rank", 1, 65536, prefill.get("kv_lora_rank", 512) or 512)
            rope = _number(a2, "qk_rope_head_dim", 1, 4096, prefill.get("qk_rope_head_dim", 64) or 64)
            nope = _number(a3, "qk_nope_head_dim", 1, 4096, prefill.get("qk_nope_head_dim", 128) or 128)
            v_dim = _number(a4, "v_head_dim", 1, 4096, prefill.get("v_head_dim", 128) or 128)
        if not st.form_submit_button("Plan this model", icon=":material/play_arrow:", type="primary"):
            return None
    data["head_dim"] = data["head_dim"] or None
    data["num_parameters"] = data["num_parameters"] or None
    layout = PATTERNS[pattern]
    if layout:
        data["layer_pattern"] = layout
        data["sliding_window" if "chunked" not in layout else "attention_chunk_size"] = window
    if moe_on:
        data["moe"] = {
            "num_experts": experts,
            "num_experts_per_tok": per_token,
            "moe_intermediate_size": width,
            "num_shared_experts": shared,
        }
    if mla_on:
        data["mla"] = {"kv_lora_rank": kv_lora, "qk_rope_head_dim": rope, "qk_nope_head_dim": nope, "v_head_dim": v_dim}
    return data


def _offer(sel: Selection, spec: ModelSpec) -> None:
    """Show what was understood and the link that plans it."""
    params = parameter_breakdown(spec)
    st.success(
        as_text(spec.display_name) + f": {params.total:,} parameters ({params.active:,} active), "
        f"{kv_bytes_per_token(spec, 'bf16'):,} bytes of KV cache per token in BF16, "
        f"{spec.num_hidden_layers} layers ({', '.join(f'{n} {k}' for k, n in spec.layer_kind_counts.items() if n)}).",
        icon=":material/check_circle:",
    )
    token = encode_spec(spec)
    query = links.query_string(sel.model_copy(update={"custom_spec": token, "hub_reference": None}))
    st.markdown(f"[Plan it on the Memory page](/{query}) — the link carries the whole description.")


def render(sel: Selection) -> None:
    st.title("Custom model")
    st.caption(
        "For a model that is in no catalog: upload its config.json or describe it field by field. Every field is "
        "validated and an error names the field."
    )
    uploaded = st.file_uploader("Upload a config.json", type=["json"])
    if uploaded is not None:
        if uploaded.size > MAX_CONFIG_BYTES:
            st.error(f"{uploaded.name} is larger than a config.json can be (1 MB).", icon=":material/error:")
        else:
            try:
                text = uploaded.getvalue().decode("utf-8")
                spec = spec_from_hf_config(parse_config_text(text), model_id=f"upload/{uploaded.name}")
            except UnicodeDecodeError:
                st.error("The file is not UTF-8 text.", icon=":material/error:")
            except PlannerError as exc:
                st.error(as_text(str(exc)), icon=":material/error:")
            else:
                _offer(sel, spec)
    prefill: dict[str, Any] = st.session_state.get(PREFILL_KEY, {})
    if prefill:
        st.info("Pre-filled with what the Hub import could read; complete the rest.", icon=":material/edit_note:")
    data = _form(sel.spec, prefill)
    if data is not None:
        try:
            spec = ModelSpec.model_validate(data)
        except ValidationError as exc:
            for problem in describe_validation_error(exc).split("; "):
                st.error(as_text(problem), icon=":material/error:")
        else:
            _offer(sel, spec)
    if sel.custom_spec:
        back = links.query_string(sel.model_copy(update={"custom_spec": None}))
        st.markdown(f"A custom model is in use. [Back to the catalog model](/{back})")


frame.run_page(render)
