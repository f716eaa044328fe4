"""Prompt templates of every Ref-Long subset, in one place, so all subsets render alike.

Why one module: Ref-Long's evaluation reads our prompt files in place of the released ones, so
the text must match the released files character for character (A and F, both placements) or,
where no file was released (Paper, NBA, F question-last), the wording the paper's appendix gives
(../shared/data/reflong/FORMAT.md, "Prompt text" and "Variants only known from the paper's
appendix"). Every prompt is ``head + document block + tail``:

- the document block is ``"".join(f"{i}: {{{doc}}}\\n\\n")`` over the documents in prompt order
  (indexes from 0, every document followed by a blank line), exactly as released;
- question first ("before"): ``head`` ends with the question and ``"\\n\\n"``, ``tail`` is empty;
- question last ("ori"): ``head`` ends with "answer some questions." and ``"\\n\\n"``, ``tail`` is the
  question.

``Template.parts`` returns the pieces separately because a prompt's token count is the sum of its
pieces' counts for the built-in BPE encodings (each block ends with ``"}\\n\\n"``, where their
pre-tokenizers always split, and ``split_block`` shows the split inside a block); the synthetic
builders use that to measure 1,800 prompts without re-encoding a document each time it appears.
Tests compare the sums with whole-prompt counts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# -- Ref-Long-A, exactly as released --------------------------------------------------------------

_A_INTRO = (
    "You will find several documents indexed with numbers below. Each document contains one or more "
    "sentences describing a little penguin collecting specific numbers of stars in the format of: "
    '"The little penguin counted {num} \u2605". Please read through these documents carefully and '
)
_A_QUESTION = "ould you tell me the indexes of all documents where the little penguin counts {key} stars?"
_FORMAT_BEFORE = " Please provide your answer in the following format without explanations: Documents: {}"
_FORMAT_ORI = " Please provide your answer in the following format without explanations:\n\nDocuments: {}"

#: The needle sentence of Ref-Long-A; ``{num}`` is the key.
STAR_SENTENCE = "The little penguin counted {num} \u2605"

# -- Ref-Long-A variants of the paper's ablations (Figures 9-12; wording not released) -----------
# The paper only shows these as figures; the wording below keeps the released A prompt and changes
# just what the variant changes, so results stay comparable with the plain A prompt.

#: Needle sentence for ``--key-style fruit``: the key is a fruit name instead of a number.
FRUIT_SENTENCE = "The little penguin collected the fruit {fruit}"

_A_FRUIT_INTRO = (
    "You will find several documents indexed with numbers below. Each document contains one or more "
    "sentences describing a little penguin collecting specific fruits in the format of: "
    '"The little penguin collected the fruit {fruit}". Please read through these documents carefully and '
)
_A_FRUIT_QUESTION = (
    "ould you tell me the indexes of all documents where the little penguin collects the fruit {key}?"
)
# Human strategy ("build a dictionary while reading"): told before the documents in both placements,
# because a strategy for reading only helps if the model knows it before it reads.
_STRATEGY_STARS = (
    "build a dictionary while reading: map every number of stars the little penguin counts to the "
    "indexes of the documents where it appears, updating it document by document. Then use the "
    "dictionary to "
)
_STRATEGY_FRUITS = (
    "build a dictionary while reading: map every fruit the little penguin collects to the indexes of "
    "the documents where it appears, updating it document by document. Then use the dictionary to "
)

# -- Ref-Long-F ----------------------------------------------------------------------------------

_F_INTRO = (
    "You will find several documents indexed with numbers below. Each document contains one or more "
    "insights (statements that contain specific information about the given topic '{topic}') in the "
    "format of sentences. Please read through these documents carefully and "
)
_F_QUESTION = 'ould you tell me the indexes of all documents talking about the insight "{key}"?'
_STRATEGY_INSIGHTS = (
    "build a dictionary while reading: map every insight the documents state to the indexes of the "
    "documents where it appears, updating it document by document. Then use the dictionary to "
)

# -- Ref-Long-Paper (paper, Figures 7 and 8) -----------------------------------------------------

_PAPER_INTRO = (
    'You will find several papers indexed with numbers below. Each paper is divided by "\\n\\n". '
    "Please read through these papers carefully and "
)
_PAPER_QUESTION = 'ould you tell me the indexes of all papers citing "{key}"?'
# --key-form (issue 22): the cited paper named by something other than its title, so that a plain
# string search for the key no longer finds the citing papers' reference entries. Only the question
# changes; the rest of the prompt is the paper's wording.
_PAPER_QUESTIONS = {
    "title": _PAPER_QUESTION,
    "arxiv-id": 'ould you tell me the indexes of all papers citing the paper with arXiv id "{key}"?',
    "abstract": 'ould you tell me the indexes of all papers citing the paper whose abstract begins "{key}"?',
}
#: The ways ``--key-form`` can name a Paper key; ``title`` is Ref-Long's.
KEY_FORMS = tuple(_PAPER_QUESTIONS)
_STRATEGY_PAPERS = (
    "build a dictionary while reading: map every work the papers cite to the indexes of the papers "
    "whose references list it, updating it paper by paper. Then use the dictionary to "
)
_PAPER_FORMAT_BEFORE = " Please provide your answer in the following format without explanations: Papers: {}."
_PAPER_FORMAT_LAST = ' Please provide your answer in the following format without explanations: "Papers: {}".'
# The F question-last wording (Figure 5) also quotes the format, as the figure does.
_F_FORMAT_LAST = ' Please provide your answer in the following format without explanations: "Documents: {}".'


def document_block(index: int, text: str) -> str:
    """One numbered document exactly as Ref-Long writes it: ``0: {text}`` and a blank line."""
    return f"{index}: {{{text}}}\n\n"


def split_block(index: int, text: str) -> tuple[str, str]:
    """``document_block`` as (``"0:"``, ``" {text}\n\n"``): the built-in BPE pre-tokenizers always
    split after the colon (a digit run, then a punctuation run that cannot take the space), so a
    document's count is the same at every position and is counted once per document."""
    return f"{index}:", f" {{{text}}}\n\n"


@dataclass(frozen=True)
class Template:
    """A prompt layout: ``head`` (with ``{key}``/``{topic}`` placeholders), documents, ``tail``."""

    name: str
    head: str
    tail: str = ""

    def fill(self, key: object, **context: str) -> tuple[str, str]:
        """The head and tail for one key. Only ``{key}`` and context names are replaced: the literal
        ``{num}``, ``{fruit}`` and ``{}`` of the instructions stay as they are."""
        values = {"key": str(key), **context}
        return _substitute(self.head, values), _substitute(self.tail, values)

    def parts(self, key: object, documents: Sequence[str], **context: str) -> list[str]:
        """The prompt as pieces: head, one block per document, and the tail (if any)."""
        head, tail = self.fill(key, **context)
        pieces = [head, *(document_block(i, doc) for i, doc in enumerate(documents))]
        if tail:
            pieces.append(tail)
        return pieces

    def render(self, key: object, documents: Sequence[str], **context: str) -> str:
        return "".join(self.parts(key, documents, **context))


def _substitute(text: str, values: dict[str, str]) -> str:
    # str.format would choke on the literal braces of "{num}" and "Documents: {}"; one regex pass
    # also keeps a key that happens to contain "{topic}" from being substituted again.
    pattern = re.compile("|".join(re.escape("{" + name + "}") for name in values))
    return pattern.sub(lambda m: values[m.group(0)[1:-1]], text)


def _first(intro: str, question: str, fmt: str, strategy: str = "") -> str:
    return f"{intro}{strategy}answer my question: c{question}{fmt}\n\n"


def _last(intro: str, question: str, fmt: str, strategy: str = "") -> tuple[str, str]:
    return f"{intro}{strategy}answer some questions.\n\n", f"C{question}{fmt}"


def a_template(question_last: bool = False, key_style: str = "stars", strategy: bool = False) -> Template:
    """Ref-Long-A. Plain stars are the released ``before``/``ori`` prompts byte for byte."""
    if key_style not in ("stars", "fruit"):
        raise ValueError(f"unknown key style {key_style!r}")
    intro, question = (_A_INTRO, _A_QUESTION) if key_style == "stars" else (_A_FRUIT_INTRO, _A_FRUIT_QUESTION)
    plan = (_STRATEGY_STARS if key_style == "stars" else _STRATEGY_FRUITS) if strategy else ""
    name = _layout(question_last, strategy)
    if question_last:
        head, tail = _last(intro, question, _FORMAT_ORI, plan)
        return Template(name, head, tail)
    return Template(name, _first(intro, question, _FORMAT_BEFORE, plan))


def _layout(question_last: bool, strategy: bool) -> str:
    """The layout name: ``before``/``ori`` as released, ``_strategy`` for the dictionary prompt."""
    return ("ori" if question_last else "before") + ("_strategy" if strategy else "")


def f_template(question_last: bool = False, strategy: bool = False) -> Template:
    """Ref-Long-F: ``before`` as released; question last with the paper's Figure 5 wording.
    ``strategy`` adds the human-strategy instruction as A's does (before the documents)."""
    plan = _STRATEGY_INSIGHTS if strategy else ""
    name = _layout(question_last, strategy)
    if question_last:
        head, tail = _last(_F_INTRO, _F_QUESTION, _F_FORMAT_LAST, plan)
        return Template(name, head, tail)
    return Template(name, _first(_F_INTRO, _F_QUESTION, _FORMAT_BEFORE, plan))


def paper_template(question_last: bool = False, strategy: bool = False, key_form: str = "title") -> Template:
    """Ref-Long-Paper with the paper's wording (Figure 8 question first, Figure 7 question last).

    The figures' bullet list of papers is a paraphrase; papers use the released A/F document
    blocks like every other subset (FORMAT.md). ``strategy`` adds the human-strategy instruction
    as A's does; ``key_form`` says how the question names the cited paper (``KEY_FORMS``)."""
    if key_form not in _PAPER_QUESTIONS:
        raise ValueError(f"unknown key form {key_form!r}; use one of {', '.join(KEY_FORMS)}")
    question = _PAPER_QUESTIONS[key_form]
    plan = _STRATEGY_PAPERS if strategy else ""
    name = _layout(question_last, strategy)
    if question_last:
        head, tail = _last(_PAPER_INTRO, question, _PAPER_FORMAT_LAST, plan)
        return Template(name, head, tail)
    return Template(name, _first(_PAPER_INTRO, question, _PAPER_FORMAT_BEFORE, plan))


def prompt_tokens(pieces: Sequence[str], count, cache: dict[str, int] | None = None) -> int:
    """Token count of ``"".join(pieces)`` as the sum of the pieces' counts, with a cache.

    Valid for the built-in BPE encodings (o200k_base, cl100k_base), whose pre-tokenizers always
    split after a block's closing ``"}\\n\\n"``; tests check the sum against whole-prompt counts.
    Callers with another tokenizer count the joined prompt instead (see ``additive_tokenizer``)."""
    total = 0
    for piece in pieces:
        if cache is None:
            total += count(piece)
            continue
        n = cache.get(piece)
        if n is None:
            n = cache[piece] = count(piece)
        total += n
    return total


def additive_tokenizer(name: str) -> bool:
    """True when prompt counts may be summed per piece (see ``prompt_tokens``)."""
    return name in ("o200k_base", "cl100k_base")
