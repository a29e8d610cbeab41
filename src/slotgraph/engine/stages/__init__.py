"""The stages of one engine invocation, one module per decision (docs/engine.md#the-pipeline).

The orchestrator :mod:`slotgraph.engine.pipeline` wires them in order; each stage works on the invocation's
own working copy of the state (:class:`slotgraph.engine.invocation.Invocation`) and returns either ``None``
(carry on) or a :class:`~slotgraph.engine.invocation.Reply` (the invocation ends with it).
"""
