"""``python -m slotgraph``: the same command line as the ``slotgraph`` script."""

from slotgraph.cli.main import main

if __name__ == "__main__":
    main()
