"""An option's speed in words: the modelled tokens/s per user, what public runs of the model on its engine reach
where they run below the model (and on which GPUs), reading speed and the first token."""

from __future__ import annotations

from planner.advisor.options import Option
from planner.advisor.workload import DEFAULT_MIN_TOKENS_PER_S_PER_USER, Workload
from planner.assessment.words import plural, seconds

READING_SPEED = DEFAULT_MIN_TOKENS_PER_S_PER_USER  # tokens/s: about reading speed (the page's help says so)


def _measured_words(option: Option) -> str:
    """Where the runs that cap an option's speed were measured: on its own GPU family, or on others (then the
    figure is what it would reach if it ran as they did)."""
    runs = option.measured_speed_models or "this model"
    if option.measured_speed_on is None:
        return f"as public runs of {runs} on its engine measure"
    return f"if it runs as public runs of {runs} on its engine do on {option.measured_speed_on} GPUs"


def speed_text(option: Option) -> str:
    """The modelled speed per user, with what public runs of the model on its engine reached where they ran below
    the model (:attr:`Option.counted_tokens_per_s_per_user`, what the speed floor is checked against)."""
    if option.decode_tokens_per_s_per_user is None:
        return "speed not estimated"
    text = f"{option.decode_tokens_per_s_per_user:.0f} tokens/s per user"
    counted = option.counted_tokens_per_s_per_user
    if option.measured_speed_share is not None and counted is not None:
        text += f" modelled (at most ~{counted:.0f} {_measured_words(option)})"
    return text


def speed_sentence(best: Option, workload: Workload) -> str:
    if best.decode_tokens_per_s_per_user is None:
        return (
            " Its speed is not estimated: the catalog has no compute figure for its arithmetic, so it is listed "
            "last (the memory bound alone would overstate it)."
        )
    per_user = best.decode_tokens_per_s_per_user
    text = (
        f" Each user should see about {per_user:.0f} tokens per second ({best.decode_bound}-bound at "
        f"{plural(best.batch_per_replica, 'conversation')} per {best.replica_word})"
    )
    counted = best.counted_tokens_per_s_per_user
    if best.measured_speed_share is not None and counted is not None:
        text += f" by the speed model (about {counted:.0f} {_measured_words(best)})"
    text += f" (below the {READING_SPEED:g} tokens/s of reading speed)" if per_user < READING_SPEED else ""
    if best.prefill_seconds is not None:
        prompt = max(1, workload.mean_prompt_tokens - workload.shared_prefix_tokens)  # the workload's mean
        text += f" and the first token after about {seconds(best.prefill_seconds)} for a {prompt:,}-token prompt"
    return text + "."
