"""The labelled sets' figures: one entry per set, read by tests/test_labelled_set_files.py.

Each entry names a committed set (tests/data/real/citation_*, as a ``LabelledSet``: folder,
split, source, id letter, entries and gold pairs per style), the builder that rebuilds it from
its pinned snapshot, and the figures its files hold, most of them as its SOURCES.md reports them.
Every check of tests/test_labelled_set_files.py is run on every entry (those for one kind of set,
the PMC shares or LinkedBooks' samples, on every entry of that kind), so a new set is one more
entry here, one more batch in ``_labelled_sets.BUILD_ORDER``, and its converter's own rules in
tests/test_builder_<name>.py.

The citation_styles set (two splits, four sources, one audit file for both) is checked by
tests/test_citation_styles_set.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from _labelled_sets import Builder, LabelledSet

# Left out by an erratum (the ``new`` value of a ``scored`` row), in ``SetFiles.errata_notes``.
LEFT_OUT = False

# The snapshots the sets are built from (as the fetch tool leaves them); each environment
# variable points elsewhere. Without a snapshot its sets' rebuild tests skip; every other test
# reads the committed files.
LINKEDBOOKS = Builder(
    "fresh",
    flag="--linkedbooks",
    env="REFLONG_LINKEDBOOKS_GIT",
    default="/work/.mirror/dhlab-epfl+LinkedBooksDeepReferenceParsing/repo",
    repo_name="dhlab-epfl/LinkedBooksDeepReferenceParsing",
)
SCIELO = Builder(
    "holdout",
    flag="--scielo",
    env="REFLONG_SCIELO_GIT",
    default="/work/.mirror/scieloorg+packtools/repo",
    repo_name="scieloorg/packtools",
)
PLOS = Builder(
    "plos",
    flag="--plos",
    env="REFLONG_PLOS_GIT",
    default="/work/.mirror/PLOS+allofplos/repo",
    repo_name="PLOS/allofplos",
)
GLUTTON = Builder(
    "pmc",
    flag="--glutton",
    env="REFLONG_GLUTTON_GIT",
    default="/work/.mirror/kermitt2+biblio-glutton/repo",
    repo_name="kermitt2/biblio-glutton",
)
# What each builder says when the directory it is given holds no snapshot ({dir}: that directory)
TRAIN_FILE_UNREAD = "builders.fresh: cannot read d00ca1ff3a3b:dataset.tar.gz in {dir} (git exit 128)"
GLUTTON_FILE_UNREAD = (
    "builders.pmc: cannot read acda234c54b9:doc/references-doi-matching.json.gz in {dir} (git exit 128)"
)
# LinkedBooks' test samples: blocks of its training file; the PMC shares: the file names no
# citing article, every entry is cited from the sample as a whole
TRAIN_BLOCK = r"linkedbooks:clean_train\.txt#\d{3}"
PMC_SAMPLE = r"glutton:pmc_sample_1943"
# SOURCES.md of every PMC share names the snapshot it reads
GLUTTON_PINNED = ("{b.GLUTTON_COMMIT}", "{b.GLUTTON_PATH}")


@dataclass(frozen=True)
class PdfErrata:
    """A PMC share's label faults that come from PDFs and NLM records, and what the label scan
    (builders/holdout_sample.py ``scan``) flags."""

    flagged: int  # entries the scan flags
    title_corrupt: frozenset[str]  # the seed_title_corrupt errata
    after_word: frozenset[str]  # the errata's entries the scan flags ``title_after_word``
    merged: frozenset[str]  # cluster_merges_works: the record of another work, re-golded to none
    cut_in_parenthesis: frozenset[str] = frozenset()  # seed titles cut inside a parenthesis
    flags: dict[str, list[str]] = field(default_factory=dict)  # entries' flags, named
    prints: dict[str, str] = field(default_factory=dict)  # entries' strings print these


@dataclass(frozen=True)
class SetFiles:
    """One committed set and its figures."""

    set: LabelledSet  # (entries, gold pairs) per style, as SOURCES.md reports them
    builder: Builder
    part: str | int | None  # its key in fresh.PARTS or pmc.SHARES (None: the builder's PRIOR_SETS)
    rebuild_args: tuple[str, ...]  # the builder's options for this set (its part or share)
    wrong_snapshot: str  # the one error line for a directory that is no snapshot
    entries: int
    seeds: int
    cited: int  # seeds some entry cites
    containers: int  # edited volumes nobody cites
    held_out: int  # entries citing a held-out work (gold null)
    multi_cited: int  # works more than one entry cites
    no_first_author: int  # cited seeds whose record names no first author
    no_published: int  # seeds with no publication date
    citing: str  # every entry's citing document matches this
    citing_docs: int
    seed_title_differs: int  # gold entries printing their seed's title other than verbatim
    built_after: int  # sets built before it (_labelled_sets.BUILD_ORDER)
    errata: dict[str, int]  # hand errata per category
    errata_regolded: int  # errata giving a new gold (the others leave an entry out)
    audit_rows: int  # audit.jsonl: the rules' rows and the errata
    kept: int  # entries scored after the audit
    kept_gold: int  # ... of them with a gold
    naive: tuple[int, int, int]  # the naive baseline's (tp, fp, fn) as labelled
    naive_audited: tuple[int, int, int]  # ... and as audited
    rules: dict[str, str] | None = None  # the rules' rows, id -> category ...
    rule_counts: dict[str, int] | None = None  # ... or, where they are many, per category
    built_after_sets: tuple[str, ...] = ()  # sets named as built before it
    sources_md: tuple[str, ...] = ()  # SOURCES.md says these ({b}: the builder module)
    residue: int | None = None  # a LinkedBooks sample: the residue of its works' hash
    errata_notes: dict[str, dict[str, object]] = field(default_factory=dict)  # note word -> {id: new}
    title_ends: dict[str, str] = field(default_factory=dict)  # entries' titles end so
    pdf: PdfErrata | None = None

    def __post_init__(self) -> None:
        assert (self.rules is None) != (self.rule_counts is None), self.set.name


SETS: tuple[SetFiles, ...] = (
    SetFiles(
        LabelledSet(
            "citation_fresh",
            split="fresh",
            source="linkedbooks",
            id_prefix="f",
            style_counts={
                "given_surname": (536, 403),
                "initials_first": (358, 262),
                "other": (130, 90),
                "surname_comma_given": (256, 190),
                "surname_initials": (553, 417),
                "title_first": (428, 315),
            },
        ),
        LINKEDBOOKS,
        part="dev",
        rebuild_args=(),
        wrong_snapshot="builders.fresh: cannot read 9411db4e918b in {dir} (git exit 128)",
        entries=2261,
        seeds=1616,
        cited=1579,
        containers=37,
        held_out=584,
        multi_cited=69,
        no_first_author=332,
        no_published=267,
        citing=r"linkedbooks:clean_(valid|test)\.txt#\d{3}",
        citing_docs=91,
        seed_title_differs=44,
        built_after=1,
        errata={
            "venue_as_title": 18,
            "work_split": 19,
            "cluster_merges_works": 16,
            "seed_title_corrupt": 8,
            "container_as_title": 6,
        },
        errata_regolded=23,
        rule_counts={"titles_run_together": 20},
        audit_rows=87,
        kept=2197,
        kept_gold=1617,
        naive=(1541, 210, 136),
        naive_audited=(1487, 204, 130),
    ),
    SetFiles(
        LabelledSet(
            "citation_holdout",
            split="holdout",
            source="scielo",
            id_prefix="h",
            style_counts={
                "abnt": (383, 280),
                "apa": (231, 154),
                "name_year": (399, 302),
                "other": (344, 256),
                "vancouver": (793, 590),
            },
        ),
        SCIELO,
        part=None,
        rebuild_args=(),
        wrong_snapshot="builders.holdout: cannot read fe1ada8cd7cc in {dir} (git exit 128)",
        entries=2150,
        seeds=1604,
        cited=1560,
        containers=44,
        held_out=568,
        multi_cited=19,  # printed by several articles or in several forms
        no_first_author=139,
        no_published=25,
        citing=r"scielo:10\.\d{4,5}/\S+",
        citing_docs=74,  # one citing document per SciELO article
        # a typo, glue, a subtitle (the source annotates the mixed-citation it stands beside)
        seed_title_differs=16,
        built_after=2,
        errata={"not_a_title": 11, "seed_title_corrupt": 2, "venue_as_title": 1, "work_split": 2},
        errata_regolded=4,
        rules={"h01979": "venue_as_title"},  # a workshop's web page, annotated as the title
        audit_rows=17,
        kept=2137,
        kept_gold=1574,
        naive=(1524, 88, 58),
        naive_audited=(1516, 85, 58),
    ),
    SetFiles(
        LabelledSet(
            "citation_plos",
            split="plos",
            source="plos",
            id_prefix="p",
            style_counts={"name_year": (1981, 1485), "other": (99, 73), "vancouver": (489, 357)},
        ),
        PLOS,
        part=None,
        rebuild_args=(),
        wrong_snapshot="builders.plos: cannot read 07fdeed848b2 in {dir} (git exit 128)",
        entries=2569,
        seeds=1921,
        cited=1903,
        containers=18,
        held_out=654,
        multi_cited=12,
        no_first_author=17,
        no_published=3,
        citing=r"plos:10\.1371/journal\.\w+\.\d{7}",
        citing_docs=50,  # MAX_ARTICLES PLOS articles
        seed_title_differs=1,  # "morphometry—the" for "morphometry–the"
        built_after=3,
        errata={"not_one_reference": 2, "not_a_title": 1},
        errata_regolded=0,
        rules={},  # no audit rule fires on PLOS's markup
        audit_rows=3,
        kept=2566,
        kept_gold=1912,
        naive=(1885, 46, 30),
        naive_audited=(1883, 45, 29),
        sources_md=("{b.PLOS_COMMIT}",),
    ),
    SetFiles(
        LabelledSet(
            "citation_pmc",
            split="pmc",
            source="glutton",
            id_prefix="g",
            style_counts={
                "apa": (1298, 983),
                "name_year": (47, 33),
                "other": (223, 157),
                "vancouver": (1053, 777),
            },
        ),
        GLUTTON,
        part=0,
        rebuild_args=(),
        wrong_snapshot=GLUTTON_FILE_UNREAD,
        entries=2621,
        seeds=1928,
        cited=1928,
        containers=0,
        held_out=671,
        multi_cited=17,
        no_first_author=592,  # the NLM record names none
        no_published=4,
        citing=PMC_SAMPLE,
        citing_docs=1,
        # a hyphen kept at a PDF line break, a dash or quote, a character the PDF lost
        seed_title_differs=364,
        built_after=4,
        errata={"not_one_reference": 19},
        errata_regolded=0,
        # "... centromere protein a" (protein A) read as a dangling article
        rules={"g02564": "not_a_title"},
        audit_rows=20,
        kept=2601,
        kept_gold=1936,
        naive=(1950, 2, 0),
        naive_audited=(1936, 2, 0),
        sources_md=(*GLUTTON_PINNED, "SHARE = {b.SHARE}"),
        pdf=PdfErrata(flagged=32, title_corrupt=frozenset(), after_word=frozenset(), merged=frozenset()),
    ),
    SetFiles(
        LabelledSet(
            "citation_pmc_test",
            split="pmc_test",
            source="glutton",
            id_prefix="t",
            style_counts={
                "apa": (1339, 960),
                "name_year": (45, 33),
                "other": (231, 176),
                "vancouver": (1083, 824),
            },
        ),
        GLUTTON,
        part=1,
        rebuild_args=("--share", "1"),
        wrong_snapshot=GLUTTON_FILE_UNREAD,
        entries=2698,
        seeds=1969,
        cited=1969,
        containers=0,
        held_out=705,
        multi_cited=24,
        no_first_author=639,  # the NLM record names none
        no_published=11,
        citing=PMC_SAMPLE,
        citing_docs=1,
        seed_title_differs=300,
        built_after=5,
        errata={
            "not_one_reference": 16,
            "seed_title_corrupt": 11,
            "cluster_merges_works": 2,
            "work_split": 2,
        },
        errata_regolded=2,
        # "Acute liver failure: summary of a workshop" read as a meeting's name
        rules={"t01408": "venue_as_title"},
        audit_rows=32,
        kept=2668,
        kept_gold=1966,
        naive=(1987, 7, 6),
        naive_audited=(1960, 9, 6),
        sources_md=(
            *GLUTTON_PINNED,
            "A dev set since the lead's one run (resolve-14)",  # its misses were read after it
            "--share 1",
            "_digest(doi) % SHARE == 1",
        ),
        pdf=PdfErrata(
            flagged=40,
            # ten whose first words, in italics, the record lost; the eleventh, t01235, is a
            # footnote digit the record's title ends with, found from our resolver's miss after
            # the lead's one run
            title_corrupt=frozenset(
                {"t00315", "t00715", "t00923", "t01235", "t01349", "t01812"}
                | {"t02080", "t02224", "t02356", "t02437", "t02626"}
            ),
            # the ten, and the misaligned Firestein record ("Evolving concepts of" before
            # "Rheumatoid arthritis")
            after_word=frozenset(
                {"t00315", "t00687", "t00715", "t00923", "t01349", "t01812"}
                | {"t02080", "t02224", "t02356", "t02437", "t02626"}
            ),
            merged=frozenset({"t00232", "t00687"}),
        ),
    ),
    SetFiles(
        LabelledSet(
            "citation_pmc_test2",
            split="pmc_test2",
            source="glutton",
            id_prefix="u",
            style_counts={
                "apa": (1321, 1000),
                "name_year": (46, 35),
                "other": (220, 164),
                "vancouver": (1051, 775),
            },
        ),
        GLUTTON,
        part=2,
        rebuild_args=("--share", "2"),
        wrong_snapshot=GLUTTON_FILE_UNREAD,
        entries=2638,
        seeds=1948,
        cited=1948,
        containers=0,
        held_out=664,
        multi_cited=24,
        no_first_author=598,  # the NLM record names none
        no_published=6,
        citing=PMC_SAMPLE,
        citing_docs=1,
        seed_title_differs=326,
        # every set committed before it, and nothing else (citation_fresh_test and every set
        # after it were built later)
        built_after=6,
        errata={"not_one_reference": 21, "seed_title_corrupt": 4, "cluster_merges_works": 1},
        errata_regolded=1,
        # "Guidelines for the management of" (the record cut before "Helicobacter pylori", a
        # right call) and "... recommendations of the 2007 St Gallen conference" (a false alarm:
        # a real title with "conference" in it)
        rules={"u00107": "not_a_title", "u01893": "venue_as_title"},
        audit_rows=28,
        kept=2611,
        kept_gold=1949,
        naive=(1974, 0, 0),
        # the re-golded entry (Ferris & Hirsch's "Methods for isolation and purification of
        # cyanobacteria" under Rippka's record) is now the baseline's one false accept
        naive_audited=(1949, 1, 0),
        sources_md=(
            *GLUTTON_PINNED,
            # held out until the lead's one run (resolve-15); its misses were read after it
            "Scored once with our resolver by the lead (resolve-15",
            "a dev set from resolve-16 on",
            "--share 2",
            "_digest(doi) % SHARE == 2",
        ),
        pdf=PdfErrata(
            flagged=42,
            title_corrupt=frozenset({"u00991", "u01321", "u01715", "u02397"}),
            # every title whose first words the record lost, and the misaligned Rippka record
            # ("Methods for" before "Isolation and purification of cyanobacteria")
            after_word=frozenset({"u00689", "u00991", "u01321", "u01715", "u02397"}),
            merged=frozenset({"u00689"}),
        ),
    ),
    SetFiles(
        LabelledSet(
            "citation_fresh_test",
            split="fresh_test",
            source="linkedbooks",
            id_prefix="k",
            style_counts={
                "given_surname": (160, 127),
                "initials_first": (759, 542),
                "other": (424, 328),
                "surname_comma_given": (85, 70),
                "surname_initials": (169, 122),
                "title_first": (520, 400),
            },
        ),
        LINKEDBOOKS,
        part="test",
        rebuild_args=("--part", "test"),
        wrong_snapshot=TRAIN_FILE_UNREAD,
        entries=2117,
        seeds=1336,
        cited=1316,
        containers=20,
        held_out=528,
        multi_cited=125,
        no_first_author=346,
        no_published=358,
        citing=TRAIN_BLOCK,
        citing_docs=768,
        seed_title_differs=61,
        built_after=7,
        errata={
            "work_split": 36,  # 1 re-golded from resolve-16's accept, 2 from resolve-19's
            "seed_title_corrupt": 23,  # 17 read from resolve-16's misses
            "venue_as_title": 6,
            "cluster_merges_works": 5,
            "not_a_title": 6,  # 3 read from resolve-16's misses
            "container_as_title": 1,
        },
        errata_regolded=6,
        rule_counts={"titles_run_together": 44, "not_a_title": 16, "venue_as_title": 1},
        audit_rows=138,
        kept=1985,
        kept_gold=1474,
        naive=(1508, 129, 81),
        naive_audited=(1412, 103, 62),
        residue=0,
    ),
    SetFiles(
        LabelledSet(
            "citation_pmc_test3",
            split="pmc_test3",
            source="glutton",
            id_prefix="v",
            style_counts={
                "apa": (1297, 991),
                "name_year": (43, 31),
                "other": (242, 181),
                "vancouver": (1027, 739),
            },
        ),
        GLUTTON,
        part=3,
        rebuild_args=("--share", "3"),
        wrong_snapshot=GLUTTON_FILE_UNREAD,
        entries=2609,
        seeds=1927,
        cited=1927,
        containers=0,
        held_out=667,
        multi_cited=14,
        no_first_author=564,  # the NLM record names none
        no_published=12,
        citing=PMC_SAMPLE,
        citing_docs=1,
        seed_title_differs=352,
        built_after=8,
        errata={"not_one_reference": 16, "seed_title_corrupt": 7, "cluster_merges_works": 2},
        errata_regolded=2,
        rules={},  # no rule fired: only hand errata
        audit_rows=25,
        kept=2586,
        kept_gold=1923,
        # as labelled: three strings citing a work on primary aldosteronism taken for the short
        # seed "Primary aldosteronism" (the baseline's own errors; the labels are right)
        naive=(1940, 3, 2),
        # the two re-golded strings print their record's title: now the baseline's false accepts
        naive_audited=(1921, 5, 2),
        sources_md=(
            *GLUTTON_PINNED,
            # held out until the lead's one run (resolve-16), a dev set since
            "scored ONCE with resolve-16, a dev set from resolve-17 on",
            "--share 3",
            "_digest(doi) % SHARE == 3",
        ),
        pdf=PdfErrata(
            flagged=37,
            title_corrupt=frozenset({"v00671", "v01059", "v01142", "v01459", "v01899", "v02354", "v02562"}),
            # every gold title whose first italic words the record lost; v01899 ("Creation:"
            # after a colon) was found by the sample, the two records of other works by the
            # volume/page check
            after_word=frozenset({"v00671", "v01059", "v01142", "v01459", "v02354", "v02562"}),
            merged=frozenset({"v00445", "v00530"}),
            # v01899's first word is glued to an author's initial
            prints={"v01899": "Port FCreation: Cannulation"},
        ),
    ),
    SetFiles(
        LabelledSet(
            "citation_fresh_test2",
            split="fresh_test2",
            source="linkedbooks",
            id_prefix="m",
            style_counts={
                "given_surname": (196, 142),
                "initials_first": (799, 589),
                "other": (372, 285),
                "surname_comma_given": (114, 87),
                "surname_initials": (150, 113),
                "title_first": (481, 362),
            },
        ),
        LINKEDBOOKS,
        part="test2",
        rebuild_args=("--part", "test2"),
        wrong_snapshot=TRAIN_FILE_UNREAD,
        entries=2112,
        seeds=1408,
        cited=1378,
        containers=30,
        held_out=534,
        multi_cited=108,
        no_first_author=394,
        no_published=360,
        citing=TRAIN_BLOCK,
        citing_docs=766,
        seed_title_differs=55,
        built_after=8,
        errata={
            "work_split": 73,
            "venue_as_title": 32,
            "not_a_title": 17,
            "cluster_merges_works": 14,
            "container_as_title": 8,
            "seed_title_corrupt": 7,
        },
        errata_regolded=24,
        rule_counts={"titles_run_together": 35, "not_a_title": 15},
        audit_rows=201,
        kept=1935,
        kept_gold=1431,
        naive=(1490, 131, 88),
        naive_audited=(1346, 113, 85),
        built_after_sets=("citation_fresh_test",),
        sources_md=(
            "scored once with our resolver by the lead (resolve-16",
            "from resolve-17 on it is a dev set",
        ),
        residue=1,
    ),
    SetFiles(
        LabelledSet(
            "citation_fresh_test3",
            split="fresh_test3",
            source="linkedbooks",
            id_prefix="n",
            style_counts={
                "given_surname": (194, 143),
                "initials_first": (745, 552),
                "other": (403, 315),
                "surname_comma_given": (99, 68),
                "surname_initials": (156, 114),
                "title_first": (523, 408),
            },
        ),
        LINKEDBOOKS,
        part="test3",
        rebuild_args=("--part", "test3"),
        wrong_snapshot=TRAIN_FILE_UNREAD,
        entries=2120,
        seeds=1349,
        cited=1326,
        containers=23,
        held_out=520,
        multi_cited=129,
        no_first_author=346,
        no_published=356,
        citing=TRAIN_BLOCK,
        citing_docs=774,
        seed_title_differs=59,
        built_after=10,
        errata={
            "work_split": 36,
            "venue_as_title": 19,
            "not_a_title": 18,
            "seed_title_corrupt": 13,
            "cluster_merges_works": 7,
            "container_as_title": 5,
        },
        errata_regolded=15,
        rule_counts={"titles_run_together": 31, "not_a_title": 19},
        audit_rows=148,
        kept=1987,
        kept_gold=1490,
        naive=(1550, 83, 50),
        naive_audited=(1445, 67, 45),
        built_after_sets=("citation_fresh_test2", "citation_pmc_test3"),
        sources_md=("scored once with our resolver by the lead (resolve-17",),
        residue=2,
        errata_notes={
            # a back-reference seeded beside its full title: both seeds' entries left out
            "I fondamenti": dict.fromkeys(
                ("n00287", "n01628", "n01630", "n01633", "n01634", "n01635", "n01637"), LEFT_OUT
            ),
        },
    ),
    SetFiles(
        LabelledSet(
            "citation_fresh_test4",
            split="fresh_test4",
            source="linkedbooks",
            id_prefix="q",
            style_counts={
                "given_surname": (170, 118),
                "initials_first": (779, 568),
                "other": (523, 365),
                "surname_comma_given": (119, 84),
                "surname_initials": (151, 118),
                "title_first": (517, 373),
            },
        ),
        LINKEDBOOKS,
        part="test4",
        rebuild_args=("--part", "test4"),
        wrong_snapshot=TRAIN_FILE_UNREAD,
        entries=2259,
        seeds=1360,
        cited=1335,
        containers=25,
        held_out=633,
        multi_cited=128,
        no_first_author=332,
        no_published=362,
        citing=TRAIN_BLOCK,
        citing_docs=774,
        seed_title_differs=50,
        built_after=11,  # every citation_* set on main when it was made
        errata={
            "work_split": 60,
            "venue_as_title": 37,
            "container_as_title": 29,
            "cluster_merges_works": 27,
            "seed_title_corrupt": 15,
            "not_a_title": 1,
        },
        errata_regolded=27,
        rule_counts={"titles_run_together": 53, "not_a_title": 18},
        audit_rows=240,
        kept=2046,
        kept_gold=1476,
        naive=(1555, 149, 71),
        naive_audited=(1419, 97, 57),
        built_after_sets=("citation_fresh_test3",),
        sources_md=("scored once with our resolver by the lead (resolve-18",),
        residue=3,
        errata_notes={
            # a back-reference seeded beside its full title: both seeds' entries left out
            "De Monacis": {"q00188": LEFT_OUT, "q00190": LEFT_OUT},
            # a full print held out beside its seeded back-reference: re-golded to that seed
            "Venezia e la Russia": {"q01800": "w01713", "q01809": "w01713"},
        },
    ),
    SetFiles(
        LabelledSet(
            "citation_pmc_test4",
            split="pmc_test4",
            source="glutton",
            id_prefix="x",
            style_counts={
                "apa": (1292, 970),
                "name_year": (46, 35),
                "other": (261, 189),
                "vancouver": (1003, 746),
            },
        ),
        GLUTTON,
        part=4,
        rebuild_args=("--share", "4"),
        wrong_snapshot=GLUTTON_FILE_UNREAD,
        entries=2602,
        seeds=1921,
        cited=1921,
        containers=0,
        held_out=662,
        multi_cited=16,
        no_first_author=600,  # the NLM record names none
        no_published=10,
        citing=PMC_SAMPLE,
        citing_docs=1,
        seed_title_differs=336,
        built_after=11,
        errata={"not_one_reference": 11, "seed_title_corrupt": 4, "cluster_merges_works": 3},
        errata_regolded=3,
        # "... synthesis of a workshop" ends in a meeting word (a false alarm that leaves one
        # right entry out, as the rule's rows on earlier shares did)
        rules={"x00830": "venue_as_title"},
        title_ends={"x00830": "synthesis of a workshop"},
        audit_rows=19,
        kept=2586,
        kept_gold=1927,
        # as labelled: "Sampling gay men: Random digit dialing ..." taken for the short seed
        # "Sampling gay men" (another work), and Legro's trial for the seed "Polycystic ovary
        # syndrome" (the baseline's own errors; the labels are right)
        naive=(1939, 2, 1),
        # the three re-golded strings print their record's title: now the baseline's false accepts
        naive_audited=(1926, 5, 1),
        sources_md=(
            *GLUTTON_PINNED,
            # held out until the lead's one run (resolve-18), a dev set since
            "scored once with our resolver by the lead (resolve-18",
            "--share 4",
            "_digest(doi) % SHARE == 4",
        ),
        pdf=PdfErrata(
            flagged=30,
            # a title whose first words are in italics lost them in the record
            title_corrupt=frozenset({"x00460", "x01292", "x02395", "x02541"}),
            # the four, and x01890, a record of another work found by the volume/page check and
            # the scan: "Revised 2003 consensus ... related to" before "polycystic ovary syndrome"
            after_word=frozenset({"x00460", "x01292", "x01890", "x02395", "x02541"}),
            # the record's title is printed inside the string, the work the string cites is not
            # the record's (another journal, volume and page)
            merged=frozenset({"x01019", "x01890", "x01918"}),
        ),
    ),
    SetFiles(
        LabelledSet(
            "citation_fresh_test5",
            split="fresh_test5",
            source="linkedbooks",
            id_prefix="r",
            style_counts={
                "given_surname": (177, 123),
                "initials_first": (743, 555),
                "other": (353, 277),
                "surname_comma_given": (97, 77),
                "surname_initials": (152, 125),
                "title_first": (537, 420),
            },
        ),
        LINKEDBOOKS,
        part="test5",
        rebuild_args=("--part", "test5"),
        wrong_snapshot=TRAIN_FILE_UNREAD,
        entries=2059,
        seeds=1373,
        cited=1351,
        containers=22,
        held_out=482,
        multi_cited=112,
        no_first_author=387,
        no_published=360,
        citing=TRAIN_BLOCK,
        citing_docs=756,
        seed_title_differs=36,
        built_after=13,  # every citation_* set on merge30 when it was made
        errata={
            "work_split": 53,
            "venue_as_title": 24,
            "seed_title_corrupt": 19,
            "cluster_merges_works": 13,
            "not_a_title": 13,
            "container_as_title": 4,
        },
        errata_regolded=7,
        rule_counts={"titles_run_together": 43, "not_a_title": 12, "venue_as_title": 1},
        audit_rows=182,
        kept=1884,
        kept_gold=1436,
        naive=(1474, 174, 103),
        naive_audited=(1351, 141, 85),
        built_after_sets=("citation_fresh_test4", "citation_pmc_test4"),
        sources_md=("scored once with our resolver by the lead (resolve-19",),
        residue=4,
        errata_notes={
            # back-references seeded beside their full title, and some held out: every one left out
            "Bassignano": dict.fromkeys(
                ("r01296", "r01297", "r01299", "r01302", "r01310", "r01311", "r01313", "r01315", "r01323"),
                LEFT_OUT,
            ),
            # a full print held out beside its seeded back-reference: re-golded to that seed
            "Simeoni": {"r00302": "w00939"},
        },
    ),
    SetFiles(
        LabelledSet(
            "citation_pmc_test5",
            split="pmc_test5",
            source="glutton",
            id_prefix="y",
            style_counts={
                "apa": (1289, 969),
                "name_year": (46, 36),
                "other": (206, 159),
                "vancouver": (995, 740),
            },
        ),
        GLUTTON,
        part=5,
        rebuild_args=("--share", "5"),
        wrong_snapshot=GLUTTON_FILE_UNREAD,
        entries=2536,
        seeds=1884,
        cited=1884,
        containers=0,
        held_out=632,
        multi_cited=17,
        no_first_author=581,  # the NLM record names none
        no_published=6,
        citing=PMC_SAMPLE,
        citing_docs=1,
        seed_title_differs=321,
        built_after=14,
        errata={"not_one_reference": 17, "seed_title_corrupt": 8},
        errata_regolded=0,
        # "... results of the 2004 Perugia International Antiemetic Consensus Conference" ends in
        # a meeting word (a false alarm that leaves one right entry out, as the rule's rows on
        # earlier shares did)
        rules={"y01894": "venue_as_title"},
        title_ends={"y01894": "Consensus Conference"},
        audit_rows=26,
        kept=2510,
        kept_gold=1884,
        naive=(1904, 0, 0),  # the baseline resolves every entry as labelled
        naive_audited=(1884, 0, 0),
        sources_md=(
            *GLUTTON_PINNED,
            # held out until the lead's one run (resolve-21), a dev set since
            "scored once with our resolver by the lead (resolve-21",
            "--share 5",
            "_digest(doi) % SHARE == 5",
        ),
        pdf=PdfErrata(
            flagged=34,
            # six records lost a title's first words, set in italics (found by the scan); two
            # were cut at the italics and the builder's cut check missed them
            title_corrupt=frozenset(
                {"y00007", "y00169", "y00285", "y01225", "y01412", "y01598", "y01713", "y02163"}
            ),
            after_word=frozenset({"y00007", "y00169", "y00285", "y01412", "y01598", "y02163"}),
            merged=frozenset(),
            # the two cut at the tail, found by the title-end check beside the scan (the scan
            # reads where a title starts, not where it ends): the seed title ends inside a
            # parenthesis the string closes
            cut_in_parenthesis=frozenset({"y01225", "y01713"}),
            flags={"y02214": ["long"]},  # one reference too long: its first is "(in press)"
        ),
    ),
)
