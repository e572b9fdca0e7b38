"""Every tunable constant of the gate and the embedded resolver, named, in one place.

Tune these against `tellmemore eval` over whole domains (never single conversations)
and record the before/after figures in the commit message.
"""

from __future__ import annotations

# --- gate ---------------------------------------------------------------------------
DISTINCTIVE_IDF = 0.5
"""A word is distinctive when its IDF is at least this share of the index's maximum IDF."""
UNSEEN_WEIGHT = 0.3
"""Weight of a word the index has never seen (df 0): it matches nothing there."""
LOW_SIGNAL_WORDS = 2
"""A message with at most this many content words and none distinctive needs resolving."""
OWN_SUBJECT_WORDS = 2
"""An ellipsis fragment with this many distinctive words names its own subject: no carry."""
OWN_SUBJECT_RUN = 4
"""... or this many content words, one of them distinctive: a question of its own."""
FRAGMENT_WORDS = 2
"""A verbless keyword fragment ("Disaster Recovery.") this short needs resolving."""
SUBJECT_MARGIN = 0.0
"""A short question the gate reads as self-contained still needs the conversation's subject
when the selector's best history phrase is more specific (normalised IDF) than any word of
the message by more than this (conversation/subject.py); below 0: off. A remark is never
read (analysis/mood.py), so MTRAG's one topic-switch probe it carried into ("So, no game
meat from now on!") keeps its words: no MTRAG query changes, Clef and TTS gain the turns
it was written from, mtrag-un clapnq +0.013 (bench/results/subject_carry.md)."""

# --- referents ---------------------------------------------------------------------
NAMING_RUN = 3
"""A demonstrative's noun phrase of this many content words names its own subject."""

# --- candidates -----------------------------------------------------------------------
MAX_PHRASE_WORDS = 5
CACHE_MAX_CHARS = 4000
"""Only texts up to this long are cached (phrases, words): MTRAG turns are at most 2,174
characters (p99 1,331), while the parse of a 100k-character message a client sends is
megabytes, which a cache of 4,096 texts must not keep."""
MAX_LABEL_WORDS = 6
ASSISTANT_SENTENCES = 3
"""Only the opening sentences of the last answer offer antecedents (they restate the subject)."""
ASSISTANT_WEIGHT = 0.45
"""Assistant wording weighs less than the user's own (seed 000)."""
RECENCY_DECAY = 0.6
"""Per exchange of age."""
FIRST_TURN_WEIGHT = 0.6
"""Floor for the first user turn: it usually names the conversation's subject."""
SUMMARY_WEIGHT = 0.35
REPEAT_BONUS = 0.25
MULTIWORD_BONUS = 0.06
NUMBER_MISMATCH = 0.75
""""it" prefers a singular phrase, "they" a plural one: a mismatch keeps this share."""
PHRASE_MEAN_SHARE = 0.3

# --- binding ----------------------------------------------------------------------------
AMBIGUITY_MARGIN = 0.15
"""Two alternatives whose focus differs by less than this are a coin flip: ask."""
RIVAL_RATIO = 0.85
"""A pronoun whose best antecedent has a rival of the same kind ("query runtime chart",
"query throughput chart") scoring at least this share of it asks which one is meant
(conversation/ambiguity.py; chosen on MTRAG + MTRAG-UN cloud: bench/results/
referent_ambiguity.md)."""
KIND_ITEMS = 2
""""the plan" after an answer that listed at least this many of the plans the user asked
about asks which one (conversation/ambiguity.py; bench/results/referent_ambiguity.md)."""
MIN_ANTECEDENT = 0.08
"""Below this salience nothing is bound (unbound referent, raw search)."""
FIT_CANDIDATES = 4
"""A pronoun's first this many antecedents (by salience) are each tried in its place and
the rewritten question searched (`passes.fit`; bench/results/antecedent_fit.md)."""
FIT_WEIGHT = 2.0
"""How much the rewritten question's best passage cosine counts beside the salience when
choosing among them. Both set before measuring, never fitted: labelled handbook bindings
+5 / -0, MTRAG-UN follow-up nDCG@5 +0.005 / +0.004 (bench/results/antecedent_fit.md)."""
CONFIRM_FIT = 0.5
"""`conversation.binding_gate`: a binding stands when its question's best passage cosine
reaches this ... (`conversation.gating`; one of the values pre-registered in session 43,
chosen on the dev handbooks only)."""
CONFIRM_GAIN = 0.15
"""... or when it raises that cosine over the message as typed by this much (session 38's
gain, chosen on the dev handbooks; bench/results/binding_gate.md)."""
SCOPE_MIN = 0.2
"""A user topic phrase must be at least this salient to be carried as scope."""
CARRY_PHRASES = 2
"""Topic phrases carried into a low-signal message (recent and first user turn)."""
SELECTOR_VETO = 0.2
"""A topic carry (too little signal, "what about ...") happens only when the learned
selector (conversation/selector.py) gives some history phrase at least this probability
of being carried by a person; 0: no veto."""
TERM_CARRY = False
"""Append the history word the term model (conversation/terms.py, terms.json or
TELLMEMORE_TERM_WEIGHTS) picks to the embedded resolver's query. Off. Held out it gains a
little: clapnq +0.0039, cloud +0.0001, govt +0.0005, mtrag-un +0.0032 / +0.0090. It raises
binding recall (0.284 -> 0.335 on clapnq, 0.212 -> 0.276 on cloud), but over-binding rises on
govt (0.633 -> 0.654), probe over-binding rises everywhere, and the handbook trials lose with
it on (bench/results/loo_terms.md)."""
CLARIFY_REPLY_WORDS = 4
"""A reply to a clarifying question has at most this many content words."""
READ_TURNS = 12
"""Recent history turns the resolver prepares (citations stripped, clarification replies
read as their option): the selector's last 4 user turns and 2 answers, the candidate
window and the ellipsis chain all lie within them."""
MAX_READ_CHARS = 4000
"""A history turn is read up to this many characters (MTRAG's longest turn has 2,174): a
1.9 MB pasted turn cost 14 s of parsing per later turn; its opening is what binds."""
ELLIPSIS_DEPTH = 3
"""How many chained ellipses ("and on holidays?" after "and on Sundays?") are unwound."""
PP_FRAGMENT_WORDS = 5
"""A message of at most this many words that opens with a preposition and has no verb
("for kids too?") qualifies the previous question."""
COMPARE_WORDS = 6
"""A "which is better ...?" of at most this many words after "which" compares the
alternatives just discussed."""

# --- phrasings searched (conversation/phrasings.py) -----------------------------------
MESSAGE_WEIGHT = 1.0
"""Fusion weight of the message as typed, next to the resolved query (1.0)."""
CARRY_QUERY_WEIGHT = 0.5
"""Fusion weight of a topic carry's query ("Clusters (NodeSync, worker node)"), whose added
phrases are the resolver's guess: the message as typed keeps MESSAGE_WEIGHT. At 1.0 the
carry lost 0.0054 / 0.0067 on held-out cloud / govt; at 0.5 it loses at most 0.0031 on any
held-out domain against no carry (bench/results/loo_carry.md)."""
CONTEXT_QUERY_WEIGHT = 0.3
"""Fusion weight of the conversation's own wording (the last CONTEXT_USER_TURNS user turns,
then the message) searched next to a resolved query: a wrong or missing binding ("Are
weakly acidic properties poisonous?" for "Are they poisonous?" after "What are
alkaloids?") still finds the subject. Only when the gate asked for resolution (on a
message it reads as self-contained the history pulled held-out MTRAG down). Chosen leave-
one-domain-out: +0.005 to +0.010 follow-up nDCG@5 on each held-out MTRAG domain
(bench/results/loo_context.md); 0: off."""
CONTEXT_USER_TURNS = 2
HISTORY_PHRASING_WEIGHT = 0.3
"""Fusion weight of the history phrasing (message + salient user phrases); 0: off."""
HISTORY_PHRASING = "turns"
""""phrases": salient phrases of the user's turns; "turns": the user's last and first
turns whole (HQE-like)."""
HISTORY_PHRASES = 2
"""Phrases of the user's turns in the history phrasing (the last turn's, then another's)."""
REPLY_PHRASING_WEIGHT = 0.2
"""Fusion weight of the reply phrasing (the message, then the first REPLY_PHRASING_WORDS
words of the last reply), searched only when the resolver bound a referent: the reply is
where the referent's subject was last spoken of, in the documents' words. Where nothing was
bound (every follow-up, or every one the gate resolved) it lost 0.006-0.027 on govt: a
message that leaves the topic is pulled back to it. Bound only, at the weight with the best
MTRAG mean: clapnq +0.0043, cloud +0.0024, govt +0.0037, mtrag-un (never fitted on) +0.018 /
+0.013 follow-up nDCG@5 (bench/results/loo_reply.md); 0: off."""
REPLY_PHRASING_WORDS = 80
