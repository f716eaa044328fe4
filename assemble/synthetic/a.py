"""Ref-Long-A candidate documents: essay haystack cut into chunks, with key sentences inserted.

Two ways to cut the haystack:
- ``release_chunks``: the recovered Ref-Long procedure (FORMAT.md, "Ref-Long-A candidate
  documents"): a fixed essay order concatenated with no separator, newlines to spaces, split on
  single spaces, 100 chunks of 750 pieces. Used by ``--preset reflong2025``.
- ``budget_chunks``: our default. Whitespace-normalised words cut so that each finished document
  (key sentences included) is as close to a token budget as the words allow, with as many
  chunks as the essays give, so lengths past the release's 24K have enough candidates.

Keys are inserted the same way in both (``insert_keys``): per candidate, draw its keys, then word
positions, then ``list.insert`` each sentence in draw order (later positions count earlier
insertions), exactly the release's calls when given its seed.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Sequence
from pathlib import Path

from reflong.assemble.prompts import FRUIT_SENTENCE, STAR_SENTENCE
from reflong.assemble.synthetic.build import Candidate, SettingSpec
from reflong.common.errors import ReflongError

#: Essay order of the release (the chunks tile this concatenation; only the first 75,000 words
#: are used, which end inside siliconvalley.txt).
RELEASE_ESSAY_ORDER = (  # noqa: SIM905 - a word list reads better as text
    "island boss nft gba useful ecw web20 todo know philosophy submarine avg before startuplessons "
    "rootsoflisp rss bias vcsqueeze newideas iflisp desres diff weird corpdev hubs founders love aord "
    "foundervisa sun copy vw langdes unions vb goodtaste popular apple siliconvalley"
).split()
RELEASE_WORDS_PER_DOC = 750
RELEASE_N_DOCS = 100

#: Exclusive upper bound of the key numbers per level.
LEVELS = {"easy": 100, "medium": 60, "hard": 20}
#: Key sentences per document per mode.
MODES = {"single": 1, "multi": 5}
#: The release draws five positions per document even for single settings (and uses the first).
_RELEASE_POSITIONS = 5

#: ``--key-style fruit``: key number n becomes FRUITS[n]. 103 names (at least 100, for "easy"); no name is
#: a prefix of another, so "the fruit X" never reads as the start of another key's sentence.
FRUITS = tuple(
    """apple apricot avocado banana bilberry blackberry blueberry boysenberry breadfruit cantaloupe
    carambola cherimoya cherry cloudberry coconut cranberry damson date dragonfruit durian elderberry
    feijoa fig gooseberry guava honeydew huckleberry jabuticaba jackfruit jambul jujube kiwano kumquat
    lemon lime longan loquat lychee mandarin mangosteen marionberry medlar mulberry nectarine olive
    orange papaya passionfruit peach pear persimmon physalis pineapple plantain plum pomegranate
    pomelo quince rambutan raspberry redcurrant salak satsuma soursop strawberry tamarind tangerine
    ugli yuzu ackee acerola bael bergamot calamansi cempedak chokeberry clementine cupuacu dewberry
    genip goji grumichama hackberry jostaberry langsat lingonberry mamey marang maypop nance
    naranjilla pawpaw pequi pitaya pulasan rowan salmonberry santol sapodilla serviceberry sloe
    tamarillo wolfberry""".split()  # noqa: SIM905
)


def setting_name(mode: str, level: str, key_style: str = "stars") -> str:
    """``multi_stars_hard`` as in the release; ``multi_fruits_hard`` for the fruit variant."""
    return f"{mode}_{'stars' if key_style == 'stars' else 'fruits'}_{level}"


def essay_files(haystack_dir: Path) -> list[Path]:
    files = sorted(Path(haystack_dir).glob("*.txt"))
    if not files:
        raise ReflongError(
            f"no .txt essays in {haystack_dir}: pass --haystack DIR with the Paul Graham essays"
        )
    return files


def release_chunks(haystack_dir: Path) -> list[list[str]]:
    """The release's 100 word lists (750 pieces each) from the essays in the release order."""
    texts = []
    for name in RELEASE_ESSAY_ORDER:
        path = Path(haystack_dir) / f"{name}.txt"
        if not path.is_file():
            raise ReflongError(
                f"--preset reflong2025 needs {path.name} in {haystack_dir} (the essays of "
                "gkamradt/LLMTest_NeedleInAHaystack, PaulGrahamEssays/)"
            )
        texts.append(_read(path))
    pieces = "".join(texts).replace("\n", " ").split(" ")
    need = RELEASE_WORDS_PER_DOC * RELEASE_N_DOCS
    if len(pieces) < need:
        raise ReflongError(f"the essays give {len(pieces)} words; the release needs {need}")
    return [
        pieces[k * RELEASE_WORDS_PER_DOC : (k + 1) * RELEASE_WORDS_PER_DOC] for k in range(RELEASE_N_DOCS)
    ]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ReflongError(f"{path.name} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def readable_essays(haystack_dir: Path, warn=None) -> list[tuple[Path, str]]:
    """Every ``*.txt`` essay that reads as UTF-8; an unreadable one is reported through ``warn``
    and skipped, so one bad file does not stop a build."""
    out = []
    for path in essay_files(haystack_dir):
        try:
            out.append((path, _read(path)))
        except ReflongError as exc:
            if warn is not None:
                warn(f"skipped: {exc}")
    if not out:
        raise ReflongError(f"no readable essay in {haystack_dir}")
    return out


def release_input_files(haystack_dir: Path) -> list[Path]:
    """The essays the preset reads (the release order), for the manifest."""
    return [Path(haystack_dir) / f"{name}.txt" for name in RELEASE_ESSAY_ORDER]


def budget_chunks(
    haystack_dir: Path, count, budget: int, seed: int | str, essays: list[tuple[Path, str]] | None = None
) -> list[list[str]]:
    """Cut the essays into consecutive word chunks of at most ``budget`` tokens each, as full as
    possible (``count`` is the tokenizer's count function). The essay order is a seeded shuffle,
    as in the paper's "randomly concatenates"; a last chunk under 98% of the budget is dropped.
    (With o200k/cl100k a chunk lands within a few tokens of the budget; a coarse tokenizer whose
    words cost many tokens can fall further short.)"""
    essays = list(essays if essays is not None else readable_essays(haystack_dir))
    random.Random(f"{seed}/essay-order").shuffle(essays)
    words = "\n".join(text for _, text in essays).split()
    # Per-word counts (with the joining space) give a near-exact first guess of each cut; the
    # exact count of the joined text then moves the cut a few words at most.
    cost: dict[str, int] = {}
    prefix = [0]
    for w in words:
        if w not in cost:
            cost[w] = count(" " + w)
        prefix.append(prefix[-1] + cost[w])
    chunks: list[list[str]] = []
    start = 0
    while start < len(words):
        guess = bisect.bisect_right(prefix, prefix[start] + budget, lo=start) - 1
        end = _fill(words, start, budget, count, max(guess, start + 1))
        chunk = words[start:end]
        if not chunk or (end == len(words) and count(" ".join(chunk)) < 0.98 * budget):
            break  # the haystack's tail is too short for a full document
        chunks.append(chunk)
        start = end
    return chunks


def _fill(words: Sequence[str], start: int, budget: int, count, guess: int) -> int:
    """The largest ``end`` with count(words[start:end]) <= budget (counts grow with ``end``),
    searched outwards from ``guess`` by doubling steps, then bisected."""

    def fits(end: int) -> bool:
        return count(" ".join(words[start:end])) <= budget

    guess = min(guess, len(words))
    if fits(guess):
        lo, step = guess, 1
        while True:
            hi = min(len(words), lo + step)
            if hi == lo:
                return lo
            if not fits(hi):
                break
            lo, step = hi, step * 2
    else:
        hi, step = guess, 1
        while True:
            lo = max(start, hi - step)
            if lo == start or fits(lo):
                break
            hi, step = lo, step * 2
    while hi - lo > 1:  # fits(lo) (or lo == start), not fits(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def key_sentence(key: object, key_style: str) -> str:
    return (
        STAR_SENTENCE.replace("{num}", str(key))
        if key_style == "stars"
        else FRUIT_SENTENCE.replace("{fruit}", str(key))
    )


def insert_keys(
    chunks: Sequence[Sequence[str]],
    mode: str,
    level: str,
    rng: random.Random,
    key_style: str = "stars",
    positions_per_doc: int | None = None,
    position_range: int | None = None,
) -> list[Candidate]:
    """Insert key sentences into every chunk with the release's order of random calls.

    All keys first (single: ``randrange(b)``; multi: ``sample(range(b), 5)``), then all positions
    (``sample(range(position_range or len(chunk)), positions_per_doc)``), then insertion. The release
    uses ``positions_per_doc=5`` and ``position_range=750``; by default we draw one position per key."""
    bound, per_doc = LEVELS[level], MODES[mode]
    if key_style == "fruit" and bound > len(FRUITS):
        raise ValueError(f"only {len(FRUITS)} fruit names")
    numbers = [[rng.randrange(bound)] if per_doc == 1 else rng.sample(range(bound), per_doc) for _ in chunks]
    positions = [
        rng.sample(range(position_range or len(chunk)), positions_per_doc or per_doc) for chunk in chunks
    ]
    out = []
    for k, (chunk, nums, pos) in enumerate(zip(chunks, numbers, positions, strict=True)):
        keys = tuple(nums) if key_style == "stars" else tuple(FRUITS[n] for n in nums)
        words = list(chunk)
        for key, p in zip(keys, pos, strict=False):
            words.insert(p, key_sentence(key, key_style))
        out.append(Candidate(f"chunk{k:03d}", " ".join(words), keys))
    return out


def release_candidates(
    chunks: Sequence[Sequence[str]], mode: str, level: str, seed: int = 2024, key_style: str = "stars"
) -> list[Candidate]:
    """The release's candidates of one setting (seeded afresh per setting). With fruits, the same
    draws name fruits instead of numbers."""
    return insert_keys(
        chunks,
        mode,
        level,
        random.Random(seed),
        key_style=key_style,
        positions_per_doc=_RELEASE_POSITIONS,
        position_range=RELEASE_WORDS_PER_DOC,
    )


RELEASE_SEED = 2024


def preset_specs(
    haystack_dir: Path, modes: Sequence[str], levels: Sequence[str], key_style: str = "stars"
) -> list[SettingSpec]:
    """``--preset reflong2025``: the release's candidates and seeds for the chosen settings."""
    chunks = release_chunks(haystack_dir)
    return [
        SettingSpec(
            "A",
            setting_name(mode, level, key_style),
            release_candidates(chunks, mode, level, RELEASE_SEED, key_style),
            RELEASE_SEED,
        )
        for mode in modes
        for level in levels
    ]


def sentence_tokens(count, key_style: str) -> int:
    """Tokens one key sentence adds between two words (8 for stars in o200k/cl100k); the mean
    over the fruit names for fruits."""
    keys = [42] if key_style == "stars" else list(FRUITS)
    extra = [count(f"a {key_sentence(k, key_style)} b") - count("a b") for k in keys]
    return round(sum(extra) / len(extra))


def default_specs(
    haystack_dir: Path,
    modes: Sequence[str],
    levels: Sequence[str],
    seed: int,
    tokenizer,
    doc_tokens: int,
    max_documents: int,
    key_style: str = "stars",
    n_candidates: int | None = None,
    essays: list[tuple[Path, str]] | None = None,
) -> list[SettingSpec]:
    """Our default: documents of ``doc_tokens`` tokens (key sentences included), candidates
    enough for ``max_documents`` per task (``n_candidates``, else max(100, 2 x max) capped by
    what the essays give), every setting with its own seeded streams."""
    per_sentence = sentence_tokens(tokenizer.count, key_style)
    chunk_cache: dict[int, list[list[str]]] = {}
    specs = []
    for mode in modes:
        base = doc_tokens - MODES[mode] * per_sentence
        if base < 0.5 * doc_tokens:
            raise ReflongError(f"--doc-tokens {doc_tokens} is too small for {MODES[mode]} key sentences")
        if base not in chunk_cache:
            chunk_cache[base] = budget_chunks(haystack_dir, tokenizer.count, base, seed, essays)
        chunks = chunk_cache[base]
        n = n_candidates or min(len(chunks), max(RELEASE_N_DOCS, 2 * max_documents))
        if n > len(chunks) or n < max_documents:
            raise ReflongError(
                f"the essays give {len(chunks)} documents of {doc_tokens} tokens; "
                f"{max(n, max_documents)} are needed: add essays to --haystack, "
                "or lower --lengths/--doc-tokens"
            )
        for level in levels:
            name = setting_name(mode, level, key_style)
            rng = random.Random(f"{seed}/{name}/keys")
            specs.append(
                SettingSpec(
                    "A", name, insert_keys(chunks[:n], mode, level, rng, key_style), f"{seed}/{name}/tasks"
                )
            )
    return specs
