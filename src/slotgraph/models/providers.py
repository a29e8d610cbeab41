"""The built-in providers, registered like any plugin: an immutable table of :class:`ProviderInfo`.

Each factory reads the part of the spec after ``provider:`` and the environment, and imports its backend
module only when called, so ``import slotgraph`` never pulls in an HTTP client or an SDK. Two variables tune
every HTTP backend: ``SLOTGRAPH_MODEL_TIMEOUT`` (seconds per attempt, default 60) and
``SLOTGRAPH_MODEL_MAX_RETRIES`` (default 3).
"""

from __future__ import annotations

from collections.abc import Mapping

from slotgraph.models.errors import MissingCredentialsError, ModelSpecError
from slotgraph.models.protocol import Model
from slotgraph.models.registry import ProviderInfo
from slotgraph.models.retry import RetryPolicy

__all__ = [
    "ANTHROPIC_BASE_URL_ENV",
    "ANTHROPIC_KEY_ENV",
    "BUILTIN_PROVIDERS",
    "COMPATIBLE_KEY_ENV",
    "DEFAULT_TIMEOUT",
    "GEMINI_KEY_ENV",
    "OPENAI_BASE_URL_ENV",
    "OPENAI_KEY_ENV",
    "http_settings",
]

OPENAI_KEY_ENV = "OPENAI_API_KEY"
OPENAI_BASE_URL_ENV = "OPENAI_BASE_URL"
# Only the dedicated variable: an OpenAI key is never sent to whatever server a spec string names.
COMPATIBLE_KEY_ENV = ("SLOTGRAPH_OPENAI_COMPATIBLE_KEY",)
GEMINI_KEY_ENV = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
ANTHROPIC_KEY_ENV = "ANTHROPIC_API_KEY"
ANTHROPIC_BASE_URL_ENV = "ANTHROPIC_BASE_URL"
TIMEOUT_ENV = "SLOTGRAPH_MODEL_TIMEOUT"
RETRIES_ENV = "SLOTGRAPH_MODEL_MAX_RETRIES"
DEFAULT_TIMEOUT = 60.0


def http_settings(env: Mapping[str, str]) -> tuple[float, RetryPolicy]:
    """The timeout and retry policy from ``SLOTGRAPH_MODEL_TIMEOUT`` / ``SLOTGRAPH_MODEL_MAX_RETRIES``."""
    timeout = DEFAULT_TIMEOUT
    raw = env.get(TIMEOUT_ENV, "").strip()
    if raw:
        try:
            timeout = float(raw)
        except ValueError:
            timeout = -1.0
        if timeout <= 0:
            raise ModelSpecError(f"{TIMEOUT_ENV}={raw!r} is not a positive number of seconds (e.g. 30)")
    retries = RetryPolicy().max_retries
    raw = env.get(RETRIES_ENV, "").strip()
    if raw:
        if not raw.isdigit():
            raise ModelSpecError(f"{RETRIES_ENV}={raw!r} is not a whole number of retries >= 0 (e.g. 3)")
        retries = int(raw)
    return timeout, RetryPolicy(max_retries=retries)


def _first_key(env: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return value
    return None


def _offline(rest: str, env: Mapping[str, str]) -> Model:
    if rest:
        raise ModelSpecError(f"model 'offline:{rest}': the offline model takes no model name; use 'offline'")
    from slotgraph.models.offline import OfflineModel

    return OfflineModel()


def _offline_safety(rest: str, env: Mapping[str, str]) -> Model:
    if rest:
        raise ModelSpecError(
            f"model 'offline-safety:{rest}': the offline safety stand-in takes no model name; use "
            "'offline-safety'"
        )
    from slotgraph.models.offline_safety import OfflineSafetyModel

    return OfflineSafetyModel()


def _scripted(rest: str, env: Mapping[str, str]) -> Model:
    if not rest:
        raise ModelSpecError(
            "model 'scripted' needs a script file: use 'scripted:FILE.json' (a JSON list of steps)"
        )
    from slotgraph.models.scripted import ScriptedModel

    return ScriptedModel.from_file(rest)


def _openai(rest: str, env: Mapping[str, str]) -> Model:
    if not rest:
        raise ModelSpecError("model 'openai' needs a model name: use e.g. 'openai:gpt-4o-mini'")
    key = _first_key(env, (OPENAI_KEY_ENV,))
    if key is None:
        raise MissingCredentialsError(
            f"model 'openai:{rest}' needs an API key: set {OPENAI_KEY_ENV} "
            f"(and {OPENAI_BASE_URL_ENV} for another endpoint), or use "
            "'openai-compatible:URL#MODEL' for a local server that needs no key"
        )
    from slotgraph.models.openai import DEFAULT_OPENAI_BASE_URL, OpenAIChatModel

    timeout, retry = http_settings(env)
    base_url = env.get(OPENAI_BASE_URL_ENV, "").strip() or DEFAULT_OPENAI_BASE_URL
    return OpenAIChatModel(
        rest, base_url=base_url, api_key=key, key_env=OPENAI_KEY_ENV, timeout=timeout, retry=retry
    )


def _openai_compatible(rest: str, env: Mapping[str, str]) -> Model:
    example = "'openai-compatible:http://localhost:8080/v1#qwen2.5'"
    base_url, sep, model = rest.partition("#")
    base_url, model = base_url.strip(), model.strip()
    if not base_url.startswith(("http://", "https://")):
        raise ModelSpecError(
            f"model 'openai-compatible:{rest}' needs the server's base URL (http:// or https://) and, "
            f"after '#', the model name: e.g. {example}"
        )
    if not sep or not model:
        raise ModelSpecError(
            f"model 'openai-compatible:{rest}' lacks the model name after '#': e.g. {example} "
            "(the name the server lists under /v1/models)"
        )
    from slotgraph.models.openai import OpenAIChatModel

    timeout, retry = http_settings(env)
    return OpenAIChatModel(
        model,
        base_url=base_url,
        api_key=_first_key(env, COMPATIBLE_KEY_ENV),
        key_env=" or ".join(COMPATIBLE_KEY_ENV),
        provider="openai-compatible",
        timeout=timeout,
        retry=retry,
    )


def _gemini(rest: str, env: Mapping[str, str]) -> Model:
    if not rest:
        raise ModelSpecError("model 'gemini' needs a model name: use e.g. 'gemini:gemini-2.5-flash'")
    key = _first_key(env, GEMINI_KEY_ENV)
    if key is None:
        raise MissingCredentialsError(
            f"model 'gemini:{rest}' needs an API key: set {' or '.join(GEMINI_KEY_ENV)} "
            "(create one in Google AI Studio)"
        )
    from slotgraph.models.gemini import GeminiModel

    timeout, retry = http_settings(env)
    return GeminiModel(rest, api_key=key, timeout=timeout, retry=retry)


def _anthropic(rest: str, env: Mapping[str, str]) -> Model:
    if not rest:
        raise ModelSpecError("model 'anthropic' needs a model name: use e.g. 'anthropic:claude-sonnet-4-5'")
    key = _first_key(env, (ANTHROPIC_KEY_ENV,))
    if key is None:
        raise MissingCredentialsError(
            f"model 'anthropic:{rest}' needs an API key: set {ANTHROPIC_KEY_ENV} "
            f"(and {ANTHROPIC_BASE_URL_ENV} for another endpoint; create a key in the Anthropic Console)"
        )
    from slotgraph.models.anthropic import DEFAULT_ANTHROPIC_BASE_URL, AnthropicModel

    timeout, retry = http_settings(env)
    base_url = env.get(ANTHROPIC_BASE_URL_ENV, "").strip() or DEFAULT_ANTHROPIC_BASE_URL
    return AnthropicModel(rest, base_url=base_url, api_key=key, timeout=timeout, retry=retry)


BUILTIN_PROVIDERS: tuple[ProviderInfo, ...] = (
    ProviderInfo(
        name="offline",
        factory=_offline,
        description="embedded default: deterministic, no network, no weights (docs/offline-model.md)",
        example="offline",
    ),
    ProviderInfo(
        name="scripted",
        factory=_scripted,
        description="plays a JSON list of ScriptedModel steps (tests, demos)",
        example="scripted:script.json",
    ),
    ProviderInfo(
        name="openai",
        factory=_openai,
        description=f"OpenAI chat completions (base URL from {OPENAI_BASE_URL_ENV}, optional)",
        example="openai:gpt-4o-mini",
        requires=("httpx",),
        extra="openai",
        key_env=(OPENAI_KEY_ENV,),
        key_required=True,
    ),
    ProviderInfo(
        name="openai-compatible",
        factory=_openai_compatible,
        description="any OpenAI-compatible server: vLLM, Ollama, llama.cpp, LM Studio (key optional)",
        example="openai-compatible:http://localhost:8080/v1#qwen2.5",
        requires=("httpx",),
        extra="openai",
        key_env=COMPATIBLE_KEY_ENV,
    ),
    ProviderInfo(
        name="gemini",
        factory=_gemini,
        description="Google Gemini API through google-genai",
        example="gemini:gemini-2.5-flash",
        requires=("google.genai",),
        extra="gemini",
        key_env=GEMINI_KEY_ENV,
        key_required=True,
    ),
    ProviderInfo(
        name="anthropic",
        factory=_anthropic,
        description=f"Anthropic Messages API (base URL from {ANTHROPIC_BASE_URL_ENV}, optional)",
        example="anthropic:claude-sonnet-4-5",
        requires=("httpx",),
        extra="anthropic",
        key_env=(ANTHROPIC_KEY_ENV,),
        key_required=True,
    ),
    ProviderInfo(
        name="offline-safety",
        factory=_offline_safety,
        description="a deterministic stand-in for a Llama Guard safety classifier, for tests (docs/logic.md)",
        example="offline-safety",
    ),
)
