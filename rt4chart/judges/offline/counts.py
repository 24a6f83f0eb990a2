"""A figure that counts what the context counts with another figure: 'Four alleged attackers were killed' beside
'Three of the alleged attackers were killed'. The figure check asks only whether the context gives the claim's
figure at all, and this context does ('four militants crossed into the area'); what it never does is count the
alleged attackers as four. Likewise a whole said of what the context says of a part: 'Six people were injured by
broken glass' beside 'five out of six people were injured by broken glass'."""
from __future__ import annotations

from typing import Callable, Iterable, Optional

from rt4chart.core.types import Span
from rt4chart.text.lexicon import Token, is_month, name_kind

_SKIPPED = frozenset(("of", "the"))
_COUNTED_WORDS = 2


def _kind(t: Token) -> tuple[bool, bool, str]:
    """Figures compare only with figures of their kind: a year, an ordinal ('50th'), a count; with the same sign."""
    text = t.text.lower()
    year = text.isdigit() and len(text) == 4 and 1000 <= (t.number or 0) <= 2100
    ordinal = text[-2:] in ("st", "nd", "rd", "th") and any(c.isdigit() for c in text)
    return year, ordinal, "".join(c for c in text if c in "%$£€")


def counted(tokens: list[Token], text: str) -> list[tuple[Token, tuple[str, ...]]]:
    """Each figure with the two content words it counts ('Three of the alleged attackers': ('alleg', 'attack')):
    the words right after it, 'of the' skipped, nothing but spaces between them. A figure beside another (a range,
    '4-6 inches') counts nothing on its own."""
    found = []
    for i, t in enumerate(tokens):
        if t.number is None or any(u.number is not None for u in tokens[max(0, i - 2):i] + tokens[i + 1:i + 3]):
            continue
        words: list[str] = []
        j, end = i + 1, t.end
        while j < len(tokens) and tokens[j].lower in _SKIPPED and not text[end:tokens[j].start].strip():
            end = tokens[j].end
            j += 1
        while (j < len(tokens) and len(words) < _COUNTED_WORDS and tokens[j].is_content
               and tokens[j].number is None and not text[end:tokens[j].start].strip()):
            words.append(tokens[j].stem)
            end = tokens[j].end
            j += 1
        if len(words) == _COUNTED_WORDS:
            found.append((t, tuple(words)))
    return found


def recount(claim: list[tuple[Token, tuple[str, ...]]], sentences: list[list[tuple[Token, tuple[str, ...]]]],
            sentence: list[tuple[Token, tuple[str, ...]]]) -> Optional[tuple[Token, Token]]:
    """(the claim's figure, the sentence's) where `sentence` counts what the claim counts with another figure of the
    same kind, and none of `sentences` (the evidence) counts it with the claim's."""
    for mine, words in claim:
        if any(t.number == mine.number and w == words for s in sentences for t, w in s):
            continue
        for theirs, other in sentence:
            if other == words and theirs.number != mine.number and _kind(theirs) == _kind(mine):
                return mine, theirs
    return None


_PARTITIVE_DETERMINERS = frozenset(("the", "these", "those", "its", "their"))
_CLAUSE_END = ",;:()"
# 'one of the 16 countries (that) they crossed': what follows the thing tells which things, not what the part did
_RELATIVE_STARTS = frozenset("that which who whom whose the a an they he she we i you it his her our my".split())
_SHARED_PREDICATE = 2


def _predicate(tokens: list[Token], start: int, text: str) -> set[str]:
    """The content stems from `start` to the end of its clause (a comma, semicolon, colon or bracket ends it)."""
    out: set[str] = set()
    for j in range(start, len(tokens)):
        if j > start and any(ch in _CLAUSE_END for ch in text[tokens[j - 1].end:tokens[j].start]):
            break
        if tokens[j].is_content and tokens[j].number is None:
            out.add(tokens[j].stem)
    return out


def partitives(tokens: list[Token], text: str) -> list[tuple[Token, Token, Token, set[str]]]:
    """Each 'X out of N things …' or 'X of the N things …' ('five out of six people were injured by broken glass'):
    the part, the whole, the thing counted and the content stems of what is said of the part; not where a relative
    clause tells which things ('one of the 16 countries they crossed')."""
    found = []
    for i, t in enumerate(tokens):
        if t.number is None or i + 3 >= len(tokens):
            continue
        j = i + 1
        if tokens[j].lower == "out":
            j += 1
        if tokens[j].lower != "of":
            continue
        j += 1
        if tokens[j].lower in _PARTITIVE_DETERMINERS:
            j += 1
        if (j + 2 < len(tokens) and tokens[j].number is not None and tokens[j + 1].is_content
                and tokens[j + 1].number is None and tokens[j + 2].lower not in _RELATIVE_STARTS):
            found.append((t, tokens[j], tokens[j + 1], _predicate(tokens, j + 2, text)))
    return found


def whole_for_part(claim: list[Token], claim_text: str, sentence: list[Token], sentence_text: str,
                   others: Callable[[], Iterable[tuple[list[Token], str]]]) -> Optional[tuple[str, str, Span]]:
    """(the claim's words for the whole, the sentence's for the part, the claim's span) where the claim says of all
    N things what `sentence` says of X of them: the claim gives the whole's figure to the same thing, not as a part
    of its own ('one of only five men'), and says of it at least two of the content words the sentence says of the
    part, while no sentence of `others()` (the rest of the context, read only when a part matches) says those words
    of the whole."""
    for part, whole, thing, said in partitives(sentence, sentence_text):
        for i, t in enumerate(claim):
            if (t.number != whole.number or i + 1 >= len(claim) or claim[i + 1].stem != thing.stem
                    or any(u.lower == "of" for u in claim[max(0, i - 3):i])):
                continue
            shared = _predicate(claim, i + 2, claim_text) & said
            if len(shared) < _SHARED_PREDICATE:
                continue
            if any(_said_of_whole(tokens, text, whole, shared) for tokens, text in others()):
                continue
            return (claim_text[t.start:claim[i + 1].end], sentence_text[part.start:thing.end],
                    Span(start=t.start, end=claim[i + 1].end))
    return None


def _said_of_whole(tokens: list[Token], text: str, whole: Token, said: set[str]) -> bool:
    """The sentence has all of `said` and the whole's figure, other than as the whole of a part of it."""
    if not said <= {u.stem for u in tokens}:
        return False
    wholes = {id(w) for _, w, _, _ in partitives(tokens, text)}
    return any(u.number == whole.number and id(u) not in wholes for u in tokens)


_BETWEEN_COUNT_AND_VERB = frozenset("were was are is have has had been being people others more of them those who".split())


def _counts_of_verbs(tokens: list[Token], text: str) -> list[tuple[Token, str]]:
    """Each figure with the verb it counts the doers or sufferers of, right after it ('three died', 'two others were
    injured'): nothing but auxiliaries, 'people' or 'others' between them; not the whole of a part, nor a label."""
    found = []
    for i, t in enumerate(tokens):
        if t.number is None or _whole_of_part(tokens, i) or labels(tokens, i, text):
            continue
        j = i + 1
        while j < len(tokens) and j <= i + 3 and tokens[j].lower in _BETWEEN_COUNT_AND_VERB:
            j += 1
        if j < len(tokens) and tokens[j].number is None and _looks_like_verb(tokens[j]):
            found.append((t, tokens[j].stem))
    return found


def labels(tokens: list[Token], i: int, text: str) -> bool:
    """The figure at `i` names what the capital before it names ('Station 109 recorded', 'Flight 448 landed'): a
    label, not a count. A month's or weekday's figure is a date ('May 5', 'March 2015'), no label."""
    if i == 0:
        return False
    before = tokens[i - 1]
    return (before.capitalized and before.is_content and before.number is None
            and not text[before.end:tokens[i].start].strip() and name_kind(before) not in ("month", "weekday"))


def could_give_another(tokens: list[Token], i: int, text: str, theirs: list[Token]) -> bool:
    """Whether a sentence with tokens `theirs` can give another value of the claim's figure at `i`: a label ('Line
    29', 'Windows 10') only beside the same label with a figure ('Windows 7', not '43-line Form 8829'), a year only
    where the sentence gives a year ('5 May 2015' is not contradicted by 'coming out May 5', which has none), a day
    of a month only where it gives one ('from August 28th' is not contradicted by 'a trip of 7 days')."""
    if labels(tokens, i, text):
        name = tokens[i - 1].lower
        return any(u.number is not None and j > 0 and theirs[j - 1].lower == name for j, u in enumerate(theirs))
    if is_year(tokens[i]):
        return any(u.number is not None and is_year(u) for u in theirs)
    if day_of_month(tokens, i):  # 'August 28th' beside a sentence that dates nothing
        return any(u.number is not None and day_of_month(theirs, j) for j, u in enumerate(theirs))
    return True


def day_of_month(tokens: list[Token], i: int) -> bool:
    """The figure at `i` is a day of a month: right after or right before a month's name ('May 5', '5 May')."""
    return (i > 0 and is_month(tokens[i - 1])) or (i + 1 < len(tokens) and is_month(tokens[i + 1]))


def is_year(t: Token) -> bool:
    """A figure written as a year ('2015', not '2,015' or '15')."""
    return _kind(t)[0]


def _whole_of_part(tokens: list[Token], i: int) -> bool:
    """The figure at `i` is the whole of a part ('five out of six people were injured': not six were)."""
    before = [u.lower for u in tokens[max(0, i - 2):i]]
    return before[-1:] == ["of"] or (len(before) == 2 and before[0] == "of" and before[1] in _PARTITIVE_DETERMINERS)


def _looks_like_verb(t: Token) -> bool:
    """A word after a figure that reads as what the counted did or underwent ('three died', 'two were taken'), not
    as what they are ('three children'): a past form."""
    return t.is_content and ((t.lower.endswith("ed") and len(t.lower) > 4) or t.lower in _IRREGULAR_PAST)


# past forms not in -ed; short -ed words are most often no verb ('red', 'bed', 'shed')
_IRREGULAR_PAST = frozenset("died fled lost left fell hurt won ran drove flew went came saw took taken got shot hit "
                            "found held caught sent beaten stolen led fed".split())


def other_count_for_verb(claim: list[Token], claim_text: str, sentence: list[Token],
                         sentence_text: str) -> Optional[tuple[Token, Token]]:
    """(the claim's figure, the sentence's) where the claim gives its figure to a verb the sentence counts with
    another figure, while the sentence gives the claim's figure to something else: 'five people in Kansas have died'
    beside 'Five people were infected and three died'."""
    theirs = _counts_of_verbs(sentence, sentence_text)
    if not theirs:
        return None
    for i, t in enumerate(claim):
        if (t.number is None or (i + 1 < len(claim) and claim[i + 1].lower in ("of", "out"))
                or labels(claim, i, claim_text)):
            continue  # 'Five of the injured were hurt by glass' counts a part, not all who were hurt
        said = _predicate(claim, i + 1, claim_text)
        for other, verb in theirs:
            if (verb in said and other.number != t.number and _kind(other) == _kind(t)
                    and not any(u.number == other.number for u in claim)
                    and any(u.number == t.number for u in sentence)
                    and not any(v == verb and u.number == t.number for u, v in theirs)):
                return t, other
    return None
