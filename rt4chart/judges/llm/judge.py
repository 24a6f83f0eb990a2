"""The LLM judge: decomposition, per-window and global verification through a `ChatClient`.

Call plan per answer: 1 decomposition call, at most 1 call per window (only the claims routed
there), 1 global call. A reply that is not valid JSON, breaks the schema or misses claims gets
one repair re-ask; claims still without a verdict become `unverified` with the reason.
Every request carries a reply budget (`max_tokens`) sized from what the step must return, and the
global step's context fits the model's context size (set, or read from the server).
"""
from __future__ import annotations

from typing import Callable, Optional, TypeVar

from pydantic import BaseModel

from rt4chart.core.cost import Cost
from rt4chart.core.errors import JudgeConfigError
from rt4chart.core.types import Claim, Span, Verdict, Window
from rt4chart.judges.base import AuditInput, Judge, Judgement, ReflectionStep
from rt4chart.judges.cache import MemoCache
from rt4chart.judges.llm import prompts
from rt4chart.judges.llm.client import ChatClient, resolve_setting
from rt4chart.judges.llm.openai_client import OpenAIChatClient
from rt4chart.judges.llm.prompts import fence_safe
from rt4chart.judges.llm.schemas import (
    Decomposition,
    Reflection,
    Verification,
    decomposition_schema,
    reflection_schema,
    verification_schema,
)
from rt4chart.judges.llm.structured import ask
from rt4chart.text.claims import split_claims
from rt4chart.text.spans import locate, merge_spans

T = TypeVar("T", bound=BaseModel)
DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_CONTEXT_TOKENS = 32_768  # when neither set nor reported by the server
CHARS_PER_TOKEN = 3.0            # conservative for English; a token budget is turned into characters with it
MAX_REPLY_TOKENS = 8_192


def numbered_context(audit: AuditInput, sentence_ids) -> str:
    """Context sentences as '[S<id>] text' lines, fenced-safe, for the judge to cite by id."""
    return "\n".join(f"[S{i}] {fence_safe(audit.context_sentences[i].text)}" for i in sentence_ids)


class OpenAIJudge(Judge):
    """An LLM judge on any OpenAI-compatible endpoint; the client is injected for tests."""

    name = "openai"
    supports_reflection = True
    makes_calls = True

    def __init__(self, client: ChatClient, context_tokens: Optional[int] = None):
        self.client = client
        self.model = client.model
        self.context_tokens = context_tokens

    @classmethod
    def from_options(cls, model: Optional[str] = None, base_url: Optional[str] = None,
                     api_key: Optional[str] = None, cache: Optional[MemoCache] = None,
                     use_cache: bool = True, timeout_s: float = 60.0, max_attempts: int = 4,
                     max_concurrency: int = 8, client: Optional[ChatClient] = None,
                     context_tokens: Optional[int] = None, response_mode: Optional[str] = None,
                     key_hint: str = "--api-key") -> "OpenAIJudge":
        """Resolve settings from arguments, then OPENAI_BASE_URL / OPENAI_API_KEY / RT4CHART_MODEL."""
        if client is not None:
            return cls(client, context_tokens)
        key = resolve_setting(api_key, "OPENAI_API_KEY")
        if not key:
            raise JudgeConfigError(
                "the openai judge needs an API key: set the environment variable OPENAI_API_KEY "
                f"(export OPENAI_API_KEY=...) or use {key_hint}. For a local server without keys "
                "(vLLM, Ollama, llama.cpp) any value works, e.g. OPENAI_API_KEY=local.")
        resolved_model = resolve_setting(model, "RT4CHART_MODEL", DEFAULT_MODEL) or DEFAULT_MODEL
        url = resolve_setting(base_url, "OPENAI_BASE_URL")
        memo = cache if cache is not None else (MemoCache() if use_cache else None)
        return cls(OpenAIChatClient(resolved_model, base_url=url, api_key=key, timeout_s=timeout_s,
                                    max_attempts=max_attempts, cache=memo, max_concurrency=max_concurrency,
                                    context_tokens=context_tokens, response_mode=response_mode),
                   context_tokens)

    def settings(self) -> dict:
        return {"model": self.model, "temperature": getattr(self.client, "temperature", 0.0),
                "base_url": getattr(self.client, "base_url", None) or "default",
                "context_tokens": self.context_tokens or "auto"}

    def endpoint_info(self) -> dict:
        return self.client.endpoint_info()

    def rebuild_options(self) -> dict:
        if not isinstance(self.client, OpenAIChatClient):
            raise NotImplementedError("only a judge on an OpenAI-compatible endpoint can be rebuilt elsewhere")
        return {"model": self.model, "base_url": self.client.base_url, "timeout_s": self.client.timeout_s,
                "max_attempts": self.client.max_attempts, "use_cache": self.client.cache is not None,
                "context_tokens": self.context_tokens}

    def secret_options(self) -> dict[str, str]:
        key = getattr(self.client, "api_key", None)
        return {"api_key": key} if key else {}

    def prompt_hashes(self) -> dict[str, str]:
        return {n: prompts.prompt_hash(n) for n in ("system", "decompose", "verify_window", "verify_global",
                                                    "repair", "reflect")}

    def context_budget_tokens(self) -> int:
        """The model's context size: the setting, else what the server reports, else a default."""
        return self.context_tokens or self.client.context_tokens() or DEFAULT_CONTEXT_TOKENS

    # -- calls --------------------------------------------------------------------------------

    def _ask(self, prompt: str, schema: dict, schema_name: str, model: type[T], usage: Cost, reply_tokens: int,
             check: Callable[[T], Optional[str]] = lambda _: None) -> tuple[Optional[T], str]:
        """One call plus at most one repair (see `structured.ask`), with a bounded reply."""
        return ask(self.client, prompt, schema, schema_name, model, usage, check,
                   max_tokens=min(MAX_REPLY_TOKENS, reply_tokens))

    def decompose(self, audit: AuditInput, usage: Cost) -> list[Claim]:
        prompt = prompts.render("decompose", question=fence_safe(audit.question or "(none)"),
                                answer=fence_safe(audit.answer))
        # each claim repeats its words twice (text and answer substrings) plus JSON punctuation
        reply_tokens = 200 + int(3 * len(audit.answer) / CHARS_PER_TOKEN)
        reply, failure = self._ask(prompt, decomposition_schema(), "decomposition", Decomposition, usage, reply_tokens)
        if reply is None:
            audit.notes.append(f"LLM decomposition failed ({failure}); claims were split by the rule-based "
                               "splitter and then sent to the LLM for verification")
            return split_claims(audit.answer, audit.answer_sentences)
        return self._locate_claims(reply, audit)

    def _locate_claims(self, reply: Decomposition, audit: AuditInput) -> list[Claim]:
        """Map claims to answer offsets; repeated substrings resolve in answer order."""
        claims: list[Claim] = []
        cursor = 0
        for item in reply.claims:
            spans: list[Span] = []
            after = cursor
            for piece in item.answer_substrings or [item.text]:
                found = locate(audit.answer, piece, after=after)
                if found is not None:
                    spans.append(found)
                    after = found.end
            if not spans:
                found = locate(audit.answer, item.text, after=cursor)
                spans = [found] if found else []
            if not spans:
                continue  # a claim that cannot be traced to the answer is not the answer's claim
            spans = merge_spans(spans)
            cursor = spans[0].start
            sentence = next((s.index for s in audit.answer_sentences if s.start <= spans[0].start < s.end), 0)
            claims.append(Claim(id=len(claims), text=item.text, spans=spans, sentence_index=sentence))
        return claims or split_claims(audit.answer, audit.answer_sentences)

    def _verify(self, template: str, claims: list[Claim], sentence_ids: list[int], audit: AuditInput,
                usage: Cost, hints: str = "") -> dict[int, Judgement]:
        wanted = {c.id for c in claims}
        context = numbered_context(audit, sentence_ids)
        claim_lines = "\n".join(f"{c.id}: {fence_safe(c.text)}" for c in claims)
        values = {"question": fence_safe(audit.question or "(none)"), "context": context, "claims": claim_lines}
        if template == "verify_global":  # the worked example only where the final verdict is decided
            values.update(hints=hints, examples=prompts.fewshot("fewshot_verify"))
        prompt = prompts.render(template, **values)

        in_range = range(len(audit.context_sentences))

        def check(reply: Verification) -> Optional[str]:
            """A reply is valid only with exactly one result per asked claim and evidence ids that exist;
            otherwise it goes through the repair path (never "first verdict wins")."""
            given = [r.claim_id for r in reply.results]
            problems = []
            if missing := wanted - set(given):
                problems.append(f"results are missing for claim ids {sorted(missing)}")
            if twice := sorted({i for i in given if given.count(i) > 1}):
                problems.append(f"claim ids {twice} have more than one result; give exactly one verdict per claim")
            if unknown := sorted(set(given) - wanted):
                problems.append(f"claim ids {unknown} were not asked about")
            if bad := sorted({i for r in reply.results for i in r.evidence_sentence_ids if i not in in_range}):
                problems.append(f"evidence sentence ids {bad} do not exist (the context has {len(in_range)})")
            return "; ".join(problems) or None

        reply, failure = self._ask(prompt, verification_schema(), "verification", Verification, usage,
                                   verdict_reply_tokens(claims), check)
        results: dict[int, Judgement] = {}
        allowed = set(sentence_ids)
        by_id = {c.id: c for c in claims}
        for r in (reply.results if reply else []):
            if r.claim_id not in wanted or r.claim_id in results:
                continue
            verdict = Verdict(r.verdict)
            ids = [i for i in r.evidence_sentence_ids if i in allowed]
            unsupported = [s for t in r.unsupported_text
                           if (s := locate(audit.answer, t, within=by_id[r.claim_id].spans)) is not None]
            results[r.claim_id] = Judgement(
                verdict, supporting=ids if verdict is not Verdict.CONTRADICTED else [],
                contradicting=ids if verdict is Verdict.CONTRADICTED else [], rationale=r.reason,
                unsupported=unsupported)
        for claim_id in wanted - set(results):
            results[claim_id] = Judgement(Verdict.UNVERIFIED, rationale=failure or "the judge gave no verdict")
        return results

    def verify_window(self, claims: list[Claim], window: Window, audit: AuditInput,
                      usage: Cost) -> dict[int, Judgement]:
        return self._verify("verify_window", claims, list(window.sentence_ids()), audit, usage)

    def verify_global(self, claims: list[Claim], hints: dict[int, Judgement], audit: AuditInput,
                      usage: Cost) -> dict[int, Judgement]:
        ids = self._global_sentences(claims, hints, audit)
        hint_lines = "\n".join(
            f"{c.id}: {hints[c.id].verdict.value} (sentences {hints[c.id].supporting + hints[c.id].contradicting})"
            if c.id in hints else f"{c.id}: no window matched" for c in claims)
        return self._verify("verify_global", claims, ids, audit, usage, hints=hint_lines)

    def _global_sentences(self, claims: list[Claim], hints: dict[int, Judgement], audit: AuditInput) -> list[int]:
        """The whole context when it fits the model's context; else hinted and best-matching sentences."""
        sentences = audit.context_sentences
        reserve = 2_500 + verdict_reply_tokens(claims) + sum(len(c.text) for c in claims) / CHARS_PER_TOKEN
        budget_chars = max(2_000, int((self.context_budget_tokens() - reserve) * CHARS_PER_TOKEN))
        if sum(len(s.text) + 6 for s in sentences) <= budget_chars:
            return list(range(len(sentences)))
        from rt4chart.text.lexicon import tokenize

        chosen: set[int] = set()
        for hint in hints.values():
            chosen.update(hint.supporting + hint.contradicting)
        for claim in claims:
            stems = [t.stem for t in tokenize(claim.text) if t.is_content]
            chosen.update(i for i, _ in audit.index.rank(stems, range(len(sentences)), 5))
        budget, picked = budget_chars, []
        for i in sorted(chosen):
            budget -= len(sentences[i].text) + 6
            if budget < 0:
                break
            picked.append(i)
        note = (f"the context exceeds the global step's budget ({budget_chars:,} characters for a "
                f"{self.context_budget_tokens():,}-token model context): the global check saw {len(picked)} of "
                f"{len(sentences)} sentences (the hinted and best-matching ones); every window was still checked "
                "locally")
        if note not in audit.notes:
            audit.notes.append(note)
        return picked

    def reflect(self, claims: list[Claim], current: dict[int, Judgement], audit: AuditInput,
                usage: Cost) -> ReflectionStep:
        """Show the judge its verdicts, evidence and reasons with the context; apply what it revises."""
        ids = self._global_sentences(claims, current, audit)
        lines = []
        for c in claims:
            j = current[c.id]
            lines.append(f"{c.id}: {fence_safe(c.text)}\n   verdict: {j.verdict.value}; evidence sentences: "
                         f"{j.supporting + j.contradicting}; reason: {fence_safe(j.rationale)}")
        context = numbered_context(audit, ids)
        prompt = prompts.render("reflect", question=fence_safe(audit.question or "(none)"), context=context,
                                claims="\n".join(lines))
        known = {c.id for c in claims}

        def check(reply: Reflection) -> Optional[str]:
            unknown = sorted({r.claim_id for r in reply.revisions} - known)
            return f"revisions name unknown claim ids {unknown}" if unknown else None

        reply, failure = self._ask(prompt, reflection_schema(), "reflection", Reflection, usage,
                                   verdict_reply_tokens(claims), check)
        if reply is None:
            return ReflectionStep(success=False, failure=failure)
        allowed = set(ids)
        revisions = {}
        for r in reply.revisions:
            verdict = Verdict(r.verdict)
            evidence = [i for i in r.evidence_sentence_ids if i in allowed]
            revisions[r.claim_id] = Judgement(
                verdict, supporting=evidence if verdict is not Verdict.CONTRADICTED else [],
                contradicting=evidence if verdict is Verdict.CONTRADICTED else [], rationale=r.reason,
                unsupported=current[r.claim_id].unsupported if verdict.is_hallucination else [])
        return ReflectionStep(success=reply.success and not revisions, revisions=revisions)


def verdict_reply_tokens(claims: list[Claim]) -> int:
    """A reply budget for verdicts on `claims`: a reason and ids per claim, plus its unsupported words."""
    return 200 + sum(160 + int(len(c.text) / CHARS_PER_TOKEN) for c in claims)
