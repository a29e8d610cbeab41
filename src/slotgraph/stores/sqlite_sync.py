"""Group commit for the SQLite store: commits made on the event loop without a sync, made durable together.

The store's event-loop connection commits with ``synchronous=NORMAL``: the transaction is written to the WAL
file (``<db>-wal``) and visible to every connection at once, but not yet synced. An operation that must be
durable when it returns — a save, a delete, the execution ledger's writes — then awaits :meth:`GroupSync.
durable`, which returns once an ``fdatasync`` of the WAL file that *started after* the caller's commit has
finished. That is exactly what ``synchronous=FULL`` would have done inside the commit (it syncs the WAL at
each commit), with two differences:

* the sync runs on a thread of its own, so the event loop never waits for the disk, and no SQLite write lock
  is held while the disk syncs (with ``FULL`` the writer holds the file's write lock during the sync, so
  every other writer — this process's lease operations, other processes — waited for it);
* commits made while a sync is running are made durable by the next one, together: one sync for all of
  them (group commit). Under load a turn costs a fraction of a sync; alone, one sync, as before.

The one thing that differs for readers: another connection can read a committed transaction during the few
hundred microseconds before its sync returns (with ``FULL`` it becomes visible after the sync). The writer
itself never goes on before its data is on disk. A power cut in that window loses the transaction exactly
as it would lose one whose ``COMMIT`` had not returned yet.

Why this is sound: in WAL mode a transaction is on disk once its frames, up to its commit frame, are
(recovery replays the WAL's valid frames, checked by their checksums, and stops at the first invalid one;
``synchronous=FULL`` adds nothing but this sync). A checkpoint copies frames into the database file and
syncs it (``NORMAL`` syncs at checkpoints) before the WAL may be restarted, so a frame is always either in
the WAL file or synced in the database file. The WAL file is synced through a descriptor of its own, opened
again whenever the path names another file; when there is no WAL file (every frame checkpointed and the
WAL removed), the database file is synced instead.

Checkpoints: the loop's connection never checkpoints (that would sync on the loop), so the sync thread runs
one on a connection of its own every :data:`CHECKPOINT_EVERY` durable writes: passive (it blocks nobody),
and once the WAL holds :data:`RESTART_FRAMES` frames one that starts it afresh.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from slotgraph.runtime.errors import StoreError

__all__ = ["CHECKPOINT_EVERY", "GroupSync"]

CHECKPOINT_EVERY = 100
"""Durable writes between two passive checkpoints (a turn makes one, and two lease commits, each of one to a
few pages: about SQLite's default of a checkpoint per 1,000 WAL pages)."""

RESTART_FRAMES = 4000
"""WAL frames (pages, 4 KiB each by default) past which a checkpoint starts the WAL afresh (~16 MiB)."""
CHECKPOINT_WAIT = 1.0
"""Seconds a checkpoint waits for the other connections' writes and reads to end."""

sync_file: Callable[[int], None] = getattr(os, "fdatasync", os.fsync)
"""How a file descriptor is synced (module-level so tests can watch it)."""


class GroupSync:
    """Makes the commits of one connection durable, many per sync. Used from one thread's event loop(s)."""

    def __init__(self, db_path: Path, where: str) -> None:
        self._db = db_path.absolute()
        self._wal = Path(f"{self._db}-wal")
        self._where = where
        self._pool: ThreadPoolExecutor | None = None
        self._fd: int | None = None
        self._fd_inode: tuple[int, int] | None = None
        self._checkpointer: sqlite3.Connection | None = None
        self._commits = 0
        """Commits made so far on the connection (each is a ticket for :meth:`durable`)."""
        self._synced = 0
        """Every commit up to this one is on disk."""
        self._checkpointed = 0
        """Commits made before the last checkpoint started."""
        self._running: asyncio.Future[None] | None = None
        """The sync in progress (a future of the loop that started it), if any."""
        self._running_covers = 0
        self.syncs = 0
        """Syncs made so far (tests and benchmarks read it)."""

    def committed(self) -> int:
        """Note one more commit on the connection; its ticket for :meth:`durable`."""
        self._commits += 1
        return self._commits

    async def durable(self, ticket: int) -> None:
        """Return once the commit of ``ticket`` (and every earlier one) is on disk.

        A sync running already may have started before that commit was written: it is waited for, and the
        next sync covers the commit, together with every commit made meanwhile."""
        loop = asyncio.get_running_loop()
        while self._synced < ticket:
            running, covers = self._running, self._running_covers
            if running is None or running.done() or running.get_loop() is not loop:
                running, covers = self._start(loop)  # (a done sync may not have run its callback yet)
            try:
                await asyncio.shield(running)  # a cancelled caller never cancels the others' sync
            except OSError as problem:
                raise StoreError(
                    f"{self._where}: the disk could not be synced ({problem}); the last write is in the "
                    "file but may not survive a power cut — check the disk (space, errors) before going on"
                ) from None
            if covers >= ticket:
                return

    def _start(self, loop: asyncio.AbstractEventLoop) -> tuple[asyncio.Future[None], int]:
        """Start a sync covering every commit made so far; the sync and the last commit it covers."""
        covers = self._commits  # written already: the sync below starts after them
        checkpoint = covers - self._checkpointed >= CHECKPOINT_EVERY
        if checkpoint:
            self._checkpointed = covers
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="slotgraph-sqlite-sync")
        running = loop.run_in_executor(self._pool, self._sync, checkpoint)
        self._running, self._running_covers = running, covers

        def finished(done: asyncio.Future[None]) -> None:  # runs before any waiter resumes
            if self._running is done:
                self._running = None
            if not done.cancelled() and done.exception() is None:
                self._synced = max(self._synced, covers)

        running.add_done_callback(finished)
        return running, covers

    # --- on the sync thread ----------------------------------------------------------------------------

    def _sync(self, checkpoint: bool) -> None:
        fd = self._wal_fd()
        if fd is None:  # no WAL file: every frame was checkpointed (and synced) into the database file
            fd = os.open(self._db, os.O_RDONLY)
            try:
                sync_file(fd)
            finally:
                os.close(fd)
        else:
            sync_file(fd)
        self.syncs += 1
        if checkpoint:
            self._checkpoint()

    def _wal_fd(self) -> int | None:
        """A descriptor of the WAL file the path names now (opened again if it is another file)."""
        try:
            found = os.stat(self._wal)
        except FileNotFoundError:
            self._close_fd()
            return None
        inode = (found.st_dev, found.st_ino)
        if self._fd is None or self._fd_inode != inode:
            self._close_fd()
            self._fd, self._fd_inode = os.open(self._wal, os.O_RDONLY), inode
        return self._fd

    def _checkpoint(self) -> None:
        """Copy the WAL into the database file. A passive checkpoint never waits and never blocks a writer,
        but while writers keep committing it never copies the last frames either, so the WAL is never
        started afresh and grows; once it holds :data:`RESTART_FRAMES`, a ``RESTART`` checkpoint copies
        everything and lets the next writer start the WAL from its beginning. That one holds the write lock
        for the copy and its syncs: a write meeting it runs on the store's worker thread, which waits. A
        failure (a busy file) is left to the next checkpoint."""
        try:
            if self._checkpointer is None:
                self._checkpointer = sqlite3.connect(self._db, isolation_level=None, timeout=CHECKPOINT_WAIT)
            row = self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if row is not None and int(row[1]) >= RESTART_FRAMES:
                self._checkpointer.execute("PRAGMA wal_checkpoint(RESTART)").fetchall()
        except sqlite3.Error:
            return

    def _close_fd(self) -> None:
        fd, self._fd, self._fd_inode = self._fd, None, None
        if fd is not None:
            os.close(fd)

    def _close_on_thread(self) -> None:
        self._close_fd()
        conn, self._checkpointer = self._checkpointer, None
        if conn is not None:
            conn.close()

    async def close(self) -> None:
        """Close the descriptor and the checkpoint connection, stop the thread (idempotent)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        await asyncio.get_running_loop().run_in_executor(pool, self._close_on_thread)
        pool.shutdown(wait=True)
