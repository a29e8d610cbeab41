"""The README's Bella Notte booking written for other agent frameworks, for ``benchmarks/peers.py``.

Each ``*_app.py`` module is the booking as that framework's documentation teaches it, and only what a
developer would write for it (its lines are counted as "what the developer had to write"): the agent, its
tools, and the loop that carries one conversation — ``<framework>_app.py`` in the conversation design,
``<framework>_record_app.py`` in the record design (see ``benchmarks/peers.py``). What every prompt-driven
peer shares is in :mod:`.shared` (the process written out in the instruction, since without an engine the
model must know it; the hand-over tool), and each design's tools in :mod:`.booking` (conversation) and
:mod:`.recorded` (record): the same backend functions as Slotgraph's agent (``examples/bella_notte/tools.py``)
behind the same validators. :mod:`.scripted` holds the test doubles (each framework's own mechanism for a
fake model) that play one script for every peer; it is the benchmark's, not the developer's.
"""
