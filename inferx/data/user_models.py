"""A user's Hugging Face `config.json` file (or upload) read into the model catalog: `--model-config`,
`INFERX_MODELS`."""

from __future__ import annotations

import os
from pathlib import Path

from inferx.data.user_files import json_from_upload, read_json_file
from inferx.physics.model_config import (
    ModelConfigError,
    catalog_key,
    config_key,
    language_model,
    spec_from_config,
    spec_from_key,
)
from inferx.physics.model_spec import ModelSpec
from inferx.physics.models import MODELS

ENV = "INFERX_MODELS"  # config.json files to add to the catalog, separated by os.pathsep (":" on Linux)

MAX_CONFIG_BYTES = 1 << 20  # a config.json is a few KB; anything near this is not one


def model_name(config: dict, path: Path) -> str:
    """What a config calls its model: the last part of `_name_or_path`, else its folder's or file's name."""
    given = str(config.get("_name_or_path") or "").rstrip("/").rsplit("/", 1)[-1] if isinstance(config, dict) else ""
    if given:
        return given
    return path.parent.name if path.stem == "config" and path.parent.name else path.stem


def read_model_config(path: str | os.PathLike) -> tuple[str, ModelSpec]:
    """(key, spec) of one config.json file; ModelConfigError says which file and why it cannot be read."""
    config = read_json_file(path, MAX_CONFIG_BYTES, ModelConfigError, "a config.json")
    try:
        name = model_name(config, Path(path))
        key = catalog_key(name)
        if not key:
            raise ModelConfigError(f"its model's name {name!r} gives no key (made of its letters a-z and digits)")
        return key, spec_from_config(config, name, source=str(path))
    except ModelConfigError as err:
        raise ModelConfigError(f"{path}: {err}") from None


def model_from_upload(contents, filename) -> tuple[str, ModelSpec]:
    """(key, spec) of a config.json a browser sent (a dcc.Upload data URL); the key carries the model."""
    config = json_from_upload(contents, MAX_CONFIG_BYTES, ModelConfigError, "a config.json")
    name = model_name(config, Path(filename if isinstance(filename, str) else "config.json"))
    if name == "config":  # a bare config.json without `_name_or_path`: named by its kind and size instead
        size = spec_from_config(config, name).p_total / 1e9
        shown = f"{size:.3g}" if size < 1000 else f"{size:.0f}"  # 1030B, not 1.03e+03B
        name = f"{language_model(config).get('model_type') or 'model'} {shown}B"
    key = config_key(config, name)
    return key, spec_from_key(key)


def add_model_configs(paths) -> list[str]:
    """Read each config.json and add its model to the catalog; the keys, in order. A file read twice keeps its
    entry; a name the catalog already holds for another model is refused, so a key always means one model."""
    keys = []
    for path in paths:
        key, spec = read_model_config(path)
        known = MODELS.get(key)
        if known is not None and known != spec:
            raise ModelConfigError(
                f"{path}: the catalog already has a model called {key!r}; give this one another `_name_or_path`"
            )
        MODELS[key] = spec
        keys.append(key)
    return keys


def add_models_from_env(environ=None) -> list[str]:
    """The models `INFERX_MODELS` names (files separated by os.pathsep), added to the catalog."""
    raw = (os.environ if environ is None else environ).get(ENV, "")
    paths = [p for p in raw.split(os.pathsep) if p.strip()]
    try:
        return add_model_configs(paths)
    except ModelConfigError as err:
        raise ModelConfigError(f"{ENV}: {err}") from None
