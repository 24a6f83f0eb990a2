"""Rule-based decomposition of an answer into clause-level claims with exact spans.

Clauses are cut at semicolons, at a comma followed by a coordinating or relative word, and after a concessive
clause that opens the sentence ("Despite X, Y", "While X, Y").
The cut never crosses a negation or number: each claim is a verbatim piece of the answer, so its
qualifiers (not, only, 3.5 million, in 2019) stay inside it. Sentences that assert nothing about
the subject (questions, greetings, remarks about the passages themselves, headings and list labels) are not
claims; a remark on the sources before a fact ("Based on the given passages, …") is cut off and the fact verified.
"""
from __future__ import annotations

import re
from typing import Iterator

from rt4chart.core.types import Claim, Sentence, Span

_CUT = re.compile(
    r";\s+|,\s+(?=(?:and|but|while|whereas|although|though|which|who|so|yet|as well as|however)\b)"
    r"|\s+(?=(?:but|whereas)\b)",
    re.IGNORECASE,
)
# A sentence that opens with a concessive clause ("Despite being convicted of a misdemeanor charge, Finn was not
# forced …") states two facts: the clause is cut at its comma.
_LEADING = re.compile(r"^\W*(?:despite|although|though|even though|while|whereas)\b[^,;.]{3,200}?(,\s+)", re.IGNORECASE)
_MIN_WORDS = 4
_WORD = re.compile(r"\w+")
_SOURCE = r"(?:passages?|context|documents?|sources?|information|text|articles?|data|search results?)"
_META = re.compile(
    r"^\W*(?:sure|certainly|of course|absolutely|okay|ok)\b[\s,!.]*$"
    r"|^\W*(?:sure|certainly|of course|absolutely)[,!]"
    r"|\b(?:hope (?:this|that) helps|let me know|feel free to)\b"
    r"|^\W*(?:here(?:'s| is| are)|below (?:is|are))\b[^.]*:\s*$"
    r"|\bI (?:cannot|can't|can not|am unable to|'m unable to|do not have)\b"
    r"|\bunable to (?:answer|provide|determine|find)\b"
    r"|^\W*(?:options?|choices?) \d{1,2}(?:\s*(?:,|or|and|, or|, and)\s*(?:(?:options?|choices?) )?\d{1,2})*\W*$"  # the answer's own items
    r"|\b(?:possible|able|enough information|sufficient information)\s+to\s+(?:\w+\s+)?"
    r"(?:answer\b|provide\s+(?:an?\s+)?(?:\w+\s+)?answer\b)"                     # remarks on answering the question
    r"|\b(?:the|this|my|a brief|a short) answer to (?:the|this|your) question\b(?:\s*\"[^\"]{0,300}\")?(?:(?!\bis\b).){0,300}$",  # … unless 'is X'
    re.IGNORECASE,
)


# A sentence that points at what follows it: 'follow these steps:', 'as follows:', 'the tips below:'. One that says
# something of its own before the colon ('Passage 1 gives the steps for Windows 7:', 'It has two causes:') stays.
_INTRO = re.compile(r"\b(?:(?:follow(?:ing)?|try|use|take|do)\s+(?:these|this|the following)|the following|as follows|below)"
                    r"\b(?:\s+[\w'-]+){0,6}\s*:\W*$", re.IGNORECASE)


# "Based on the given passages, …", "According to the context, …", "The passages state that …": the fact after
# it is the claim. A prefix naming a passage by number ("According to passage 2, …") stays: the citation is
# checked (rt4chart.judges.offline.context_checks).
_META_PREFIX = re.compile(
    rf"^\W*(?:(?:based (?:(?:solely|only|entirely|purely|mainly|largely) )?on|according to|from|"
    rf"as (?:stated|mentioned|described|noted|shown|given) in|in light of)\s+"
    rf"(?:the |these |this |all (?:the |of the )?)?(?:given |provided |above |retrieved |available )?{_SOURCE}"
    rf"(?:\s+(?:provided|given|above))?(?:\s+(?:in|by) (?:the |these |this )?(?:given |provided )?{_SOURCE})?\s*,\s*"
    rf"(?:(?:we|I|you|one) can (?:understand|see|infer|conclude|tell|say|determine|learn) that\s+"
    rf"|it (?:is|can be) (?:clear|seen|inferred|understood|concluded) that\s+)?"
    rf"|(?:the |these |this )?(?:given |provided |above )?{_SOURCE}\s+(?:\w+ly\s+)?(?:states?|says?|mentions?|"
    rf"indicates?|suggests?|notes?|explains?|shows?|reports?|confirms?|claims?|reveals?) that\s+"
    rf"|(?:(?:therefore|thus|so|hence|in (?:conclusion|summary|short))\s*,?\s*)?the (?:correct |final |right )?answer"
    rf"(?: to (?:the|this|your) question(?:\s*\"[^\"]*\"|\s*'[^']*'|\s+of\s+[^,:]*)?)?\s*(?:is|would be)\s*:?\s*)",
    re.IGNORECASE)
# A heading or list label: "Essential Amino Acids:", "**Pros:**", "## Side effects", "Differences:"
_HEADING = re.compile(r"^\W*(?:(?:\d{1,2}|[a-z])[.)]\s+)?(?:#{1,6}\s+[^.!?]*|[^.!?:]{1,80}:\W*)$", re.IGNORECASE)
_HEADING_WORDS = 8


def is_heading(text: str) -> bool:
    """True for a heading or a list's label: a few words ending in a colon, or a markdown heading."""
    stripped = text.strip()
    return bool(_HEADING.match(stripped)) and len(_WORD.findall(stripped)) <= _HEADING_WORDS


def meta_prefix(text: str) -> int:
    """How many characters of `text` are a remark on the sources before its fact ("Based on the passages, …"),
    or 0; what follows must be a claim of its own (at least _MIN_WORDS words)."""
    match = _META_PREFIX.match(text)
    if not match or len(_WORD.findall(text[match.end():])) < _MIN_WORDS:
        return 0
    return match.end()


def is_meta(text: str) -> bool:
    """True for text that is not a claim about the subject: questions, pleasantries, remarks on the sources,
    headings and list labels, and a sentence that only introduces what follows it ('To make ghee, follow these
    steps:'; the items after it are the claims)."""
    stripped = text.strip()
    return stripped.endswith("?") or bool(_META.search(stripped) or _INTRO.search(stripped)) or is_heading(stripped)


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and (text[start].isspace() or text[start] in ",;"):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in ",;"):
        end -= 1
    return start, end


def split_clauses(answer: str, sentence: Sentence) -> list[tuple[int, int]]:
    """Character ranges of the clauses of one sentence; short pieces stay with their neighbour."""
    pieces: list[tuple[int, int]] = []
    cursor = sentence.start
    leading = _LEADING.match(sentence.text)
    cuts = sorted([(m.start(), m.end()) for m in _CUT.finditer(sentence.text)]
                  + ([leading.span(1)] if leading else []))
    for a, b in cuts:
        if sentence.start + a < cursor:
            continue
        pieces.append((cursor, sentence.start + a))
        cursor = sentence.start + b
    pieces.append((cursor, sentence.end))
    merged: list[tuple[int, int]] = []
    for start, end in pieces:
        start, end = _trimmed(answer, start, end)
        if end <= start:
            continue
        words = len(_WORD.findall(answer[start:end]))
        if merged and (words < _MIN_WORDS or len(_WORD.findall(answer[merged[-1][0]:merged[-1][1]])) < _MIN_WORDS):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def asserting_pieces(answer: str, sentence: Sentence) -> Iterator[tuple[int, int, bool]]:
    """(start, end, about the context) of each piece of one answer sentence that is checked as a claim: its
    clauses, after any remark on the sources before its fact; a statement about the context ("… is not
    mentioned in the passages") whole. Questions, pleasantries, headings, remarks and bare citations give none."""
    from rt4chart.text.passages import about_context, denies_after_passage_subject, is_citation

    if is_meta(sentence.text) or is_citation(sentence.text):
        return
    if about_context(sentence.text):
        yield sentence.start, sentence.end, True
        return
    skip = meta_prefix(sentence.text)
    if skip:  # "Based on the passages, X": X is the claim, its span starts at X
        sentence = sentence.model_copy(update={"start": sentence.start + skip, "text": sentence.text[skip:]})
        if is_meta(sentence.text):
            return
    for start, end in split_clauses(answer, sentence):
        if denies_after_passage_subject(sentence.text, start - sentence.start):  # '… but does not mention frying'
            yield start, end, True
        elif not is_meta(answer[start:end]):
            yield start, end, False


def split_claims(answer: str, sentences: list[Sentence]) -> list[Claim]:
    """Claims of an answer: one per asserting piece of each sentence (`asserting_pieces`). A sentence that only
    cites passages ("… ceremony. (Passage 2)") is no claim: it joins the last claim of the sentence before, whose
    citation is then checked like one inside it."""
    from rt4chart.text.passages import is_citation

    pieces: list[tuple[int, int, int, bool]] = []
    for sentence in sentences:
        if is_citation(sentence.text):
            if pieces and pieces[-1][0] == sentence.index - 1:
                index, start, _, about = pieces[-1]
                pieces[-1] = (index, start, sentence.end, about)
            continue
        pieces += [(sentence.index, start, end, about) for start, end, about in asserting_pieces(answer, sentence)]
    return [Claim(id=i, text=answer[start:end], spans=[Span(start=start, end=end)], sentence_index=index,
                  about_context=about) for i, (index, start, end, about) in enumerate(pieces)]
