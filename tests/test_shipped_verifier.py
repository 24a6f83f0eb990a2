"""The verifier that ships with rt4chart: it loads with ONNX Runtime alone, says what it was made from, and
the hybrid judge built on it keeps the offline judge's proofs while the model reads the rest. The examples
are the ones of the issue that asked for a judge that reads; where verifier v1 still misses one, the test
says so (strict xfail: it fails the day the miss is fixed, so the note is removed then)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rt4chart import audit
from rt4chart.core.types import Verdict
from rt4chart.judges.factory import make_judge
from rt4chart.judges.model.checkpoint import Checkpoint
from rt4chart.judges.model.judge import shipped_path

FOLDER = Path(shipped_path())


def test_the_shipped_verifier_runs_on_onnx_runtime_with_its_three_labels():
    ck = Checkpoint(str(FOLDER))
    assert (ck.kind, ck.runtime, ck.max_length) == ("nli", "onnxruntime", 256)
    assert ck.labels.labels == ("entailed", "contradicted", "baseless")
    (e, c, b), = ck.pair_probs(["The bridge was built in 1850."], ["The bridge was built in 1850."])
    assert e > 0.5 and abs(e + c + b - 1) < 1e-5


def test_the_model_card_and_training_record_name_every_data_file_with_its_checksum():
    card = (FOLDER / "MODEL_CARD.md").read_text()
    record = json.loads((FOLDER / "training.json").read_text())
    files = record["pairs"]["files"]
    assert set(files) == {"halueval_qa.jsonl", "summedits.jsonl", "xsum_spans.jsonl", "begin.jsonl",
                          "faithdial.jsonl", "dialfact.jsonl"}
    assert all(len(f["sha256"]) == 64 for f in files.values()) and record["steps"] > 0
    for name in files:
        assert name in card
    assert "halueval_dialogue" in json.dumps(record["pairs"]["excluded_files"])  # CC BY-NC: never shipped


@pytest.fixture(scope="module")
def hybrid():
    return make_judge("hybrid")


def test_a_figure_in_digits_that_differs_is_a_proof_the_model_never_reads(hybrid):
    report = audit("The bridge was built in 1850. It is 40 metres long.", "The bridge was built in 1870.",
                   judge=hybrid)
    claim = report.claims[0]
    assert claim.verdict.value == "contradicted" and claim.rationale.startswith("proof:")
    assert [e.text for e in claim.evidence] == ["The bridge was built in 1850."]


def test_a_figure_in_digits_that_restates_a_duration_is_no_proof(hybrid):
    claim = audit("The trial lasted a year, the company said.", "The trial lasted 12 months.", judge=hybrid).claims[0]
    assert not claim.rationale.startswith("proof:")  # '12' is never written, but '12 months' is 'a year'
    assert claim.verdict.value == "entailed"


def test_a_verbatim_claim_is_entailed_with_its_sentence(hybrid):
    context = ("Ahlam, a former teacher, fled with her children. From the camp she was able to call her husband, "
               "who stayed behind.")
    claim = audit(context, "Ahlam was able to call her husband.", judge=hybrid).claims[0]
    assert claim.verdict.value == "entailed"  # the offline judge alone once called it contradicted
    assert claim.evidence[0].text.startswith("From the camp she was able to call her husband")


def test_an_entailed_answer_is_shown_with_the_sentence_that_holds_it_not_the_one_about_the_questions_subject(hybrid):
    """v1, reading each sentence alone beside the question, rates the sentence about the race highest (P 0.96 for
    both); the sentence that says "6.213 km long" is the one that proves the answer, and the rationale's word
    check points at it."""
    context = ("The Harwick 12 Hour is an endurance race for GT and touring cars, held each February at the Mount "
               "Leura circuit near Harwick. The race was first run in 1991 and is organised by the Harwick Motor "
               "Club. The 6.213 km long track is a public road with normal speed limits when no race is being run. "
               "It climbs 174 metres from the pit lane to the summit.")
    claim = audit(context, "6.213 km long", question="How long is the circuit where the Harwick 12 Hour is held?",
                  judge=hybrid).claims[0]
    assert claim.verdict.value == "entailed"
    assert [e.text for e in claim.evidence] == [
        "The 6.213 km long track is a public road with normal speed limits when no race is being run."]
    assert "100% of the claim's content is found in the evidence" in claim.rationale


def test_a_lost_foot_where_the_context_says_the_leg_was_amputated_is_flagged(hybrid):
    context = "The girl was injured in the blast. Doctors said her leg was amputated below the knee."
    claim = audit(context, "The girl lost her foot in the blast.", judge=hybrid).claims[0]
    assert claim.verdict.is_hallucination  # the offline judge alone calls it entailed


def test_a_correct_paraphrase_of_a_figure_is_entailed(hybrid):
    # 'half year' and 'six months' are the same number of days (rt4chart.text.measures), and the verifier
    # reads the paraphrase (P entailed 0.71): neither judge sees a different figure
    context = ("The museum opened in March. Visitors doubled in the first six months, the city said. "
               "The café is on the ground floor.")
    claim = audit(context, "Visitors doubled during the first half year.", judge=hybrid).claims[0]
    assert claim.verdict.value == "entailed"
    assert claim.evidence[0].text == "Visitors doubled in the first six months, the city said."


COURT = ("On 3 March the regional court dismissed the lawsuit brought by the tenants' association against Hallmark "
         "Properties. The judge ruled that the rent increases of 2022 complied with the local housing code. The "
         "association had argued that the landlord failed to carry out required repairs. The court did not rule on the "
         "repair complaints, which will be heard in a separate case in the autumn.")


HARBOR = ("The Lindqvist Harbor Bridge opened to traffic on 14 May 1998. It is 1,240 metres long and carries four "
          "lanes of road traffic and a separate cycle path. Construction took four years and cost 310 million euros. "
          "The board proposed a dividend of 1.10 dollars per share.")


@pytest.mark.parametrize("context, question, answer", [
    (COURT, "When was the lawsuit dismissed?", "The lawsuit was dismissed on 3 March."),
    (HARBOR, "When did the Lindqvist Harbor Bridge open and how long is it?",  # the walk's case (#38)
     "The Lindqvist Harbor Bridge opened on 14 May 1998 and is 1,240 metres long."),
    (HARBOR, "What dividend did the board propose?", "The board proposed a dividend of 1.10 dollars per share."),
])
def test_the_question_takes_no_support_from_a_claim_the_context_says(hybrid, context, question, answer):
    """#38: filling in the optional question must not turn a supported claim baseless. With the question before it,
    v1 reads such claims at P(entailed) 0.01 against the context; the sentences that hold every word of the claim (of
    each of its predicates) are read alone, without the question."""
    without = audit(context, answer, judge=hybrid).claims[0]
    claim = audit(context, answer, question=question, judge=hybrid).claims[0]
    assert without.verdict.value == claim.verdict.value == "entailed"
    assert claim.evidence[0].text.startswith(("On 3 March", "The Lindqvist", "The board proposed"))
    if "dividend" not in answer:  # the reason says which reading entailed it
        assert "without the question" in claim.rationale, claim.rationale
    if "metres" in answer:  # a sentence per predicate: both are its support
        assert [e.text[:16] for e in claim.evidence] == ["The Lindqvist Ha", "It is 1,240 metr"]


@pytest.mark.parametrize("context, claim, held", [
    ("The lawsuit was filed in May. On 3 March the court dismissed the lawsuit.", "The lawsuit was dismissed on 3 March.",
     [1]),
    ("The Harbor Bridge opened to traffic on 14 May 1998. It is 1,240 metres long.",
     "The Harbor Bridge opened on 14 May 1998 and is 1,240 metres long.", [0, 1]),  # a sentence per predicate
    ("Boston College is located in Chestnut Hill. Stanford University is in California.",
     "Stanford University is located in Chestnut Hill.", []),  # one predicate's words in two sentences
    ("The New Pornographers are a Canadian band. Kings of Leon are an American rock band.",
     "Both The New Pornographers and Kings of Leon are American rock bands.", []),  # 'and' joins names here
    ("On 3 March the court dismissed the lawsuit.", "The lawsuit was dismissed on 4 March.", []),  # not found
])
def test_the_one_sentence_reading_is_for_claims_sentences_say_word_for_word(context, claim, held):
    from rt4chart.auditing.pipeline import prepare
    from rt4chart.core.cost import Cost
    from rt4chart.judges.offline.judge import OfflineJudge

    judge, seen = OfflineJudge(), prepare(context, claim, "When?")
    claims = judge.decompose(seen, Cost())
    found = judge.verify_global(claims, {}, seen, Cost())
    assert judge.holding_sentences(claims[0], found[claims[0].id], seen) == held


def test_how_much_of_a_claim_sentences_hold_is_weighed_by_its_words_without_the_question():
    from rt4chart.auditing.pipeline import prepare
    from rt4chart.core.cost import Cost
    from rt4chart.judges.offline.judge import OfflineJudge

    context = "The race is held in February. The 6.213 km long track climbs 174 metres. Tickets cost 40 euros."
    judge = OfflineJudge()

    def held(answer: str, ids: list[int]) -> float:
        seen = prepare(context, answer, "How long is the track?")
        return judge.content_held(judge.decompose(seen, Cost())[0], seen, ids)

    claim = "The track is 6.213 km long and climbs 174 metres."
    assert held(claim, [1]) == held(claim, [0, 1]) == 1.0
    assert held(claim, [0]) == held(claim, [2]) == held(claim, []) == 0.0  # the question's 'track', 'long' count not
    assert 0.0 < held("The track is 6.213 km long and climbs 200 metres.", [1]) < 1.0  # a figure it lacks


def test_a_bare_name_is_still_read_beside_its_question(hybrid):
    """'The Simpsons.' says nothing without its question, though one sentence holds it: the one-sentence reading is
    for claims of six words or more, so the wrong show stays flagged (read alone, v1 entails it at 0.85)."""
    context = ("Matt Groening created The Simpsons in 1989. Futurama premiered in 1999 and was also created by Matt "
               "Groening.")
    report = audit(context, "The Simpsons.", question="Which Matt Groening show premiered in 1999?", judge=hybrid)
    assert report.claims[0].verdict.is_hallucination


def test_a_pairs_probabilities_do_not_depend_on_what_is_read_beside_it():
    """The int8 graph quantizes activations per run: read in one batch with longer pairs, a pair's probabilities
    moved (up to 0.11 on the dev files), so an audit depended on what else was audited or cached before it."""
    ck = Checkpoint(str(FOLDER))
    pair = ("Visitors doubled in the first six months, the city said.", "Visitors doubled during the first half year.")
    others = [("The museum opened in March after a decade of works. " * k, f"The museum opened in {m}.")
              for k, m in ((1, "May"), (4, "March"), (9, "June"))]
    alone = ck.pair_probs([pair[0]], [pair[1]])[0]
    beside = ck.pair_probs([p for p, _ in others] + [pair[0]], [h for _, h in others] + [pair[1]])[-1]
    assert alone == beside



def test_pairs_read_on_several_lanes_get_the_probabilities_one_lane_gives_in_the_order_asked():
    """With two or more threads, one single-threaded session per thread reads its share of the pairs (a pair read
    alone leaves a second thread of one session mostly idle); each pair's probabilities and its place in the answer
    are those of one session reading them all."""
    pairs = [(f"The museum opened in {m} after {k} years of works. " * k, f"The museum opened in {m}.")
             for k, m in ((1, "May"), (4, "March"), (9, "June"), (2, "April"), (6, "July"))]
    premises, hypotheses = [p for p, _ in pairs], [h for _, h in pairs]
    one, three = Checkpoint(str(FOLDER), threads=1), Checkpoint(str(FOLDER), threads=3)
    assert (one.backend.lanes, three.backend.lanes) == (1, 3)
    assert three.pair_probs(premises, hypotheses) == one.pair_probs(premises, hypotheses)
    assert three.pair_probs(premises[:1], hypotheses[:1]) == one.pair_probs(premises[:1], hypotheses[:1])


def test_a_rows_model_cost_is_the_same_whatever_the_process_read_before():
    """The judge remembers pairs across rows (a Dask worker, a pool process each have their own memory), so the
    cost a report states counts the pairs its audit asked for, not the ones this process happened to read."""
    context = ("The Lindqvist Harbor Bridge opened to traffic on 14 May 1998. It is 1,240 metres long. "
               "A major renovation of the deck is planned for 2027.")
    answer = "The bridge opened in 1998. A deck renovation is planned for 2027."
    judge = make_judge("hybrid")
    first = audit(context, answer, judge=judge).coverage.cost
    again = audit(context, answer, judge=judge).coverage.cost  # every pair now in the judge's memory
    fresh = audit(context, answer, judge=make_judge("hybrid")).coverage.cost
    assert first.model_pairs > 0
    assert (again.model_pairs, again.model_tokens) == (first.model_pairs, first.model_tokens) == \
        (fresh.model_pairs, fresh.model_tokens)


SAMPLE = Path(__file__).resolve().parents[1] / "sample_data" / "rag_audit_sample.csv"
SAMPLE_MISSES: dict[str, str] = {}  # the default judge's known misses on the demo data, each with why (strict xfail)


def _sample_rows() -> list[dict]:
    import csv

    with SAMPLE.open(newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("row", [pytest.param(r, id=r["id"], marks=[pytest.mark.xfail(
    reason=SAMPLE_MISSES[r["id"]], strict=True)] if r["id"] in SAMPLE_MISSES else []) for r in _sample_rows()])
def test_the_default_judge_gives_each_demo_record_its_reviewers_verdict(hybrid, row):
    """#37 item 5: the demo data's verdicts are the ones a careful reader gives (written from the texts in
    sample_data/make_sample.py, not copied from a judge), with the app's default judge."""
    report = audit(row["context"], row["answer"], question=row["question"] or None, judge=hybrid)
    assert report.hallucinated == (row["gold_hallucinated"] == "true"), row["gold_note"]


def test_no_entailed_demo_claim_is_shown_with_sentences_holding_less_of_it_than_the_word_checks_best(hybrid):
    """The rule behind what an entailed claim is shown with, over every demo record and the app's example: the
    sentences shown hold at least as much of the claim's words as the sentence the word check found most of it in."""
    from rt4chart.auditing.pipeline import prepare
    from rt4chart.core.cost import Cost

    checked = 0
    for row in _sample_rows():
        report = audit(row["context"], row["answer"], question=row["question"] or None, judge=hybrid)
        seen = prepare(row["context"], row["answer"], row["question"] or None)
        claims = [result.claim for result in report.claims]
        words = hybrid.offline.verify_global(claims, {}, seen, Cost())
        for result in report.claims:
            if result.verdict is not Verdict.ENTAILED or not words[result.claim.id].supporting:
                continue
            shown = [e.sentence_index for e in result.evidence if e.relation == "supports"]
            best = words[result.claim.id].supporting[:1]
            held = hybrid.offline.content_held
            assert shown and held(result.claim, seen, shown) >= held(result.claim, seen, best), (row["id"], shown, best)
            checked += 1
    assert checked >= 12  # the demo data's entailed claims that the word check found


def test_the_models_support_does_not_clear_what_the_words_doubt(hybrid):
    """volcano-4: v1 reads 'Its summit trail is open all year' as entailed (P 0.81) beside 'The summit trail is
    closed from November to March'; the word check finds neither 'open' nor 'all year', and its flag stands."""
    row = next(r for r in _sample_rows() if r["id"] == "volcano-4")
    report = audit(row["context"], row["answer"], question=row["question"] or None, judge=hybrid)
    trail = next(c for c in report.claims if c.claim.text.startswith("Its summit trail"))
    assert trail.verdict is not Verdict.ENTAILED and trail.score >= 0.5
    assert "closed from November to March" in trail.evidence[0].text
    assert "the model's reading (P entailed" in trail.rationale
    assert trail.rationale.endswith("does not clear what the word check flags")


def test_a_sentence_opening_with_a_pronoun_is_read_with_its_subject_when_read_without_the_one_before(hybrid):
    """insulin-1: "It is usually injected once a day …" says nothing about insulin glargine when read alone; the model
    reads it as "Insulin glargine is usually injected …", and beside the sentence before it, as it is written."""
    from rt4chart.auditing.pipeline import prepare

    row = next(r for r in _sample_rows() if r["id"] == "insulin-1")
    seen = prepare(row["context"], row["answer"], row["question"])
    first, second = seen.context_sentences[0].text, seen.context_sentences[1].text
    assert hybrid._premise([1], seen) == "Insulin glargine" + second[len("It"):]
    assert hybrid._premise([0, 1], seen) == f"{first} {second}"
    report = audit(row["context"], row["answer"], question=row["question"], judge=hybrid)
    claim = report.claims[0]
    assert claim.verdict is Verdict.ENTAILED and [e.sentence_index for e in claim.evidence] == [1]
    assert "reading 'It' as 'Insulin glargine'" in claim.rationale  # the user sees how "It …" says it
    unresolved = make_judge("hybrid", resolve_pronouns=False)
    assert audit(row["context"], row["answer"], question=row["question"], judge=unresolved).hallucinated


def test_a_claim_saying_stay_for_be_kept_is_read_in_its_sentence(hybrid):
    """insulin-3: "a pen in use can stay at room temperature for up to 28 days" beside "… a pen in use can be kept at
    room temperature for up to 28 days." Every content word is in that sentence ('stay' is a copula, as 'be' is), so
    it is read there without its question, and entailed with it."""
    row = next(r for r in _sample_rows() if r["id"] == "insulin-3")
    report = audit(row["context"], row["answer"], question=row["question"], judge=hybrid)
    claim = next(c for c in report.claims if "can stay" in c.claim.text)
    assert claim.verdict is Verdict.ENTAILED, claim.rationale
    assert [e.sentence_index for e in claim.evidence] == [4]
    assert claim.rationale.startswith("the model reads it in the sentences that say it, without the question")


def test_the_models_support_does_not_relate_words_no_sentence_relates(hybrid):
    """v1 reads "The sky is green." beside "The sky is blue. The grass is green." at P(entailed) 0.83; the word check's
    flag (no sentence holds more than half of it) stands."""
    report = audit("The sky is blue. The grass is green.", "The sky is green.", judge=hybrid)
    assert report.hallucinated and report.claims[0].verdict is Verdict.BASELESS


def test_the_apps_example_gets_a_careful_readers_verdict_on_every_claim(hybrid):
    """#37 item 5, harbor-4 (the app's "Load an example"): the true claim whose three facts sit in three sentences is
    entailed with those sentences (v1 reads it at P 0.01: it cannot join them; without a question its doubt alone does
    not flag what the word check finds whole), the toll claim is contradicted, the renovation entailed."""
    row = next(r for r in _sample_rows() if r["id"] == "harbor-4")
    report = audit(row["context"], row["answer"], judge=hybrid)
    assert [c.verdict for c in report.claims] == [Verdict.ENTAILED, Verdict.CONTRADICTED, Verdict.ENTAILED]
    assert sorted(e.sentence_index for e in report.claims[0].evidence) == [0, 1, 2]
    assert [e.sentence_index for e in report.claims[1].evidence if e.relation == "contradicts"] == [4]
    assert [e.sentence_index for e in report.claims[2].evidence] == [5]
    assert "did not outweigh it" in report.claims[0].rationale  # the model's doubt is named, not hidden
    strict = make_judge("hybrid", sure_words=0.0)
    assert audit(row["context"], row["answer"], judge=strict).claims[0].verdict is Verdict.BASELESS


def test_a_contradiction_the_word_check_found_is_explained_by_it_first(hybrid):
    """The toll claim of the app's example is contradicted by the word check; the model only finds no support. The
    rationale opens with the contradiction (what the user must read), then says how the model's reading stood."""
    row = next(r for r in _sample_rows() if r["id"] == "harbor-4")
    toll = audit(row["context"], row["answer"], judge=hybrid).claims[1]
    assert toll.verdict is Verdict.CONTRADICTED
    assert toll.rationale.startswith("word check: ") and "finds no support" not in toll.rationale
    assert toll.rationale.endswith(("also flags it", "does not clear it"))


def test_a_claim_both_readings_flag_names_what_the_context_lacks_first():
    """Where the word check and the model both flag a claim, the rationale opens with what the context does not say
    (what the user can check), then says the model's reading agrees."""
    report = audit("The bridge opened to traffic in 1998. It carries four lanes of traffic across the river.",
                   "The tunnel under the harbour was designed by a Danish engineering firm.", judge=make_judge("hybrid"))
    claim = report.claims[0]
    assert claim.verdict is Verdict.BASELESS
    assert claim.rationale.startswith("word check: the context does not mention 'Danish'")
    assert claim.rationale.endswith("also flags it")


def test_beside_a_question_the_models_doubt_still_flags_what_the_words_find():
    """HaluEval's wrong relations look like this: every word is in the context, in two sentences."""
    context = "Boston College is located in Chestnut Hill. Stanford University is in California."
    answer = "Stanford University is located in Chestnut Hill."
    judge = make_judge("hybrid")
    assert audit(context, answer, question="Where is Stanford University?", judge=judge).hallucinated
