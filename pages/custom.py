"""Custom model: describe an architecture that exists nowhere, or upload its config.json. The model it describes
becomes the one every page plans at once (the sidebar says so, the navigation keeps it) and travels in the link
like any other setting; the form below then shows its figures."""

from __future__ import annotations

import math
from typing import Any

import streamlit as st
from pydantic import ValidationError

from planner.bounds.errors import PlannerError, describe_validation_error
from planner.core.kv import kv_bytes_per_token
from planner.core.model import ModelSpec
from planner.core.params import check_parameter_count, parameter_breakdown
from planner.core.precision import WEIGHT_FORMATS
from planner.sources.config import MAX_CONFIG_BYTES, parse_config_text, spec_from_config_alone
from ui import binding, frame, settings
from ui.custom_spec import encode_spec
from ui.guard import as_text
from ui.page_registry import MEMORY, page
from ui.state import Selection

PATH = "custom"
FORM_KEY = "custom_form"  # the form's fields build the `spec` setting on submit (they are not settings)
UPLOAD_KEY = "custom_upload"  # an uploaded config.json: the model it describes travels as `spec`
PREFILL_KEY = "_hub_prefill"  # what a Hub import could read, set by the sidebar when fields are missing
APPLIED_KEY = "_custom_upload_applied"  # the uploaded file already made the planned model (not re-applied after
# "Back to the catalog model" while the uploader still holds it)
SHOWN_KEY = "_custom_form_model"  # the model whose figures the form's fields started from
MAX_NAME_CHARS = 120
PATTERNS = {
    "all full attention": None,
    "all sliding window": ["sliding"],
    "alternating sliding / full (Gemma 2, gpt-oss)": ["sliding", "full"],
    "5 sliding : 1 full (Gemma 3)": ["sliding"] * 5 + ["full"],
    "3 chunked : 1 full (Llama 4)": ["chunked"] * 3 + ["full"],
}


def _key(name: str) -> str:
    return f"{FORM_KEY}.{name}"


def _seeded(name: str, value: Any) -> str:
    """The field's key, its starting value put in the session first: a field starts from the model shown (the
    browser would otherwise keep what it showed for the previous model, since a keyed field keeps its identity)."""
    key = _key(name)
    if key not in st.session_state:
        st.session_state[key] = value
    return key


def _start_from(spec: ModelSpec) -> None:
    """When the model planned changed since the form was last drawn (an upload, a submitted form, the sidebar),
    the fields start again from its figures: their old values are forgotten."""
    shown = encode_spec(spec)
    if st.session_state.get(SHOWN_KEY) != shown:
        for key in [k for k in st.session_state if isinstance(k, str) and k.startswith(f"{FORM_KEY}.")]:
            del st.session_state[key]
        st.session_state[SHOWN_KEY] = shown


def _number(where: Any, label: str, low: int, high: int, value: Any) -> int:
    """A whole-number field whose starting value is clamped into its range (a prefill from the Hub or the
    current model can lie outside it: Llama 4 Scout's 10,485,760-token context)."""
    finite = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    start = max(low, min(high, int(value) if finite else low))
    number: int = where.number_input(label, low, high, key=_seeded(label, start))
    return number


def _shape(base: ModelSpec, prefill: dict[str, Any]) -> dict[str, Any]:
    """The dense shape fields, pre-filled from the Hub import or the current model."""

    def value(name: str, default: Any) -> Any:
        got = prefill.get(name, getattr(base, name, None))
        return default if got is None else got

    c1, c2 = st.columns(2)
    data: dict[str, Any] = {
        "id": c1.text_input(
            "Name / id", max_chars=120, key=_seeded("id", str(prefill.get("id", "my-org/my-model"))[:120])
        ),
        "native_dtype": c2.selectbox(
            "Checkpoint precision",
            list(WEIGHT_FORMATS),
            key=_seeded("native_dtype", base.native_dtype if base.native_dtype in WEIGHT_FORMATS else "bf16"),
        ),
    }
    c1, c2, c3, c4 = st.columns(4)
    data["hidden_size"] = _number(c1, "hidden_size", 1, 65536, value("hidden_size", 4096))
    data["num_hidden_layers"] = _number(c2, "num_hidden_layers", 1, 1024, value("num_hidden_layers", 32))
    data["num_attention_heads"] = _number(c3, "num_attention_heads", 1, 1024, value("num_attention_heads", 32))
    data["num_key_value_heads"] = _number(c4, "num_key_value_heads", 1, 1024, value("num_key_value_heads", 8))
    c1, c2, c3, c4 = st.columns(4)
    data["head_dim"] = _number(c1, "head_dim (0: hidden / heads)", 0, 4096, value("head_dim", 0) or 0) or None
    data["intermediate_size"] = _number(c2, "intermediate_size", 1, 1_000_000, value("intermediate_size", 14336))
    data["vocab_size"] = _number(c3, "vocab_size", 1, 2_000_000, value("vocab_size", 128256))
    data["max_position_embeddings"] = _number(
        c4, "max_position_embeddings", 512, settings.MAX_CONTEXT, value("max_position_embeddings", 131072)
    )
    c1, c2, c3 = st.columns(3)
    for where, name, label in (
        (c1, "tie_word_embeddings", "tie_word_embeddings"),
        (c2, "attention_bias", "q/k/v bias"),
        (c3, "qk_norm", "q/k norm"),
    ):
        data[name] = where.checkbox(label, key=_seeded(name, bool(value(name, False))))
    data["num_parameters"] = (
        _number(st, "Total parameters, if known (0: compute from the shape)", 0, 10**13, value("num_parameters", 0))
        or None
    )
    c1, c2 = st.columns(2)
    layout = PATTERNS[c1.selectbox("Attention layout", list(PATTERNS), key=_seeded("layout", next(iter(PATTERNS))))]
    window = _number(c2, "Window / chunk (tokens)", 1, settings.MAX_CONTEXT, value("sliding_window", 4096))
    if layout:
        data["layer_pattern"] = layout
        data["sliding_window" if "chunked" not in layout else "attention_chunk_size"] = window
    return data


# A section's field: its spec key, its label, its range, the prefill key it starts from, and the start without one.
Field = tuple[str, str, int, int, str, int]


def _section(
    title: str, toggle: str, name: str, on: bool, fields: tuple[Field, ...], prefill: dict[str, Any]
) -> dict[str, Any] | None:
    """An optional part of the spec in an expander: a checkbox (``toggle``, keyed ``name``, first ``on``) that puts
    it in the spec, and one whole-number field a column, pre-filled from the Hub import or the current model."""
    with st.expander(title):
        checked = st.checkbox(toggle, key=_seeded(name, on))
        columns = st.columns(len(fields))
        values = {
            key: _number(column, label, low, high, prefill.get(source) or start)
            for column, (key, label, low, high, source, start) in zip(columns, fields, strict=True)
        }
    return values if checked else None


def _moe(prefill: dict[str, Any]) -> dict[str, Any] | None:
    fields: tuple[Field, ...] = (
        ("num_experts", "experts", 1, 4096, "num_experts", 8),
        ("num_experts_per_tok", "experts per token", 1, 4096, "num_experts_per_tok", 2),
        ("moe_intermediate_size", "expert width", 1, 1_000_000, "moe_intermediate_size", 1408),
        ("num_shared_experts", "shared experts", 0, 64, "n_shared_experts", 0),
    )
    return _section("Mixture of experts", "MoE layers", "moe", bool(prefill.get("num_experts")), fields, prefill)


def _mla(prefill: dict[str, Any]) -> dict[str, Any] | None:
    fields: tuple[Field, ...] = (
        ("kv_lora_rank", "kv_lora_rank", 1, 65536, "kv_lora_rank", 512),
        ("qk_rope_head_dim", "qk_rope_head_dim", 1, 4096, "qk_rope_head_dim", 64),
        ("qk_nope_head_dim", "qk_nope_head_dim", 1, 4096, "qk_nope_head_dim", 128),
        ("v_head_dim", "v_head_dim", 1, 4096, "v_head_dim", 128),
    )
    return _section(
        "Multi-head latent attention (DeepSeek)", "MLA", "mla", bool(prefill.get("kv_lora_rank")), fields, prefill
    )


def _form(base: ModelSpec, prefill: dict[str, Any]) -> dict[str, Any] | None:
    """The form (its fields build the ``spec`` setting, which travels in the link); the fields on submit."""
    with st.form("custom_model"):
        data = _shape(base, prefill)
        moe, mla = _moe(prefill), _mla(prefill)
        if not st.form_submit_button("Plan this model", icon=":material/play_arrow:", type="primary"):
            return None
    if moe:
        data["moe"] = moe
    if mla:
        data["mla"] = mla
    return data


def base_prefill(spec: ModelSpec) -> dict[str, Any]:
    """The form's starting figures from the model being planned: its shape, experts and latent attention."""
    out: dict[str, Any] = {"id": spec.id}
    if spec.moe is not None:
        out.update(
            num_experts=spec.moe.num_experts,
            num_experts_per_tok=spec.moe.num_experts_per_tok,
            moe_intermediate_size=spec.moe.moe_intermediate_size,
            n_shared_experts=spec.moe.num_shared_experts,
        )
    if spec.mla is not None:
        out.update(spec.mla.model_dump(include={"kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"}))
    return out


def upload_name(config: dict[str, Any], file_name: str) -> str:
    """What an uploaded config.json is called: the repository it was saved from (``_name_or_path``), else its
    architecture, with the file it came from (never just "config.json").

    >>> upload_name({"_name_or_path": "acme/Tiny-1B", "architectures": ["LlamaForCausalLM"]}, "config.json")
    'Tiny-1B (uploaded config.json)'
    >>> upload_name({"architectures": ["MistralForCausalLM"]}, "config.json")
    'MistralForCausalLM (uploaded config.json)'
    """
    source = config.get("_name_or_path")
    architectures = config.get("architectures")
    if isinstance(source, str) and source.strip():
        what = source.strip().rstrip("/").split("/")[-1]
    elif isinstance(architectures, list) and architectures and isinstance(architectures[0], str):
        what = architectures[0]
    else:
        what = str(config.get("model_type") or "Custom model")
    return f"{what[:80]} (uploaded {file_name[:30]})"[:MAX_NAME_CHARS]


def _use(spec: ModelSpec) -> None:
    """Make ``spec`` the model every page plans (the link's ``spec`` setting) and draw again, so the sidebar, the
    navigation and the form show it."""
    token = encode_spec(spec)
    if st.session_state.get(settings.CUSTOM_SPEC.url) != token:
        binding.set_value(settings.CUSTOM_SPEC, token)
        st.rerun()


def _understood(spec: ModelSpec) -> None:
    """What was understood of the model being planned, and where to see its plan (this tab)."""
    params = parameter_breakdown(spec)
    st.success(
        "Planning " + as_text(spec.display_name) + f" on every page: {params.total:,} parameters ({params.active:,} "
        f"active), {kv_bytes_per_token(spec, 'bf16'):,} bytes of KV cache per token in BF16, "
        f"{spec.num_hidden_layers} layers ({', '.join(f'{n} {k}' for k, n in spec.layer_kind_counts.items() if n)}).",
        icon=":material/check_circle:",
    )
    c1, c2 = st.columns(2)
    c1.page_link(page(MEMORY).file, label="See its memory plan", icon=":material/memory:")
    if c2.button("Back to the catalog model", icon=":material/undo:"):
        binding.set_value(settings.CUSTOM_SPEC, None)
        st.rerun()


def _upload() -> None:
    uploaded = st.file_uploader("Upload a config.json", type=["json"], key=UPLOAD_KEY)
    if uploaded is None or st.session_state.get(APPLIED_KEY) == uploaded.file_id:
        return
    if uploaded.size > MAX_CONFIG_BYTES:
        st.error(as_text(f"{uploaded.name} is larger than a config.json can be (1 MB)."), icon=":material/error:")
        return
    try:
        config = parse_config_text(uploaded.getvalue().decode("utf-8"))
        spec = spec_from_config_alone(config, model_id=f"upload/{uploaded.name}")
    except UnicodeDecodeError:
        st.error("The file is not UTF-8 text.", icon=":material/error:")
    except PlannerError as exc:
        st.error(as_text(str(exc)), icon=":material/error:")
    else:
        st.session_state[APPLIED_KEY] = uploaded.file_id
        _use(spec.model_copy(update={"name": upload_name(config, uploaded.name)}))


def render(sel: Selection) -> None:
    st.title("Custom model")
    st.caption(
        "For a model that is in no catalog: upload its config.json or describe it field by field. Every field is "
        "validated and an error names the field; the model described is then planned on every page."
    )
    _upload()
    if sel.custom_spec:
        _understood(sel.spec)
    prefill: dict[str, Any] = st.session_state.get(PREFILL_KEY, {})
    if prefill:
        st.info("Pre-filled with what the Hub import could read; complete the rest.", icon=":material/edit_note:")
    _start_from(sel.spec)
    own = base_prefill(sel.spec) if sel.custom_spec else {}  # a catalog model lends its figures, not its name
    data = _form(sel.spec, {**own, **prefill})
    if data is not None:
        try:
            spec = ModelSpec.model_validate(data)
            check_parameter_count(spec)  # a stated total that contradicts the shape is named, not planned
        except ValidationError as exc:
            for problem in describe_validation_error(exc).split("; "):
                st.error(as_text(problem), icon=":material/error:")
        except PlannerError as exc:
            st.error(as_text(str(exc)), icon=":material/error:")
        else:
            _use(spec)


frame.run_page(render)
