"""The ``slotgraph`` command line: the edge where config errors become messages and exit codes.

:mod:`slotgraph.cli.main` builds the Typer app from one module per command (``validate``, ``graph``,
``schema``, ``version``); later commands (``chat``, ``test``, ``serve``, ``models list``) plug in the same
way. Exit codes (:class:`slotgraph.cli.exit_codes.ExitCode`): 0 ok, 1 invalid config, 2 usage error.
"""
