"""String surgery for standalone queries: splice antecedents into the message, rebuild an
elided question, append carried phrases, write and read clarifying questions.

Every function keeps the message's own characters outside the spans it replaces, so
codes, numbers and dates survive exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

from tellmemore.analysis import lexicon
from tellmemore.conversation import constants as C
from tellmemore.conversation.binding import PREDICATES, Phrase, Salience, phrases
from tellmemore.conversation.referents import ORDINAL_HEADS, ORDINALS, Referent, ReferentKind
from tellmemore.conversation.text import (
    FUNCTION_WORDS,
    RELATIONAL_NOUNS,
    TIME_WORDS,
    Token,
    content_words,
    looks_plural,
    norm,
    stem,
    tokenize,
)

_PREPS = lexicon.words("compose_prepositions")
_CONDITIONS = lexicon.words("conditions")
"""Openers of a condition clause: "and if I never return it?" replaces "if I return it late"."""
_CLARIFY = lexicon.pattern("clarify")
_OPTION_SPLIT = lexicon.pattern("option_split")
MAX_TAIL_TOKENS = 4
_DETERMINERS = lexicon.words("determiners")
_TRAILING_ARTICLE = lexicon.pattern("trailing_article")
_TRAILING_DETERMINER = lexicon.pattern("trailing_determiner")
"""A trailing "on weekdays" this short is replaced by the new modifier "on holidays"."""


def split_end(text: str) -> tuple[str, str]:
    """("How much is it", "?") from "How much is it?"."""
    core = text.rstrip()
    end = ""
    while core and core[-1] in "?!.":
        end = core[-1] + end
        core = core[:-1].rstrip()
    return core, end


def splice(
    message: str,
    edits: Sequence[tuple[Referent, str]],
    *,
    scope: tuple[Referent, str] | None = None,
) -> str:
    """`message` with each referent span replaced; `scope` text inserted after one of them."""
    out, pos = [], 0
    for ref, text in sorted(edits, key=lambda e: e[0].start):
        out.append(message[pos : ref.start])
        out.append(text)
        if scope is not None and scope[0] is ref:
            out.append(" " + scope[1])
        pos = ref.end
    out.append(message[pos:])
    return "".join(out)


def splice_modifier(base: str, fragment: str) -> str | None:
    """ "What time do shops close on weekdays?" + "on holidays" ->
    "What time do shops close on holidays?"."""
    if not fragment:
        return None
    core, end = split_end(base)
    toks = tokenize(fragment)
    if toks and toks[0].low in _CONDITIONS:
        # "what if I return it late?" + "if I never return it": the new condition
        # replaces the old one, wherever it starts
        # ("When does the shop open?": a question word, not a condition)
        at = [t for t in tokenize(core)[1:] if t.low == toks[0].low]
        if at:
            return f"{core[: at[-1].start].rstrip()} {fragment}{end or '?'}"
    if toks and toks[0].low in _PREPS:
        core_toks = tokenize(core)
        tail = range(len(core_toks) - 1, max(len(core_toks) - 1 - MAX_TAIL_TOKENS, -1), -1)
        for i in tail:
            if core_toks[i].low == toks[0].low:
                if _is_time(core[core_toks[i].end :]) == _is_time(fragment):
                    core = core[: core_toks[i].start].rstrip()
                break  # "the SLA on status page incidents" + "on holidays": both stay
        else:
            at = _named_scope(core_toks, tail) if _names_a_scope(toks) else None
            if at is not None:  # "... step 3 on Windows?" + "for macOS": the scope is swapped
                core = core[: core_toks[at].start].rstrip()
    return f"{core} {fragment}{end or '?'}"


_SCOPE_PREPS = lexicon.words("scope_preps")
"""Prepositions of a scope ("on Windows", "for macOS", "in Dublin"): one replaces another."""


def is_name(word: str) -> bool:
    """A capital anywhere makes a word a name: "Windows", "macOS", "EU"."""
    return any(c.isupper() for c in word)


def _names_a_scope(toks: list[Token]) -> bool:
    """ "for macOS", "in Cork": a scope preposition before a name, nothing else."""
    return len(toks) in (2, 3) and toks[0].low in _SCOPE_PREPS and is_name(toks[1].text)


def _named_scope(core_toks: list[Token], tail: range) -> int | None:
    """Where the core's closing scope ("on Windows") starts, if it ends with one."""
    for i in tail:
        if core_toks[i].low in _SCOPE_PREPS:
            obj = core_toks[i + 1 :]
            return i if 1 <= len(obj) <= 2 and all(is_name(t.text) for t in obj) else None
    return None


_IN_TIMES = lexicon.words("in_times")
_BARE_TIMES = lexicon.words("bare_times")


def time_qualifier(fragment: str) -> str:
    """A bare time as a qualifier: "Sundays" -> "on Sundays", "the evening" -> "in the
    evening", "night" -> "at night"; "tomorrow" needs no preposition."""
    toks = tokenize(fragment)
    last = toks[-1].low if toks else ""
    if last in _BARE_TIMES:
        return fragment
    prep = "in" if last in _IN_TIMES else "at" if last in ("night", "nights") else "on"
    return f"{prep} {fragment}"


_THE_ORDINAL = lexicon.pattern("the_ordinal")


def same_ordinal(query: str, typed: str) -> str:
    """ "and the last one?" after "what's the second step?": the rebuilt question asks
    for "the last step", not "the second step" with the last step's text."""
    new = _THE_ORDINAL.search(typed)
    if new is None or new.group("ordinal").lower() not in ORDINALS:
        return query
    for m in _THE_ORDINAL.finditer(query):
        old = m.group("ordinal").lower()
        swapped = old in ORDINALS and old != new.group("ordinal").lower()
        if swapped and m.group("head").lower() in ORDINAL_HEADS:
            at = m.start("ordinal")
            return query[:at] + new.group("ordinal") + query[m.end("ordinal") :]
    return query


def _is_time(phrase: str) -> bool:
    """ "on weekdays", "on public holidays": a time qualifier, which a new time qualifier
    replaces; "on status page incidents" is the subject, which it qualifies."""
    return any(t.low in TIME_WORDS for t in tokenize(phrase))


def substitute_subject(
    base: str, fragment: str, salience: Salience, *, varied: str | None = None
) -> str | None:
    """ "what's the latency in Amsterdam?" + "Frankfurt" -> "what's the latency in Frankfurt?".

    The replaced phrase is `varied` when the base holds it whole but no phrase parse gives
    it (a list item such as a step: "Pick the region closest to your sites"), else one
    sharing a word with the fragment ("Standard escalation" for "Enterprise escalation"),
    else the phrase the previous follow-up varied (`varied`: "and for Enterprise?" then
    "what about Status Page?" replaces Enterprise), else the most salient phrase of the
    same kind (a name for a name); an attribute ("the late fee") is no subject slot.
    """
    if not fragment:
        return None
    for_people = _people_for_the_asker(base, fragment)
    if for_people is not None:  # "what about contractors?" after "... do I get?"
        return for_people
    parallel = _parallel_one(base, fragment)
    if parallel is not None:  # "and a minor one?" after "... to a critical one?"
        return parallel
    ps = phrases(base)
    if not ps:
        return None
    frag = {stem(w) for w in content_words(fragment)}
    overlap = [p for p in ps if set(p.stems) & frag]
    slot = [p for p in ps if varied and p.text.lower() == varied.lower()]
    at = base.lower().find(varied.lower()) if varied and not slot else -1
    if at >= 0 and varied is not None:  # a list item the previous question named whole
        return base[:at] + fragment + base[at + len(varied) :]
    if overlap:
        target = overlap[0]
    elif slot:
        target = slot[0]
    else:
        if not frag & _ATTRIBUTES:
            # "what about e-bikes?" after "how much is the late fee?": the fee is what is
            # asked of the subject, not the subject; with no other phrase, qualify it
            ps = [p for p in ps if p.stems[-1] not in _ATTRIBUTES]
            if not ps:
                return splice_modifier(base, f"for {fragment}")
        caps = any(t.text[:1].isupper() for t in tokenize(fragment))
        pool = [p for p in ps if p.capitalized and not _sentence_initial(base, p)] if caps else []
        target = max(pool or ps, key=lambda p: salience.phrase(p.stems))
    idx = base.find(target.text)
    if idx < 0:
        return None
    old = (
        _name_within(target.text, fragment)
        or _possessor_within(target.text, fragment, salience)
        or _without_predicate(target.text)
    )
    idx = base.find(old, idx)
    head = base[:idx]
    end = idx + len(old)
    swapped = _modifier_swap(fragment, old) or _kind_swap(fragment, old)
    if swapped is not None:  # "the Team one" for "Status Page Business plan"
        return base[:idx] + swapped + base[end:]
    fragment = _head_for_one(fragment, old)
    one = _PRO_FORM.match(base, end)
    if one is not None and len(content_words(fragment)) >= 2:
        end = one.end()  # "the Standard one" + "the Team plan": "the Team plan", not "... one"
    frag_toks = tokenize(fragment)
    if frag_toks and frag_toks[0].low in _DETERMINERS:
        # "the deadline" replacing "a flat tyre": one determiner, the fragment's
        head = _TRAILING_DETERMINER.sub("", head)
    elif frag_toks and looks_plural(frag_toks[-1].text):
        head = _TRAILING_ARTICLE.sub(" ", head)  # "kids" replacing "a license": no "a kids"
    return head + fragment + base[end:]


_PEOPLE = lexicon.words("people")
"""Groups of people; "-ers" alone would take routers and servers for people."""
_PEOPLE_ENDINGS = ("ees", "ists", "ians")
_ASKER = lexicon.pattern("asker")
"""The asker as a subject ("do I get", "can we use"; "i" typed lower-case too)."""
_AM = lexicon.pattern("am")


def _people_for_the_asker(base: str, fragment: str) -> str | None:
    """ "how many days of annual leave do I get?" + "contractors" -> "... do contractors
    get?": a group of people stands in for the asker, not for the leave."""
    toks = [t for t in tokenize(fragment) if t.low not in _DETERMINERS]
    if not toks or len(toks) > 3:
        return None
    head = toks[-1].low
    if head not in _PEOPLE and not (head.endswith(_PEOPLE_ENDINGS) and len(head) > 5):
        return None
    asker = list(_ASKER.finditer(base))
    if len(asker) != 1:
        return None
    am = _AM.search(base)
    if am is not None:  # "am I eligible?" -> "are contractors eligible?"
        first = "Are" if base[am.start()].isupper() else "are"
        swapped = (
            f"{first} {fragment}" if am.group(0).lower().startswith("am") else (f"{fragment} are")
        )
        return base[: am.start()] + swapped + base[am.end() :]
    m = asker[0]
    return base[: m.start()] + fragment + base[m.end() :]


_ENDS_IN_ONE = lexicon.pattern("ends_in_one")


_ATTRIBUTES = frozenset(stem(w) for w in RELATIONAL_NOUNS)


_KIND_ONE = lexicon.pattern("kind_one")


def _parallel_one(base: str, fragment: str) -> str | None:
    """ "how fast do you respond to a critical one?" + "a minor one" -> "... to a minor
    one?": a "kind one" fragment replaces the kind of the base's own "kind one"."""
    new = _KIND_ONE.search(fragment)
    old = _KIND_ONE.search(base)
    if new is None or old is None or new.group("kind").lower() in FUNCTION_WORDS:
        return None
    return base[: old.start("kind")] + new.group("kind") + base[old.end("kind") :]


def _kind_swap(fragment: str, replaced: str) -> str | None:
    """ "business" for "basic plan" -> "business plan": a bare word replaces the kind of a
    phrase headed by a class noun (plan, tier, option), as "the business one" would."""
    toks = tokenize(fragment)
    words = replaced.split()
    if len(toks) != 1 or len(words) < 2 or toks[0].low in ORDINAL_HEADS:
        return None
    if words[-1].lower() not in ORDINAL_HEADS:
        return None
    return _modifier_swap(f"{toks[0].text} one", replaced)


def _modifier_swap(fragment: str, replaced: str) -> str | None:
    """ "the Team one" replacing "Status Page Business plan" -> "Status Page Team plan": the
    pro-form keeps the head and changes one modifier, the last capitalised one for a
    capitalised kind ("Business"), else the one right before the head ("daily pass")."""
    m = _ENDS_IN_ONE.match(fragment)
    words = replaced.split()
    if m is None or len(words) < 2 or not words[-1].isalpha():
        return None  # "version 6.15": a code ends it, no head noun to keep
    kind = [t.text for t in tokenize(m.group("kind")) if t.low not in _DETERMINERS]
    if len(kind) != 1:
        return None
    if kind[0][:1].isupper():
        at = [i for i, w in enumerate(words[:-1]) if w[:1].isupper()]
        if not at:
            return None
        i = at[-1]
    else:
        i = len(words) - 2
    return " ".join([*words[:i], kind[0], *words[i + 1 :]])


def _head_for_one(fragment: str, replaced: str) -> str:
    """ "the Cisco one" replacing "routers" -> "the Cisco routers": the pro-form "one"
    stands for the head noun of what it replaces."""
    m = _ENDS_IN_ONE.match(fragment)
    nouns = [w for w in replaced.split() if w.isalpha() and w.islower()]
    if m is None or not nouns or not content_words(m.group("kind")):
        return fragment
    head = nouns[-1]  # "the previous one" replacing "version 6.15": the previous version
    if m.group("one").lower() == "one" and looks_plural(head):
        head = head[:-1]  # "the Cisco one" is one router
    return f"{m.group('kind')} {head}{m.group('end')}"


def _without_predicate(phrase: str) -> str:
    """ "flat tyre free" -> "flat tyre": "what about damage?" after "is the flat tyre
    free?" asks whether damage is free."""
    toks = tokenize(phrase)
    if len(toks) > 1 and toks[-1].low in PREDICATES:
        return phrase[: toks[-2].end]
    return phrase


_PRO_FORM = lexicon.pattern("pro_form")


def _name_within(phrase: str, fragment: str) -> str | None:
    """The name inside a longer phrase that a bare name replaces: "Frankfurt" for
    "Berlin office" replaces "Berlin" ("the Frankfurt office", not "the Frankfurt")."""
    frag = tokenize(fragment)
    if not frag or not all(t.text[:1].isupper() for t in frag):
        return None
    toks = tokenize(phrase)
    caps = [t for t in toks if t.text[:1].isupper()]
    if not caps or len(caps) == len(toks):
        return None
    first, last = toks.index(caps[0]), toks.index(caps[-1])
    if toks[first : last + 1] != caps:
        return None  # names apart ("Berlin and the Paris office"): leave the phrase whole
    return phrase[caps[0].start : caps[-1].end]


def _possessor_within(phrase: str, fragment: str, salience: Salience) -> str | None:
    """The possessor a bare name replaces in a possessive phrase: "saturn" for "jupiter's
    rings" replaces "jupiter" ("saturn's rings", the rings still asked about). A name is
    one word, capitalised, distinctive in the documents or new to them; "moons" or "size" would
    replace the head instead (the whole phrase, as before)."""
    frag = tokenize(fragment)
    toks = tokenize(phrase)
    if len(frag) != 1 or len(toks) < 2 or not toks[0].low.endswith(("'s", "’s")):
        return None
    word = frag[0].text
    distinctive = salience.weight(word) >= C.DISTINCTIVE_IDF or norm(word) in salience.unseen
    if looks_plural(word) or not (word[:1].isupper() or distinctive):
        return None
    return phrase[toks[0].start : toks[0].end - 2]


def _sentence_initial(text: str, p: Phrase) -> bool:
    return text.lstrip().startswith(p.text)


def append_phrases(message: str, picked: Sequence[tuple[Phrase, str]]) -> str:
    """ "population back then" + "Quit India Movement" ->
    "population back then (Quit India Movement)"; a known preposition reads better:
    "Disaster Recovery for Block Storage"."""
    if not picked:
        return message
    core, end = split_end(message)
    first, text = picked[0]
    rest = [t for _, t in picked[1:]]
    if first.prep:
        out = f"{core} {first.prep} {text}"
        if rest:
            out += f" ({', '.join(rest)})"
    else:
        out = f"{core} ({', '.join([text, *rest])})"
    return out + end


def clarification_question(options: Sequence[Phrase]) -> str:
    """ "Do you mean Standard or Enterprise escalation?" (a shared head is said once)."""
    texts = [o.text for o in options]
    split = [t.split() for t in texts]
    suffix: list[str] = []
    while all(len(s) > len(suffix) + 1 for s in split):
        cand = [s[-1 - len(suffix)].lower() for s in split]
        if len(set(cand)) != 1:
            break
        suffix.insert(0, split[0][-1 - len(suffix)])
    if suffix:
        heads = [" ".join(s[: len(s) - len(suffix)]) for s in split[:-1]]
        heads.append(texts[-1])
    else:
        heads = texts
    joined = heads[0] if len(heads) == 1 else ", ".join(heads[:-1]) + " or " + heads[-1]
    return f"Do you mean {joined}?"


def parse_clarification(text: str) -> list[str] | None:
    """The alternatives of a "Do you mean X or Y?" question, a shared head restored
    ("Standard", "Enterprise escalation" -> "Standard escalation", "Enterprise escalation")."""
    m = _CLARIFY.search(text)
    if m is None:
        return None
    options = [o.strip(" '\"") for o in _OPTION_SPLIT.split(m.group(1)) if o.strip(" '\"")]
    if len(options) < 2:
        return None
    last = options[-1].split()
    width = max(len(o.split()) for o in options[:-1])
    if len(last) > width:
        tail = " ".join(last[width:])
        options = [o if len(o.split()) >= len(last) else f"{o} {tail}" for o in options[:-1]] + [
            options[-1]
        ]
    return options


def replacement(ref: Referent, phrase: Phrase, text: str, message: str) -> str:
    """What replaces a referent span: the antecedent (with "the", "'s" and a capital as
    the sentence needs), or the referent supplemented when the antecedent is only the
    topic ("those conversations (Watson Assistant)")."""
    if (
        ref.kind == ReferentKind.DEMONSTRATIVE
        and ref.modifier
        and stem(ref.modifier) not in phrase.stems
    ):
        return f"{ref.text} ({text})"
    supplemented = ref.kind == ReferentKind.OTHER or (
        ref.kind == ReferentKind.ORDINAL and ref.modifier is not None
    )
    if supplemented and stem(ref.modifier or "one") not in phrase.stems:
        return f"{ref.text} ({text})"  # "the second step (Pick the region ...)"
    if ref.kind == ReferentKind.WHICH:
        return f"which of {text}"
    common_head = text[:1].islower() or text.split()[-1][:1].islower()
    out = f"the {text}" if phrase.det and common_head else text  # "the Pro plan"
    if ref.kind == ReferentKind.POSSESSIVE or ref.text.lower() == "his":
        out += "'s"
    if ref.text.lower().replace("’", "'") == "it's" or (
        ref.kind == ReferentKind.PRONOUN and ref.text.lower() == "its"
    ):
        out += " is"  # "if it's missed" (or "its missed") -> "if the SLA is missed"
    if ref.start == 0 and message[:1].isupper():
        out = out[:1].upper() + out[1:]
    return out
