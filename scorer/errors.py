"""The one exception the vocabulary raises: a hand a player wrote that cannot exist.

It carries a stable machine code (for JSON and tests) and a message in a player's words.
Scoring never raises it to callers: rule sets turn it into a result with ``valid: false``.
"""


class HandError(ValueError):
    """An invalid tile, meld or hand. ``code`` is stable; ``message`` is for people."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"HandError({self.code!r}, {self.message!r})"
