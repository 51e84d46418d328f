"""The engine launch settings (``--max-num-seqs``, ``--enforce-eager``, ``--kv-cache-memory-bytes`` …) as link
settings, one per :data:`planner.engines.settings.ENGINE_SETTINGS` entry and derived from it: the same name as
the CLI's option, the same bounds, absent from the link when not set (the engine then uses its own default, as
when the flag is not given)."""

from __future__ import annotations

from planner.core.units import GiB
from planner.engines.settings import ENGINE_SETTINGS, EngineSetting, shown_name
from ui.settings.parsing import Setting, decimal, flag, integer, one_of, show_flag, show_number

MIN_GIB = 0.01  # the smallest --kv-cache-memory-bytes the box takes, in GiB (about 10 MiB)


def _setting(declared: EngineSetting) -> Setting:
    name = shown_name(declared)
    if declared.kind in ("flag", "switch"):  # a switch's link says true or false; absent: the engine's default
        return Setting(name, name, declared.flag, declared.help, flag, show=show_flag, optional=True)
    if declared.kind == "choice":
        return Setting(name, name, declared.flag, declared.help, one_of(lambda: declared.choices), optional=True)
    if declared.kind == "bytes":  # typed in GiB, as nvidia-smi and the engines print
        parse = decimal(MIN_GIB, declared.high / GiB)
        label = f"{declared.flag} (a size in GiB)"
        return Setting(name, name, label, declared.help, parse, show=show_number, optional=True)
    return Setting(name, name, declared.flag, declared.help, integer(declared.low, declared.high), optional=True)


LAUNCH_SETTINGS: tuple[Setting, ...] = tuple(_setting(declared) for declared in ENGINE_SETTINGS)
LAUNCH_BY_NAME: dict[str, Setting] = {declared.name: _setting(declared) for declared in ENGINE_SETTINGS}
