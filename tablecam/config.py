"""``key=value`` arguments in the ultralytics style, checked against the defaults in ``cfg/default.yaml``."""

from __future__ import annotations

import difflib
from functools import cache
from importlib import resources
from typing import Any

import yaml


class ConfigError(ValueError):
    """A command-line setting that is unknown or malformed; the message suggests the fix."""


@cache
def defaults() -> dict[str, dict[str, Any]]:
    """The defaults of every mode (read once from the packaged YAML)."""
    text = resources.files("tablecam").joinpath("cfg/default.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def parse_value(text: str) -> Any:
    """YAML scalar parsing so ``seed=3`` is an int, ``say=true`` a bool, ``players=A,B`` stays a string."""
    try:
        value = yaml.safe_load(text) if text != "" else ""
    except yaml.YAMLError:
        return text
    # YAML reads "-" as a list and "~" as null; on a command line they are a file name (stdout) and a path
    return text if isinstance(value, list | dict) and not text.lstrip().startswith(("[", "{")) else value


def did_you_mean(word: str, choices: list[str] | tuple[str, ...]) -> str:
    """``; did you mean 'x'?`` for the choice closest to a mistyped ``word``, or nothing when none is close."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def parse_args(mode: str, args: list[str]) -> tuple[dict[str, Any], list[str]]:
    """Split ``args`` into settings (``key=value``) over the mode's defaults and the remaining positionals.

    ``variants.NAME=value`` sets one entry of a dict setting. ``--flag`` is accepted as ``flag=true``.
    Unknown keys are refused with the closest known key.
    """
    table = defaults().get(mode)
    if table is None:
        raise ConfigError(f"unknown mode {mode!r}")
    cfg: dict[str, Any] = {k: (dict(v) if isinstance(v, dict) else v) for k, v in table.items()}
    positional: list[str] = []
    for arg in args:
        if arg.startswith("--") and "=" not in arg:
            key, raw = arg[2:].replace("-", "_"), "true"
        elif "=" in arg and not arg.startswith("="):
            key, raw = arg.split("=", 1)
            key = key.lstrip("-").replace("-", "_")
        else:
            positional.append(arg)
            continue
        top, _, sub = key.partition(".")
        if top not in cfg:
            raise ConfigError(f"'{top}' is not a valid key for tablecam {mode}{did_you_mean(top, list(cfg))} "
                              f"(valid keys: {', '.join(cfg)})")
        if sub:
            if not isinstance(cfg[top], dict):
                raise ConfigError(f"'{top}' is not a group of settings; write {top}=VALUE")
            cfg[top][sub] = parse_value(raw)
        else:
            cfg[top] = parse_value(raw)
    return cfg, positional


def whole_number(cfg: dict[str, Any], key: str, minimum: int | None = None) -> int:
    """``cfg[key]`` as an int (YAML parsing made it one), or a :class:`ConfigError` naming the key."""
    value = cfg[key]
    if isinstance(value, bool) or not isinstance(value, int) or (minimum is not None and value < minimum):
        bound = f" >= {minimum}" if minimum is not None else ""
        raise ConfigError(f"{key}={value!r} must be a whole number{bound}")
    return value
