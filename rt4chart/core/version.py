"""The package version, recorded in every manifest and cache key, and the revision of the audit method."""
__version__ = "0.1.0"

# Raised with every change that gives another report for the same input and settings (segmentation, claims,
# a judge's reading). A cached report of another revision is not served, and each manifest says which method
# made its run. 2: sentences glued without a space ("century.First") are cut. 3: a model judge's stated cost
# counts the pairs its audit asked for (it counted those its process had not read before: engine-dependent).
# 4: a plural acronym ('NICs') and a name holding an acronym ('US Citizenship and Immigration Services' for
# 'USCIS') vouch for each other. 5: only a figure or a name stands in a contradicted slot (not a plain word, an
# acronym, or another spelling of the same name); 'Ph.D' is 'PhD'; 'added' and 'add' share a stem. 6: the
# coverage step skips what the decomposer skips (a remark on the sources before a list's intro); a negation under
# a condition ('if soap can't …', 'until no longer pink') or in 'not the only' flips nothing. 7: a physical quantity
# given in another unit ('350°F (175°C)', '8 km' for '5 miles') restates the context's figure. 8: words that only
# say who tells a fact ('Passage 3 provides instructions for', 'The author argues that') are not checked as the fact;
# remarks on answering the question ('The passages provide enough information to answer the question') are no claim;
# a claim of fewer than three content words is said by another passage only when the one it cites holds none of
# them. 9: 'state' and 'states' are content words ('the state in which they work'); an entailed claim lists as
# support only the sentences that give one of its words no sentence before them gives. 10: a one-letter unit after a
# number ends its sentence when a capital follows ('350 F. Bake' is two sentences). 11: with a question, the hybrid
# reads a claim of six words or more whose words one context sentence holds (or two, one per predicate) against those
# sentences alone, without the question ('The lawsuit was dismissed on 3 March.' was baseless beside its question).
# 12: a clause that says what a passage does not tell after the passage's own clause ('The first passage discusses
# baking but does not mention frying') is a statement about the context. 13: a unit spelled otherwise with the same
# figure is found ('5.68 meters' for '5.68 m'). 14: an ordinal in its other spelling is the same figure ('8th' /
# 'eighth', 1 to 20). 15: a US state's postal code is the state the context names ('Cambridge, MA'). 16: 'TV' is
# 'television', and back. 17: a count spelled as a word differs only from a figure in its slot ('two aces' is no
# other figure than 'five hole-in-ones'). 18: a British spelling has the American one's stem ('criticised',
# 'colour', 'metres', 'defence'). 19: the hybrid's model never clears a claim the word check flags (its doubt still
# flags a claim the words support); a hybrid claim's score within its side of 0.5 is graded by both judges. 20: the
# hybrid shows an entailed claim with the word check's sentences when they hold more of its words than the model's.
# 21: the model reads a context sentence opening with He/She/It/They with the subject it stands for when the
# sentence before it is not read beside it (text/antecedents.py). 22: a one-sentence answer's claim of two own
# content words needs one sentence that holds both ('The sky is green.' beside 'The sky is blue. The grass is green.').
# 23: a claim read in the sentence that says it names the pronoun it read ("reading 'It' as 'Insulin glargine'").
# 24: without a question, the hybrid's model doubt alone no longer flags a claim whose every content word and figure
# the word check found (the app's example's first claim).
# 25: 'stay' and 'remain' are copulas, not content words (the demo's insulin-3 is entailed).
# 26: 'despite', 'although', 'though', 'whereas' and 'various' are not content words either.
# 27: a baseless claim's reason tells the words the context lacks from those only other sentences hold.
# 28: a country's name and its people's adjective are one place for the word check ('US flag' / 'American flag').
# 29: a pronoun with its verb clipped on ("he'll", "they're") is no content word.
# 30: a negation after the last word a claim clause and an evidence clause share flips nothing.
# 31: 'us' the pronoun is no country ('US' and 'U.S.' still are).
# 32: a bare citation after a sentence ('… overnight. (Passage 3)') joins that sentence's claim and is checked.
# 33: 'failing', 'refusing' and 'refusal' negate as 'failed' does; 'based solely on the information provided in the
#     passage, …' is a remark on the sources; '… are missing in the provided passage' is a statement about the context.
# 34: the country table covers 76 countries (was 20): 'Turkish airspace' is found in a story naming Turkey.
# 35: a negation or an antonym contradicts a claim only from a sentence that says at least as much of it as any
#     other evidence sentence.
# 36: of two claim clauses as wholly in an evidence clause, the negation check compares the one sharing more words.
# 37: an irregular past form shares its verb's stem ('taken' / 'took' / 'take', 'heard' / 'hear').
# 38: a number after a pointer number across 'and'/'&'/'or'/'to' points too ('passages 1 & 2', 'steps 7 and 8').
# 39: 'polish', 'poles', 'turkey', 'china', 'chile' in lower case in a claim name no country (as 'us' did not).
# 40: a headline's capitals fill no slot unless the context writes them as names; a word continuing a context name
#     ('Cory Wurthinger') is filled only by a word continuing it; 'County' of 'Tulsa County' is no slot; a name the
#     context writes with one word changed ('University of California/Colorado Anschutz …') is contradicted.
# 41: a figure that counts what a sentence counts with another figure ('Four alleged attackers' / 'Three of the
#     alleged attackers') is contradicted, though the context gives the figure elsewhere ('four militants').
# 42: a label's capitals ('Scope of Coverage:') and a compound of the context's names ('US-Pakistan') fill no slot;
#     a negated stopping verb before an -ing verb ('hasn't stopped ringing') says the thing goes on: no negation.
# 43: a slot holds a thing of one kind: a month for a month, a weekday for a weekday, a country (or its people) for a
#     country; a figure for a figure counting the same unit ('145°F' is no '1 hour'); 'twice' for no figure.
# 44: one rule decides where a sentence opens (the word check's capitals used their own): a word after a line break
#     or a bullet opens one, a hashtag's word ('#FindYourPark') opens none.
# 45: a date told from another point of time is contradicted ('300 years ago' beside '300 years BC'); 'before
#     Christ' is 'BC'.
# 46: a figure counted in hundreds or dozens is one number ('two hundred' is 200, 'two dozen' 24, 'half a dozen' 6).
# 47: negation idioms: 'unthinkable that he will not win' asserts he will, "can't help but think" thinks, 'if not
#     for the video' is 'without the video' (a negation of its own, not one under a condition).
# 48: the state or country right after a place the context names ('Eugene, Oregon', 'Manchester, UK') is no unknown
#     name.
# 49: nor a word that says what kind of thing the name before it is ('Tulsa County', 'Masters Tournament').
# 50: a capital that names nothing is no unknown name either (a label's words, a compound of the context's names:
#     the slot check's own rule); a region after a place only where the context names no region of its kind.
#     The era of a year ('325 AD') names nothing; 'club', 'FC', 'Inc', 'Ltd' designate ('Chelsea FC').
# 51: an antonym contradicts only in a sentence that holds the claim's figures ('30 km east of Kathmandu' is not
#     contradicted by 'the regions west of Kathmandu').
# 52: a 'fail'/'refuse' verb of an attempt ('failed in its bid to host') denies the verb after its 'to', not the
#     bid, where the other clause denies nothing ('failed in its bid to host the 2019 event' does not contradict
#     'bid for the 2019 event').
# 53: what follows an exception ('other than saying that …', 'except the driver') is compared with the claim
#     outside the negation before it.
# 54: a spelled count differs only from a figure the claim does not state itself ('five hole-in-ones, including two
#     by Villegas' is not contradicted by 'a day which saw five hole-in-ones').
# 55: a claim word whose stem is that of a function word of the evidence ('provides' beside 'provided', 'remains'
#     beside 'remained') is found.
# 56: a hyphenated word's parts are each stemmed ('holes-in-one' is 'hole-in-ones', 'over-fertilizing' is
#     'over-fertilized').
# 57: a state's AP abbreviation ('Calif.') names it: 'Santa Clara County, CA' and 'California' are found beside it.
# 58: a claim half or more of whose content weight is unsupported is marked whole, not word by word.
# 59: the writer's reasoning before a fact ('we can conclude that', 'it appears that') is no word of the fact.
# 60: the writer summing up ('to summarize,', 'in conclusion:') is no word of the fact; a name or figure the context
#     has in another form, far from the claim ('Latvian' for 'Latvia'), is no unknown name that decides alone.
# 61: a concessive clause that opens a sentence ('Despite X, Y', 'While X, Y') is a claim of its own; for the
#     negation check, 'out of' (a coma, print) denies being in it, 'but not X' denies the verb of the clause before,
#     and a clause starts at 'rather than'.
# 62: a century by its ordinal restates it by its hundreds ('18th century' / '1700s'); an ordinal counts no duration
#     ('the 19th century' is not nineteen centuries).
# 63: 'out of' under a condition is unasserted like any other negation there ('a refund when the shop is out of
#     the item' says the shop is out of nothing).
# 64: a whole said of what the context says of a part is contradicted ('six people were injured by broken glass'
#     beside 'five out of six people were injured by broken glass').
# 65: a figure given to a verb the context counts with another figure is contradicted ('five people have died'
#     beside 'Five people were infected and three died').
# 66: a negation does not reach into a reason after it ('not physically connected as they are discrete' does not
#     deny that they are discrete).
# 67: a fact told with the answer's own word that the context lacks it ('X (not mentioned in the passages)') is
#     baseless when the context does lack it.
# 68: what a statement about the context says is missing is what follows 'there is no information on' / 'do not
#     mention', not a fact told before it; a figure after a capital ('Station 109 recorded') is a label, no count.
# 69: a short word in -ed after a figure is no verb it counts ('three red cars'); 'led', 'fed' are.
# 70: the hybrid's rationale of a contradiction the word check found opens with that contradiction, not with the
#     model's 'finds no support'.
# 71: a figure is contradicted only by a figure of its kind: a year by a year ('5 May 2015' beside 'May 5' is
#     unstated), a label's figure by the same label ('Line 29' by 'Line 30', not by '43-line Form 8829').
# 72: 'Therefore, the answer is: X' is a remark before the fact X; 'Option 1 or Option 2' names the answer's own
#     items and is no claim.
# 73: a month's figure is a date, no label ('March 2015' is a year); a day of a month is contradicted only by
#     another day ('from August 28th' beside 'a 7-day trip' is unstated), in the figure proof and the slot search.
# 74: a sentence that only introduces what follows it ('To make ghee, follow these steps:', '… as follows:') is no
#     claim.
# 75: where the word check and the model both flag a claim, the hybrid's rationale names what the context lacks
#     first.
# 76: a whole said of what the context says of a part is found in a claim that joins several facts (the part check
#     reads a sentence the claim covers from 0.3, not 0.6).
# 77: two sentences written without a space ('aired on ESPN.Barry Lamar Bonds') are two words at the dot.
# 78: the parts of a hyphenated word are terms of its sentence ('action' of 'action-adventure'): a claim's word is
#     found with the sentence that writes it.
# 79: an irregular plural is stemmed as its singular ('teeth' as 'tooth', 'women' as 'woman', '-men' as '-man').
# 80: a sentence glued to the next after an acronym ('aired on ESPN.Barry Bonds is …') is cut there, as after a
#     lower-case word.
# 81: a noun ending in '-men' and its plural share a stem again ('specimen' / 'specimens'; 79 parted them).
# 82: the hybrid's evidence pick reads only where its sentence can reach the report: verdicts, scores, spans and
#     evidence are 81's; `model_pairs` / `model_tokens` count fewer pairs.
METHOD_REVISION = 82
