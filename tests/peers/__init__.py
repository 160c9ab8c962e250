"""Peer scorers: other implementations of a rule set, driven from our Hand type for differential tests."""
