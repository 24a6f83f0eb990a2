"""Passages inside a context and what an answer says about them: where each context sentence's passage is
("passage 2: …" headers), which passages a claim cites, which claims are statements about the context
("… is not mentioned in the passages"), and which words of a claim only say where its fact is told ("Passage 3
provides instructions for …", "The author argues that …")."""
from __future__ import annotations

import re
from typing import Optional

_HEADER = re.compile(r"(?im)^[ \t]*\[?(?:passage|document|source|doc)[ \t]*(\d{1,3})\]?[ \t]*[:.)-]")
_CITE = re.compile(r"\b(?:passages?|documents?|sources?)[ \t]+(\d{1,3})((?:[ \t]*(?:,|and|&)[ \t]*\d{1,3})*)", re.I)
META_WORDS = frozenset("""passage passages context document documents source sources information text article articles
data mention mentions mentioned provide provides provided state states stated specify specifies specified include
includes included contain contains contained explicitly specifically directly discuss discusses discussed address
addresses addressed given available say says said detail details note notes noted although however regarding
about whether any either""".split())
_ABOUT = re.compile(
    r"\b(?:passages?|context|documents?|sources?|texts?|articles?|search results?)(?:[ \t]+\d{1,3})?[ \t]+"
    r"(?:do|does|did)(?:[ \t]+not|n't)[ \t]+(?:\w+ly[ \t]+)?(?:provide|mention|contain|specify|include|say|state|give|"
    r"offer|discuss|address|describe|explain)"
    r"|\b(?:not|never)[ \t]+(?:\w+ly[ \t]+)?(?:mentioned|specified|provided|stated|given|included|available|discussed|"
    r"addressed|described|explained)[ \t]+(?:in|by)[ \t]+(?:the[ \t]+|any[ \t]+of[ \t]+the[ \t]+)?(?:given[ \t]+|provided"
    r"[ \t]+)?(?:passages?|context|documents?|sources?|texts?|articles?|search results?)"
    r"|\b(?:is|are|was|were)[ \t]+(?:\w+ly[ \t]+)?(?:missing|absent)[ \t]+(?:in|from)[ \t]+(?:the[ \t]+)?(?:given[ \t]+|"
    r"provided[ \t]+)?(?:passages?|context|documents?|sources?|texts?|articles?|search results?)\b"
    r"|\bthere(?:'s| is)[ \t]+no[ \t]+(?:information|mention|details?)\b|\bno[ \t]+(?:information|mention)[ \t]+"
    r"(?:about|on|of|regarding)\b", re.I)


def about_context(text: str) -> bool:
    """A statement about what the context says ("… is not mentioned in the passages"): true exactly when
    the context does not say it; it is checked as such, never negated against the context."""
    return bool(_ABOUT.search(text))


_ADMITTING = re.compile(r"(?:\(\s*|[,;]\s*(?:(?:although|though|but|however|and|which|as)\s+)?(?:this|it|that|which)"
                        r"\s+(?:is|was|are|were|has\s+been|had\s+been)\s+)$", re.I)
_ADMISSION_END = re.compile(r"^[\s\w]*?[).!]*\s*$")
_FACT_WORDS = 3


def admits_unsupported(text: str) -> bool:
    """A fact told with the writer's own word that the context lacks it, after it in brackets or in a last clause:
    "Elastic potential energy: energy stored by stretching (not explicitly mentioned in the passages)", "Some women
    feel nausea early on, although this is not mentioned in the passages provided." Not a statement whose subject
    is the passages ("Passage 3 does not mention X"), nor one that names what is missing after it ("…, but it is not
    mentioned in the passage that it is on his album")."""
    m = _ABOUT.search(text)
    if m is None:
        return False
    before, after = text[:m.start()], text[m.end():]
    admitting = _ADMITTING.search(before)
    if admitting is None or not _ADMISSION_END.match(after) or re.search(r"\bthat\b", after):
        return False
    if admitting.group().startswith("(") and ")" not in after:
        return False
    fact = re.findall(r"[A-Za-z]{3,}", before[:admitting.start()])
    return len(fact) >= _FACT_WORDS


_OBJECT_AFTER = re.compile(r"^(?:there|no)\b|\b(?:do|does|did)(?:\s+not|n't)\b", re.I)


def denied_from(text: str) -> int:
    """Where what a statement about the context says is missing begins: at the denial when its object follows it
    ("…, but there is no information on how well they work", "the passages do not mention Y"), so that a fact told
    before it ("This passage suggests that rollers create a textured finish") is not taken for what is missing;
    else 0 ("Y is not mentioned in the passages": the subject before the denial)."""
    m = _ABOUT.search(text)
    return m.start() if m is not None and _OBJECT_AFTER.search(m.group()) else 0


def passage_numbers(context: str, starts: list[int]) -> Optional[list[Optional[int]]]:
    """The passage number of each sentence (by its start offset), when the context has passage headers."""
    headers = [(m.start(), int(m.group(1))) for m in _HEADER.finditer(context)]
    if len(headers) < 2:
        return None
    out, k = [], -1
    for start in starts:
        while k + 1 < len(headers) and headers[k + 1][0] <= start:
            k += 1
        out.append(headers[k][1] if k >= 0 else None)
    return out


_CITATION_ONLY = re.compile(r"^\W*(?:see\s+|from\s+|in\s+)?" + _CITE.pattern + r"\W*$", re.I)


def is_citation(text: str) -> bool:
    """True for text that only cites passages ("(Passage 2)", "[passages 1 and 3]."): it says where the sentence
    before it is told, not a fact of its own. A label ending in a colon ("Passage 2:") heads what follows instead."""
    stripped = text.strip()
    return not stripped.endswith(":") and bool(_CITATION_ONLY.match(stripped))


def cited_passages(text: str) -> set[int]:
    cited: set[int] = set()
    for m in _CITE.finditer(text):
        cited.add(int(m.group(1)))
        cited.update(int(n) for n in re.findall(r"\d{1,3}", m.group(2) or ""))
    return cited


_SUBJECT = (r"(?:(?:the|this|that|these|each|both|other|all|none\s+of\s+the|first|second|third|fourth|fifth|last|"
            r"final|latter|former|news)\s+){0,3}(?:passages?|documents?|sources?|articles?|texts?|context|authors?|"
            r"writers?|reports?|stor(?:y|ies)|op-eds?|editorials?|essays?|columns?|columnists?)"
            r"(?:\s+\d{1,3}(?:\s*(?:,|and|&)\s*\d{1,3})*)?")
_TELLS = (r"(?:provides?|mentions?|highlights?|describes?|explains?|offers?|gives?|discuss(?:es)?|suggests?|lists?|"
          r"focus(?:es)?\s+on|talks?\s+about|states?|notes?|presents?|outlines?|recommends?|emphasi[sz]es|adds?|"
          r"includes?|says?|said|indicates?|shows?|covers?|address(?:es)?|details|specifies|reports?|claims?|confirms?|"
          r"reveals?|advises?|argues?|concludes?|shares?|points?\s+out|compares?|questions|touches\s+on|"
          r"delves\s+into|sheds\s+light\s+on|(?:mention|highlight|describ|explain|offer|discuss|suggest|list|"
          r"focus|stat|not|present|outlin|recommend|emphasiz|emphasis|add|includ|sa|indicat|show|cover|address|"
          r"detail|specifi|report|claim|confirm|reveal|advis|argu|conclud|shar|compar|question)ed)")
_DESCRIBING = (r"(?:\s+(?:an?|the|some|more|most|specific|detailed|additional|similar|general|further|step-by-step|"
               r"personal|brief|clear|useful|several|various|key|another|alternative|different|first|second|third|"
               r"fourth|practical|helpful|relevant|concise|comprehensive|thorough)){0,4}\s+(?:instructions?|information|"
               r"details?|tips?|steps?|overview|description|explanation|examples?|guidance|advice|testimonial|"
               r"endorsement|account|methods?|ways?|suggestions?|recommendations?|insights?|options?)"
               r"(?:\s+(?:for|on|about|of|to|regarding|into))?")
_REMARK = re.compile(rf"\b{_SUBJECT}(?:\s+\w+ly)?(?:\s+also)?\s+{_TELLS}\b(?:\s+that\b|\s+by\b|{_DESCRIBING}\b)?", re.I)
_PLACE_BEFORE = re.compile(r"\b(?:in|from|of|by|on|within|across|to|into|than|at)\s+$", re.I)


# the writer's own reasoning before the fact: "we can conclude that", "it can be inferred that", "it seems that"
_REASONING = re.compile(r"\b(?:(?:we|one|i|you)\s+can\s+(?:conclude|infer|deduce|gather|see|say)|"
                        r"it\s+(?:can\s+be|is)\s+(?:concluded|inferred|deduced|clear|evident|apparent)|"
                        r"it\s+(?:appears|seems))\s+that\b", re.I)
# the writer summing up before the fact: "So, to summarize, plant dahlia bulbs …", "In conclusion: …" (a comma or
# colon after it: "in short supply" tells a fact)
_SUMMING_UP = re.compile(r"\b(?:to\s+summari[sz]e|in\s+summary|to\s+sum\s+up|in\s+conclusion|to\s+conclude|in\s+short|"
                         r"all\s+in\s+all|in\s+a\s+nutshell)\s*[,:]", re.I)


def telling_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of `text` that only say who tells its fact: a passage, article or author as the subject of
    a verb of telling, with 'that' or what kind of telling it is ("Passage 3 provides step-by-step instructions
    for", "The author argues that", "The second passage mentions"). The fact is what remains; the passage it
    cites is still checked (`cited_passages`). Not after a preposition: "… is not mentioned in the passages
    provided" is a statement about the context, not a remark of this kind. The writer's own reasoning and summing up
    before the fact ("we can conclude that", "To summarize,") tell no fact either."""
    return sorted([(m.start(), m.end()) for m in _REMARK.finditer(text)
                   if not _PLACE_BEFORE.search(text, max(0, m.start() - 12), m.start())]  # a bounded look back
                  + [(m.start(), m.end()) for m in _REASONING.finditer(text)]
                  + [(m.start(), m.end()) for m in _SUMMING_UP.finditer(text)])


_REPORTING = (r"(?:provide|mention|contain|specify|include|say|state|give|offer|discuss|address|describe|explain|"
              r"cover|detail|list)")
_PASSAGE_SUBJECT_FIRST = re.compile(rf"^\W*(?:(?:however|also|additionally|moreover|overall),?\s+)?{_SUBJECT}\b", re.I)
_DENIAL_AFTER = re.compile(rf"^\W*(?:but|and|yet|although|though|while|whereas|however)\b[\s,]*(?:(?:it|they)\s+)?"
                           rf"(?:do|does|did)(?:\s+not|n't)\s+(?:\w+ly\s+)?{_REPORTING}\b", re.I)


def denies_after_passage_subject(sentence: str, piece_start: int) -> bool:
    """A later clause of a sentence whose subject is a passage and that says what the passage does not tell ("The
    first passage discusses baking chicken | but does not mention frying"): a statement about the context, like
    "The passages do not mention frying". A clause with a subject of its own is not one ("…, the article says,
    | does not provide refunds" has no 'but'; "but the company did not…" names another subject)."""
    return (piece_start > 0 and bool(_PASSAGE_SUBJECT_FIRST.match(sentence))
            and bool(_DENIAL_AFTER.match(sentence[piece_start:])))
