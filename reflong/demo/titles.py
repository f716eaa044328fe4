"""Titles shaped like real 2024 cs.CL/cs.LG/cs.AI arXiv titles, for worlds of arXiv's size.

Why not the demo's title grammar (``text.plain_title``): its ten patterns over two dozen words per
slot give a few hundred thousand titles that differ by one word ("Measuring Robust Memory with
Legal Contracts" / "Measuring Robust Routing with Legal Contracts"). In a world of 7,000 seeds and
90,000 papers every reference then looks like dozens of seeds, and the resolver drowns in
near-misses real bibliographies do not have (measured: ~280 review and ~860 reject edges a paper,
against a handful on the real corpus). Real titles share their frequent words ("Large Language
Models" is in about a fifth of 2024's cs.CL titles) but combine them with rarer ones, are 4-20
words long, and a third carry a system name before a colon.

This model keeps those traits: several hundred terms a slot drawn with a Zipf-like skew (so some
words are everywhere and most are rare), twenty-odd templates of different shapes, concrete focus
phrases, invented system names from syllables (tens of thousands), and sequel numbers now and then.
Short question and survey titles mostly name a setting, so exact repeats stay rare (0.34% of a
90,000-title world: a repeated title whose twin is outside the seed set is a trap the resolver
must survive, as on arXiv). ``bench/titles.py`` compares it with real titles (the corpus' seeds and
its papers' bibliographies): median words 8 (real 8), colon share 0.45 (0.43), title pairs scoring
at least 75 per million 77 (real 248; the demo grammar 2,623), at least 60: 3,364 (1,595; 35,821).

Draws use only ``r()`` (a ``random.random``): the catalog generator's streams stay cheap and a
title depends only on the draws it makes.
"""

from __future__ import annotations

from collections.abc import Callable

from reflong.demo.text import _words

Draw = Callable[[], float]

# Each list is ordered from common to rare: ``_skewed`` picks early entries far more often.
MODELS = _words(
    """
    Large Language Models | LLMs | Language Models | Transformers | Vision-Language Models |
    Diffusion Models | Neural Networks | Multimodal Large Language Models | Graph Neural Networks |
    Foundation Models | Small Language Models | Code LLMs | Retrieval-Augmented Generation |
    Mixture-of-Experts Models | State Space Models | Reward Models | LLM Agents | Vision Transformers |
    Autoregressive Models | Text-to-Image Models | Speech Models | Recommender Systems |
    Embedding Models | Instruction-Tuned Models | Reasoning Models | Encoder-Decoder Models |
    Recurrent Networks | Spiking Neural Networks | Kolmogorov-Arnold Networks | Variational Autoencoders |
    Normalizing Flows | Energy-Based Models | Gaussian Processes | Decision Transformers |
    Neural Operators | Physics-Informed Neural Networks | Bayesian Neural Networks | Dense Retrievers |
    Cross-Encoders | Sparse Autoencoders | World Models | Generative Adversarial Networks |
    Masked Language Models | Multilingual Encoders | Tabular Foundation Models | Protein Language Models |
    Video Diffusion Models | Audio Language Models | Web Agents | Tool-Augmented LLMs
    """,
    sep="|",
)
METHODS = _words(
    """
    Reinforcement Learning | In-Context Learning | Fine-Tuning | Instruction Tuning | Prompting |
    Chain-of-Thought | Preference Optimization | Knowledge Distillation | Contrastive Learning |
    Quantization | Pruning | Low-Rank Adaptation | Speculative Decoding | Self-Supervised Learning |
    Curriculum Learning | Federated Learning | Continual Learning | Meta-Learning | Active Learning |
    Model Merging | Data Augmentation | Self-Training | Direct Preference Optimization |
    Parameter-Efficient Fine-Tuning | Token Pruning | KV Cache Compression | Test-Time Scaling |
    Activation Steering | Representation Engineering | Monte Carlo Tree Search | Beam Search |
    Synthetic Data | Weak Supervision | Multi-Task Learning | Transfer Learning | Domain Adaptation |
    Adversarial Training | Label Smoothing | Gradient Clipping | Early Exiting | Layer Dropping |
    Mixture of Depths | Sparse Attention | Linear Attention | Rotary Embeddings | Position Interpolation |
    Tokenizer Adaptation | Vocabulary Expansion | Self-Reflection | Self-Correction | Debate |
    Retrieval | Reranking | Query Rewriting | Memory Replay | Dataset Distillation | Model Editing |
    Unlearning | Watermarking | Red Teaming | Jailbreaking | Conformal Prediction | Calibration |
    Uncertainty Estimation | Causal Inference | Counterfactual Augmentation | Optimal Transport |
    Score Matching | Flow Matching | Consistency Distillation | Guidance | Hypernetworks |
    Neural Architecture Search | Bayesian Optimization | Evolutionary Search | Program Synthesis |
    Symbolic Regression | Graph Rewiring | Message Passing | Spectral Clustering | Hashing |
    Product Quantization | Knowledge Graph Embedding | Entity Linking | Coreference Resolution |
    Constrained Decoding | Length Control | Reward Shaping | Inverse Reinforcement Learning |
    Offline Reinforcement Learning | Imitation Learning | Policy Gradients | Value Decomposition
    """,
    sep="|",
)
TASKS = _words(
    """
    Mathematical Reasoning | Question Answering | Code Generation | Machine Translation |
    Summarization | Long-Context Understanding | Information Retrieval | Text Classification |
    Named Entity Recognition | Sentiment Analysis | Hallucination Detection | Fact Checking |
    Dialogue Generation | Open-Domain Question Answering | Multi-Hop Reasoning | Commonsense Reasoning |
    Visual Question Answering | Image Captioning | Speech Recognition | Text-to-SQL |
    Relation Extraction | Event Extraction | Semantic Parsing | Table Question Answering |
    Document Understanding | Story Generation | Paraphrase Generation | Grammatical Error Correction |
    Hate Speech Detection | Misinformation Detection | Stance Detection | Argument Mining |
    Citation Recommendation | Scientific Claim Verification | Clinical Note Summarization |
    Medical Question Answering | Legal Judgment Prediction | Financial Forecasting | Time Series Forecasting |
    Anomaly Detection | Link Prediction | Node Classification | Molecule Generation | Protein Design |
    Drug Discovery | Theorem Proving | Automated Planning | Robot Manipulation | Autonomous Driving |
    Video Understanding | Audio Captioning | Keyword Spotting | Speaker Verification | Emotion Recognition |
    Text Simplification | Data-to-Text Generation | Query Understanding | Product Search |
    Conversational Recommendation | Task-Oriented Dialogue | Intent Detection | Slot Filling |
    Cross-Lingual Transfer | Code Repair | Vulnerability Detection | Log Parsing | Test Generation |
    Essay Scoring | Readability Assessment | Keyphrase Extraction | Topic Modeling | Authorship Attribution |
    Machine-Generated Text Detection | Bias Mitigation | Toxicity Detection | Privacy Auditing |
    Tabular Reasoning | Chart Understanding | Map Reading | Geolocation | Weather Prediction |
    Traffic Forecasting | Crop Yield Prediction | Materials Discovery | Circuit Design | Chip Placement
    """,
    sep="|",
)
OBJECTS = _words(
    """
    Low-Resource Languages | Long Documents | Scientific Papers | Clinical Notes | Legal Documents |
    Social Media | Code Repositories | Knowledge Graphs | Tabular Data | Multilingual Settings |
    Edge Devices | Noisy Labels | Streaming Data | Electronic Health Records | Financial Reports |
    Student Essays | News Articles | Customer Reviews | Patents | Mathematical Proofs | Chemical Reactions |
    Source Code | Speech Transcripts | Satellite Imagery | Medical Images | Video Streams | Dialogues |
    Web Pages | Wikipedia | Textbooks | Exam Questions | Spreadsheets | Slide Decks | Meeting Transcripts |
    African Languages | Indic Languages | Arabic Dialects | Sign Language | Historical Texts | Poetry |
    Court Rulings | Privacy Policies | Bug Reports | Pull Requests | API Documentation | Recipes |
    Scientific Figures | Molecular Graphs | Protein Sequences | Genomic Data | Sensor Data | Point Clouds
    """,
    sep="|",
)
QUALITIES = _words(
    """
    Efficient | Robust | Scalable | Faithful | Interpretable | Multilingual | Multimodal | Adaptive |
    Reliable | Lightweight | Controllable | Fair | Private | Safe | Calibrated | Data-Efficient |
    Training-Free | Zero-Shot | Few-Shot | Unsupervised | Hierarchical | Compositional | Grounded |
    Personalized | Explainable | Sparse | Dynamic | Fine-Grained | Unified | Generalizable |
    Memory-Efficient | Cost-Effective | Verifiable | Trustworthy | Decentralized | Asynchronous |
    Structured | Causal | Contrastive | Geometric | Probabilistic | Differentiable | Modular |
    Incremental | Retrieval-Enhanced | Knowledge-Aware | Uncertainty-Aware | Context-Aware |
    Privacy-Preserving | Hardware-Aware | Domain-Specific | Open-Vocabulary | Long-Horizon | Real-Time
    """,
    sep="|",
)
PROPERTIES = _words(
    """
    Robustness | Generalization | Faithfulness | Calibration | Efficiency | Scalability | Safety |
    Alignment | Bias | Fairness | Memorization | Hallucinations | Interpretability | Sample Complexity |
    Convergence | Expressivity | Emergent Abilities | Sycophancy | Consistency | Reproducibility |
    Data Contamination | Tokenization Effects | Position Bias | Length Generalization | Compositionality |
    Privacy Leakage | Uncertainty | Overconfidence | Shortcut Learning | Spurious Correlations |
    Scaling Behavior | Training Dynamics | Loss Landscapes | Feature Learning | Grokking | Superposition
    """,
    sep="|",
)
GERUNDS = _words(
    """
    Improving | Evaluating | Understanding | Scaling | Enhancing | Benchmarking | Rethinking |
    Mitigating | Detecting | Measuring | Learning | Leveraging | Exploring | Revisiting | Aligning |
    Boosting | Accelerating | Compressing | Explaining | Probing | Steering | Unlocking | Bridging |
    Quantifying | Characterizing | Disentangling | Grounding | Distilling | Adapting | Training |
    Uncovering | Harnessing | Decoding | Towards Understanding | Taming | Demystifying | Stress-Testing
    """,
    sep="|",
)
NOUN_HEADS = _words(
    """
    A Benchmark | A Survey | A Framework | A Dataset | An Empirical Study | A Case Study | A Toolkit |
    A Unified View | A Theoretical Analysis | A Large-Scale Study | A Systematic Review | A Position Paper |
    An Evaluation Suite | A Simple Baseline | A Closer Look | Lessons Learned | A New Perspective
    """,
    sep="|",
)
# Specific content words: real titles name a concrete thing ("Citation-Informed Transformers",
# "Perspective-Free Counting"), which is what keeps most title pairs apart.
FOCUS_MODIFIERS = _words(
    """
    citation-informed perspective-free cross-document token-level span-based entity-centric
    sentence-level passage-level query-focused aspect-based event-centric graph-based rule-based
    prototype-based cluster-based attention-based kernel-based tree-structured syntax-aware
    morphology-aware phoneme-level character-level byte-level patch-based region-aware layout-aware
    table-aware schema-guided ontology-driven lexicon-based template-based draft-based plan-based
    sketch-guided outline-guided evidence-based claim-level argument-level discourse-level
    dialogue-level turn-level speaker-aware emotion-aware persona-based role-playing chart-based
    map-based trajectory-level step-level process-supervised outcome-supervised verifier-guided
    critic-guided tool-integrated search-based sampling-based diffusion-based flow-based
    energy-based score-based mask-based prompt-based adapter-based prefix-based retrieval-based
    memory-based cache-aware latency-aware energy-aware budget-aware cost-sensitive risk-sensitive
    length-controlled style-controlled topic-controlled fact-aware time-aware location-aware
    culture-aware dialect-aware code-switched cross-lingual cross-modal cross-domain cross-task
    open-world closed-book open-book multi-hop multi-turn multi-agent multi-view multi-scale
    multi-granular multi-document multi-aspect multi-objective multi-resolution single-cell
    subword-level word-level document-level corpus-level population-level instance-level
    """
)
FOCUS_NOUNS = _words(
    """
    Counting Captioning Grounding Parsing Tagging Segmentation Retrieval Ranking Matching Alignment
    Clustering Editing Rewriting Planning Routing Scheduling Caching Sharding Batching Indexing
    Annotation Labeling Filtering Deduplication Mixing Sampling Weighting Pooling Fusion Gating
    Masking Tokenization Normalization Regularization Initialization Warmup Decay Merging Stitching
    Probing Tracing Attribution Verification Critique Feedback Reflection Rationales Explanations
    Summaries Questions Hints Exemplars Demonstrations Instructions Rubrics Preferences Rewards
    Trajectories Rollouts Episodes Skills Subgoals Options Programs Proofs Lemmas Sketches Drafts
    Outlines Citations Footnotes Headlines Abstracts Captions Transcripts Subtitles Lyrics Recipes
    Menus Invoices Receipts Contracts Statutes Prescriptions Diagnoses Triage Radiology Pathology
    Dermatology Oncology Genomics Proteomics Metabolomics Epidemiology Seismology Oceanography
    Astronomy Cosmology Climatology Hydrology Agronomy Forestry Fisheries Logistics Procurement
    Auctions Pricing Lending Insurance Auditing Taxation Voting Polling Census Migration Tourism
    """
)
_SYLLABLES = _words(
    """
    al an ar ba be bi bo ca ce ci co da de di do el em en ep fa fe fi ga ge gi go ha he hi
    ka ke ki ko la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po qu ra re ri ro ru
    sa se si so su ta te ti to tu va ve vi vo xa ya yo za ze zo
    """
)
_NAME_TAILS = _words(
    """
    LM Bench Net GPT Former Agent Coder RAG Eval Tune Mix Flow Gen QA Mind Scope Math Med Law Chat
    Vision Seg Graph Code Instruct Align Prompt Search Edit Guard Judge
    """
)
_SEQUELS = ("2", "3", "V2", "2.0", "1.5", "-XL", "++", "-Pro", "-Lite", "-R1")


def _skewed(r: Draw, seq: tuple[str, ...], power: float = 1.4) -> str:
    """Pick with a Zipf-like skew: ``r() ** power`` puts most mass on the head of the list."""
    return seq[int((r() ** power) * len(seq))]


def system_name(r: Draw) -> str:
    """An invented name: syllables (``Velora``), an acronym (``KRAG``) or syllables + a tail
    (``MiraBench``), sometimes with a sequel mark (``TalonLM-2``)."""
    x = r()
    if x < 0.2:
        letters = "ABCDEFGHIKLMNOPRSTUVW"
        name = "".join(letters[int(r() * len(letters))] for _ in range(3 + int(r() * 3)))
    else:
        n = 2 + int(r() * 2)
        stem = "".join(_SYLLABLES[int(r() * len(_SYLLABLES))] for _ in range(n))
        stem = stem[:1].upper() + stem[1:]
        name = stem + (_NAME_TAILS[int(r() * len(_NAME_TAILS))] if x < 0.65 else "")
    if r() < 0.08:
        seq = _SEQUELS[int(r() * len(_SEQUELS))]
        name += seq if seq[0] in "-+" else ("-" + seq if r() < 0.5 else " " + seq)
    return name


def _focus(r: Draw) -> str:
    word = FOCUS_MODIFIERS[int(r() * len(FOCUS_MODIFIERS))]
    return f"{'-'.join(p[:1].upper() + p[1:] for p in word.split('-'))} {FOCUS_NOUNS[int(r() * len(FOCUS_NOUNS))]}"


def _phrase(r: Draw) -> str:
    """A subject phrase: a model family, a method, or a method applied to a model family; about
    half the time a concrete focus ("Span-Based Retrieval") instead of a method."""
    if r() < 0.45:
        return _focus(r) if r() < 0.6 else f"{_focus(r)} for {_skewed(r, MODELS)}"
    x = r()
    if x < 0.3:
        return _skewed(r, MODELS)
    if x < 0.5:
        return f"{_skewed(r, QUALITIES)} {_skewed(r, METHODS)}"
    if x < 0.7:
        return f"{_skewed(r, METHODS)} for {_skewed(r, MODELS)}"
    if x < 0.85:
        return f"{_skewed(r, QUALITIES)} {_skewed(r, MODELS)}"
    return _skewed(r, METHODS)


def _where(r: Draw) -> str:
    if r() < 0.25:
        return _focus(r)
    return _skewed(r, TASKS) if r() < 0.65 else _skewed(r, OBJECTS)


_TEMPLATES: tuple[Callable[[Draw], str], ...] = (
    lambda r: f"{_phrase(r)} for {_where(r)}",
    lambda r: f"{_skewed(r, GERUNDS)} {_phrase(r)} for {_where(r)}",
    lambda r: f"{_skewed(r, GERUNDS)} {_phrase(r)} with {_skewed(r, METHODS)}",
    lambda r: f"{_skewed(r, GERUNDS)} the {_skewed(r, PROPERTIES)} of {_phrase(r)}",
    lambda r: f"On the {_skewed(r, PROPERTIES)} of {_phrase(r)}{_about(r, ' for ')}",
    lambda r: f"On the {_skewed(r, PROPERTIES)} of {_phrase(r)} in {_where(r)}",
    lambda r: f"Towards {_skewed(r, QUALITIES)} {_where(r)} with {_phrase(r)}",
    lambda r: f"{_phrase(r)} via {_skewed(r, METHODS)}",
    lambda r: f"{_skewed(r, METHODS)} Improves {_skewed(r, PROPERTIES)} in {_phrase(r)}",
    lambda r: f"Can {_skewed(r, MODELS)} {_verb(r)}{_about(r)}?",
    lambda r: f"Do {_skewed(r, MODELS)} Really {_verb(r)}{_about(r)}?",
    lambda r: f"When Does {_skewed(r, METHODS)} Help {_skewed(r, MODELS)} on {_where(r)}?",
    lambda r: f"{_phrase(r)}: {_skewed(r, NOUN_HEADS)} on {_where(r)}",
    lambda r: f"{_skewed(r, NOUN_HEADS)} of {_phrase(r)} for {_where(r)}",
    lambda r: f"A Survey on {_phrase(r)}{_about(r, ' for ')}",
    lambda r: f"Learning to {_verb(r)} with {_phrase(r)}{_about(r)}",
    lambda r: f"{_skewed(r, PROPERTIES)} in {_phrase(r)}: Evidence from {_where(r)}",
    lambda r: f"What Makes {_phrase(r)} {_skewed(r, QUALITIES)}{_about(r)}?",
    lambda r: f"{_skewed(r, QUALITIES)} and {_skewed(r, QUALITIES)} {_where(r)} through {_phrase(r)}",
    lambda r: f"Beyond {_skewed(r, METHODS)}: {_phrase(r)} for {_where(r)}",
)
_NAMED: tuple[Callable[[Draw, str], str], ...] = (
    lambda r, n: f"{n}: {_phrase(r)} for {_where(r)}",
    lambda r, n: f"{n}: {_skewed(r, NOUN_HEADS)} for {_skewed(r, QUALITIES)} {_where(r)}",
    lambda r, n: f"{n}: {_skewed(r, GERUNDS)} {_phrase(r)} with {_skewed(r, METHODS)}",
    lambda r, n: f"{n}: {_skewed(r, QUALITIES)} {_where(r)} via {_phrase(r)}",
    lambda r, n: f"{n}: Towards {_skewed(r, QUALITIES)} {_phrase(r)}",
    lambda r, n: f"{n}: Open {_skewed(r, MODELS)} for {_where(r)}",
    lambda r, n: f"{n}: {_skewed(r, PROPERTIES)}-Aware {_phrase(r)}",
)
_VERBS = _words(
    """
    Reason | Plan | Self-Correct | Follow Instructions | Count | Understand Tables | Use Tools |
    Detect Their Own Errors | Generalize Compositionally | Keep Secrets | Read Charts | Translate Idioms |
    Solve Olympiad Problems | Write Proofs | Predict Their Own Accuracy | Explain Their Answers |
    Retrieve | Summarize Long Documents | Forget | Learn from Feedback | Simulate Users | Grade Essays
    """,
    sep="|",
)


def _about(r: Draw, joint: str = " in ") -> str:
    """Mostly a concrete setting after a short question or survey title: bare ones ("Can LLMs
    Reason?") are few, so a world of 90,000 papers does not repeat them dozens of times."""
    return f"{joint}{_where(r)}" if r() < 0.95 else ""


def _verb(r: Draw) -> str:
    return _skewed(r, _VERBS)


def realistic_title(r: Draw) -> str:
    """One title: a third with a system name before a colon, the rest plain templates."""
    if r() < 0.33:
        name = system_name(r)
        if r() < 0.01:  # rare in real listings, and all alike but for the name
            return f"{name} Technical Report"
        return _NAMED[int(r() * len(_NAMED))](r, name)
    return _TEMPLATES[int(r() * len(_TEMPLATES))](r)
