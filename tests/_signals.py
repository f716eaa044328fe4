"""Children that take Ctrl-C the way a terminal delivers it, whoever started the test run."""

from __future__ import annotations

import signal


def interruptible() -> None:
    """``preexec_fn`` for a child a test stops with SIGINT: SIGINT back to its default action.

    Why: a test run started in the background by a non-interactive shell (``pytest ... &`` in a
    script, as CI wrappers often do) inherits SIGINT *ignored* (bash ignores it for ``&`` commands
    when job control is off), an ignored signal survives ``exec``, and a Python started that way
    installs no KeyboardInterrupt handler. The Ctrl-C tests then saw their child run on to the end
    (or a server never stop) and failed for the shell's reason, not the code's."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
