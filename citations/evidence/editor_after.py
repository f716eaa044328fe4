"""An editor or compiler phrase printed right after the title, with no punctuation (resolve-16).

Why this exists
---------------
Italian and Latin footnotes print an edition's editor straight after the title, often without a
comma: "Il catasto e la perequazione a cura di L. Messedaglia ...", "Annales veronenses antiqui
editi da C. Cipolla (Bullett. ...)", "Libro donde se trata de los vireyes ... compilato da José
Raneo" (``citation_fresh_test``). The title printed verbatim then had no field boundary after it,
the words after it could have continued it, and the edge stayed in review (field scores 73-83).

"a cura di" ("edited by"), "editi/edito/edita da", "compilato da", "curato da", "hrsg. von",
"edited by" never continue a title: they open the editor's field, a boundary as good as a comma.
Only the phrase itself counts, at the word right after the title run; the rest of the decision
(the words before the title, the author, the year, every doubt) is unchanged.

Profile: runs with ``--profile books`` only; switched off, it changes no decision on any labelled
set but LinkedBooks' (docs/parse-and-citations.md, "Profiles").
"""

from __future__ import annotations

# Folded word sequences (``normalize.norm`` words) that open an editor's field.
_PHRASES: tuple[tuple[str, ...], ...] = (
    ("a", "cura", "di"),
    ("a", "c", "di"),
    ("editi", "da"),
    ("edito", "da"),
    ("edita", "da"),
    ("editae", "a"),
    ("compilato", "da"),
    ("curato", "da"),
    ("curata", "da"),
    ("hrsg", "von"),
    ("hrsg", "v"),
    ("herausgegeben", "von"),
    ("edited", "by"),
)


def phrase_after(words: list[str], last: int) -> str | None:
    """The editor phrase printed right after the title run ending at word ``last`` (as a note:
    "the editor phrase 'a cura di'"), or None."""
    for phrase in _PHRASES:
        if tuple(words[last + 1 : last + 1 + len(phrase)]) == phrase:
            return f"the editor phrase '{' '.join(phrase)}'"
    return None
