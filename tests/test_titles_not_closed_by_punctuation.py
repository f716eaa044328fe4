"""The resolver on citation styles outside modern ML (issue 19, items 1 and 2).

Real bibliographies of physics, biomedicine and the humanities print titles without a closing
period, glue fields in PDF text, print titles differently, cite earlier versions, and cite
chapters inside edited volumes. Each case below is a real-looking string of one style, with the
decision and the evidence sentence the edge must carry.
"""

from __future__ import annotations

import pytest

from reflong.citations.evidence.title_evidence import trailing_sequel
from reflong.citations.fields.entry_parse import parse_entry
from reflong.citations.resolve import SeedIndex, SeedTitle, Thresholds

MALDACENA = SeedTitle(
    "hep-th/9711200",
    "The Large N Limit of Superconformal Field Theories and Supergravity",
    "1997-11-27",
    "Maldacena",
)
KITAEV = SeedTitle("quant-ph/9707021", "Fault-tolerant quantum computation by anyons", "1997-07-09", "Kitaev")
BEHREND = SeedTitle(
    "hep-th/9908036", "Boundary conditions in rational conformal field theories", "1999-09-06", "Behrend"
)
WIEMAN = SeedTitle("w-wieman", "Using diode lasers for atomic physics", "1991-01-01", "Wieman")
HISAT = SeedTitle(
    "w-hisat", "HISAT: a fast spliced aligner with low memory requirements", "2015-03-09", "Kim"
)
MMLU = SeedTitle(
    "2009.03300", "Measuring Massive Multitask Language Understanding", "2020-09-07", "Hendrycks"
)


def _one(seed: SeedTitle, ref: str, **thresholds):
    matches = SeedIndex([seed], Thresholds(**thresholds)).resolve(ref)
    assert matches, f"no edge at all for {ref!r}"
    return matches[0]


@pytest.mark.parametrize(
    ("seed", "ref", "before", "after"),
    [
        (  # IOP physics: year before the title, abbreviated journal after it
            MALDACENA,
            "[1] Maldacena J M 1998 The large N limit of superconformal field theories and supergravity "
            "Adv. Theor. Math. Phys. 2 231",
            "'1998'",
            "venue word 'Adv'",
        ),
        (
            KITAEV,
            "[7] Kitaev A Y 2003 Fault-tolerant quantum computation by anyons Ann. Phys. 303 2",
            "'2003'",
            "venue word 'Ann'",
        ),
        (  # Vancouver without stops: initials before, journal and numbers after
            HISAT,
            "12. Kim D, Langmead B, Salzberg SL HISAT: a fast spliced aligner with low memory requirements "
            "Nat Methods 2015 12 4 357-60",
            "initials 'SL'",
            "venue word 'Nat'",
        ),
        (  # sentence-case title, then a journal name in capitals (tokenised text)
            BEHREND,
            "R. E. Behrend , P. A. Pearce , V. B. Petkova , J.-B. Zuber , Boundary conditions in rational "
            "conformal field theories Nucl .Phys .B 579 707 -73 ( 2000 ) .",
            "a field boundary",
            "venue word 'Nucl'",
        ),
    ],
)
def test_title_not_closed_by_punctuation_is_accepted_with_its_layout(seed, ref, before, after):
    m = _one(seed, ref)
    assert m.band == "accept", m.reason
    assert "title printed verbatim in the raw string" in m.reason
    assert f"before it {before}" in m.reason and f"after it {after}" in m.reason
    assert m.title_score == 100.0


def test_pdf_glued_period_ends_the_title_field():
    ref = (
        "C. E. Wieman and L. Hollberg , Using diode lasers for atomic physics .Review of scientific "
        "instruments62 1 -20 ( 1991 ) ."
    )
    m = _one(WIEMAN, ref)
    # " .Review" is a field boundary: the field is the title itself, and "instruments62" (glued
    # journal and volume) is no sequel number of the title.
    assert (m.band, m.title_score, m.reason) == ("accept", 100.0, "title field score 100.0")


@pytest.mark.parametrize(
    ("ref", "seed_title"),
    [
        # A longer title that contains the seed's: title words around it, never accepted.
        ("Li H et al 2023 CMMLU: measuring massive multitask language understanding in Chinese arXiv", MMLU.title),
        ("Smith J 2001 Twisted boundary conditions in rational conformal field theories Nucl. Phys. B 600 1", BEHREND.title),
        ("Smith J 2001 Boundary conditions in rational conformal field theories and their applications Nucl. Phys. B 600 1", BEHREND.title),
    ],
)  # fmt: skip
def test_a_longer_title_around_the_seed_title_is_not_accepted(ref, seed_title):
    seed = SeedTitle("2009.03300", seed_title, "1999-01-01", "Zzyzx")
    assert all(m.band != "accept" for m in SeedIndex([seed]).resolve(ref))


@pytest.mark.parametrize(
    ("ref", "seed_title", "accepted"),
    [
        # The journal's volume and pages after an unpunctuated title are no sequel number.
        ("P. Di Francesco , P. Mathieu , Conformal field theory and minimal models Nucl .Phys .B 801 268 -95 ( 2008 ) .",
         "Conformal field theory and minimal models", True),
        ("Lee D 2024 NimFlow 2: rethinking curricula in table understanding Proc. NeurIPS 37 1-12",
         "NimFlow: Rethinking Curricula in Table Understanding", False),
        ("Lee D 2024 NimFlow: rethinking curricula in table understanding Proc. NeurIPS 37 1-12",
         "NimFlow 2: Rethinking Curricula in Table Understanding", False),
        ("Lee D 2024 Stable tabular diffusion for table understanding 2 Proc. NeurIPS",
         "Stable tabular diffusion for table understanding", False),
    ],
)  # fmt: skip
def test_sequel_rule_fires_only_on_numbers_of_the_title(ref, seed_title, accepted):
    m = _one(SeedTitle("w1", seed_title, "2008-01-01", "Lee" if "Lee" in ref else "Di Francesco"), ref)
    assert (m.band == "accept") == accepted, m.reason
    if not accepted:
        assert "sequel/version number differs" in m.reason


def test_trailing_numbers_are_a_sequel_only_when_alone():
    words = ["stable", "diffusion", "2", "nature", "45", "12"]
    assert trailing_sequel(words, [False] * 6, 1) == {"2"}
    words = ["minimal", "models", "801", "268", "95"]
    assert trailing_sequel(words, [False] * 5, 1) == set()


SUTSKEVER = SeedTitle(
    "1409.3215", "Sequence to Sequence Learning with Neural Networks", "2014-09-10", "Sutskever"
)


def test_variant_title_is_accepted_only_with_first_author_and_year():
    ref = "Sutskever I, Vinyals O, Le QV. Sequence to sequence learning using deep neural nets. NIPS 2014."
    m = _one(SUTSKEVER, ref)
    assert m.band == "accept" and "title printed differently" in m.reason and "year 2014 agree" in m.reason
    # No first author: the same title evidence is only a doubt for review.
    m = _one(SUTSKEVER, "Sequence to sequence learning using deep neural nets. NIPS 2014.")
    assert m.band == "review"
    # The first author, but a year far from the seed's: review.
    m = _one(SUTSKEVER, "Sutskever I. Sequence to sequence learning using deep neural nets. Tech. rep. 2021.")
    assert m.band == "review"


def test_earlier_version_within_a_small_window_needs_the_first_author():
    seed = SeedTitle(
        "1605.01234", "Stochastic gradient methods for sparse tensor recovery", "2016-05-04", "Okafor"
    )
    same = "Okafor N and Li W 2014 Stochastic gradient methods for sparse tensor recovery Tech. Rep. TR-13-4"
    m = _one(seed, same)
    assert m.band == "accept" and "2 years before the seed (2016); first author agrees" in m.reason
    # Three years before: tuned out on the dev half (a 1992 technical report and the 1995 journal
    # paper of one title are two works in CORA's raw labels) - unless the entry says it is a report
    # or preprint: the label audit re-golds Brodley's 1992 report to the 1995 paper (resolve-13).
    assert _one(seed, same.replace("2014", "2013").replace(" Tech. Rep. TR-13-4", "")).band == "review"
    assert _one(seed, same.replace("2014", "2013")).band == "accept"
    older = "Okafor N and Li W 2010 Stochastic gradient methods for sparse tensor recovery Tech. Rep. TR-10-4"
    assert _one(seed, older).band == "review"
    other = "Brandt K 2013 Stochastic gradient methods for sparse tensor recovery Tech. Rep. TR-13-4"
    assert _one(seed, other).band != "accept"


HANDBOOK = SeedTitle("w-hb", "Handbook of Natural Language Processing", "2010-01-01", None)


@pytest.mark.parametrize(
    "ref",
    [
        "Smith J. Statistical parsing. In: Indurkhya N, Damerau FJ, editors. Handbook of natural language "
        "processing. 2nd ed. Boca Raton: CRC Press; 2010. p. 333-59.",
        "Smith, John. “Statistical Parsing.” In Handbook of Natural Language Processing, edited by Nitin "
        "Indurkhya and Fred J. Damerau, 333-59. Boca Raton: CRC Press, 2010.",
        "J. Smith, Statistical parsing and its uses in practice, Handbook of Natural Language Processing, CRC Press, 2010.",
    ],
)
def test_a_chapter_is_not_its_edited_volume(ref):
    m = _one(HANDBOOK, ref)
    assert m.band == "review", m.reason
    assert "after 'In'" in m.reason or "another title-like field comes first" in m.reason


def test_the_volume_itself_is_still_accepted():
    ref = (
        "Indurkhya N, Damerau FJ, editors. Handbook of natural language processing. 2nd ed. CRC Press; 2010."
    )
    assert _one(HANDBOOK, ref).band == "accept"


def test_another_volume_of_a_series_is_not_the_series():
    seed = SeedTitle("w-taocp", "The Art of Computer Programming", "1968-01-01", "Knuth")
    ref = "Knuth D E 1998 The Art of Computer Programming, Vol. 3: Sorting and Searching (Reading, MA: Addison-Wesley)"
    m = _one(seed, ref)
    assert m.band == "review" and "names volume 3 of this title" in m.reason
    # A book's own number in a publisher's series is not another volume.
    seed = SeedTitle(
        "w-yang", "Nonlinear waves in integrable and nonintegrable systems", "2010-01-01", "Yang"
    )
    assert (
        _one(
            seed, "Yang, J. Nonlinear waves in integrable and nonintegrable systems, vol. 16 (SIAM, 2010)."
        ).band
        == "accept"
    )


def test_physics_contribution_in_a_book_is_the_book_when_its_author_is_the_seeds():
    """Physics styles cite a contribution as "Author, in: Eds (Eds.), Book" with no chapter title;
    the seed's first author before the "in" says the book is meant."""
    seed = SeedTitle(
        "w-hif", "Heavy Ion Fusion: Exploring the Variety of Nuclear Properties", "1994-01-01", "Yoshida"
    )
    ref = (
        "A. Yoshida, et al., in: A.M. Stefanini, G. Nebbia, S. Lunardi, G. Montagnoli (Eds.), Heavy Ion "
        "Fusion: Exploring the Variety of Nuclear Properties, World Scientific, Singapore, 1994, p. 311."
    )
    assert _one(seed, ref).band == "accept"
    other = ref.replace("A. Yoshida", "K. Hagino")
    m = _one(seed, other)
    assert m.band == "review" and "printed after 'In'" in m.reason


@pytest.mark.parametrize(
    ("seed_title", "ref"),
    [
        # A seed list that kept the "In" of a venue; the paper before it is the entry's work.
        ("In Proceedings of the 20th Annual International Symposium on Computer Architecture",
         "D. A. Wood, S. Chandra. Mechanisms for Cooperative Shared Memory. In Proceedings of the 20th Annual "
         "International Symposium on Computer Architecture, pages 156-168, May 1993."),
        # Title-case paper title, then the proceedings: a venue-like seed without an author.
        ("Proceedings of the 1989 ACM Conference on Human Factors in Computing Systems",
         "Hill, W. How Some Advice Fails. Proceedings of the 1989 ACM Conference on Human Factors in Computing "
         "Systems, pages 85-90, 1989."),
    ],
)  # fmt: skip
def test_an_authorless_venue_is_not_the_paper_printed_in_it(seed_title, ref):
    m = _one(SeedTitle("w-venue", seed_title, "1989-01-01", None), ref)
    assert m.band == "review", m.reason


def test_another_numbered_meeting_is_another_work():
    seed = SeedTitle(
        "w-popl",
        "Proceedings of the 13th ACM Symposium on Principles of Programming Languages",
        "1986-01-01",
        "Felleisen",
    )
    ref = "Felleisen, M. Proceedings of the 15th Annual Symposium on Principles of Programming Languages (1988)."
    m = _one(seed, ref)
    assert m.band != "accept" and "sequel/version number differs (13th, 15th)" in m.reason


@pytest.mark.parametrize(
    ("raw", "title"),
    [
        # IOP physics: authors, year, title, journal without a period between title and journal.
        ("[7] Kitaev A Y 2003 Fault-tolerant quantum computation by anyons Ann. Phys. 303 2",
         "Fault-tolerant quantum computation by anyons"),
        # PDF glue: the period of the next field stuck to its first word.
        ("Smolyaninov, I.I.: Photoluminescence from a gold nanotip in an accelerated reference frame .Phys .Lett .A 372 ,7043 -7045( 2008)",
         "Photoluminescence from a gold nanotip in an accelerated reference frame"),
        # IEEE/physics: quoted title.
        ('R. S. Kennedy, N. E. Lane, and M. G. Lilienthal, "Simulator sickness questionnaire: An enhanced method for quantifying simulator sickness," Int. J. Aviat. Psychol., 1993.',
         "Simulator sickness questionnaire: An enhanced method for quantifying simulator sickness"),
        ("M.W. Edwards, \u2018Homer and Oral Tradition: The Type-Scene\u2019, Oral Tradition 7 (1992), pp. 284-330.",
         "Homer and Oral Tradition: The Type-Scene"),
        # Comma-separated author list, then the title.
        ("F. G\u00f6hmann, A. Kl\u00fcmper, and A. Seel, Integral representations for correlation functions of the XXZ chain at finite temperature ,J .Phys .A 37 ( 2004),7625 .",
         "Integral representations for correlation functions of the XXZ chain at finite temperature"),
        ("Turing, Alan, Computing Machinery and Intelligence, Mind 59, pp 433\u2013460 (1950)",
         "Computing Machinery and Intelligence"),
        ("S.E. Fahlman and C. Lebiere, The cascade-correlation learning architecture, Advances in Neural Information Processing Systems Vol.2, 1990.",
         "The cascade-correlation learning architecture"),
        # Author block closed by a colon (biomedicine, physics).
        ("Duester G: Families of retinoid dehydrogenases regulating vitamin A. Eur J Biochem 267:4315-4324, 2000.",
         "Families of retinoid dehydrogenases regulating vitamin A"),
        # Title-case book title after "Last, First I." and a year before 1900.
        ("Foulke, Roy A. The Commercial Paper Market. New York: The Bankers Publishing Company, 1931.",
         "The Commercial Paper Market"),
        ("Ament, Wilhelm. 1899. Die Entwicklung von Sprechen und Denken beim Kinde. Leipzig: Ernst Wunderlich.",
         "Die Entwicklung von Sprechen und Denken beim Kinde"),
        # Unpunctuated title, then the year and the journal.
        ("Wu, Y., Takatsuka, M. Spherical self-organizing map using efficient indexed geodesic data structure 2006 Neural Networks 900--910",
         "Spherical self-organizing map using efficient indexed geodesic data structure"),
    ],
)  # fmt: skip
def test_entry_parser_finds_the_title_in_other_styles(raw, title):
    assert parse_entry(raw).title == title


@pytest.mark.parametrize(
    ("ref", "seed_title", "accepted"),
    [
        # A run after "X:" is the subtitle of a longer title; a run before ":" its head.
        ("Smith J 2021 Beyond RGB: very high resolution images CoRR 2021", "Very high resolution images", False),
        ("Smith J 2021 Alignbench: benchmarking large language models: an xml format Proc. ACL", "Alignbench: benchmarking large language models", False),
        # A title in capitals: "FOR", "IN" are no initials and no venue words.
        ("W. Gong. 2015. SIMPLIFYING GRAPH FOR THE VISUAL VOCABULARIES FOR LEARNING FOR LANGUAGE MODELS. In J. Chem.", "Learning for language models", False),
        # A journal that is an ordinary word counts with its volume number; "Review" alone does not.
        ("LeCun Y, Bengio Y, Hinton G 2015 Deep learning for vision and speech Nature 521 436", "Deep learning for vision and speech", True),
        ("Smith J 2015 Deep Learning for Vision and Speech Review of the State of the Art", "Deep Learning for Vision and Speech", False),
        # An author block closed by a colon after initials; a year before a colon.
        ("Corrigan P: On the Stigma of Mental Illness Washington, D.C.: American Psychological Association 2005.", "On the Stigma of Mental Illness", True),
    ],
)  # fmt: skip
def test_colons_and_capitals_in_the_layout(ref, seed_title, accepted):
    seed = SeedTitle("w-lay", seed_title, "2005-01-01", "Zzyzx")
    assert any(m.band == "accept" for m in SeedIndex([seed]).resolve(ref)) == accepted


def test_an_ordinal_word_counts_only_against_another_ordinal():
    seed = SeedTitle(
        "w-rte", "The fifth PASCAL recognizing textual entailment challenge", "2009-01-01", "Bentivogli"
    )
    typo = "Bentivogli L 2009 The fitfh PASCAL recognizing textual entailment challenge Proc. TAC"
    assert _one(seed, typo).band == "accept"
    other = "Bentivogli L 2009 The sixth PASCAL recognizing textual entailment challenge Proc. TAC"
    m = _one(seed, other)
    assert m.band != "accept" and "sequel/version number differs (fifth, sixth)" in m.reason


def test_the_entrys_own_title_wins_over_the_volume_printed_after_it():
    # Both titles are printed verbatim and both seeds' first authors are named (the chapter's
    # author edited the volume too): the entry's own title comes first, its container after it.
    chapter = SeedTitle("w-tone", "Tone Cases in Bantu Group B.40", "1999-01-01", "Blanchon")
    volume = SeedTitle("a-volume", "Issues in Bantu Tonology", "1999-01-01", "Blanchon")
    # No year before the "In" and a Title Case chapter: nothing marks the chapter as prose, so
    # both titles reach accept and only the order they are printed in settles the tie.
    ref = (
        "Blanchon, Jean. ‘Tone Cases’ in Bantu Group B.40. In Jean Blanchon & Denis Creissels, "
        "Issues in Bantu Tonology, 37-82. Cologne: Rüdiger Köppe Verlag."
    )
    matches = SeedIndex([chapter, volume], Thresholds()).resolve(ref)
    assert [(m.seed_id, m.band) for m in matches] == [("w-tone", "accept"), ("a-volume", "review")]
    assert matches[1].reason.startswith("also matches w-tone better")


def test_a_title_case_chapter_after_the_year_is_not_its_volume():
    # The editor wrote a chapter of the volume; the chapter title is in Title Case, so no
    # lower-case prose word shows it, but words after the year before "In" are a title.
    volume = SeedTitle(
        "a-culture", "The Explanation of Culture Change: Models in Prehistory", "1973-01-01", "Renfrew"
    )
    ref = (
        "Renfrew, Colin. 1973 Monuments, Mobilization and Social Organization in Neolithic Wessex. In The "
        "Explanation of Culture Change: Models in Prehistory, edited by Colin Renfrew, pp. 539-559. "
        "University of Pittsburgh Press, Pittsburgh, Pennsylvania."
    )
    m = _one(volume, ref)
    assert m.band == "review" and "after 'In'" in m.reason, m.reason
    # The physics form "Author 2010 in: Eds, Book" (no chapter title) still cites the book.
    ref = "Renfrew C 1973 in The Explanation of Culture Change: Models in Prehistory (Pittsburgh: UPP)"
    assert _one(volume, ref).band == "accept"
    # Nor when editors follow the volume: the volume's own words after the "in" are no chapter.
    ref = (
        "Renfrew, C. 1973, in Conf. Ser. 101, The Explanation of Culture Change: Models in Prehistory, ed. J. Smith "
        "& K. Jones (Pittsburgh: UPP), 539-559"
    )
    assert _one(volume, ref).band == "accept"


def test_an_author_block_closed_by_a_colon_is_not_a_title_head():
    seed = SeedTitle("w-dignaga", "On Dignāga’s Names", "2017-01-01", "Huanhuan")
    ref = (
        "He Huanhuan: On Dignāga’s Names. Journal of the International College for Postgraduate "
        "Buddhist Studies, Vol. 21 March, 2017, 214-254"
    )
    m = _one(seed, ref)
    assert m.band == "accept" and "author block closed by a colon" in m.reason, m.reason
    # Without the seed's first author before it the colon still opens a subtitle.
    assert _one(seed, ref.replace("He Huanhuan", "Buddhist Logic")).band != "accept"
    # After an author block closed by a period, the words before a colon are the title's head.
    utgoff = SeedTitle("w-id3", "An incremental ID3", "1988-01-01", "Utgoff")
    m = _one(utgoff, "P. Utgoff. ID5: An Incremental ID3. In Proc. 5th Intl. Conf. Mach. Learning, 1988.")
    assert "author block" not in m.reason, m.reason


def test_a_title_is_scored_within_its_own_field_when_the_seed_is_longer():
    # The seed is longer than the title as printed, so the fuzzy alignment runs on past the
    # period into "In Touretzky ...": the title's own field must be scored, or the shorter
    # sibling title ("recurrent ...", a year later) wins the variant rule.
    own = SeedTitle("w-cc", "The cascade-correlation learning architecture", "1990-01-01", "Fahlman")
    sibling = SeedTitle("w-rcc", "The recurrent cascade-correlation architecture", "1991-01-01", "Fahlman")
    ref = (
        "Fahlman, S. E. and Lebiere, C. (1990). The cascade-correlation architecture. In Touretzky, "
        "D. S., editor, Advances in Neural Information Processing Structures 2, pages 524 532. Morgan Kaufmann."
    )
    matches = SeedIndex([own, sibling], Thresholds()).resolve(ref)
    assert (matches[0].seed_id, matches[0].band) == ("w-cc", "accept"), matches[0]
    assert matches[0].title_score > 88 and matches[1].band != "accept"


def test_a_hyphenated_seed_word_printed_as_two_words_still_finds_the_seed():
    # "cascade-correlation" normalises to one word; printed "cascade correlation" it is two, and
    # with "learning" left out too, the seed lost two of its three key words in the candidate
    # look-up and the entry had no edge at all (the variant rule never saw it).
    seed = SeedTitle("w-cc", "The cascade-correlation learning architecture", "1990-01-01", "Fahlman")
    ref = (
        "Fahlman, S. E., & Lebiere, C. (1990). The cascade correlation architecture. "
        "Advances in Neural Information Processing Systems, 2, 524-532."
    )
    m = _one(seed, ref)
    assert m.band == "accept" and "title printed differently" in m.reason, m


def test_a_hyphenated_word_counts_as_two_for_the_variant_rule():
    # "Instance-based learning algorithms" normalises to three words, but is as specific as a
    # four-word title: printed "... Methods" with the first author and year it is the same work.
    seed = SeedTitle("w-ibl", "Instance-based learning algorithms", "1991-01-01", "Aha")
    ref = 'Aha, D. W., Kibler, D., Albert, M. K. (1991) "Instance-Based Learning Methods," Machine Learning, 6, 37-66.'
    m = _one(seed, ref)
    assert m.band == "accept" and "title printed differently" in m.reason, m.reason
    # A three-word title without a hyphen still needs its words as printed.
    seed = SeedTitle("w-mdt", "Multivariate decision trees", "1995-01-01", "Brodley")
    assert (
        _one(seed, "C. Brodley and P. Utgoff. Multivariate trees. Machine Learning, 19, 1995.").band
        == "review"
    )
    # A range of years is not a hyphenated word: the next survey of the series is another work.
    seed = SeedTitle("w-hs", "Homer studies 1971-1977", "1978-01-01", "Holoka")
    ref = "J. P. Holoka, ‘Homer studies 1978-1983. II’, CW 84 (1990-1991), pp. 89-156."
    assert _one(seed, ref).band != "accept"


def test_a_glued_next_entry_is_not_read_as_the_container_of_the_previous_one():
    # PDF text merged two entries of a list into one string: the "In" belongs to the first entry,
    # which closed with its pages and DOI before the second entry's authors, year and title. Found
    # by the demo world (2405.00836, reference 11): resolve-8 sent this true citation to review.
    seed = SeedTitle("2403.00494", "ValeMix: Structured Priors for Question Answering", "2024-03-01", "Varga")
    ref = (
        "Suzuki, F., and Hansen, A. (2023). On the Attention of Robust Rankers in Image Captioning. In "
        "Proceedings of COLING, pages 539-548. doi:10.18653/v1/2023.acl-main.287 Varga, J., Wagner, S., "
        "Wang, T., and Costa, I. (2024). ValeMix: Structured Priors for Question Answering. "
        "Proceedings of SIGIR."
    )
    (match,) = SeedIndex([seed], Thresholds()).resolve(ref)
    assert (match.seed_id, match.band, match.score) == ("2403.00494", "accept", 100.0)
    # A real chapter, its container's editors right after the "In", is still kept from accept.
    volume = SeedTitle(
        "c-ml", "Machine Learning: An Artificial Intelligence Approach", "1986-01-01", "Michalski"
    )
    chapter = (
        "Utgoff, P. E. 1986. Shift of bias of inductive concept learning. In Michalski, R.S.; Carbonell, "
        "J.G.; and T.M., Mitchell, 1986, Machine Learning: An Artificial Intelligence Approach, Vol II. "
        "Morgan Kaufmann Publishers. 107-148."
    )
    assert [m.band for m in SeedIndex([volume], Thresholds()).resolve(chapter)] == ["review"]
