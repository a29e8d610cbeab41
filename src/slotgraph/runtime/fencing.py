"""Re-export of :mod:`slotgraph.fencing` under the runtime's name (where it lived first).

The fence sits below the runtime and the agent-logic layer, which both apply it: the runtime to what enters
the state or the instruction from outside, agent logic to the values its templates render.
"""

from slotgraph.fencing import FENCE, FRAMEWORK_TAGS, fence_text, fence_value

__all__ = ["FENCE", "FRAMEWORK_TAGS", "fence_text", "fence_value"]
