"""Runs in Redis: ``{prefix}run:{id}`` is a hash ``{version, payload}``; ``{prefix}runs`` a sorted set of
ids by save time. A save is one Lua script (compare the version, write, index), atomic on the server.

The client connects lazily and belongs to the event loop it first connected on (use one store per loop).
Needs ``pip install 'slotgraph[redis]'``.
"""

from __future__ import annotations

import time
from typing import Any

from slotgraph.redaction import redact_url
from slotgraph.stores.errors import StoreConfigError, StoreConflictError, StoreError
from slotgraph.stores.runs import decode_run, encode_run, run_conflict_message

__all__ = ["RedisRunStore"]

_SAVE = """
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if current ~= tonumber(ARGV[1]) then return {0, current} end
redis.call('HSET', KEYS[1], 'version', current + 1, 'payload', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
return {1, current + 1}
"""


class RedisRunStore:
    def __init__(self, url: str = "redis://localhost:6379/0", *, prefix: str = "slotgraph:") -> None:
        self.url = url
        self.prefix = prefix
        self.where = redact_url(url)
        self._client: Any = None
        self._save_script: Any = None

    def __repr__(self) -> str:
        return f"RedisRunStore({self.where!r}, prefix={self.prefix!r})"

    async def _redis(self) -> Any:
        if self._client is None:
            try:
                import redis.asyncio as aioredis
            except ImportError:
                raise StoreConfigError(
                    "the Redis run store needs the redis driver: pip install 'slotgraph[redis]'"
                ) from None
            try:
                self._client = aioredis.from_url(self.url, decode_responses=True)
            except ValueError as problem:
                raise StoreConfigError(f"{self.where}: not a usable Redis URL ({problem})") from None
            self._save_script = self._client.register_script(_SAVE)
        return self._client

    def _unavailable(self, problem: Exception) -> StoreError:
        return StoreError(f"{self.where}: Redis is unavailable ({type(problem).__name__}: {problem})")

    async def load_run(self, run_id: str) -> tuple[dict[str, Any], int] | None:
        client = await self._redis()
        try:
            found = await client.hmget(f"{self.prefix}run:{run_id}", "version", "payload")
        except Exception as problem:
            raise self._unavailable(problem) from problem
        if found[1] is None:
            return None
        return decode_run(run_id, found[1]), int(found[0] or 0)

    async def save_run(self, run_id: str, record: dict[str, Any], expected_version: int) -> int:
        text = encode_run(record)
        await self._redis()
        try:
            done, version = await self._save_script(
                keys=[f"{self.prefix}run:{run_id}", f"{self.prefix}runs"],
                args=[expected_version, text, run_id, time.time()],
            )
        except Exception as problem:
            raise self._unavailable(problem) from problem
        if not int(done):
            raise StoreConflictError(run_conflict_message(run_id, int(version), expected_version))
        return int(version)

    async def list_runs(self, limit: int = 100) -> list[str]:
        client = await self._redis()
        try:
            ids = await client.zrevrange(f"{self.prefix}runs", 0, max(limit - 1, 0))
        except Exception as problem:
            raise self._unavailable(problem) from problem
        return [str(i) for i in ids]

    async def close(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()
