"""A context sentence that opens with a subject pronoun, read with the name it stands for.

A reader that takes one sentence at a time cannot tell what "It is usually injected once a day." is about. When the
sentence before it (in the same paragraph) opens with a short subject phrase ("Insulin glargine is a long-acting
insulin …"), the pronoun is replaced by that phrase: "Insulin glargine is usually injected once a day." Only the
subject is carried over, never the rest of the earlier sentence, so a figure of the earlier sentence cannot be
read as the later one's (reading the two sentences joined does that: docs/benchmarks.md).

Rules (each keeps a sentence as it is when it does not apply):
- the pronoun is the sentence's first word: He, She, It or They, not a title's ("It Takes a Village"); the
  impersonal "it" ("It is estimated that …", "It seems …") stays;
- the subject phrase is the earlier sentence's words before its first verb (a form of be/have, a modal, or a
  lowercase word ending in "-ed"), at most six words, with no comma, opening with a capitalised word that is not
  a preposition, conjunction, adverb or pronoun ("In 1998 it opened" has no subject to carry);
- the pronoun agrees with the subject (`agrees`): 'he'/'she' a name alone among the earlier sentence's persons,
  'it' not a person's name, 'they' a plural;
- an earlier sentence that itself opens with a pronoun passes on its own resolved subject (a chain of "It …").

On the three dev files 94 of 23,300 context sentences are resolved; read by hand, about three in four name the
right subject (the misses: an "it" for the thing an embedded clause introduced, "It is the third time …").
"""
from __future__ import annotations

import re
from typing import Optional, Sequence

SUBJECT_PRONOUNS = frozenset({"he", "she", "it", "they"})
_VERBS = frozenset("is are was were has have had will would can could may might must shall should does did do "
                   "remains became becomes".split())
_NOT_SUBJECT_OPENERS = frozenset(
    "in on at after before when while however although though because if since during for from with by as "
    "this these that those there here it he she they we i you his her its their our my your also then thus "
    "but and or so yet according despite unlike like between among under over through until unless no none some "
    "many most all each every both one few several another other such what who which why how where only even just "
    "not below above eight nine ten two three four five six seven".split())
_PERSON_PRONOUNS = frozenset("he she him her his hers they them their it its we you i".split())
_IMPERSONAL_VERBS = frozenset("seems seemed appears appeared sounds sounded looks looked takes took turns turned "
                              "happens happened remains".split())
_MAX_SUBJECT_WORDS = 6
_WORD = re.compile(r"\S+")


def _bare(word: str) -> str:
    return word.strip(".,;:!?\"'()[]").lower()


def opens_with_pronoun(text: str) -> bool:
    """A sentence whose first word is He, She, It or They standing for something: not a title ("It Takes a
    Village"), not the impersonal "it" ("It is estimated that …", "It seems …", "It takes an age …")."""
    words = text.split(maxsplit=5)
    if len(words) < 2 or _bare(words[0]) not in SUBJECT_PRONOUNS or not words[0][:1].isupper():
        return False
    if words[1][:1].isupper():
        return False
    rest = [_bare(w) for w in words[1:5]]
    return not (_bare(words[0]) == "it" and ("that" in rest or rest[0] in _IMPERSONAL_VERBS))


def subject_phrase(text: str) -> Optional[str]:
    """The words before the sentence's first verb when they make a short subject phrase; else None."""
    words = text.split()
    if not words or not words[0][:1].isupper() or _bare(words[0]).split("'")[0] in _NOT_SUBJECT_OPENERS:
        return None
    subject: list[str] = []
    for word in words:
        bare = _bare(word)
        if bare in _VERBS or (word[:1].islower() and len(bare) > 3 and bare.endswith("ed")):
            break
        if len(subject) == _MAX_SUBJECT_WORDS or "," in word or ";" in word or bare in _PERSON_PRONOUNS:
            return None
        subject.append(word)
    else:
        return None  # no verb found: not a sentence whose subject can be told
    return " ".join(subject) if subject else None


def agrees(pronoun: str, subject: str, sentence: str = "") -> bool:
    """Whether the pronoun can stand for the subject phrase of `sentence`: 'he'/'she' for a name (capitalised
    words only, no possessive: 'Maili Tamang', not "Tamang's house") when the sentence names no one else and
    refers to no other person ("Robert has children, which helps because Savannah …" leaves 'She' open); 'it' for
    anything but such a name of two words or more; 'they' for a plural ('The residents', 'Pens and needles')."""
    words = subject.split()
    name = all(w[:1].isupper() for w in words) and not any("'" in w or "\u2019" in w for w in words)
    if pronoun in ("he", "she"):
        rest = sentence.split()[1 if opens_with_pronoun(sentence) else len(words):]
        others = any(w[:1].isupper() or _bare(w).split("'")[0] in _PERSON_PRONOUNS for w in rest)
        return name and _bare(words[0]) not in ("the", "a", "an") and not others
    if pronoun == "it":
        return not (name and len(words) >= 2 and _bare(words[0]) not in ("the", "a", "an"))
    return _bare(words[-1]).endswith("s") or "and" in (_bare(w) for w in words)


def resolved_sentences(context: str, starts: Sequence[int], ends: Sequence[int]) -> list[Optional[str]]:
    """Per context sentence (given by its offsets in `context`): its text with the opening pronoun replaced by the
    subject it stands for, or None where the sentence stays as it is."""
    texts = [context[s:e] for s, e in zip(starts, ends)]
    subjects: list[Optional[str]] = []
    out: list[Optional[str]] = []
    for i, text in enumerate(texts):
        same_paragraph = i > 0 and "\n\n" not in context[ends[i - 1]:starts[i]]
        if opens_with_pronoun(text):
            carried = subjects[i - 1] if same_paragraph else None
            carried = carried if carried and agrees(_bare(text.split()[0]), carried, texts[i - 1]) else None
            if carried:
                first = _WORD.search(text)  # the pronoun (opens_with_pronoun saw it)
                out.append(carried + text[first.end():] if first else None)
            else:
                out.append(None)
            subjects.append(carried)
        else:
            out.append(None)
            subjects.append(subject_phrase(text))
    return out
