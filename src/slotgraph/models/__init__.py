"""Model backends behind the runtime's model protocol, chosen by a ``"provider:model"`` string."""
