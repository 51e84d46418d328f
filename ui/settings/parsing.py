"""How a setting is read from and written to the address bar: strict, bounded parsers (ASCII digits, a fixed
number of digits, finite numbers within the widget's range, known names) and :class:`Setting`, the declaration
every view, link and widget key derives from."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from planner.bounds.limits import field_range
from planner.core.context_text import parse_context

SIDEBAR = "sidebar"  # the scope of settings every page shares
MAX_LIST_ITEMS = 16  # at most this many values for a repeated parameter
MAX_TEXT_CHARS = 200
MAX_SPEC_CHARS = 6000  # ui.custom_spec.MAX_TOKEN_CHARS: a packed model description

_DIGITS = re.compile(r"[0-9]{1,12}")
_DECIMAL = re.compile(r"[0-9]{1,12}(?:\.[0-9]{1,9})?")
_LONG_DIGITS = re.compile(r"[0-9]{13,}")  # a whole number past any range (the text is bounded before parsing)
_NUMBER_FORM = re.compile(r"(?=[^eE]*[0-9])[0-9]{0,12}(?:\.[0-9]{0,12})?(?:[eE][+-]?[0-9]{1,4})?")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._~/:@-]{0,199}")
_PACKED = re.compile(r"[A-Za-z0-9._~-]+")


@dataclass(frozen=True)
class Bounded:
    """A parser of numbers in ``[low, high]``: whole ones (``whole``) in ASCII digits, or plain decimals (no
    exponent, no NaN, no infinity). The range is readable, so widgets and tests use the parser's own."""

    low: float
    high: float
    whole: bool
    # Set: a number in (low, least) is refused, ``low`` standing for "the default" (a PUE is 0, the catalog's, or
    # at least 1: a link's pue=0.1 had been dropped without a word).
    least: float | None = None

    def __call__(self, text: str) -> Any:
        text = text.strip()
        if text.startswith("-") and _DECIMAL.fullmatch(text[1:]):
            raise ValueError(f"below the least, {self.low:,g}")  # a negative number is a number
        if self.whole:
            if not _DIGITS.fullmatch(text):
                raise ValueError(_not_whole(text, self))
            number: float = int(text)
            if not self.low <= number <= self.high:
                raise ValueError(f"outside {self.low:,}–{self.high:,}")
            return number
        if not _DECIMAL.fullmatch(text):
            raise ValueError("not a number")
        number = float(text)
        if not (math.isfinite(number) and self.low <= number <= self.high):
            raise ValueError(f"outside {self.low:g}–{self.high:g}")
        if self.least is not None and self.low < number < self.least:
            raise ValueError(f"{self.low:g} (the default) or {self.least:g}–{self.high:g}")
        return number


def _not_whole(text: str, bounded: Bounded) -> str:
    """Why ``text`` is not read as a whole number: past the range (digits only), a number in another form (an
    exponent or a decimal point), or not a number.

    >>> _not_whole("1000000000000", integer(1, 100_000)), _not_whole("1e12", integer(1, 16))
    ('outside 1–100,000', 'not a whole number in digits: no exponent or decimal point')
    >>> _not_whole("four", integer(1, 16))
    'not a whole number'
    """
    if _LONG_DIGITS.fullmatch(text):
        return f"outside {bounded.low:,}–{bounded.high:,}"
    if _NUMBER_FORM.fullmatch(text):
        return "not a whole number in digits: no exponent or decimal point"
    return "not a whole number"


def default_or(least: float, high: float) -> Bounded:
    """A parser of 0 (the default) or a plain decimal number in ``[least, high]``.

    >>> default_or(1, 5)("0"), default_or(1, 5)("1.3")
    (0.0, 1.3)
    >>> default_or(1, 5)("0.1")
    Traceback (most recent call last):
    ...
    ValueError: 0 (the default) or 1–5
    """
    return Bounded(0, high, whole=False, least=least)


def integer(low: int, high: int) -> Bounded:
    """A parser of whole numbers in ``[low, high]`` written with ASCII digits.

    >>> integer(1, 16)("4")
    4
    >>> integer(1, 16)("²")
    Traceback (most recent call last):
    ...
    ValueError: not a whole number
    >>> integer(1, 16)("-3")
    Traceback (most recent call last):
    ...
    ValueError: below the least, 1
    """
    return Bounded(low, high, whole=True)


@dataclass(frozen=True)
class Tokens(Bounded):
    """Whole numbers of tokens, also as the slider labels them: ``32k`` is 32,768 and ``1M`` 1,048,576
    (:func:`planner.core.context_text.parse_context`, the CLI's parser too); a link typed as the page reads had
    been ignored."""

    def __call__(self, text: str) -> Any:
        if text.strip().startswith("-"):
            return super().__call__(text)  # a negative number is a number, below the least
        number = parse_context(text)
        if not self.low <= number <= self.high:
            raise ValueError(f"outside {self.low:,}–{self.high:,}")
        return number


def tokens(low: int, high: int) -> Tokens:
    """A parser of token counts in ``[low, high]``: ASCII digits, or a whole number of thousands (``k``, 1,024) or
    millions (``M``, 1,048,576) as the slider labels them.

    >>> tokens(1, 2**20)("32k"), tokens(1, 2**20)("1M"), tokens(1, 2**20)("8192")
    (32768, 1048576, 8192)
    >>> tokens(1, 2**20)("2M")
    Traceback (most recent call last):
    ...
    ValueError: outside 1–1,048,576
    """
    return Tokens(low, high, whole=True)


def decimal(low: float, high: float) -> Bounded:
    """A parser of plain decimal numbers in ``[low, high]`` (no exponent, no NaN, no infinity).

    >>> decimal(0.3, 0.99)("0.95")
    0.95
    >>> decimal(0.3, 0.99)("nan")
    Traceback (most recent call last):
    ...
    ValueError: not a number
    """
    return Bounded(low, high, whole=False)


def declared(model: type[BaseModel], field: str, unit: float = 1) -> Bounded:
    """The parser of the range the planner validates ``model.field`` against (:func:`field_range`), in ``unit``
    (a setting in GiB of a field in bytes: ``unit=GiB``); whole numbers when both are.

    >>> from planner.deploy.options import KvOffloadOptions
    >>> declared(KvOffloadOptions, "hit_rate")("1")
    1.0
    """
    low, high, whole = field_range(model, field)
    if whole and unit == 1:
        return integer(low, high)
    return decimal(low / unit, high / unit)


def one_of(options: Callable[[], Sequence[str]]) -> Callable[[str], str]:
    """A parser of one name among ``options()`` (called at parse time: the catalog and the engine registry), in
    any letter case when only one option matches (Hugging Face ids and the catalog's slugs are case-insensitive, as
    ``fit`` and ``advise`` read them); the option as offered is returned.

    >>> one_of(lambda: ["GiB", "GB"])("GB"), one_of(lambda: ["google/gemma-4-31B-it"])("google/gemma-4-31b-it")
    ('GB', 'google/gemma-4-31B-it')
    """

    def parse(text: str) -> str:
        text = text.strip()
        offered = options()
        if text in offered:
            return text
        folded = [o for o in offered if o.casefold() == text.casefold()]
        if len(folded) != 1:
            raise ValueError("not one of the offered values")
        return folded[0]

    return parse


def flag(text: str) -> bool:
    """``true``/``false`` (also ``1``/``0``).

    >>> flag("true"), flag("0")
    (True, False)
    """
    lowered = text.strip().lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise ValueError("not true or false")


def word(text: str) -> str:
    """A short printable token (ids, references); anything with spaces, markup or over 200 characters is refused.

    >>> word("owner/name@main")
    'owner/name@main'
    """
    text = text.strip()
    if not _WORD.fullmatch(text):
        raise ValueError("not a plain identifier")
    return text


def packed(max_chars: int) -> Callable[[str], str]:
    """A parser of a URL-safe packed token (a model description, a calibration) of at most ``max_chars``.

    >>> packed(20)("cal1~vllm~0.19.0")
    'cal1~vllm~0.19.0'
    """

    def parse(text: str) -> str:
        text = text.strip()
        if len(text) > max_chars:
            raise ValueError(f"longer than {max_chars:,} characters")
        if not _PACKED.fullmatch(text):
            raise ValueError("not a packed Headroom token")
        return text

    return parse


TP_SIZES = integer(1, 64)


def tp_choice(text: str) -> int | None:
    """``auto`` (the largest legal split, resolved by the planner) or a tensor-parallel size.

    >>> tp_choice("auto") is None, tp_choice("2")
    (True, 2)
    """
    return None if text.strip() == "auto" else int(TP_SIZES(text))


def show_tp(value: object) -> str:
    return "auto" if value is None else str(value)


def show_number(value: object) -> str:
    """Numbers as the address bar shows them: ``0.95``, ``8192``."""
    if isinstance(value, float):
        return f"{value:g}" if not value.is_integer() else str(int(value))
    return str(value)


def show_flag(value: object) -> str:
    return "true" if value else "false"


@dataclass(frozen=True)
class Setting:
    """One piece of a view: ``url`` is its URL parameter, widget key and session key."""

    url: str
    field: str  # the Selection / page-model field it fills
    label: str
    help: str
    parse: Callable[[str], Any]
    show: Callable[[Any], str] = show_number
    many: bool = False  # a repeated parameter (``?curves=a&curves=b``)
    scope: str = SIDEBAR  # SIDEBAR, or the path of the page it belongs to
    views: tuple[str, ...] = ()  # other widgets editing it (the context slider and box)
    optional: bool = False  # absent from the link when unset (a Hub import, a custom model, a calibration)
    words: tuple[tuple[str, str], ...] = ()  # values shown in words, not as their link text ("sidebar": ...)

    def word(self, value: Any) -> str:
        """``value`` as people read it: its words when the setting names some, else itself."""
        return dict(self.words).get(str(value), str(value))

    numbers: Bounded | None = None  # the numbers a parser that also takes a word (auto, all) accepts

    @property
    def bounds(self) -> Bounded | None:
        """The numbers the setting accepts (its parser's range), None for a setting of names."""
        return self.parse if isinstance(self.parse, Bounded) else self.numbers

    @property
    def range(self) -> tuple[Any, Any]:
        """``(low, high)`` of :attr:`bounds`, for the widget that edits the setting."""
        if self.bounds is None:
            raise AttributeError(f"{self.url} is not a number")
        return self.bounds.low, self.bounds.high

    def parse_values(self, raw: Sequence[str]) -> Any:
        """The value of ``raw`` (every occurrence of the parameter); raises ``ValueError`` with the reason."""
        if self.many:
            if len(raw) > MAX_LIST_ITEMS:
                raise ValueError(f"more than {MAX_LIST_ITEMS} values")
            values = [self.parse(item) for item in raw if item.strip()]
            return list(dict.fromkeys(values))  # once each, in order
        if not raw:
            raise ValueError("empty")
        return self.parse(raw[-1])

    def to_url(self, value: Any) -> str | list[str]:
        """The URL text of ``value``; an empty list is one empty value (``?combos=``), so that "none chosen" is
        said explicitly rather than left to a default."""
        if self.many:
            return [self.show(v) for v in value] or [""]
        return self.show(value)

    @property
    def widget_keys(self) -> tuple[str, ...]:
        return (self.url, *self.views)
