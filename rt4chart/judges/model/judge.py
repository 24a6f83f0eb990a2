"""Judges that read with a model inside the RT4CHART steps.

`ModelJudge`: claims from the rule-based decomposition; each (claim, window) pair is scored by a checkpoint
(windows longer than the model's maximum length are split into pieces that fit, never cut); the window's
verdict is the strongest piece's; the global step scores the claim against the context sentences that match
it best across the whole context, with the local verdict as a hint (contradiction first, then entailment);
the evidence is the sentence of the deciding piece that the model rates highest when read alone.

`HybridJudge`: the offline judge's proofs decide what they prove (a figure or a date that differs from the
context, a number the context never states, a wrong passage citation, a statement about the context);
the model decides every other claim, and is never run on a proved one. An entailed claim is shown with the
model's sentence unless the word check's sentence holds more of the claim's words.
"""
from __future__ import annotations

import itertools
import math
import re
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Optional, Sequence

from rt4chart.core.cost import Cost
from rt4chart.core.errors import JudgeConfigError
from rt4chart.core.types import Claim, Verdict, Window
from rt4chart.judges.base import AuditInput, Judge, Judgement
from rt4chart.judges.model.checkpoint import Checkpoint
from rt4chart.text.antecedents import resolved_sentences
from rt4chart.text.claims import split_claims
from rt4chart.text.lexicon import tokenize
from rt4chart.text.measures import measures, restated

if TYPE_CHECKING:
    from rt4chart.judges.fusion.signals import Readings

SHIPPED = "shipped"
_DIGIT = re.compile(r"\d")
_FIGURE = re.compile(r"different figure than '([^']*)'|context says '([^']*)' where the claim says '([^']*)'")


def shipped_path() -> str:
    from rt4chart.judges.model import verifier

    return verifier.path()


@dataclass(frozen=True)
class ModelSettings:
    """How a model judge turns probabilities into verdicts (thresholds chosen by measurement, see
    docs/benchmarks.md)."""

    model: str = SHIPPED             # a checkpoint folder, a Hugging Face id in the local cache, or the shipped one
    entail_threshold: float = 0.3    # P(entailed) from which a claim is entailed
    contradict_threshold: float = 0.85  # P(contradicted) from which a claim is contradicted (checked first)
    global_sentences: int = 6        # the global step reads this many best-matching sentences of the whole context
    evidence_sentences: int = 3      # sentences of the deciding piece (the best-matching by words) scored one by one
    threads: int = 0                 # inference threads (0: up to 4, as many as the machine has)
    calibration: tuple = (1.0, 0.0)  # (a, b) Platt calibration of answer scores
    hybrid_proofs: bool = True       # hybrid only: let the offline judge's proofs decide what they prove
    fuse_model: float = 1.0          # hybrid only: claim score logit = logit(offline) + fuse_model * logit(model) + fuse_bias
    fuse_bias: float = 0.0
    fuse_clip: float = 3.0           # hybrid only: each judge's claim logit is clipped to ±fuse_clip before adding
    word_flags_stand: bool = True    # hybrid only: the model's support never clears a claim the word check flags (its
    #                                  doubt still flags a claim the words support; docs/benchmarks.md, 2026-12-06)
    fuse_grade_words: float = 0.5    # hybrid only: the word check's share in how far a claim's score sits into its side
    #                                  of the boundary (its verdict never moves; the model's readings saturate)
    sure_words: float = 0.1          # hybrid only: without a question, the model's doubt alone never flags a claim whose
    #                                  every content word and figure the word check found, scored at most this (0: off)
    resolve_pronouns: bool = True    # a context sentence opening with He/She/It/They is read with the subject of the
    #                                  sentence before it when that sentence is not read beside it (text/antecedents.py)
    fusion: str = "fixed"            # hybrid only: "fixed" (the logit sum above) or the path of a learned fusion file
    #                                  (benchmarks/fit_fusion.py; none ships, docs/benchmarks.md says why)

    def __post_init__(self) -> None:
        checked_grade_share(self.fuse_grade_words)  # a spec from a file or a job is refused before any audit


@dataclass
class ModelJudgement(Judgement):
    """A judgement with the model's probabilities and the sentences of the piece it read."""

    entail: float = 0.0
    contra: float = 0.0
    piece: list[int] = field(default_factory=list)


_CHECKPOINTS: dict[tuple[str, int], Checkpoint] = {}
# per checkpoint digest: (premise, hypothesis) -> (P entailed, contradicted, neutral; the pair's token count)
_PAIRS: dict[str, OrderedDict[tuple[str, str], tuple[tuple[float, float, float], int]]] = {}
_HYBRIDS = itertools.count()
WHOLE_SENTENCE_WORDS = 6  # a shorter claim ('The Simpsons.', 'Panama City Air Force Base.') says something only beside its question
PAIR_CACHE_SIZE = 50_000  # pairs kept per process and checkpoint (least recently computed dropped first)


def load_checkpoint(model: str, threads: int = 0) -> Checkpoint:
    """One checkpoint per process (sessions are costly to create)."""
    key = (model, threads)
    if key not in _CHECKPOINTS:
        _CHECKPOINTS[key] = Checkpoint(shipped_path() if model == SHIPPED else model, threads=threads)
    return _CHECKPOINTS[key]


class ModelJudge(Judge):
    name = "model"

    def __init__(self, settings: Optional[ModelSettings] = None):
        self.config = settings or ModelSettings()
        self.checkpoint = load_checkpoint(self.config.model, self.config.threads)
        self.model = self.config.model if self.config.model != SHIPPED else "rt4chart-verifier"
        self._pairs = _PAIRS.setdefault(self.checkpoint.digest, OrderedDict())

    @property
    def contradict_from(self) -> float:
        """P(contradicted) from which the model's reading contradicts a claim."""
        return self.config.contradict_threshold

    # identity ---------------------------------------------------------------------------------------
    def settings(self) -> dict:
        out = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self.config).items()}
        out.update(checkpoint_kind=self.checkpoint.kind, checkpoint_digest=self.checkpoint.digest,
                   max_length=self.checkpoint.max_length, runtime=self.checkpoint.runtime)
        return out

    def rebuild_options(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self.config).items()}

    def score_calibration(self) -> tuple[float, float]:
        return (float(self.config.calibration[0]), float(self.config.calibration[1]))

    # steps --------------------------------------------------------------------------------------------
    def decompose(self, audit: AuditInput, usage: Cost) -> list[Claim]:
        return split_claims(audit.answer, audit.answer_sentences)

    def verify_window(self, claims: list[Claim], window: Window, audit: AuditInput,
                      usage: Cost) -> dict[int, Judgement]:
        ids = list(window.sentence_ids())
        return dict(self._read(claims, {c.id: ids for c in claims}, audit, usage, split=True))

    def verify_global(self, claims: list[Claim], hints: dict[int, Judgement], audit: AuditInput,
                      usage: Cost) -> dict[int, Judgement]:
        finals = self._global_readings(claims, hints, audit, usage)
        self._evidence([(finals[c.id], c) for c in claims], audit, usage)
        return dict(finals)

    def _global_readings(self, claims: list[Claim], hints: dict[int, Judgement], audit: AuditInput,
                         usage: Cost) -> dict[int, ModelJudgement]:
        """A claim that a window entails is entailed by the whole context, and a window's contradiction comes
        first: those keep their local reading. The others are read against the sentences of the whole
        context that match them best (evidence spread over several windows, or missed by the routing). No
        evidence is picked yet (`_evidence`)."""
        finals: dict[int, ModelJudgement] = {}
        settled = {}
        for claim in claims:
            hint = hints.get(claim.id)
            if isinstance(hint, ModelJudgement) and hint.verdict in (Verdict.ENTAILED, Verdict.CONTRADICTED):
                settled[claim.id] = hint
        open_claims = [c for c in claims if c.id not in settled]
        chosen = {c.id: self._best_sentences(c, audit) for c in open_claims}
        overall = self._read(open_claims, chosen, audit, usage, split=False) if open_claims else {}
        for claim in claims:
            hint = hints.get(claim.id)
            local = hint if isinstance(hint, ModelJudgement) else None
            if claim.id in settled and local is not None:
                finals[claim.id] = self._decide(claim, local.entail, local.contra, local.piece)
                continue
            g = overall[claim.id]
            entail = max(g.entail, local.entail if local else 0.0)
            contra = max(g.contra, local.contra if local else 0.0)
            if local is not None and local.contra >= g.contra and local.contra >= self.contradict_from:
                source = local
            elif local is not None and local.entail > g.entail:
                source = local
            else:
                source = g
            finals[claim.id] = self._decide(claim, entail, contra, source.piece)
        return finals

    # reading ------------------------------------------------------------------------------------------
    def _hypothesis(self, claim: Claim, audit: AuditInput) -> str:
        return f"{audit.question} {claim.text}" if audit.question else claim.text

    def _tokens(self, audit: AuditInput) -> list[int]:
        """Per context sentence, its token count as the model may read it (with a pronoun's subject, the longer)."""
        cached = audit.__dict__.get("_model_sentence_tokens")
        if cached is None:
            cached = [self.checkpoint.count_tokens(r or s.text)
                      for s, r in zip(audit.context_sentences, self._resolved(audit))]
            audit.__dict__["_model_sentence_tokens"] = cached
        return cached

    def _resolved(self, audit: AuditInput) -> list[Optional[str]]:
        """Per context sentence: its text with an opening pronoun replaced by the subject it stands for, or None."""
        if not self.config.resolve_pronouns:
            return [None] * len(audit.context_sentences)
        cached = audit.__dict__.get("_model_resolved")
        if cached is None:
            sentences = audit.context_sentences
            cached = resolved_sentences(audit.context, [s.start for s in sentences], [s.end for s in sentences])
            audit.__dict__["_model_resolved"] = cached
        return cached

    def _readings(self, ids: Sequence[int], audit: AuditInput) -> list[tuple[str, Optional[str]]]:
        """Per sentence of `ids`: its text as written, and its reading with a pronoun's subject when the model reads
        that instead (the sentence opens with a resolvable pronoun and the sentence before it is not read beside it)."""
        resolved, sentences = self._resolved(audit), audit.context_sentences
        return [(sentences[i].text, resolved[i] if k == 0 or ids[k - 1] != i - 1 else None) for k, i in enumerate(ids)]

    def _premise(self, ids: Sequence[int], audit: AuditInput) -> str:
        """The text the model reads for these context sentences (`_readings`)."""
        return " ".join(read or text for text, read in self._readings(ids, audit))

    def _read_as(self, ids: Sequence[int], audit: AuditInput) -> str:
        """How the premise of these sentences read a pronoun, for a rationale (", reading 'It' as 'Insulin glargine'"),
        or '' when it was read as written."""
        said = []
        for text, read in self._readings(ids, audit):
            if read:
                pronoun = text.split(maxsplit=1)[0]
                said.append(f"'{pronoun}' as '{read[:len(read) - len(text) + len(pronoun)]}'")
        return ", reading " + " and ".join(said) if said else ""

    def _pieces(self, ids: Sequence[int], budget: int, audit: AuditInput) -> list[list[int]]:
        """Consecutive sentences grouped into pieces of at most `budget` tokens; a sentence longer than the
        budget is a piece of its own, read in parts (`_texts`)."""
        tokens = self._tokens(audit)
        pieces: list[list[int]] = []
        used = 0
        for i in ids:
            if pieces and used + tokens[i] <= budget:
                pieces[-1].append(i)
                used += tokens[i]
            else:
                pieces.append([i])
                used = tokens[i]
        return pieces

    def _texts(self, piece: list[int], budget: int, audit: AuditInput) -> list[str]:
        """The text(s) of a piece: one, or a long single sentence in word chunks that each fit."""
        text = self._premise(piece, audit)
        if len(piece) > 1 or self._tokens(audit)[piece[0]] <= budget:
            return [text]
        words, chunks, current = text.split(), [], []
        for w in words:
            current.append(w)
            if self.checkpoint.count_tokens(" ".join(current)) > budget and len(current) > 1:
                current.pop()
                chunks.append(" ".join(current))
                current = [w]
        if current:
            chunks.append(" ".join(current))
        return chunks

    def _probs(self, pairs: list[tuple[str, str]], usage: Cost, audit: AuditInput) -> list[tuple[float, float, float]]:
        """P(entailed, contradicted, neutral) of each (premise, hypothesis). The model reads a pair once per process
        (a pair another row asked for is remembered); `usage` counts each pair this audit asks for once, read or
        remembered, so a row's cost is the same on one process as on many (a Dask worker has its own memory)."""
        unique = list(dict.fromkeys(pairs))
        todo = [p for p in unique if p not in self._pairs]
        if todo:  # each pair remembered with its token count, so a remembered pair is not tokenized again
            for pair, probs in zip(todo, self.checkpoint.pair_probs([p for p, _ in todo], [h for _, h in todo])):
                self._pairs[pair] = (probs, sum(self.checkpoint.count_tokens(t) for t in pair) + 3)
        found = {p: self._pairs[p] for p in unique}  # before the memory lets go of its oldest pairs
        while len(self._pairs) > PAIR_CACHE_SIZE:
            self._pairs.popitem(last=False)
        asked: set = audit.__dict__.setdefault("_model_pairs_asked", set())
        for pair in unique:
            if pair not in asked:
                asked.add(pair)
                usage.model_pairs += 1
                usage.model_tokens += found[pair][1]
        return [found[p][0] for p in pairs]

    def _read(self, claims: list[Claim], ids: dict[int, list[int]], audit: AuditInput, usage: Cost,
              split: bool) -> dict[int, ModelJudgement]:
        """Each claim against its sentences (split into pieces that fit); the best piece for entailment and
        for contradiction decide."""
        jobs: list[tuple[int, list[int], str, str]] = []
        for claim in claims:
            hyp = self._hypothesis(claim, audit)
            budget = self.checkpoint.max_length - self.checkpoint.count_tokens(hyp) - 4
            if budget < 16:
                budget = 16  # a claim near the model's length is read against short pieces
            pieces = self._pieces(ids[claim.id], budget, audit) if ids[claim.id] else []
            for piece in pieces:
                for text in self._texts(piece, budget, audit):
                    jobs.append((claim.id, piece, text, hyp))
        probs = self._probs([(text, hyp) for _, _, text, hyp in jobs], usage, audit)
        best: dict[int, dict[str, tuple[float, list[int]]]] = {c.id: {} for c in claims}
        for (claim_id, piece, _text, _hyp), (e, c, _n) in zip(jobs, probs):
            b = best[claim_id]
            if e > b.get("e", (-1.0, []))[0]:
                b["e"] = (e, piece)
            if c > b.get("c", (-1.0, []))[0]:
                b["c"] = (c, piece)
        out: dict[int, ModelJudgement] = {}
        for claim in claims:
            b = best[claim.id]
            entail, e_piece = b.get("e", (0.0, []))
            contra, c_piece = b.get("c", (0.0, []))
            piece = c_piece if contra >= self.contradict_from and contra >= entail else e_piece
            out[claim.id] = self._decide(claim, entail, contra, piece)
        return out

    def _best_sentences(self, claim: Claim, audit: AuditInput) -> list[int]:
        stems = [t.stem for t in tokenize(claim.text + " " + (audit.question or "")) if t.is_content]
        ranked = audit.index.rank(stems, range(len(audit.index)), self.config.global_sentences)
        return sorted(i for i, _ in ranked)

    def _decide(self, claim: Claim, entail: float, contra: float, piece: list[int]) -> ModelJudgement:
        verdict, score = model_verdict(entail, contra, self.config.entail_threshold, self.contradict_from)
        if verdict is Verdict.CONTRADICTED:
            why = f"the model reads a contradiction (P {contra:.2f})"
        elif verdict is Verdict.ENTAILED:
            why = f"the model reads it in the context (P entailed {entail:.2f})"
        else:
            why = f"the model finds no support in the context (P entailed {entail:.2f})"
        j = ModelJudgement(verdict, rationale=why, score=score, entail=entail, contra=contra, piece=list(piece))
        if verdict is not Verdict.ENTAILED:
            j.unsupported = list(claim.spans)
        return j

    def _evidence(self, judged: list[tuple[ModelJudgement, Claim]], audit: AuditInput, usage: Cost) -> None:
        """Per judgement: the sentence of its deciding piece that the model rates highest alone for the verdict's
        relation (a baseless one is shown its piece's best match by words). Every claim's candidates are read in
        one call, so the reader's lanes share the work of a whole answer."""
        asks: list[tuple[ModelJudgement, list[int], str]] = []
        for j, claim in judged:
            if not j.piece:
                continue
            if j.verdict is Verdict.BASELESS:
                j.nearest = self._best_by_words(j, claim, audit)[:1]
                continue
            asks.append((j, self._candidates(j, claim, audit), self._hypothesis(claim, audit)))
        pairs = [(self._premise([i], audit), hyp) for _, candidates, hyp in asks if len(candidates) > 1
                 for i in candidates]
        probs = iter(self._probs(pairs, usage, audit))
        for j, candidates, _hyp in asks:
            ranked = candidates
            if len(candidates) > 1:
                at = 0 if j.verdict is Verdict.ENTAILED else 1
                read = [next(probs)[at] for _ in candidates]
                ranked = [i for _, i in sorted(zip(read, candidates), key=lambda x: -x[0])]
            if j.verdict is Verdict.ENTAILED:
                j.supporting = ranked[:1]
            else:
                j.contradicting = ranked[:1]

    def _best_by_words(self, j: ModelJudgement, claim: Claim, audit: AuditInput) -> list[int]:
        """The sentences of the judgement's deciding piece that match the claim best by words (at most
        `evidence_sentences`)."""
        ranked = self._rank_lexically(claim, j.piece, audit) if len(j.piece) > 1 else list(j.piece)
        return ranked[: self.config.evidence_sentences]

    def _candidates(self, j: ModelJudgement, claim: Claim, audit: AuditInput) -> list[int]:
        """The sentences the evidence pick reads for an entailed or contradicted judgement: its best by words that
        fit beside the claim (else the best alone, unread)."""
        piece = self._best_by_words(j, claim, audit)
        budget = self.checkpoint.max_length - self.checkpoint.count_tokens(self._hypothesis(claim, audit)) - 4
        return [i for i in piece if self._tokens(audit)[i] <= budget] or piece[:1]

    def _rank_lexically(self, claim: Claim, ids: list[int], audit: AuditInput) -> list[int]:
        """`ids` best-matching first by words (BM25); sentences sharing no word follow in their order."""
        stems = [t.stem for t in tokenize(claim.text) if t.is_content]
        ranked = [i for i, _ in audit.index.rank(stems, ids, len(ids))]
        return ranked + [i for i in ids if i not in ranked]


class HybridJudge(ModelJudge):
    """Offline proofs decide what they prove; the model reads the rest."""

    name = "hybrid"

    def __init__(self, settings: Optional[ModelSettings] = None, offline=None):
        super().__init__(settings)
        from rt4chart.judges.offline.judge import OfflineJudge

        self._token = next(_HYBRIDS)  # this judge's own record of entailed claims in an audit

        self.offline = offline or OfflineJudge()
        self.fusion = None
        if self.config.fusion != "fixed":
            from rt4chart.judges.fusion.learned import fusion_of

            self.fusion = fusion_of(self.config.fusion)

    @property
    def learned(self) -> bool:
        """The learned fusion decides every claim (proofs are among its features, not verdicts)."""
        return self.fusion is not None

    def score_calibration(self) -> tuple[float, float]:
        return self.fusion.answer_calibration if self.fusion is not None else super().score_calibration()

    def settings(self) -> dict:
        return {**super().settings(), "offline": self.offline.settings()}

    @property
    def contradict_from(self) -> float:
        """Never: a claim is scored by the model's P(entailed) alone, and the offline judge's contradictions
        stand (the model's contradiction reading was right for 2 of the 31 claims it flagged on the ragtruth and
        faithbench dev files: docs/benchmarks.md, "What each kind of flag is worth")."""
        return math.inf

    def _proof(self, j: Judgement, claim: Claim, audit: AuditInput) -> bool:
        """An exact finding of the lexical checks: a figure or date written in digits that differs from the
        context's, or that the context never states; a passage cited wrongly; a statement about the context.
        Word-level findings (a spelled-out 'half', an antonym, a negation, a missing word) are not proofs:
        the model reads those."""
        if not self.config.hybrid_proofs:
            return False
        if claim.about_context:
            return True
        if j.verdict is Verdict.CONTRADICTED:
            if "passage" in j.rationale:
                return True
            for figure, theirs, mine in _FIGURE.findall(j.rationale):
                if _DIGIT.search(figure) or (_DIGIT.search(theirs) and _DIGIT.search(mine)):
                    return True
            return False
        if j.verdict is Verdict.BASELESS:
            tokens = tokenize(claim.text)
            missing = [i for i, t in enumerate(tokens) if t.number is not None and _DIGIT.search(t.text)
                       and not audit.index.states_figure(t)]
            if missing and self.offline.config.compare_restated:  # '12 months' where the context says 'a year'
                same = restated(measures(tokens), audit.index.all_measures)
                missing = [i for i in missing if i not in same]
            return bool(missing)
        return False

    def verify_window(self, claims: list[Claim], window: Window, audit: AuditInput,
                      usage: Cost) -> dict[int, Judgement]:
        """The offline judge's proofs, then the model's reading of the rest. A claim that the model already
        entailed in an earlier window of this audit is not read again: with the model's contradiction reading
        set aside, only a proof can outrank that entailment in the OR-join, and proofs are still checked in
        every window (the claim then has no model reading for this window)."""
        lexical = self.offline.verify_window(claims, window, audit, usage)
        proved = {cid: j for cid, j in lexical.items() if self._proof(j, _by_id(claims, cid), audit)}
        decided = self._entailed(audit)
        rest = [c for c in claims if (self.learned or c.id not in proved) and c.id not in decided]
        read = super().verify_window(rest, window, audit, usage) if rest else {}
        decided.update(cid for cid, j in read.items() if j.verdict is Verdict.ENTAILED)
        if self.learned:  # the fusion's window readings (the fixed fusion reads only the global step's)
            best = self._window_readings(audit)
            for cid, j in read.items():
                if not isinstance(j, ModelJudgement):
                    continue
                entail, contra, piece = best.get(cid, (0.0, 0.0, []))
                best[cid] = (j.entail, max(contra, j.contra), j.piece) if j.entail > entail else (entail, max(contra, j.contra), piece)
        return {**read, **proved}

    def _window_readings(self, audit: AuditInput) -> dict[int, tuple[float, float, list[int]]]:
        """Per claim of this audit: the best window reading so far (P entailed, P contradicted, its piece)."""
        return audit.__dict__.setdefault("_hybrid_windows", {}).setdefault(self._token, {})

    def _entailed(self, audit: AuditInput) -> set[int]:
        """The claims of this audit that the model has entailed in a window so far (kept with the audit)."""
        return audit.__dict__.setdefault("_hybrid_entailed", {}).setdefault(self._token, set())

    def verify_global(self, claims: list[Claim], hints: dict[int, Judgement], audit: AuditInput,
                      usage: Cost) -> dict[int, Judgement]:
        if self.learned:
            return self._learned_global(claims, hints, audit, usage)
        lexical = self.offline.verify_global(claims, hints, audit, usage)
        proved = {}
        for claim in claims:
            j = lexical[claim.id]
            if self._proof(j, claim, audit):
                j.rationale = "proof: " + j.rationale
                proved[claim.id] = j
        rest = [c for c in claims if c.id not in proved]
        read = self._global_readings(rest, {c.id: hints[c.id] for c in rest if c.id in hints}, audit, usage) \
            if rest else {}
        said = self._said_in_its_words([c for c in rest if read[c.id].verdict is not Verdict.ENTAILED], lexical,
                                       audit, usage)
        self._evidence([(read[c.id], c) for c in rest
                        if c.id not in said and self._pick_shown(c, lexical[c.id], read[c.id], audit)], audit, usage)
        model: dict[int, Judgement] = {**read, **said}
        return {**proved, **{c.id: self._fuse(c, lexical[c.id], model[c.id], audit) for c in rest}}

    def _pick_shown(self, claim: Claim, lexical: Judgement, read: ModelJudgement, audit: AuditInput) -> bool:
        """Whether the sentence the evidence pick would choose for the model's reading can reach the report (`_fuse`):
        a contradiction the fused verdict flags, or support the fused verdict shows unless the word check's sentence
        holds more of the claim than every candidate (`_shown_support` then shows that sentence). A baseless reading
        is shown its best sentence by words, which reads nothing. A third of the pick's reads on ragtruth were never
        shown (docs/benchmarks.md); the reports are the same without them but for the pairs they count."""
        if read.verdict is Verdict.BASELESS:
            return True
        flagged = self._fused_score(lexical, read, audit)[1] >= 0.5
        if read.verdict is Verdict.CONTRADICTED or flagged:
            return flagged and read.verdict is Verdict.CONTRADICTED
        words = list(lexical.supporting)
        if not words or not read.piece:
            return True
        held = self.offline.content_held
        theirs = held(claim, audit, words[:1])
        return any(held(claim, audit, [i]) >= theirs for i in self._candidates(read, claim, audit))

    def _said_in_its_words(self, claims: list[Claim], lexical: dict[int, Judgement], audit: AuditInput,
                              usage: Cost) -> dict[int, Judgement]:
        """The question takes no support away from a claim the context says in its words: a claim of six words or
        more whose every content word and figure one sentence holds (or, predicate by predicate, two sentences:
        `OfflineJudge.holding_sentences`) is read against those sentences alone, without the question, and is
        entailed when the model reads it so. The reader takes "question + whole sentence" for a hallucination (its
        QA training pairs) and loses one sentence among six. Wider gates lost HaluEval catches: words of one
        predicate over two adjacent sentences ("Stanford University is located in Chestnut Hill.", "He … won the
        Heisman Trophy in 1952." after a sentence with 1953), and shorter claims ("The Simpsons." says nothing
        without its question): docs/benchmarks.md."""
        if not audit.question:
            return {}
        held = {c.id: ids for c in claims if len(c.text.split()) >= WHOLE_SENTENCE_WORDS
                and (ids := self.offline.holding_sentences(c, lexical[c.id], audit)
                     or self.offline.holding_sentence(c, lexical[c.id], audit, self._resolved(audit)))}
        todo = [c for c in claims if c.id in held]
        pairs = [(self._premise(held[c.id], audit), c.text) for c in todo]
        out: dict[int, Judgement] = {}
        for claim, (entail, contra, _n) in zip(todo, self._probs(pairs, usage, audit)):
            if entail >= self.config.entail_threshold:
                j = self._decide(claim, entail, contra, held[claim.id])
                j.supporting = list(held[claim.id])  # the verdict used them all (no pair is read to pick one)
                j.rationale = (f"the model reads it in the sentences that say it, without the question"
                               f"{self._read_as(held[claim.id], audit)} (P entailed {entail:.2f})")
                out[claim.id] = j
        return out

    def _fuse(self, claim: Claim, lexical: Judgement, read: Judgement, audit: AuditInput) -> Judgement:
        """One claim score from both judges: logit(offline) + k · logit(model) + b, each logit clipped to ±clip
        (k, b, clip chosen by measurement, docs/benchmarks.md); 0.5 stays the verdict's boundary. A hallucinated claim is contradicted when either
        judge found a contradiction; its spans are the offline judge's unsupported words where it has them."""
        offline, score = self._fused_score(lexical, read, audit)
        if score < 0.5:
            j = read if read.verdict is Verdict.ENTAILED else lexical
            verdict, spans = Verdict.ENTAILED, []
        else:
            contradicted = [x for x in (read, lexical) if x.verdict is Verdict.CONTRADICTED]
            j = contradicted[0] if contradicted else (read if read.verdict is not Verdict.ENTAILED else lexical)
            verdict = Verdict.CONTRADICTED if contradicted else Verdict.BASELESS
            spans = list(lexical.unsupported) or list(claim.spans)
        out = Judgement(verdict, supporting=list(j.supporting), contradicting=list(j.contradicting),
                        nearest=list(j.nearest or lexical.nearest), unsupported=spans, score=score,
                        rationale=fused_rationale(verdict, read, lexical, offline, score))
        if verdict is Verdict.ENTAILED:
            out.supporting = self._shown_support(claim, read, lexical, audit)
        return out

    def _fused_score(self, lexical: Judgement, read: Judgement, audit: AuditInput) -> tuple[float, float]:
        """The offline judge's claim score and the fused one (`_fuse`)."""
        offline = lexical.score if lexical.score is not None else (0.9 if lexical.verdict.is_hallucination else 0.1)
        mine = read.score if read.score is not None else 0.5
        if self._doubt_only(lexical, read, audit):
            mine = min(mine, 0.5)
        return offline, fused_score(offline, mine, self.config)

    def _doubt_only(self, lexical: Judgement, read: Judgement, audit: AuditInput) -> bool:
        """Whether the model's reading is doubt that does not count: no question, the word check found every content
        word and figure of the claim (score at most `sure_words`), and the model finds no support (it contradicts
        nothing). v1 loses a sentence among several and cannot join facts from two or three sentences ("The
        1,240-metre bridge opened in 1998 after four years of construction.", the app's example, read at P 0.01).
        Beside a question its doubt is kept: there, the word check finding every word is how HaluEval's wrong
        relations look ("Stanford University is located in Chestnut Hill."). Measured: docs/benchmarks.md."""
        cut = self.config.sure_words
        return (cut > 0 and not audit.question and read.verdict is Verdict.BASELESS and lexical.rule == "found"
                and not lexical.unsupported and lexical.score is not None and lexical.score <= cut)

    def _shown_support(self, claim: Claim, read: Judgement, lexical: Judgement, audit: AuditInput) -> list[int]:
        """The sentences an entailed claim is shown with: the model's, unless the sentence the word check found most of
        the claim in holds more of its words; then the word check's sentences (those its rationale's share was counted
        in). The model picks its sentence by reading each of its piece's sentences alone beside the question, and one
        about the question's subject can win while holding none of the claim ("6.213 km long" shown with a sentence
        about the race, not "The 6.213 km long track …"): on the dev files a quarter of entailed claims were shown
        with a sentence holding at most a third of their words (docs/benchmarks.md)."""
        mine = list(read.supporting) if read.verdict is Verdict.ENTAILED else []
        words = list(lexical.supporting)
        if not (mine and words):
            return mine or words
        held = self.offline.content_held
        return words if held(claim, audit, words[:1]) > held(claim, audit, mine) else mine


    # the learned fusion ------------------------------------------------------------------------------
    def _learned_global(self, claims: list[Claim], hints: dict[int, Judgement], audit: AuditInput,
                        usage: Cost) -> dict[int, Judgement]:
        """Every claim scored by the learned fusion over all its signals; a statement about the context keeps
        the offline check's verdict (the model cannot read 'X is not in the passages')."""
        lexical = self.offline.verify_global(claims, hints, audit, usage)
        out: dict[int, Judgement] = {}
        rest = []
        for claim in claims:
            if claim.about_context:
                out[claim.id] = lexical[claim.id]
            else:
                rest.append(claim)
        for claim, (x, readings, piece) in zip(rest, self._signals(rest, lexical, audit, usage, len(claims))):
            out[claim.id] = self._learned_verdict(claim, lexical[claim.id], x, readings, piece, audit, usage)
        return out

    def _signals(self, claims: list[Claim], lexical: dict[int, Judgement], audit: AuditInput, usage: Cost,
                 claims_in_answer: int) -> list[tuple[dict[str, float], "Readings", list[int]]]:
        """Per claim: the fusion's features, the model's readings and the piece its best reading came from."""
        from rt4chart.judges.fusion.signals import Readings, features

        whole = self._read(claims, {c.id: self._best_sentences(c, audit) for c in claims}, audit, usage, split=False)
        windows = self._window_readings(audit)
        best = {c.id: self._best_sentence(c, audit) for c in claims}
        pairs = []
        for claim in claims:
            i, hyp = best[claim.id], self._hypothesis(claim, audit)
            if i is not None:
                around = list(range(max(0, i - 1), min(len(audit.context_sentences), i + 2)))
                pairs += [(self._premise([i], audit), hyp), (self._premise(around, audit), hyp)]
        probs = iter(self._probs(pairs, usage, audit))
        out = []
        for claim in claims:
            alone, near = (next(probs), next(probs)) if best[claim.id] is not None else ((0.0, 0.0, 1.0),) * 2
            w_entail, w_contra, w_piece = windows.get(claim.id, (0.0, 0.0, []))
            g = whole[claim.id]
            readings = Readings(sentence_entail=alone[0], sentence_contra=alone[1], neighbours_entail=near[0],
                                neighbours_contra=near[1], window_entail=w_entail, window_contra=w_contra,
                                whole_entail=g.entail, whole_contra=g.contra)
            found = best[claim.id]
            options: list[tuple[float, list[int]]] = [(alone[0], [found] if found is not None else []),
                                                      (w_entail, w_piece), (g.entail, g.piece)]
            piece = max(options, key=lambda o: o[0])[1]
            proof = self._proof(lexical[claim.id], claim, audit)
            out.append((features(claim, lexical[claim.id], proof, readings, audit, claims_in_answer), readings, piece))
        return out

    def _best_sentence(self, claim: Claim, audit: AuditInput) -> Optional[int]:
        stems = [t.stem for t in tokenize(claim.text) if t.is_content]
        ranked = audit.index.rank(stems, range(len(audit.index)), 1)
        return ranked[0][0] if ranked else None

    def _learned_verdict(self, claim: Claim, lexical: Judgement, x: dict[str, float], readings, piece: list[int],
                         audit: AuditInput, usage: Cost) -> Judgement:
        """The fused verdict: flagged from the fusion's threshold, contradicted when the word check proved a
        contradiction, with the evidence the verdict used and a rationale naming the signals that moved it."""
        from rt4chart.judges.fusion.rationale import explain

        fusion = self.fusion
        assert fusion is not None, "a learned hybrid loads its fusion file"
        p = fusion.probability(x)
        flagged = p >= fusion.threshold
        why = explain(p, fusion.threshold, fusion.contributions(x), readings)
        if not flagged:
            j = ModelJudgement(Verdict.ENTAILED, piece=list(piece), entail=readings.best_entail())
            self._evidence([(j, claim)], audit, usage)
            supporting = self._shown_support(claim, j, lexical, audit) if j.supporting else list(lexical.supporting[:1])
            return Judgement(Verdict.ENTAILED, supporting=supporting, score=fusion.raw_score(p),
                             rationale=f"{why}; word check: {lexical.rationale}", rule="fusion", signals=x)
        contradicted = lexical.verdict is Verdict.CONTRADICTED
        return Judgement(Verdict.CONTRADICTED if contradicted else Verdict.BASELESS,
                         contradicting=list(lexical.contradicting) if contradicted else [],
                         nearest=[] if contradicted else list(lexical.nearest or piece[:1]),
                         unsupported=list(lexical.unsupported) or list(claim.spans), score=fusion.raw_score(p),
                         rationale=f"{why}; word check: {lexical.rationale}", rule="fusion", signals=x)


def model_verdict(entail: float, contra: float, entail_threshold: float,
                  contradict_threshold: float = math.inf) -> tuple[Verdict, float]:
    """A claim's verdict and score from the model's best P(entailed) and P(contradicted): contradicted first (from
    `contradict_threshold`; never with the default), then entailed (from `entail_threshold`), else baseless; the
    score is 0.5 on the entailment threshold and moves linearly to 0 (certainly entailed) or 1."""
    if contra >= contradict_threshold and contra >= entail:
        return Verdict.CONTRADICTED, min(1.0, 0.5 + 0.5 * contra)
    t = entail_threshold
    if entail >= t:
        return Verdict.ENTAILED, min(1.0, max(0.0, 0.5 * (1 - (entail - t) / max(1e-9, 1 - t))))
    return Verdict.BASELESS, min(1.0, max(0.0, 0.5 + 0.5 * (t - entail) / max(1e-9, t)))


def fused_rationale(verdict: Verdict, read: Judgement, lexical: Judgement, offline: float, score: float) -> str:
    """Why the fused verdict, said from the same decision: the side that agrees with the verdict gives its reason,
    and a side that disagreed is said to be outweighed (the model's support, to not clear a word-check flag), never
    quoted against the verdict (an entailed claim never says 'no support', a flagged one never says its content is
    found). Where both flag it, the word check's reason comes first: its contradiction, or what the context lacks, is
    what the user can check."""
    flagged = verdict is not Verdict.ENTAILED
    model_flags = read.verdict is not Verdict.ENTAILED
    word_flags = lexical.verdict.is_hallucination
    entail = getattr(read, "entail", None)
    model_doubt = f"the model's reading (P entailed {entail:.2f})" if entail is not None else "the model's reading"
    if verdict is Verdict.CONTRADICTED and lexical.verdict is Verdict.CONTRADICTED \
            and read.verdict is not Verdict.CONTRADICTED:  # the contradiction's finder speaks first
        agrees = "also flags it" if model_flags else "does not clear it"
        return f"word check: {lexical.rationale}; {model_doubt} {agrees}"
    if verdict is Verdict.BASELESS and model_flags and word_flags:
        return f"word check: {lexical.rationale}; {model_doubt} also flags it"
    if model_flags == flagged and word_flags == flagged:
        return f"{read.rationale}; word check: {lexical.rationale}"
    if model_flags == flagged:
        return f"{read.rationale}; the word check (score {offline:.2f}) did not outweigh it"
    if word_flags == flagged:  # the model disagrees; its support never clears the word check's flag
        outcome = "does not clear what the word check flags" if flagged else "did not outweigh it"
        return f"word check: {lexical.rationale}; {model_doubt} {outcome}"
    side = "doubt" if flagged else "support"
    return (f"neither reading decides alone: together they lean to {side} (score {score:.2f}; word check "
            f"{offline:.2f}, {model_doubt})")


def fused_score(offline: float, model: float, settings: ModelSettings) -> float:
    """The hybrid's claim score from the two judges' claim scores. Its side of 0.5 (the verdict) is that of
    sigmoid(clip(logit(offline)) + k · clip(logit(model)) + b), k, b and the clip from `settings`; with
    `word_flags_stand`, the model's term is never negative for a claim the word check flags (offline >= 0.5): the
    model may add doubt to it, not clear it. How far into its side the score sits is `graded`."""
    clip = settings.fuse_clip
    read = settings.fuse_model * max(-clip, min(clip, _logit(model)))
    if settings.word_flags_stand and offline >= 0.5:
        read = max(0.0, read)
    decided = _sigmoid(max(-clip, min(clip, _logit(offline))) + read + settings.fuse_bias)
    return graded(decided, offline, settings.fuse_grade_words)


def checked_grade_share(share: float) -> float:
    """`share` when it is a word-check share `graded` can take (at least 0, below 1); else a JudgeConfigError."""
    if not 0 <= share < 1:
        raise JudgeConfigError(f"fuse_grade_words must be at least 0 and below 1 (at 1 a supported claim could "
                               f"reach the boundary), not {share}")
    return share


def graded(decided: float, offline: float, share: float) -> float:
    """A claim's score within the side of 0.5 that `decided` is on: its distance into that side, blended with the
    word check's score (`share` of it), so that the word check's finer margin orders the claims that the model's
    saturated readings leave tied. The side, and so the verdict, never changes (0.5 stays flagged); at a share of 1
    a supported claim could reach 0.5, so the share is below 1."""
    if checked_grade_share(share) == 0:
        return decided
    if decided >= 0.5:
        return 0.5 + 0.5 * ((1 - share) * (2 * decided - 1) + share * offline)
    return 0.5 * ((1 - share) * 2 * decided + share * offline)


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _by_id(claims: list[Claim], claim_id: int) -> Claim:
    return next(c for c in claims if c.id == claim_id)

