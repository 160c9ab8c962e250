"""mjscan: photograph a finished mahjong hand, get its score.

This package is the command line (``mjscan.cli``), a thin layer over ``scorer`` (and, later, ``vision``
and ``server``). Importing it loads nothing heavy.
"""

__version__ = "0.1.0"
