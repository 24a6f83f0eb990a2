"""Iterative self-reflection: the judge re-examines its verdicts until it declares success or the
round cap is reached. Each round's revisions, flips and cost are recorded; an unusable reply ends
reflection with the last valid verdicts kept and the failure recorded."""
from __future__ import annotations

from rt4chart.core.cost import Cost
from rt4chart.core.errors import JudgeConfigError
from rt4chart.core.types import Claim, ReflectionRound, ReflectionSummary, Verdict
from rt4chart.judges.base import AuditInput, Judge, Judgement

UNSUPPORTED = ("the {name} judge does not reflect: reflection re-asks an LLM judge to re-examine its own "
               "verdicts, and the {name} judge is deterministic (the same input gives the same verdicts); "
               "choose --judge openai to use --reflect")


def check_supported(judge: Judge) -> None:
    """Refuse reflection, with the reason, for judges that cannot reflect."""
    if not judge.supports_reflection:
        raise JudgeConfigError(UNSUPPORTED.format(name=judge.name))


def reflect(claims: list[Claim], finals: dict[int, Judgement], judge: Judge, audit: AuditInput,
            max_rounds: int, usage: Cost) -> tuple[dict[int, Judgement], dict[int, list[Verdict]], ReflectionSummary]:
    """Run up to `max_rounds` rounds; returns the final judgements, each claim's verdict history
    (global verdict first, then one entry per round) and the summary."""
    current = dict(finals)
    history = {c.id: [current[c.id].verdict] for c in claims}
    summary = ReflectionSummary(max_rounds=max_rounds)
    checkable = [c for c in claims if current[c.id].verdict is not Verdict.UNVERIFIED]
    for number in range(1, max_rounds + 1):
        if not checkable:
            summary.success = True
            break
        spent = Cost()
        step = judge.reflect(checkable, current, audit, spent)
        usage += spent
        record = ReflectionRound(round=number, success=step.success, revisions=len(step.revisions),
                                 cost=Cost(calls=spent.calls, cached_calls=spent.cached_calls,  # what a round keeps
                                           prompt_tokens=spent.prompt_tokens, completion_tokens=spent.completion_tokens),
                                 failure=step.failure)
        if step.failure:
            summary.rounds.append(record)
            summary.failure = f"round {number}: {step.failure}; the verdicts of the previous round were kept"
            break
        for claim_id, revised in step.revisions.items():
            if revised.verdict is not current[claim_id].verdict:
                record.flips += 1
            current[claim_id] = revised
        for c in claims:
            history[c.id].append(current[c.id].verdict)
        summary.rounds.append(record)
        summary.flips += record.flips
        if step.success:
            summary.success = True
            break
    summary.changed_claims = sum(current[c.id].verdict is not finals[c.id].verdict for c in claims)
    return current, history, summary
