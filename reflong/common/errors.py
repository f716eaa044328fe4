"""Errors a user can act on.

Every stage raises ``ReflongError`` (or a subclass) for conditions caused by input, settings or
the network; the CLI prints its message as one line, with no traceback, and exits non-zero.
Anything else escaping a stage is a bug and keeps its traceback.
"""


class ReflongError(Exception):
    """A failure with a one-line message that says what happened and what to do."""


class NetworkError(ReflongError):
    """A remote service (arXiv, GROBID) could not be reached or kept failing after retries."""


class BlockedError(NetworkError):
    """arXiv answered 403: it blocks robots that break its rules; the whole run must stop at once."""


class ServiceBusyError(NetworkError):
    """A 429/503 spell outlasted the retry budget; the run stopped cleanly and a rerun resumes."""
