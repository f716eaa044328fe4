"""Reading text files that users bring (seed lists, filled audit sheets) in the encoding they have.

Why not a detector such as charset-normalizer (installed with requests): these files are short,
and on a few lines of mostly ASCII a statistical guess is unstable (the same bytes could be read
as cp1252, latin-1 or cp1250 depending on one word). The two encodings users actually save are
UTF-8 (with or without the BOM that spreadsheet programs write) and Windows-1252 (what Excel on
Windows calls "CSV"). So: UTF-8 first, strictly; if that fails, cp1252 with a warning naming the
file and byte; if that fails too, one line saying to save the file as UTF-8. Deterministic.
"""

from __future__ import annotations

import logging
from pathlib import Path

from reflong.common.errors import ReflongError

log = logging.getLogger("reflong")


def read_user_text(path: str | Path, what: str = "") -> str:
    """The text of ``path``: UTF-8 (a BOM is dropped), else Windows-1252 with a warning."""
    path = Path(path)
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        first_bad = exc.start
    label = f"{what} {path}".strip()
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        raise ReflongError(
            f"{label} is neither UTF-8 nor Windows-1252 (byte {first_bad}); save it as UTF-8"
        ) from None
    log.warning("%s is not UTF-8 (byte %d); read it as Windows-1252 (cp1252)", label, first_bad)
    return text
