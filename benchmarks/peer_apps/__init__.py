"""The README's Bella Notte booking written for other agent frameworks, for ``benchmarks/peers.py``.

Each ``*_app.py`` module is the booking as that framework's documentation teaches it, and only what a
developer would write for it (its lines are counted as "what the developer had to write"): the agent, its
tools, and the loop that carries one conversation. :mod:`.booking` is what every prompt-driven peer shares —
the same backend functions as Slotgraph's agent (``examples/bella_notte/tools.py``), wrapped as tools that
validate their inputs with the same validators, and the process written out in the instruction, since
without an engine the model must know it. :mod:`.scripted` holds the test doubles (each framework's own
mechanism for a fake model) that play one script for every peer; it is the benchmark's, not the
developer's.
"""
