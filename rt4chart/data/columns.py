"""Which column holds what: context, answer, question, id, gold label, groups. Detected from the words
of the column names ('retrieved_docs', 'llm_response', 'user_query') and, where names say nothing, from
the content (the longest text is the context, shorter text the answer, cells ending in '?' the
question). A detection is a suggestion: the app shows it in editable boxes, the CLI takes --*-col.
"""
from __future__ import annotations

import re
from typing import Iterable, Optional, Sequence

ROLES = ("context", "answer", "question", "id")
EXACT = {
    "context": ("context", "contexts", "source", "document", "passage", "passages", "retrieved_context",
                "reference", "knowledge"),
    "answer": ("answer", "response", "output", "generation", "summary", "prediction", "completion"),
    "question": ("question", "query", "prompt", "input", "user_input"),
    "id": ("id", "row_id", "uid", "example_id", "sample_id"),
}
WORDS = {
    "context": {"context", "contexts", "source", "sources", "document", "documents", "doc", "docs", "passage",
                "passages", "retrieved", "retrieval", "reference", "references", "knowledge", "chunk", "chunks",
                "evidence", "article", "articles", "ctx"},
    "answer": {"answer", "answers", "response", "responses", "output", "outputs", "generation", "generated",
               "summary", "prediction", "completion", "reply", "ans"},
    "question": {"question", "questions", "query", "queries", "prompt", "input", "ask", "instruction", "q"},
    "id": {"id", "uid", "uuid", "key", "idx"},
}
GOLD_NAMES = ("gold_hallucinated", "hallucinated_gold", "gold", "label", "gold_label", "is_hallucinated",
              "is_hallucination", "hallucinated", "hallucination", "human_label")
GOLD_WORDS = {"gold", "label", "labels", "human", "annotated", "annotation", "truth"}
GROUP_NAMES = ("model", "task", "source", "dataset", "group", "system", "domain")
GROUP_WORDS = {"model", "task", "dataset", "group", "system", "domain", "variant", "version", "llm", "retriever",
               "split", "category"}
SPAN_NAMES = ("gold_spans", "spans", "hallucinated_spans", "labels_spans", "annotated_spans", "hallucination_spans",
              "span_labels")


def name_words(column: str) -> list[str]:
    """'retrieved_docs' -> ['retrieved', 'docs']; 'llmResponse' -> ['llm', 'response']."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", str(column))
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def _texts(rows: Sequence[dict], column: str) -> list[str]:
    return [v for r in rows if isinstance(v := r.get(column), str) and v.strip()]


def _profile(rows: Sequence[dict], column: str) -> tuple[float, float, float]:
    """(mean length of text cells, share of cells ending with '?', share of cells that are text)."""
    texts = _texts(rows, column)
    if not rows:
        return 0.0, 0.0, 0.0
    mean = sum(len(t) for t in texts) / len(texts) if texts else 0.0
    questions = sum(t.rstrip().endswith("?") for t in texts) / len(texts) if texts else 0.0
    return mean, questions, len(texts) / len(rows)


def could_be_id(column: str) -> bool:
    """Whether the id detection could pick this column (its name is an id name, or ends in an id word)."""
    return _name_score("id", column) > 0


def _name_score(role: str, column: str) -> int:
    lowered = str(column).strip().lower()
    if lowered in EXACT[role]:
        return 3
    words = name_words(column)
    if role == "id":
        return 2 if words and words[-1] in WORDS["id"] else 0
    return 2 if any(w in WORDS[role] for w in words) else 0


# Evaluation tools' own record shapes, recognised by their column names before any guess: in each, a
# column that a guess would take for the context holds something else (RAGAS' `reference` is the reference
# answer, DeepEval's `context` the ideal context, not what the retriever gave the model).
KNOWN_FORMATS = (
    ("RAGAS EvaluationDataset", {"user_input", "retrieved_contexts", "response"},
     {"context": "retrieved_contexts", "answer": "response", "question": "user_input"}),
    ("RAGAS (before 0.2)", {"question", "contexts", "answer"},
     {"context": "contexts", "answer": "answer", "question": "question"}),
    ("DeepEval test cases", {"input", "actual_output", "retrieval_context"},
     {"context": "retrieval_context", "answer": "actual_output", "question": "input"}),
)
# How each format writes a list of passages into one text cell (CSV, and DeepEval's JSONL too): RAGAS' to_csv
# (pandas) writes the list's Python repr, DeepEval's save_as joins the passages with "|" (and reads them back so).
LIST_CELLS = {"RAGAS EvaluationDataset": "python-list", "RAGAS (before 0.2)": "python-list",
              "DeepEval test cases": "pipe"}


def known_format(columns: Iterable[str]) -> Optional[tuple[str, dict[str, Optional[str]]]]:
    """(the format's name, role -> column) when the columns are those of a known evaluation format."""
    names = set(columns)
    for name, needed, roles in KNOWN_FORMATS:
        if needed <= names:
            ids = next((c for c in EXACT["id"] if c in names), None)
            return name, {**roles, "id": ids}
    return None


def list_cells(columns: Iterable[str], context_column: Optional[str]) -> Optional[str]:
    """How the known format of `columns` writes its list of passages into a text cell, when `context_column`
    is that format's passages column ("python-list", "pipe"); None otherwise."""
    known = known_format(columns)
    if known is None or known[1].get("context") != context_column:
        return None
    return LIST_CELLS.get(known[0])


# Complex on purpose: the order of evidence for a column's role (a known format, an exact name, a name's
# words, the content) is the point; each step only fills the roles the earlier ones left.
def detect_columns(columns: Sequence[str], rows: Sequence[dict] = ()) -> dict[str, Optional[str]]:
    """Role -> column (or None): a known evaluation format's columns, else names first (exact, then their
    words), then content for what is left."""
    known = known_format(columns)
    if known is not None:
        return dict(known[1])
    sample = list(rows)[:200]
    profiles = {c: _profile(sample, c) for c in columns} if sample else {}
    chosen: dict[str, Optional[str]] = {r: None for r in ROLES}
    taken: set[str] = set()
    for role in ROLES:
        candidates = [c for c in columns if c not in taken and _name_score(role, c)]
        if profiles and role in ("context", "answer"):  # a name is no use on a column of numbers or labels
            least = 20 if role == "context" else 2
            candidates = [c for c in candidates if _name_score(role, c) == 3
                          or (profiles[c][2] >= 0.5 and profiles[c][0] >= least)]
        if role == "context" and profiles:
            candidates.sort(key=lambda c: -profiles[c][0])  # the longest text named like a context
        elif role == "answer" and profiles:  # exact names first, then the longest text ('response_time' is none)
            candidates.sort(key=lambda c: (-_name_score(role, c), -profiles[c][0]))
        else:
            candidates.sort(key=lambda c: -_name_score(role, c))  # exact names first, then their words
        if candidates:
            chosen[role] = candidates[0]
            taken.add(candidates[0])
    if profiles:
        _by_content(chosen, taken, columns, profiles)
    return chosen


def _by_content(chosen: dict, taken: set, columns: Sequence[str], profiles: dict) -> None:
    free = [c for c in columns if c not in taken and profiles[c][2] >= 0.5]
    if chosen["question"] is None:
        asking = [c for c in free if profiles[c][1] >= 0.5]
        if asking:
            question = max(asking, key=lambda c: profiles[c][1])
            chosen["question"] = question
            free.remove(question)
    texts = sorted((c for c in free if profiles[c][0] >= 20), key=lambda c: -profiles[c][0])
    if chosen["context"] is None and texts:
        if chosen["answer"] is None or profiles[texts[0]][0] > profiles[chosen["answer"]][0]:
            chosen["context"] = texts.pop(0)
    if chosen["answer"] is None and texts:
        chosen["answer"] = texts.pop(0)


def detect_gold_column(columns: Iterable[str]) -> Optional[str]:
    columns = list(columns)
    lowered = {str(c).lower(): c for c in columns}
    exact = next((lowered[n] for n in GOLD_NAMES if n in lowered), None)
    if exact is not None:
        return exact
    return next((c for c in columns if GOLD_WORDS & set(name_words(c)) and "span" not in str(c).lower()), None)


def detect_spans_column(columns: Iterable[str]) -> Optional[str]:
    """A column of gold spans: a known name, else one whose name words include 'spans'."""
    columns = list(columns)
    lowered = {str(c).lower(): c for c in columns}
    exact = next((lowered[n] for n in SPAN_NAMES if n in lowered), None)
    return exact if exact is not None else next((c for c in columns if "spans" in name_words(c)), None)


def detect_group_columns(columns: Iterable[str]) -> list[str]:
    columns = list(columns)
    lowered = {str(c).lower(): c for c in columns}
    exact = [lowered[n] for n in GROUP_NAMES if n in lowered]
    by_words = [c for c in columns if c not in exact and str(c).lower() not in EXACT["context"]
                and GROUP_WORDS & set(name_words(c)) and len(name_words(c)) <= 3
                and not (set(name_words(c)) & (WORDS["answer"] | WORDS["context"] | WORDS["question"]))]
    return exact + by_words
