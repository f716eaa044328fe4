"""Deterministic filler: names, titles and scientific-sounding prose for the synthetic arXiv.

Why hand-made word lists: the demo must run offline with no model or data set, and the text only
has to look like a paper to the pipeline (sections, sentences, citation markers, ~4K tokens).
Everything is drawn from a ``random.Random`` the caller seeds, so the same seed gives the same
words. Text is plain ASCII because the PDFs use the standard 14 fonts (WinAnsi encoding).
"""

from __future__ import annotations

import random


def _words(block: str, sep: str | None = None) -> tuple[str, ...]:
    """A word list written as a text block (whitespace- or ``sep``-separated)."""
    return tuple(" ".join(w.split()) for w in block.split(sep) if w.strip())


FIRST_NAMES = _words(
    """
    Ada Alan Alice Amir Ana Anton Arjun Aya Bea Boris Carla Chen Chiara Dana Daniel David Diego
    Elena Emma Eric Fatima Felix Hana Hugo Ines Ivan Jae Jonas Julia Kai Karin Kenji Lara Lea Leo
    Lin Luca Maya Mei Mina Nadia Nils Noah Olga Omar Paula Pedro Priya Rafael Ravi Rosa Sara Simon
    Sofia Tao Tariq Theo Uma Vera Wei Xin Yara Yuki Zara Zoe
    """
)
LAST_NAMES = _words(
    """
    Abbott Akhtar Alvarez Andersen Baker Banerjee Bauer Becker Brandt Castro Chandra Chen Costa Dahl
    Das Delgado Dubois Eriksen Fischer Fonseca Garcia Gupta Hakimi Hansen Hartmann Horvat Ibrahim
    Ivanova Jensen Kang Kaur Keller Kim Kowalski Kruger Larsen Lee Lindqvist Liu Lopez Marino Meyer
    Moreau Nakamura Novak Okafor Olsen Park Patel Petrov Quinn Rahman Ramos Reyes Rossi Sato Schmidt
    Silva Sokolov Suzuki Tanaka Torres Varga Vogel Wagner Wang Weber Xu Yamada Yilmaz Zhang Zhou
    """
)

NAME_HEADS = _words(
    """
    Flash Quill Zor Mira Vex Lumi Orca Nova Bryn Cala Dex Ember Fable Glim Helix Iris Juno Kelp Lyra
    Mosa Nim Opal Pico Quasar Rune Sable Tess Umbra Vale Wisp Xeno Yarrow Zephyr Astra Borea Cirrus
    """
)
NAME_TAILS = _words(
    """
    Thing Former Net LM Bench Tune Mix Gate Flow Scope Forge Path Lens Kit Seq Map Core Spark Weave
    Loop Byte Mind Quest Bridge
    """
)

ADJECTIVES = _words(
    """
    efficient robust scalable sparse adaptive hierarchical contrastive multilingual compositional
    calibrated lightweight structured unsupervised retrieval-augmented instruction-tuned
    long-context multimodal parameter-efficient causal probabilistic federated continual grounded
    interpretable
    """
)
NOUNS = _words(
    """
    attention transformers embeddings retrieval alignment distillation quantization tokenization
    pretraining decoding summarization reasoning evaluation adapters memory routing benchmarks
    representations objectives curricula annotations heuristics priors estimators rankers
    """
)
TASKS = _words(
    """
    Language Modeling | Question Answering | Machine Translation | Code Generation | Document
    Ranking | Speech Recognition | Image Captioning | Dialogue Systems | Citation Recommendation |
    Table Understanding | Entity Linking | Fact Verification | Program Synthesis | Text
    Classification | Open-Domain Search | Mathematical Reasoning | Scientific Summarization |
    Knowledge Graph Completion | Semantic Parsing | Video Understanding | Molecule Generation |
    Legal Text Analysis | Clinical Note Processing
    """,
    sep="|",
)
DOMAINS = _words(
    """
    Long Documents | Code Models | Vision Models | Speech Models | Low-Resource Languages |
    Scientific Text | Small Language Models | Multilingual Corpora | Noisy Labels | Streaming Data |
    Tabular Data | Edge Devices | Biomedical Text | Legal Contracts | Student Essays | Chat
    Assistants
    """,
    sep="|",
)
VENUES = _words(
    """
    Proceedings of ACL | Proceedings of EMNLP | Proceedings of NAACL | Advances in Neural
    Information Processing Systems | Proceedings of ICML | Proceedings of ICLR | Transactions of the
    Association for Computational Linguistics | Journal of Machine Learning Research | Proceedings
    of COLING | Proceedings of SIGIR | Proceedings of CVPR | Findings of ACL
    """,
    sep="|",
)

_SUBTITLE_PATTERNS = (
    "{Adj} {Noun} for {Task}",
    "{Adj} {Noun} and {Noun2} for {Task}",
    "Towards {Adj} {Task}",
    "Scaling {Noun} to {Domain}",
    "A {Adj} Approach to {Task}",
    "Learning {Adj} {Noun} from {Domain}",
    "Rethinking {Noun} in {Task}",
)
_PLAIN_PATTERNS = (
    "On the {Noun} of {Adj} {Noun2} in {Task}",
    "{Adj} {Noun} for {Task} on {Domain}",
    "When Do {Adj} {Noun} Help {Task}?",
    "Revisiting {Noun} for {Adj} {Task}",
    "An Empirical Study of {Noun} in {Task}",
    "{Noun} Meet {Noun2}: {Adj} {Task}",
    "Measuring {Adj} {Noun} with {Domain}",
    "Beyond {Noun}: {Adj} {Noun2} for {Task}",
    "How {Adj} Are {Noun} in {Task}?",
    "Sparse Signals in {Domain}: {Adj} {Noun} for {Task}",
)


def _title_case(word: str) -> str:
    return "-".join(p[:1].upper() + p[1:] for p in word.split("-"))


def _fill(pattern: str, rng: random.Random) -> str:
    noun, noun2 = rng.sample(NOUNS, 2)
    return pattern.format(
        Adj=_title_case(rng.choice(ADJECTIVES)),
        Noun=_title_case(noun),
        Noun2=_title_case(noun2),
        Task=rng.choice(TASKS),
        Domain=rng.choice(DOMAINS),
    )


def system_name(rng: random.Random) -> str:
    """An invented system name such as ``FlashThing`` or ``LyraGate``."""
    return rng.choice(NAME_HEADS) + rng.choice(NAME_TAILS)


def subtitle(rng: random.Random) -> str:
    return _fill(rng.choice(_SUBTITLE_PATTERNS), rng)


def plain_title(rng: random.Random) -> str:
    """A title without a system name (most papers)."""
    return _fill(rng.choice(_PLAIN_PATTERNS), rng)


def prefix_pair(rng: random.Random) -> tuple[str, str]:
    """Two titles sharing a long prefix and differing at the end (neither contains the other)."""
    adj = _title_case(rng.choice(ADJECTIVES))
    noun = _title_case(rng.choice(NOUNS))
    d1, d2 = rng.sample(DOMAINS, 2)
    head = rng.choice(("Scaling Laws for", "Towards", "A Closer Look at", "Benchmarking"))
    return f"{head} {adj} {noun} in {d1}", f"{head} {adj} {noun} in {d2}"


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"


# ---------------------------------------------------------------------------------------------
# Prose. Sentences are built from a topic (a few words drawn per paper) so a paper reads as being
# about one thing; citation markers are spliced in by the caller.

_SENTENCES = (
    "We study {adj} {noun} for {task}, a setting where {noun2} are often {adj2}.",
    "Prior work has shown that {noun} can be made {adj} without sacrificing {noun2}.",
    "Our method replaces the {adj} {noun} with a {adj2} variant that is cheaper to train.",
    "In contrast to earlier approaches, we do not assume access to {adj} {noun2}.",
    "The main difficulty is that {noun} interact with {noun2} in ways that are hard to predict.",
    "Table {n} reports results on {task}, averaged over {n2} random seeds.",
    "Figure {n} shows that the gap widens as the amount of {noun} grows.",
    "We find that {adj} {noun} improve accuracy by {pct} points on average.",
    "This observation motivates a simple recipe: first tune the {noun}, then freeze the {noun2}.",
    "All models are trained for {n2} epochs with a batch size of {bs} and a learning rate of {lr}.",
    "The evaluation covers {n2} datasets drawn from {domain}.",
    "A natural question is whether {adj} {noun} transfer to {domain}.",
    "We answer this question with a controlled study in which only the {noun} change.",
    "Errors concentrate on inputs where the {noun2} are {adj2} or out of distribution.",
    "Ablating the {noun} component costs {pct} points, which confirms its role.",
    "The resulting system is {adj} and runs on a single accelerator.",
    "We release code and data to make the comparison reproducible.",
    "Our analysis suggests that {noun} and {noun2} are complementary rather than competing.",
    "Following standard practice, we report the mean and standard deviation over {n2} runs.",
    "Compared with the strongest baseline, our approach reduces the cost of {noun} by a factor of {n}.",
    "These gains hold across model sizes from {size1} to {size2} parameters.",
    "We hypothesize that {adj} {noun2} act as an implicit regularizer during training.",
    "Human annotators rated {pct} percent of the outputs as acceptable.",
    "Limitations remain: the approach depends on {adj} {noun} that may not exist for every language.",
    "Section {n} describes the experimental setup in detail.",
    "Taken together, the results indicate that {task} benefits from {adj} {noun}.",
)


def topic(rng: random.Random) -> dict[str, str]:
    """The few words a paper's prose keeps returning to."""
    adj, adj2 = rng.sample(ADJECTIVES, 2)
    noun, noun2 = rng.sample(NOUNS, 2)
    return {
        "adj": adj,
        "adj2": adj2,
        "noun": noun,
        "noun2": noun2,
        "task": rng.choice(TASKS).lower(),
        "domain": rng.choice(DOMAINS).lower(),
    }


_NUMBERS = {
    "n": lambda rng: rng.randint(1, 6),
    "n2": lambda rng: rng.randint(3, 12),
    "pct": lambda rng: f"{rng.randint(1, 9)}.{rng.randint(0, 9)}",
    "bs": lambda rng: rng.choice((16, 32, 64, 128, 256)),
    "lr": lambda rng: rng.choice(("1e-4", "3e-4", "5e-5", "2e-5")),
    "size1": lambda rng: rng.choice(("60M", "125M", "350M")),
    "size2": lambda rng: rng.choice(("1.3B", "7B", "13B")),
}
# Which number slots each template uses, so only those are drawn (text generation is on the hot path).
_SLOTS = [tuple(k for k in _NUMBERS if "{" + k + "}" in t) for t in _SENTENCES]


def sentence(rng: random.Random, top: dict[str, str]) -> str:
    """One sentence on the paper's topic, with a quarter of the slots drawn fresh for variety."""
    slots = dict(top)
    if rng.random() < 0.25:
        slots["noun"] = rng.choice(NOUNS)
    if rng.random() < 0.25:
        slots["adj"] = rng.choice(ADJECTIVES)
    i = rng.randrange(len(_SENTENCES))
    for k in _SLOTS[i]:
        slots[k] = _NUMBERS[k](rng)
    return _SENTENCES[i].format(**slots)


def paragraph(rng: random.Random, top: dict[str, str], n_sentences: int) -> str:
    out = [sentence(rng, top) for _ in range(n_sentences)]
    text = " ".join(out)
    return text[:1].upper() + text[1:]
