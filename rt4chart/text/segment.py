"""Sentence segmentation with exact character offsets, and overlapping windows.

Segmentation uses NLTK's Punkt. When the trained `punkt_tab` model is installed it is used;
otherwise a Punkt tokenizer with a built-in abbreviation list (no training data, no network).
Lines are segmented separately, so bullets and hard line breaks always end a sentence, and a long
line is segmented in bounded pieces (Punkt's regular expressions have a time limit, and a 20 MB line
would exceed it): each piece keeps all its sentences but the last, which starts the next piece, so the
sentences are the ones a single pass would find. Two cuts follow Punkt's: sentences glued without a space
("century.First") and a one-letter unit after a number before a capital ("350 F. Bake"), which Punkt reads as an
initial.
"""
from __future__ import annotations

import re
from functools import lru_cache

from rt4chart.core.errors import InputError
from rt4chart.core.types import Sentence, Window

# Lower-case, without the final period, as Punkt stores them.
ABBREVIATIONS = frozenset("""
dr mr mrs ms prof sr jr st vs etc e.g i.e u.s u.k u.n u.s.a e.u a.m p.m inc ltd co corp llc
jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun
no nos vol vols fig figs approx dept est gen gov sen rep rev mt ft lt col capt sgt cf al
ave blvd rd mgr assn bros ph.d m.d b.a m.a d.c n.y l.a op ed eds pp ch sec art min max
""".split())

_BULLET = re.compile(r"^[ \t]*(?:[-*\u2022\u00b7\u2023\u25aa\u25e6>]+|\(?\d{1,3}[.)]|\(?[a-zA-Z][)])[ \t]+")
_LINE = re.compile(r"[^\r\n]+")
_HAS_WORD = re.compile(r"\w")
# A sentence end glued to the next sentence ("...in the 19th century.First for Women is..."), as passages joined
# without a space arrive: an end mark (and a closing quote or bracket) right before a capitalised word. It is
# cut only after a word of at least two lower-case letters or digits, or an acronym ("aired on ESPN.Barry Bonds"), that
# is no abbreviation, so initials ("J.R.R.Tolkien"), "U.S.Army", "St.Louis" and "e.g.The" stay whole (decimals have no
# capital after them).
_GLUED = re.compile(r"[.!?][\"”’)\]]?(?=[A-Z][a-z])")
_WORD_BEFORE = re.compile(r"[\w.]*[\"”’)\]]?$")
# A one-letter unit after a number ends its sentence when a capitalised word follows ('350 F. Bake', '3 m. It'):
# Punkt takes the letter for an initial ('F. Scott'), which a number never stands before.
_UNIT_END = re.compile(r"(?<=\d)\s?°?\s?[FCKm]\.(?=\s+[A-Z])")
PIECE_CHARS = 20_000


@lru_cache(maxsize=1)
def _tokenizer():
    """NLTK's Punkt, imported on first use: the trained `punkt_tab` when installed, else built-in."""
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    try:
        from nltk.tokenize.punkt import PunktTokenizer

        return PunktTokenizer("english")
    except (LookupError, OSError, ValueError, ImportError):
        params = PunktParameters()
        params.abbrev_types = set(ABBREVIATIONS)
        return PunktSentenceTokenizer(params)


def segmenter_name() -> str:
    """Which Punkt model is in use: the trained `punkt_tab` or the built-in one."""
    return "punkt_tab" if type(_tokenizer()).__name__ == "PunktTokenizer" else "punkt-builtin"


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def split_sentences(text: str) -> list[Sentence]:
    """Split `text` into sentences; each `Sentence.text == text[start:end]`."""
    sentences: list[Sentence] = []
    tokenizer = _tokenizer()
    for line in _LINE.finditer(text):
        line_start = line.start()
        bullet = _BULLET.match(line.group())
        body_start = line_start + (bullet.end() if bullet else 0)
        body = text[body_start:line.end()]
        if not _HAS_WORD.search(body):
            continue
        spans = _cut(body, _cut(body, _bounded_spans(tokenizer, body), _GLUED, _glued_end), _UNIT_END)
        for s, e in spans:
            start, end = _trim(text, body_start + s, body_start + e)
            if end > start and _HAS_WORD.search(text[start:end]):
                sentences.append(Sentence(index=len(sentences), start=start, end=end, text=text[start:end]))
    return sentences


def _cut(body: str, spans, pattern: re.Pattern, ends_sentence=None):
    """Each span cut again after every match of `pattern` inside it (that `ends_sentence(body, start, match)`
    accepts, where given; `start` is where the current piece begins)."""
    for s, e in spans:
        for match in pattern.finditer(body, s, e):
            if ends_sentence is None or ends_sentence(body, s, match):
                yield s, match.end()
                s = match.end()
        yield s, e


def _glued_end(body: str, start: int, match: re.Match) -> bool:
    """Whether a _GLUED match ends a sentence: the word before it is at least two lower-case letters or digits, or an
    acronym in capitals, and no abbreviation."""
    before = _WORD_BEFORE.search(body, start, match.start())  # always matches (it may match nothing)
    word = before.group().rstrip("\"”’)]") if before else ""
    end = word[-2:]
    return not (len(end) < 2 or not end.isalnum() or (end != end.lower() and not word.isupper()) or "." in word
                or word.lower() in ABBREVIATIONS)


def _bounded_spans(tokenizer, body: str):
    """Punkt's sentence spans of `body`, computed over pieces of at most PIECE_CHARS characters."""
    if len(body) <= PIECE_CHARS:
        yield from tokenizer.span_tokenize(body)
        return
    pos = 0
    while pos < len(body):
        end = min(len(body), pos + PIECE_CHARS)
        spans = list(tokenizer.span_tokenize(body[pos:end]))
        if end == len(body):
            yield from ((pos + s, pos + e) for s, e in spans)
            return
        if len(spans) > 1:
            yield from ((pos + s, pos + e) for s, e in spans[:-1])
            pos += spans[-1][0]  # the last sentence may be cut: it starts the next piece
            continue
        cut = body.rfind(" ", pos + 1, end)  # one sentence longer than a piece: cut it at a space
        cut = cut if cut > pos else end
        yield pos, cut
        pos = cut


def make_windows(n_sentences: int, size: int, stride: int) -> list[Window]:
    """Overlapping windows of `size` sentences every `stride` sentences, covering all sentences."""
    if size < 1 or stride < 1:
        raise InputError(f"window size and stride must be >= 1 (got size={size}, stride={stride})")
    if stride > size:
        raise InputError(f"stride {stride} > size {size} would skip sentences; use stride <= size")
    windows: list[Window] = []
    first = 0
    while first < n_sentences:
        last = min(first + size, n_sentences) - 1
        windows.append(Window(index=len(windows), first=first, last=last))
        if last == n_sentences - 1:
            break
        first += stride
    return windows
