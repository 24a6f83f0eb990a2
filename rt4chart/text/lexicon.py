"""Word-level analysis for the offline judge: tokens with offsets, stems, numbers, polarity.

Everything here is deterministic and ships inside the package (no corpora to download).

Over 300 lines on purpose: word lists and the tokenizer that uses them (stems, numbers, negation, antonyms)
are one vocabulary.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Iterator, Optional

# A '.' inside a word joins ('U.S', 'example.com', 'Node.js') unless a capitalised word follows a word of two or more
# letters: two sentences written without a space between them ('aired on ESPN.Barry Lamar Bonds (born …)').
_TOKEN = re.compile(r"\$?\d+(?:[.,:]\d+)*(?:%|(?:st|nd|rd|th)\b)?|\w+(?:['\u2019]\w+)*(?:-\w+|\.(?!(?<=\w\w\.)[A-Z][a-z])\w+)*")


@lru_cache(maxsize=1)
def _stemmer():
    """NLTK's Porter stemmer, imported when first needed (a batch driver that only hands rows to workers
    never needs it)."""
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()

_FUNCTION_WORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just let me
more most my myself of off on once only or other our ours ourselves out over own same she should so
some such than that the their theirs them themselves then there these they this those through to too
under until up very was we were what when where which while who whom why will with would you your
yours yourself yourselves s t d ll m re ve may might must shall upon per via etc one within among
according based include includes including overall however therefore thus also well like made make
mentioned provided given stated says said say described mention mentions passage passages
information text article context answer question summary report reports reported yes yeah indeed
additionally furthermore moreover finally ultimately overall particularly specifically generally notably
please note instance example lsquo rsquo ldquo rdquo quot amp nbsp mdash ndash hellip
""".split())
# Copulas of continuation: "can stay at room temperature" says what "can be kept at room temperature" says, as "is"
# would; like the forms of "be", they are no content of a claim. ("remains" is left out: it is also a noun.)
_CONTINUATION_COPULAS = frozenset("stay stays stayed staying remain remained".split())
# Words no context states a claim's fact with: concessive connectives ("Despite the backlash, Dollar …" states the
# backlash and Dollar's aim, which the word check finds or misses on their own words) and "various".
_CONNECTIVES = frozenset("despite although though whereas various".split())
# A pronoun with its verb clipped on ("he'll", "they're", "I'm"): a function word, as each half is.
_PRONOUN_CONTRACTIONS = frozenset(f"{pronoun}'{verb}" for pronoun in "i you he she it we they that there who what".split()
                                  for verb in ("ll", "re", "ve", "d", "m"))
STOPWORDS = _FUNCTION_WORDS | _CONTINUATION_COPULAS | _CONNECTIVES | _PRONOUN_CONTRACTIONS

NEGATIONS = frozenset("""
no not never none nobody nothing neither without cannot can't won't don't doesn't didn't isn't
aren't wasn't weren't hasn't haven't hadn't shouldn't wouldn't couldn't mustn't n't nowhere unable
""".split())

# Pairs whose swap flips the meaning of an otherwise matching sentence.
_ANTONYM_PAIRS = [
    ("increase", "decrease"), ("increase", "reduce"), ("rise", "fall"), ("rise", "drop"), ("gain", "loss"),
    ("higher", "lower"), ("more", "less"), ("more", "fewer"), ("larger", "smaller"), ("bigger", "smaller"),
    ("before", "after"), ("earlier", "later"), ("first", "last"), ("win", "lose"), ("won", "lost"),
    ("accept", "reject"), ("approve", "reject"), ("allow", "prohibit"), ("allow", "ban"), ("legal", "illegal"),
    ("true", "false"), ("success", "failure"), ("positive", "negative"), ("open", "closed"), ("buy", "sell"),
    ("maximum", "minimum"), ("above", "below"), ("up", "down"), ("always", "never"), ("all", "none"),
    ("male", "female"), ("alive", "dead"), ("north", "south"), ("east", "west"), ("strong", "weak"),
    ("safe", "dangerous"), ("increased", "decreased"), ("old", "new"), ("young", "old"), ("cheap", "expensive"),
    ("agree", "disagree"), ("support", "oppose"), ("include", "exclude"), ("start", "end"), ("begin", "end"),
    ("guilty", "innocent"), ("convicted", "acquitted"), ("arrive", "depart"), ("hot", "cold"), ("wet", "dry"),
    # irregular past forms are not reduced by the stemmer
    ("rose", "fell"), ("risen", "fallen"), ("rose", "dropped"), ("grew", "shrank"), ("grow", "shrink"),
    ("gained", "lost"), ("grew", "fell"), ("grew", "declined"), ("rose", "declined"),
]

_NUMBER_WORDS = {
    "zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12,
    "half": 0.5, "twice": 2, "double": 2, "triple": 3,
}
_MULTIPLIERS = {"thousand": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9, "trillion": 1e12,
                "percent": 1}
_WEEKDAY_ABBREVIATIONS = {"mon": "monday", "tue": "tuesday", "tues": "tuesday", "wed": "wednesday",
                          "thu": "thursday", "thur": "thursday", "thurs": "thursday", "fri": "friday",
                          "sat": "saturday", "sun": "sunday"}
_MONTH_ABBREVIATIONS = {"jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june",
                        "jul": "july", "aug": "august", "sep": "september", "sept": "september", "oct": "october",
                        "nov": "november", "dec": "december"}


@dataclass(frozen=True, slots=True)
class Token:
    """A word of a text: surface form, offsets, lower-case form and stem."""

    text: str
    start: int
    end: int
    lower: str
    stem: str
    number: Optional[float]
    capitalized: bool
    reference: bool = False  # 'passage 3', 'option 2': a pointer, not a quantity

    @property
    def is_content(self) -> bool:
        if self.reference:
            return False
        return self.number is not None or (self.lower not in STOPWORDS and self.lower not in NEGATIONS
                                           and len(self.lower) > 1)

    @property
    def is_negation(self) -> bool:
        return self.lower in NEGATIONS or self.lower.endswith("n't")


_OUR = re.compile(r"^([a-z]{2,})our(s|ed|ing|ite|ites|able|ably|er|ers|ful|less|al|ally|hood|hoods|ist|ists)?$")
_ISE = re.compile(r"^([a-z]{2,}[iy])s(e|es|ed|er|ers|ing|ation|ations)$")  # organise(d), criticising, analyse
_TRE = re.compile(r"^([a-z]{2,}[tb])re(s|d)?$")  # metre(s), centred, fibre
_ENCE = re.compile(r"^(def|off|lic|pret)ence(s?)$")  # defence, licence
_NOT_BRITISH = frozenset("flour flours floured timbre timbres".split())


def american(word: str) -> str:
    """The American spelling of a lower-case British one ('colour' -> 'color', 'organised' -> 'organized',
    'metres' -> 'meters', 'centred' -> 'centered', 'defence' -> 'defense'); other words as they are. Every stem goes
    through it, so a word it rewrites that is no British spelling ('promise' -> 'promize') still matches itself."""
    if word in _NOT_BRITISH:
        return word
    word = _OUR.sub(lambda m: f"{m.group(1)}or{m.group(2) or ''}", word)
    word = _ISE.sub(lambda m: f"{m.group(1)}z{m.group(2)}", word)
    word = _TRE.sub(lambda m: f"{m.group(1)}er{'ed' if m.group(2) == 'd' else m.group(2) or ''}", word)
    return _ENCE.sub(lambda m: f"{m.group(1)}ense{m.group(2)}", word)


# Irregular past forms -> the verb's base, which Porter cannot reach ('shown' / 'shows', 'taken' / 'take'). Forms that
# are as often another word are left out: 'found' (to found), 'left' (the side), 'saw', 'lay', 'bore', 'wound', 'ground'.
_IRREGULAR_VERBS = {form: base for base, forms in (
    ("arise", "arose arisen"), ("awake", "awoke awoken"), ("begin", "began begun"), ("bend", "bent"),
    ("bite", "bitten"), ("blow", "blew blown"), ("break", "broke broken"), ("bring", "brought"),
    ("build", "built"), ("burn", "burnt"), ("buy", "bought"), ("catch", "caught"), ("choose", "chose chosen"),
    ("come", "came"), ("deal", "dealt"), ("dig", "dug"), ("draw", "drew drawn"), ("drink", "drank drunk"),
    ("drive", "drove driven"), ("eat", "ate eaten"), ("fall", "fell fallen"), ("feed", "fed"), ("feel", "felt"),
    ("fight", "fought"), ("flee", "fled"), ("fly", "flew flown"), ("forbid", "forbade forbidden"),
    ("forget", "forgot forgotten"), ("forgive", "forgave forgiven"), ("freeze", "froze frozen"),
    ("give", "gave given"), ("go", "went gone"), ("grow", "grew grown"), ("hang", "hung"), ("hear", "heard"),
    ("hide", "hid hidden"), ("hold", "held"), ("keep", "kept"), ("know", "knew known"), ("lead", "led"),
    ("learn", "learnt"), ("lend", "lent"), ("lose", "lost"), ("mean", "meant"), ("meet", "met"),
    ("overcome", "overcame"), ("pay", "paid"), ("ride", "rode ridden"), ("ring", "rang rung"),
    ("rise", "rose risen"), ("run", "ran"), ("seek", "sought"), ("sell", "sold"), ("send", "sent"),
    ("shake", "shook shaken"), ("shoot", "shot"), ("shrink", "shrank shrunk"), ("sing", "sang sung"),
    ("sink", "sank sunk"), ("sleep", "slept"), ("speak", "spoke spoken"), ("spend", "spent"),
    ("stand", "stood"), ("steal", "stole stolen"), ("stick", "stuck"), ("strike", "struck"),
    ("swear", "swore sworn"), ("swim", "swam swum"), ("take", "took taken"), ("teach", "taught"),
    ("tear", "tore torn"), ("tell", "told"), ("think", "thought"), ("throw", "threw thrown"),
    ("undergo", "underwent undergone"), ("understand", "understood"), ("undertake", "undertook undertaken"),
    ("wake", "woke woken"), ("wear", "wore worn"), ("weep", "wept"), ("win", "won"),
    ("withdraw", "withdrew withdrawn"), ("write", "wrote written"), ("show", "shown"), ("see", "seen"),
    ("become", "became"), ("mistake", "mistook mistaken")) for form in forms.split()}


# Irregular plurals -> the singular, which Porter cannot reach ('children' / 'child', 'women' / 'woman'). Plurals that
# are as often a verb are left out: 'lives', 'leaves', 'analyses', 'diagnoses'.
_IRREGULAR_PLURALS = {
    "children": "child", "women": "woman", "men": "man", "feet": "foot", "teeth": "tooth", "mice": "mouse",
    "geese": "goose", "wives": "wife", "knives": "knife", "halves": "half", "wolves": "wolf", "shelves": "shelf",
    "calves": "calf", "thieves": "thief", "crises": "crisis", "theses": "thesis", "phenomena": "phenomenon",
    "criteria": "criterion", "oxen": "ox"}


def _singular(word: str) -> str:
    """An irregular plural as its singular, a compound's '-men' as '-man' ('policemen', 'spokeswomen'). A noun that
    itself ends in '-men' is mapped with its plural ('specimen' and 'specimens' both as 'speciman'), so the two still
    match."""
    if word in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[word]
    base = word[:-1] if word.endswith("mens") else word
    if len(base) > 5 and base.endswith("men") and base.isalpha():
        return base[:-3] + "man"
    return word


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """Porter stem of a lower-case word, in its American spelling, an irregular past form as its verb ('shown' as
    'show'), an irregular plural as its singular ('children' as 'child'), a hyphenated word's parts each stemmed
    ('check-ins' as 'check-in'); cached: the same words recur across windows."""
    word = _IRREGULAR_VERBS.get(word) or _singular(word)
    if "-" in word and all(part.isalpha() for part in word.split("-")):
        return "-".join(stem(part) for part in word.split("-"))
    if len(word) <= 3 or not word.isalpha():
        return word
    word = american(word)
    stemmed = _stemmer().stem(word, to_lowercase=False)
    if len(stemmed) < 3:  # Porter undoubles 'added' to 'ad', while 'add' (too short to stem) stays 'add'
        return next((word[:-len(end)] for end in ("ing", "ed", "es", "s", "d")
                     if word.endswith(end) and len(word) - len(end) >= 3), stemmed)
    return stemmed


def parse_number(text: str) -> Optional[float]:
    """'3.5' -> 3.5, '3,500,000' -> 3500000.0, '$20' -> 20.0, '45%' -> 45.0, 'twelve' -> 12.0."""
    lowered = text.lower()
    if lowered in _NUMBER_WORDS:
        return float(_NUMBER_WORDS[lowered])
    cleaned = lowered.lstrip("$").rstrip("%")
    if re.fullmatch(r"\d+(?:st|nd|rd|th)", cleaned):
        cleaned = cleaned[:-2]
    if not cleaned or not cleaned[0].isdigit():
        return None
    if ":" in cleaned:
        return None  # times like 5:30 are compared as text
    if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", cleaned):
        cleaned = cleaned.replace(",", "")
    try:
        return float(cleaned)
    except ValueError:
        return None


_REFERENCE_NOUNS = frozenset("passage passages document documents doc source sources option options step steps "
                             "section paragraph article figure fig table chapter item page no".split())


def _normalise(surface: str) -> str:
    """Lower case; possessive 's dropped; dotted abbreviations joined ('U.S.' -> 'us', 'Ph.D.' -> 'phd')."""
    lower = surface.lower().replace("\u2019", "'")
    if lower.endswith("'s") and len(lower) > 2:
        lower = lower[:-2]
    if "." in lower and re.fullmatch(r"(?:[a-z]{1,2}\.)+[a-z]{0,2}", lower):
        lower = lower.replace(".", "")
    if surface[:1].isupper() and lower in _WEEKDAY_ABBREVIATIONS:
        return _WEEKDAY_ABBREVIATIONS[lower]  # 'Sat.' is Saturday, 'sat' stays the verb
    return _MONTH_ABBREVIATIONS.get(lower, lower)


# Invisible format characters (zero-width space/joiners, word joiner, BOM, soft hyphen, direction marks):
# ignored for matching ('18\u200b89' is 1889, 'Eif\u200bfel' is Eiffel), while offsets keep indexing
# the original text.
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def tokenize(text: str) -> list[Token]:
    """Words of `text` with offsets into `text`; numbers carry their value with 'million'/'billion'
    applied; invisible format characters inside words are ignored."""
    if _INVISIBLE.search(text) is None:
        return _tokenize(text)
    kept = [i for i, ch in enumerate(text) if not _INVISIBLE.match(ch)]
    tokens = _tokenize("".join(text[i] for i in kept))
    return [replace(t, start=kept[t.start], end=kept[t.end - 1] + 1, text=text[kept[t.start]:kept[t.end - 1] + 1])
            for t in tokens]


def _tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    for match, code in _words(text):
        surface = match.group()
        lower = _normalise(surface)
        number = None if code else parse_number(surface)
        scaled = _scaled_figure(tokens, lower, number, text, match.start())
        if scaled is not None:  # 'two million', 'two hundred', 'half a dozen': one figure, as '2000000', '200', '6'
            first, value = scaled
            head = tokens[first]
            joined = text[head.start:match.end()]
            del tokens[first:]
            tokens.append(Token(joined, head.start, match.end(), joined.lower(), head.stem, value, False))
            continue
        reference = number is not None and _follows_reference(tokens)
        tokens.append(Token(surface, match.start(), match.end(), lower, stem(lower), number,
                            surface[:1].isupper(), reference))
    return tokens


_COUNTING_UNITS = {"hundred": 100, "dozen": 12}


def _scaled_figure(tokens: list[Token], lower: str, number: Optional[float], text: str,
                   start: int) -> Optional[tuple[int, float]]:
    """(where the figure starts among `tokens`, its value) when the word at `start` (`lower`, its own value
    `number`) scales the figure before it: a multiplier ('two million', '3.5 bn', '45 percent') or a count by
    hundreds or dozens (`_counted_in`); else None."""
    if number is None and tokens and tokens[-1].number is not None and lower in _MULTIPLIERS:
        return len(tokens) - 1, tokens[-1].number * _MULTIPLIERS[lower]
    return _counted_in(tokens, lower, text, start)


def _counted_in(tokens: list[Token], lower: str, text: str, start: int) -> Optional[tuple[int, float]]:
    """(where the figure starts among `tokens`, its value) when the word at `start` counts the words before it by
    hundreds or dozens ('two hundred', 'two dozen', 'half a dozen'), nothing but spaces between; else None."""
    if lower not in _COUNTING_UNITS or not tokens:
        return None
    last = tokens[-1]
    if last.number is not None and 1 <= last.number < 100 and last.number == int(last.number) \
            and not text[last.end:start].strip() and not last.reference:
        return len(tokens) - 1, last.number * _COUNTING_UNITS[lower]
    if (len(tokens) >= 2 and last.lower == "a" and tokens[-2].lower == "half" and lower == "dozen"
            and text[tokens[-2].end:start].split() == ["a"]):
        return len(tokens) - 2, 6.0
    return None


def _follows_reference(tokens: list[Token]) -> bool:
    """Whether a number after `tokens` points rather than counts: after a reference noun ('passage 3', 'step 7'),
    or after such a pointer, directly or across 'and', 'or', 'to', 'through' ('passages 1 & 2', 'steps 7 and 8')."""
    if not tokens:
        return False
    last = tokens[-1]
    if last.lower in _REFERENCE_NOUNS or last.reference:
        return True
    return last.lower in _LIST_JOINERS and len(tokens) > 1 and tokens[-2].reference


_LIST_JOINERS = frozenset("and or to through".split())
_PART = re.compile(r"[^-]+")


def _words(text: str) -> Iterator[tuple[re.Match, bool]]:
    """Token matches, each with whether it is part of a code. A hyphenated compound with a number
    in it is split into its parts, so that 'two-kilometer' compares with '2-kilometer' and 'five-year'
    with 'five years'; in a code that starts with a capital ('COVID-19', 'Par-3') the number names
    rather than counts, so it is kept as a word."""
    for match in _TOKEN.finditer(text):
        parts = list(_PART.finditer(text, match.start(), match.end()))
        if len(parts) > 1 and any(parse_number(p.group()) is not None for p in parts):
            code = parts[0].group()[:1].isupper()
            for part in parts:
                yield part, code
        else:
            yield match, False


_NEGATING_WORDS = frozenset("fail fails failed failing refuse refuses refused refusing refusal refusals".split())


def _denies(tokens: list[Token], i: int) -> bool:
    """The token at `i` is a negation word ('not', "didn't"), a verb of failing or refusing, or the 'out' of an
    'out of' that says 'not in' ('out of stock'): what `negation_count` counts, idioms aside."""
    t = tokens[i]
    return t.is_negation or t.lower in _NEGATING_WORDS or _out_of(tokens, i)

_UNTHINKABLE = frozenset("unthinkable inconceivable unimaginable impossible".split())

# A negation word before these denies nothing: 'not only', 'no wonder', 'no fewer than' (an article between them
# allowed: 'not the only one').
_NOT_NEGATING = frozenset("only just wonder doubt matter fewer less more".split())
_STOPPING = frozenset("stop stops stopped stopping cease ceases ceased ceasing".split())


def _idiom_after(tokens: list[Token], i: int) -> bool:
    """The negation at `i` opens an idiom that denies nothing: 'not only', 'not the only', 'no wonder', 'no fewer
    than', 'no 74' (a number names); "hasn't stopped ringing", 'never ceased working' (the thing goes on, as 'has
    been ringing' says); "can't help but think" (the thing is done)."""
    if i + 1 >= len(tokens):
        return False
    after = tokens[i + 2] if tokens[i + 1].lower in ("the", "a") and i + 2 < len(tokens) else tokens[i + 1]
    if after.lower in _NOT_NEGATING or after.number is not None:
        return True
    if i + 2 >= len(tokens):
        return False
    first, second = tokens[i + 1].lower, tokens[i + 2].lower
    return ((first in _STOPPING and second.endswith("ing") and len(second) > 4)
            or (first == "help" and second == "but"))


def negation_count(tokens: list[Token], unasserted: frozenset[int] = frozenset()) -> int:
    """Negation words, 'fail'/'refuse' verbs and 'refusal', but not idioms such as 'not only', 'not the only', 'no wonder',
    'no fewer than', "can't help but" or 'no 74' (number), nor a negation that 'unthinkable' or 'impossible' before it
    doubles back ('impossible that he did not know'), nor those at the offsets in `unasserted`
    (`conditional_negations`)."""
    count = 0
    unthinkable = False  # 'unthinkable that he will not win': the negation after it is its double, he will win
    for i, t in enumerate(tokens):
        unthinkable = unthinkable or t.lower in _UNTHINKABLE
        if t.start in unasserted:
            continue
        if t.is_negation and unthinkable:
            unthinkable = False
        elif t.is_negation:
            count += not _idiom_after(tokens, i)
        elif t.lower in _NEGATING_WORDS or _out_of(tokens, i):
            count += 1
    return count


def _out_of(tokens: list[Token], i: int) -> bool:
    """'out of' where it says 'not in' ('out of a coma', 'out of stock'), not where it says what from or how many
    ('made out of wood', 'one out of five')."""
    return (tokens[i].lower == "out" and i + 1 < len(tokens) and tokens[i + 1].lower == "of"
            and not (i and (tokens[i - 1].number is not None or tokens[i - 1].lower in ("one", "made", "built", "carved"))))


_CONDITIONS = frozenset("if unless until whether when whenever".split())


def conditional_negations(tokens: list[Token], text: str) -> frozenset[int]:
    """Offsets of the negations that a condition before them governs, in the same stretch of `text` (no comma,
    semicolon or end mark between): 'If soap can't get them clean, use soda' and 'grill until no longer pink'
    say nothing is not so ('if not for the video' says 'without the video': its 'not' is not one of them)."""
    out: set[int] = set()
    condition = None
    for i, t in enumerate(tokens):
        if condition is not None and any(ch in ",;.!?" for ch in text[condition:t.start]):
            condition = None
        if t.lower in _CONDITIONS:
            condition = t.end
        elif condition is not None and _denies(tokens, i) and not _if_not_for(tokens, i):
            out.add(t.start)
    return frozenset(out)


_ATTEMPTS = frozenset("bid bids attempt attempts effort efforts quest campaign".split())


def denied_elsewhere(tokens: list[Token], other: list[Token], shared: set[str]) -> frozenset[int]:
    """Offsets of the 'fail'/'refuse' verbs of `tokens` that deny only the verb of an attempt ('failed in its bid
    to host', 'failed in an attempt to climb'), a verb not among the `shared` stems, where the `other` clause
    denies nothing: the attempt was made ("Eugene failed in its bid to host the 2019 event" does not deny that
    Eugene bid for it, and still denies that it hosted it; "failed to progress" still denies "advanced")."""
    if any(_denies(other, j) for j in range(len(other))):
        return frozenset()
    out: set[int] = set()
    for i, t in enumerate(tokens):
        if t.lower not in _NEGATING_WORDS:
            continue
        to = next((j for j in range(i + 1, min(i + 8, len(tokens))) if tokens[j].lower == "to"), None)
        if to is None or not any(u.lower in _ATTEMPTS for u in tokens[i + 1:to]):
            continue
        verb = next((u for u in tokens[to + 1:to + 4] if u.is_content), None)
        if verb is not None and verb.stem not in shared:
            out.add(t.start)
    return frozenset(out)


def _if_not_for(tokens: list[Token], i: int) -> bool:
    """'If not for the video': 'without the video', a negation of its own, not one under a condition."""
    return (0 < i < len(tokens) - 1 and tokens[i - 1].lower == "if" and tokens[i].lower == "not"
            and tokens[i + 1].lower == "for")


_CLAUSE_WORDS = frozenset("but while although though whereas however yet and which who".split())


def clauses(tokens: list[Token], text: str) -> list[list[Token]]:
    """Tokens grouped into clauses: a new clause starts after , ; : ( ) or a dash, at but/while/and/which..., or at
    'rather than' (what follows it is not asserted: "residential rather than commercial property")."""
    groups: list[list[Token]] = []
    for i, t in enumerate(tokens):
        if (not groups or t.lower in _CLAUSE_WORDS or any(ch in ",;:()-\u2013\u2014" for ch in text[groups[-1][-1].end:t.start])
                or (t.lower == "rather" and i + 1 < len(tokens) and tokens[i + 1].lower == "than")):
            groups.append([])
        groups[-1].append(t)
    return groups


def with_gapped(groups: list[list[Token]]) -> list[list[Token]]:
    """`clauses`' groups, and each clause that opens with 'not' after 'but', 'and' or 'yet' ("Finn was convicted of one
    count | but not a misdemeanor charge") once more joined to the clause before it, whose verb it leaves out: the
    joined clause says "not convicted of a misdemeanor charge"."""
    joined = [groups[i - 1] + group for i, group in enumerate(groups)
              if i and len(group) > 1 and group[0].lower in ("but", "and", "yet") and group[1].lower == "not"]
    return groups + joined


_EXCEPTIONS = {"except": (), "other": ("than",), "apart": ("from",), "aside": ("from",), "save": ("for",)}


def outside_exceptions(clause: list[Token]) -> list[list[Token]]:
    """A clause cut where an exception starts ('other than', 'except', 'apart from', 'aside from', 'save for'):
    what follows it is asserted, outside a negation before it ("She didn't disclose the details other than saying
    that an apology was part of it" says there was an apology; "No one was hurt except the driver", that the driver
    was)."""
    parts: list[list[Token]] = [[]]
    for i, t in enumerate(clause):
        after = _EXCEPTIONS.get(t.lower)
        if (after is not None and parts[-1] and all(i + 1 + k < len(clause) and clause[i + 1 + k].lower == w
                                                    for k, w in enumerate(after))):
            parts.append([])
        parts[-1].append(t)
    return parts


_REASON_SUBJECTS = frozenset("they it he she we i you there this these those".split())


def _opens_reason(tokens: list[Token], j: int) -> bool:
    """A reason starts at `j`: 'because …', 'as they …', 'since it …'."""
    nxt = tokens[j + 1].lower if j + 1 < len(tokens) else ""
    return tokens[j].lower == "because" or (tokens[j].lower in ("as", "since") and nxt in _REASON_SUBJECTS)


def denied_short_of_reason(tokens: list[Token], shared: set[str]) -> frozenset[int]:
    """Offsets of the negations whose reach, up to a reason that follows them ('because …', 'as they are …'), holds
    none of the `shared` stems: "the organs are not physically connected as they are discrete in nature" denies a
    connection, not that they are discrete. A negation with no reason after it is left as it is."""
    out: set[int] = set()
    for i in range(len(tokens)):
        if not _denies(tokens, i):
            continue
        for j in range(i + 1, len(tokens)):
            if tokens[j].stem in shared:
                break
            if j > i + 1 and _opens_reason(tokens, j):
                out.add(tokens[i].start)
                break
    return frozenset(out)


_LINKING = ("of", "and", "the", "for", "&")


def initials(words: list[Token], linking: bool = False, spelled: bool = False) -> str:
    """'Bureau of Labor Statistics' -> 'bls' (small linking words skipped unless `linking`:
    'Head of Household' -> 'hoh'); with `spelled`, an acronym inside the name gives all its letters ('US
    Citizenship and Immigration Services' -> 'uscis')."""
    return "".join(w.lower if spelled and is_acronym(w) else w.lower[0]
                   for w in words if linking or w.lower not in _LINKING)


def is_acronym(t: Token) -> bool:
    """'BLS', 'US', and a plural one ('NICs')."""
    text = t.text
    return len(text) >= 2 and (text.isupper() or (len(text) >= 3 and text[-1] == "s" and text[:-1].isupper()))


def acronym_forms(word: str) -> set[str]:
    """The lower-case acronym and its singular: 'nics' -> {'nics', 'nic'}."""
    return {word, word[:-1]} if len(word) >= 3 and word.endswith("s") else {word}


def acronym_stretches(run: list[Token]) -> Iterator[tuple[list[Token], set[str]]]:
    """Each stretch of two to eight capitalised words of a run (linking words inside it kept), with
    the acronyms it can stand for: its initials with and without the linking words."""
    starts = [i for i, w in enumerate(run) if w.capitalized]
    for a, i in enumerate(starts):
        for j in starts[a + 1:a + 8]:
            stretch = run[i:j + 1]
            yield stretch, {initials(stretch, linking, spelled) for linking in (False, True) for spelled in (False, True)}


def run_initials(run: list[Token]) -> set[str]:
    """Every acronym a stretch of the run can stand for (acronym candidates of a context)."""
    return {acronym for _, acronyms in acronym_stretches(run) for acronym in acronyms}


def capitalized_runs(tokens: list[Token]) -> list[list[Token]]:
    """Runs of capitalised words, allowing 'of/and/the/for' inside ('Bureau of Labor Statistics')."""
    runs: list[list[Token]] = []
    current: list[Token] = []
    for t in tokens:
        if t.capitalized and t.number is None:
            current.append(t)
        elif current and t.lower in ("of", "and", "the", "for") and not current[-1].lower in ("of", "and", "the", "for"):
            current.append(t)
        else:
            if current:
                runs.append(current)
            current = []
    if current:
        runs.append(current)
    cleaned = []
    for run in runs:
        while run and not run[-1].capitalized:
            run = run[:-1]
        if run:
            cleaned.append(run)
    return cleaned


def number_key(value: float) -> str:
    """A canonical form so that 3.5e6 and 3,500,000 and 3.50 million compare equal."""
    return f"{value:.6g}"


US_STATE_CODES = {  # postal codes: 'Cambridge, MA' where the context writes 'Massachusetts'
    "AL": "alabama", "AK": "alaska", "AZ": "arizona", "AR": "arkansas", "CA": "california", "CO": "colorado",
    "CT": "connecticut", "DE": "delaware", "FL": "florida", "GA": "georgia", "HI": "hawaii", "ID": "idaho",
    "IL": "illinois", "IN": "indiana", "IA": "iowa", "KS": "kansas", "KY": "kentucky", "LA": "louisiana",
    "ME": "maine", "MD": "maryland", "MA": "massachusetts", "MI": "michigan", "MN": "minnesota",
    "MS": "mississippi", "MO": "missouri", "MT": "montana", "NE": "nebraska", "NV": "nevada", "NH": "new hampshire",
    "NJ": "new jersey", "NM": "new mexico", "NY": "new york", "NC": "north carolina", "ND": "north dakota",
    "OH": "ohio", "OK": "oklahoma", "OR": "oregon", "PA": "pennsylvania", "RI": "rhode island",
    "SC": "south carolina", "SD": "south dakota", "TN": "tennessee", "TX": "texas", "UT": "utah", "VT": "vermont",
    "VA": "virginia", "WA": "washington", "WV": "west virginia", "WI": "wisconsin", "WY": "wyoming",
    "DC": "district of columbia"}

# AP style's abbreviations of state names ('Santa Clara County, Calif.'), those that are no English word or common
# name of their own ('Mass.', 'Wash.', 'Ill.', 'Kan.' are), with the stem of the state's name
AP_STATES = {"ariz": "arizona", "calif": "california", "colo": "colorado", "conn": "connecticut", "fla": "florida",
             "mich": "michigan", "minn": "minnesota", "neb": "nebraska", "nev": "nevada", "okla": "oklahoma",
             "tenn": "tennesse", "wis": "wisconsin", "wyo": "wyom"}

SHORT_FORMS = {"tv": "televis", "tvs": "televis",  # a short form -> the stem of what it stands for, and back
               "bc": "christ", "bce": "christ",  # '300 BC' where the evidence says 'before Christ'
               **AP_STATES}  # 'California' where the evidence says 'Calif.'
LONG_FORMS = {"televis": frozenset({"tv", "tvs"}), "christ": frozenset({"bc", "bce"}),
              **{state: frozenset({short}) for short, state in AP_STATES.items()}}


def state_named(code: str, lowers: frozenset[str]) -> bool:
    """`lowers` (a text's lower-case words) name the state of postal code `code` ('MA'): every word of its name,
    or its AP abbreviation ('CA' where a context says 'Calif.')."""
    name = US_STATE_CODES[code]
    return all(w in lowers for w in name.split()) or any(
        short in lowers for short, state in AP_STATES.items() if name.startswith(state))

_COUNTRY_WORDS = (  # a country's names and the adjective of its people: 'a worn US flag' / 'a worn American flag'
    "us usa america american americans", "uk britain british britons", "china chinese", "france french",
    "germany german germans", "japan japanese", "mexico mexican mexicans", "canada canadian canadians",
    "australia australian australians", "india indian indians", "russia russian russians", "italy italian italians",
    "spain spanish", "israel israeli israelis", "iran iranian iranians", "iraq iraqi iraqis", "syria syrian syrians",
    "ukraine ukrainian ukrainians", "nepal nepalese nepali", "egypt egyptian egyptians", "turkey turkish",
    "pakistan pakistani pakistanis", "afghanistan afghan afghans", "korea korean koreans",
    "vietnam vietnamese", "brazil brazilian brazilians", "ireland irish", "scotland scottish scots",
    "wales welsh", "greece greek greeks", "poland polish poles", "sweden swedish swedes",
    "netherlands dutch", "switzerland swiss", "cuba cuban cubans", "nigeria nigerian nigerians",
    "kenya kenyan kenyans", "yemen yemeni yemenis", "libya libyan libyans", "lebanon lebanese",
    "philippines filipino filipinos", "indonesia indonesian indonesians", "thailand thai",
    "venezuela venezuelan venezuelans", "argentina argentine argentinian argentinians",
    "colombia colombian colombians", "chile chilean chileans", "peru peruvian peruvians",
    "portugal portuguese", "belgium belgian belgians", "austria austrian austrians",
    "norway norwegian norwegians", "denmark danish danes", "finland finnish finns",
    "palestine palestinian palestinians", "somalia somali somalis", "sudan sudanese",
    "ethiopia ethiopian ethiopians", "qatar qatari qataris", "kuwait kuwaiti kuwaitis",
    "bangladesh bangladeshi bangladeshis", "latvia latvian latvians", "hungary hungarian hungarians",
    "romania romanian romanians", "serbia serbian serbians serbs", "croatia croatian croatians croats",
    "tunisia tunisian tunisians", "morocco moroccan moroccans", "algeria algerian algerians",
    "haiti haitian haitians", "jamaica jamaican jamaicans", "saudi saudis", "taiwan taiwanese",
    "singapore singaporean singaporeans", "malaysia malaysian malaysians", "zimbabwe zimbabwean zimbabweans")
_SAME_COUNTRY = {w: frozenset(group.split()) - {w} for group in _COUNTRY_WORDS for w in group.split()}


# Country words that are also common words in lower case: the pronoun, the verb 'polish', ski poles, the bird, dishes,
# the pepper. Written so in a claim, they name no country.
_ALSO_COMMON = frozenset("us polish poles turkey china chile".split())


def country_forms(t: Token) -> frozenset[str]:
    """The other lower-case words that name the country the claim's word `t` names ('american', 'america', … for
    'US'); none for a word that is also a common word, written in lower case ('us', 'polish', 'china'). The context's
    words are not asked: some sources are written all in lower case ('in china 's fujian province')."""
    if t.lower in _ALSO_COMMON and not t.capitalized:
        return frozenset()
    return _SAME_COUNTRY.get(t.lower, frozenset())


_MONTHS = frozenset("january february march april may june july august september october november december".split())
_WEEKDAYS = frozenset(_WEEKDAY_ABBREVIATIONS.values())


_REGIONS = {  # a region a place lies in, by kind: the single-word US states, the countries (and the UK's nations)
    "state": frozenset(name for name in US_STATE_CODES.values() if " " not in name),
    "country": frozenset(group.split()[0] for group in _COUNTRY_WORDS) | frozenset(("england", "scotland", "wales")),
}


def locates_place(tokens: list[Token], i: int, text: str) -> str:
    """The kind of region ('state', 'country') token i names when it only says where the place named right before
    it lies ('Eugene, Oregon', 'Santa Clara County, CA', 'Leeds, England'): a region after a capitalised word and a
    comma; '' otherwise. `text`: what the offsets point into."""
    t = tokens[i]
    if i == 0 or not t.capitalized or not tokens[i - 1].capitalized or text[tokens[i - 1].end:t.start].strip() != ",":
        return ""
    if t.text in US_STATE_CODES:
        return "state"
    return next((kind for kind, names in _REGIONS.items() if t.lower in names), "")


def regions(kind: str) -> frozenset[str]:
    """The names of the regions of a kind (`locates_place`) as a context's lower-case words tell them: 'us' is
    left out, being the pronoun in most texts ('usa', 'america' stay)."""
    return _REGIONS[kind] - {"us"}


def name_kind(t: Token) -> str:
    """What a capitalised word names where the word itself tells: 'month', 'weekday', 'country' (a country or its
    people: 'Greece', 'American'); '' for any other name."""
    if not t.capitalized:
        return ""
    if t.lower in _MONTHS:
        return "month"
    if t.lower in _WEEKDAYS:
        return "weekday"
    return "country" if t.lower in _SAME_COUNTRY else ""


_ORDINAL_WORDS = ("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
                  "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth").split()
_ORDINAL_NUMBER = {w: n for n, w in enumerate(_ORDINAL_WORDS, start=1)}
_DIGIT_ORDINAL = re.compile(r"(\d{1,2})(?:st|nd|rd|th)", re.I)


def is_month(t: Token) -> bool:
    """A month's name, in any case ('March', 'november'; 'May' too: beside a figure it is the month)."""
    return t.lower in _MONTHS


def is_ordinal(t: Token) -> bool:
    """A figure written as an ordinal ('8th', '21st'): a rank, not a count."""
    return t.number is not None and _DIGIT_ORDINAL.fullmatch(t.text) is not None


def other_ordinal(t: Token) -> Optional[str]:
    """The same ordinal in its other spelling, lower-case: 'eighth' for '8th', '8th' for 'Eighth' (1 to 20), else
    None. The two say the same figure ('quit in the 8th round' / 'in the eighth round')."""
    m = _DIGIT_ORDINAL.fullmatch(t.text) if t.number is not None else None  # the tokenizer reads '8th' as 8
    if m:
        n = int(m.group(1))
        return _ORDINAL_WORDS[n - 1] if 1 <= n <= len(_ORDINAL_WORDS) else None
    n = _ORDINAL_NUMBER.get(t.lower, 0)
    if n:
        return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n, 'th')}"
    return None


@lru_cache(maxsize=1)
def antonym_index() -> dict[str, frozenset[str]]:
    """Stem -> stems of its antonyms (built on first use)."""
    return _build_antonyms()


def _build_antonyms() -> dict[str, frozenset[str]]:
    pairs: dict[str, set[str]] = {}
    for a, b in _ANTONYM_PAIRS:
        sa, sb = stem(a), stem(b)
        pairs.setdefault(sa, set()).add(sb)
        pairs.setdefault(sb, set()).add(sa)
    return {k: frozenset(v) for k, v in pairs.items()}


_SENTENCE_OPENERS = frozenset(".!?:;\"'\u201c\u2018*#-\u2013\u2014\u2022([\n")


def starts_sentence(text: str, start: int) -> bool:
    """True when the word at `start` of `text` opens a sentence, a line, a quote, a heading or a list item (a
    hashtag's word, '#' right before it, opens nothing)."""
    i = start - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    return i < 0 or (text[i] in _SENTENCE_OPENERS and not (text[i] == "#" and i == start - 1))


_HEADLINE_MINOR = frozenset("a an the and but or nor for so yet of in on at to by as up off per via vs".split())


def in_title_case(tokens: list[Token]) -> bool:
    """A headline or heading written in title case ('Blue Bell Ice Cream Recalls Products Amid Listeria Outbreak'):
    after its first word (capitalised as any sentence's: 'Click on Internet Options'), every word but the articles,
    conjunctions and short prepositions a headline leaves in lower case is capitalised, four of four letters or
    more at least. Its capitals need not mark names; a sentence full of names still writes its verbs in lower case
    ('Rafael Nadal defeated Roger Federer', 'Elkhan Mammadov is a General Secretary of …')."""
    words = [t for t in tokens[1:] if t.number is None and t.lower.isalpha()]
    if any(not t.capitalized and t.lower not in _HEADLINE_MINOR for t in words):
        return False
    return sum(t.capitalized and len(t.lower) >= 4 for t in words) >= 4


# Words that make a place or body of a name before them ('Tulsa County', 'Cook County Jail'): where the context has
# the name in another form ('Tulsa, Oklahoma'), such a word holds no slot of its own.
NAME_DESIGNATORS = frozenset(
    "county city state province district region island islands river lake bay valley mountain mountains street avenue"
    " road airport station university college school hospital department police church park stadium center centre"
    " hall bridge court tournament club fc inc ltd".split())


def designates(tokens: list[Token], i: int) -> bool:
    """Token i only says what kind of thing the name before it is ('County' of 'Tulsa County', 'Tournament' of
    'Masters Tournament')."""
    return tokens[i].lower in NAME_DESIGNATORS and i > 0 and tokens[i - 1].capitalized
