"""Providers by name, and turning a ``"provider:model"`` string into a model.

A :class:`ProviderRegistry` maps a provider name (``openai``, ``gemini``, ...) to a factory ``(model part,
environment) -> Model`` plus what ``slotgraph models list`` shows: a description, an example spec, the modules
the backend imports and the extra that installs them, the environment variables holding its key. The built-in
providers are themselves registered this way (:data:`~slotgraph.models.providers.BUILTIN_PROVIDERS`, an
immutable table); :func:`default_registry` builds a fresh registry from them plus every plugin found under the
``slotgraph.models`` entry-point group (each entry point is a callable ``register(registry)``).

Resolution checks, in order: the spec's shape, the provider (an unknown one gets a "did you mean"), the
backend's modules (a missing one names the extra to install), then lets the factory read the model part and
its key. Every failure is a :class:`~slotgraph.models.errors.ModelSpecError` saying what and how to fix it.
"""

from __future__ import annotations

import difflib
import functools
import importlib.util
import logging
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points

from slotgraph.models.errors import MissingDependencyError, ModelSpecError, UnknownProviderError
from slotgraph.models.protocol import Model

__all__ = [
    "ENTRY_POINT_GROUP",
    "ModelFactory",
    "ProviderInfo",
    "ProviderRegistry",
    "default_registry",
    "resolve",
]

logger = logging.getLogger("slotgraph.models")

ENTRY_POINT_GROUP = "slotgraph.models"

ModelFactory = Callable[[str, Mapping[str, str]], Model]
"""Builds a model from the part of the spec after ``provider:`` and the environment (for keys, URLs)."""


@dataclass(frozen=True, slots=True)
class ProviderInfo:
    """A registered provider: its factory and what ``slotgraph models list`` says about it."""

    name: str
    factory: ModelFactory
    description: str
    example: str = ""
    requires: tuple[str, ...] = ()
    extra: str | None = None
    key_env: tuple[str, ...] = ()
    key_required: bool = False

    def missing_modules(self) -> tuple[str, ...]:
        """The modules this backend needs that cannot be imported here."""
        return tuple(module for module in self.requires if not _importable(module))

    @property
    def installed(self) -> bool:
        return not self.missing_modules()

    def install_hint(self) -> str:
        if self.extra:
            return f"pip install 'slotgraph[{self.extra}]'"
        return "pip install " + " ".join(self.missing_modules() or self.requires)

    def key_present(self, env: Mapping[str, str]) -> bool:
        return any(env.get(name) for name in self.key_env)


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


class ProviderRegistry:
    """Providers by name. Build one with :func:`default_registry`; add your own with :meth:`register`."""

    def __init__(self, providers: Iterable[ProviderInfo] = ()) -> None:
        self._providers: dict[str, ProviderInfo] = {}
        for info in providers:
            self._add(info, replace=False)

    def register(
        self,
        name: str,
        factory: ModelFactory,
        *,
        description: str,
        requires: Iterable[str] = (),
        extra: str | None = None,
        example: str = "",
        key_env: Iterable[str] = (),
        key_required: bool = False,
        replace: bool = False,
    ) -> ProviderInfo:
        """Register a provider; ``replace=True`` overrides one of the same name (else that is an error)."""
        info = ProviderInfo(
            name=name,
            factory=factory,
            description=description,
            example=example or f"{name}:MODEL",
            requires=tuple(requires),
            extra=extra,
            key_env=tuple(key_env),
            key_required=key_required,
        )
        self._add(info, replace=replace)
        return info

    def _add(self, info: ProviderInfo, *, replace: bool) -> None:
        if not info.name or ":" in info.name or info.name != info.name.strip():
            raise ValueError(f"provider name {info.name!r} must be non-empty, without ':' or spaces")
        if info.name in self._providers and not replace:
            raise ValueError(
                f"provider {info.name!r} is already registered; pass replace=True to override it"
            )
        self._providers[info.name] = info

    def get(self, name: str) -> ProviderInfo | None:
        return self._providers.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._providers

    def list_providers(self) -> tuple[ProviderInfo, ...]:
        """Every registered provider, in registration order."""
        return tuple(self._providers.values())

    def resolve(self, spec: str, *, env: Mapping[str, str] | None = None) -> Model:
        """Build the model ``spec`` names, e.g. ``"openai:gpt-4o-mini"`` or ``"offline"``."""
        if not isinstance(spec, str) or not spec.strip():
            raise ModelSpecError(
                f"a model spec must be a non-empty 'provider:model' string, got {spec!r}; "
                f"e.g. {self._examples()}"
            )
        provider, _, rest = spec.strip().partition(":")
        info = self._providers.get(provider)
        if info is None:
            raise UnknownProviderError(self._unknown_message(spec, provider))
        missing = info.missing_modules()
        if missing:
            raise MissingDependencyError(
                f"model {spec!r}: the {provider!r} backend needs {', '.join(missing)}, which is not "
                f"installed; install it with: {info.install_hint()}"
            )
        return info.factory(rest.strip(), os.environ if env is None else env)

    def _examples(self) -> str:
        return ", ".join(repr(info.example) for info in self._providers.values())

    def _unknown_message(self, spec: str, provider: str) -> str:
        names = list(self._providers)
        message = f"model {spec!r}: unknown provider {provider!r}."
        close = difflib.get_close_matches(provider, names, n=1, cutoff=0.6)
        if close:
            message += f" Did you mean {close[0]!r} (e.g. {self._providers[close[0]].example!r})?"
        elif ":" not in spec:
            message += " A model spec is 'provider:model'."
        return f"{message} Known providers: {', '.join(names)} (see `slotgraph models list`)."


@functools.cache
def _plugin_entries() -> tuple[EntryPoint, ...]:
    """The installed plugins' entry points, listed once per process: listing them reads the metadata of
    every installed distribution (~2 ms with this project's dev dependencies), and every session of an
    agent whose model is a spec resolves it through :func:`default_registry`. A plugin installed while a
    process runs is seen by the next one."""
    return tuple(entry_points(group=ENTRY_POINT_GROUP))


def _load_plugins(registry: ProviderRegistry) -> None:
    for entry in _plugin_entries():
        try:
            register = entry.load()
            register(registry)
        except Exception:
            logger.exception("model plugin %r (%s) failed to register; skipping it", entry.name, entry.value)


def default_registry(*, plugins: bool = True) -> ProviderRegistry:
    """A new registry with the built-in providers and (unless ``plugins=False``) the entry-point plugins."""
    from slotgraph.models.providers import BUILTIN_PROVIDERS

    registry = ProviderRegistry(BUILTIN_PROVIDERS)
    if plugins:
        _load_plugins(registry)
    return registry


def resolve(
    spec: str, *, env: Mapping[str, str] | None = None, registry: ProviderRegistry | None = None
) -> Model:
    """Build the model ``spec`` names, with ``registry`` or a fresh :func:`default_registry`."""
    return (registry or default_registry()).resolve(spec, env=env)
