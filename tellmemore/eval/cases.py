"""Phrasing cases as data: `{history, message, query, bindings, pass}` rows, run and scored.

Each line of a cases file (JSONL) is one case. A *resolver case* resolves `message` after
`history` with the embedded resolver over a small corpus's term statistics and checks the
query, the bindings, which pass fired (`pass`, once `Resolution.passes` exists) and any
further expectations under `expect` (a substring the query must hold, ambiguity, ...).
A *component case* (`check`) asserts one analysis helper (the referents of a text, its
noun phrases, a substitution): the helpers are reached through one adapter table
(`CHECKS`), so moving a helper changes one line here, not the cases.

Used by the parametrised test (tests/conversation/test_cases.py) and by
`tellmemore eval --cases PATH`, which reports accuracy per pass.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tellmemore.errors import DatasetError
from tellmemore.types import Resolution, TermStats, Turn

PASSES = ("pronoun", "definite", "ordinal", "alternatives", "ellipsis", "repair", "carry", "none")
"""The pass names a case may expect ("none": the message stands alone, nothing fires)."""
TermLookup = Callable[[Iterable[str]], TermStats]


@dataclass(frozen=True)
class CaseResult:
    id: str
    kind: str
    """"resolve" or the component check's name."""
    pass_name: str | None
    failures: tuple[str, ...]
    passes_fired: tuple[str, ...] | None = None
    """What the resolver reported as fired (None: `Resolution` has no `passes` yet)."""

    @property
    def ok(self) -> bool:
        return not self.failures


def load_cases(path: Path) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """The cases of a JSONL file or of every *.jsonl in a directory, and the named corpora
    (`corpora.json` beside them). Raises `DatasetError` naming the file and line."""
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files or not all(f.is_file() for f in files):
        raise DatasetError(
            str(path), None, "no cases here: give a .jsonl file or a directory of them"
        )
    cases: list[dict[str, Any]] = []
    ids: set[str] = set()
    for f in files:
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                case = json.loads(line)
            except json.JSONDecodeError as e:
                raise DatasetError(str(f), n, f"not JSON ({e.msg})") from e
            problem = _problem(case)
            if problem:
                raise DatasetError(str(f), n, problem)
            if case["id"] in ids:
                raise DatasetError(str(f), n, f"duplicate case id {case['id']!r}")
            ids.add(case["id"])
            cases.append(case)
    home = path if path.is_dir() else path.parent
    named = home / "corpora.json"
    corpora = json.loads(named.read_text(encoding="utf-8")) if named.is_file() else {}
    return cases, {name: _texts(spec, home) for name, spec in corpora.items()}


def _texts(spec: Any, home: Path) -> list[str]:
    """A named corpus: its texts, or the paragraphs of the Markdown and text files of a
    folder (a path relative to the cases), so cases can run over real documents."""
    if not isinstance(spec, str):
        return list(spec)
    folder = (home / spec).resolve()
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in (".md", ".txt"))
    if not files:
        raise DatasetError(str(home / "corpora.json"), None, f"no .md or .txt files in {folder}")
    paragraphs = (p.strip() for f in files for p in f.read_text(encoding="utf-8").split("\n\n"))
    return [p for p in paragraphs if p]


def _problem(case: Any) -> str | None:
    if not isinstance(case, dict) or not isinstance(case.get("id"), str):
        return "a case is an object with a string 'id'"
    if "check" in case:
        return None if case["check"] in CHECKS else f"unknown check {case['check']!r}"
    if not isinstance(case.get("message"), str) or not isinstance(case.get("history"), list):
        return "a resolver case needs 'message' (string) and 'history' (list of turns)"
    if case.get("pass") is not None and case["pass"] not in PASSES:
        return f"unknown pass {case['pass']!r}; one of {', '.join(PASSES)}"
    return None


def corpus_stats(texts: Sequence[str]) -> TermLookup:
    """Document frequencies of stems over a tiny corpus (one text = one document)."""
    from tellmemore.conversation.text import stem, words

    docs = [{stem(w) for w in words(t)} for t in texts]

    def lookup(terms: Iterable[str]) -> TermStats:
        return TermStats(len(docs), {t: sum(stem(t) in d for d in docs) for t in terms})

    return lookup


def _stats(spec: Any, corpora: Mapping[str, list[str]]) -> TermLookup | None:
    if spec is None or spec == "none":
        return None
    if isinstance(spec, str):
        if spec not in corpora:
            raise DatasetError(
                "corpora.json", None, f"unknown corpus {spec!r}; named: {', '.join(corpora)}"
            )
        return corpus_stats(corpora[spec])
    return corpus_stats(list(spec))


def _history(turns: Sequence[Mapping[str, str]]) -> list[Turn]:
    out: list[Turn] = []
    for t in turns:
        if t.get("role") not in ("user", "assistant") or not isinstance(t.get("content"), str):
            raise DatasetError(
                "cases", None, f"a history turn is {{role: user|assistant, content}}: {t}"
            )
        out.append(Turn("user" if t["role"] == "user" else "assistant", t["content"]))
    return out


def run_case(case: Mapping[str, Any], corpora: Mapping[str, list[str]]) -> CaseResult:
    """Run one case; its failures are readable sentences (empty: the case holds)."""
    if "check" in case:
        fails = CHECKS[case["check"]](case, corpora)
        return CaseResult(case["id"], case["check"], None, tuple(fails))
    from tellmemore.conversation.resolvers import EmbeddedResolver, ResolveContext

    history = _history(case["history"])
    ctx = ResolveContext(term_stats=_stats(case.get("corpus"), corpora))
    res = EmbeddedResolver().resolve(case["message"], history, ctx)
    fails = _resolution_failures(case, res, history)
    fired = getattr(res, "passes", None)
    want = case.get("pass")
    if fired is not None and want is not None:
        fired = tuple(fired)
        if (want == "none" and fired) or (want != "none" and want not in fired):
            fails.append(f"pass {want!r} expected, fired {list(fired)}")
    return CaseResult(case["id"], "resolve", want, tuple(fails), fired)


def _resolution_failures(
    case: Mapping[str, Any], res: Resolution, history: list[Turn]
) -> list[str]:
    fails: list[str] = []
    q, b = res.query, res.bindings

    def need(ok: bool, what: str) -> None:
        if not ok:
            fails.append(f"{what} (query {q!r}, bindings {b})")

    if "query" in case:
        need(q == case["query"], f"query should be {case['query']!r}")
    if "bindings" in case:
        need(b == case["bindings"], f"bindings should be {case['bindings']}")
    e: dict[str, Any] = case.get("expect", {})
    for key, value in e.items():
        check = _EXPECT.get(key)
        if check is None:
            fails.append(f"unknown expectation {key!r}")
        elif not check(value, case, res, history):
            need(False, f"{key} {value!r}")
    return fails


def _searched(case: Mapping[str, Any], res: Resolution, history: list[Turn]) -> tuple[str, ...]:
    from tellmemore.conversation.phrasings import search_phrasings

    return search_phrasings(case["message"], res, history).queries


def _clean(odd: list[str], res: Resolution) -> bool:
    parts = [p for v in res.bindings.values() for p in v.split(", ")]
    return all(p.lower() not in odd and (len(p.split()) >= 2 or p[:1].isupper()) for p in parts)


Expect = Callable[[Any, Mapping[str, Any], Resolution, list[Turn]], bool]
_EXPECT: dict[str, Expect] = {
    "ambiguous": lambda v, c, r, h: r.ambiguous == v,
    "clarification": lambda v, c, r, h: r.clarification == v,
    "candidates": lambda v, c, r, h: list(r.candidates) == v,
    "unbound_referent": lambda v, c, r, h: r.unbound_referent == v,
    "bound_or_unbound": lambda v, c, r, h: bool(r.bindings or r.unbound_referent) == v,
    "query_changed": lambda v, c, r, h: (r.query != c["message"]) == v,
    "query_contains": lambda v, c, r, h: all(s in r.query for s in v),
    "query_lacks": lambda v, c, r, h: all(s not in r.query for s in v),
    "query_contains_ci": lambda v, c, r, h: all(s.lower() in r.query.lower() for s in v),
    "query_lacks_ci": lambda v, c, r, h: all(s.lower() not in r.query.lower() for s in v),
    "query_startswith": lambda v, c, r, h: r.query.startswith(v),
    "query_startswith_ci": lambda v, c, r, h: r.query.lower().startswith(v.lower()),
    "query_endswith": lambda v, c, r, h: r.query.endswith(v),
    "query_core_endswith": lambda v, c, r, h: r.query.rstrip("?. ").endswith(v),
    "query_count_ci": lambda v, c, r, h: all(r.query.lower().count(s) == n for s, n in v.items()),
    "binding": lambda v, c, r, h: all(r.bindings.get(k) == x for k, x in v.items()),
    "binding_ci": lambda v, c, r, h: all(r.bindings.get(k, "").lower() == x for k, x in v.items()),
    "binding_not": lambda v, c, r, h: all(r.bindings.get(k) != x for k, x in v.items()),
    "binding_in": lambda v, c, r, h: all(r.bindings.get(k) in xs for k, xs in v.items()),
    "binding_lacks": lambda v, c, r, h: all(x not in r.bindings.get(k, "") for k, x in v.items()),
    "binding_startswith_ci": lambda v, c, r, h: all(
        r.bindings.get(k, "").lower().startswith(x) for k, x in v.items()
    ),
    "binding_keys": lambda v, c, r, h: list(r.bindings) == v,
    "binding_keys_include": lambda v, c, r, h: all(k in r.bindings for k in v),
    "no_binding_keys": lambda v, c, r, h: all(k not in r.bindings for k in v),
    "binding_values": lambda v, c, r, h: list(r.bindings.values()) == v,
    "binding_values_lack": lambda v, c, r, h: not set(v) & set(r.bindings.values()),
    "bindings_nonempty": lambda v, c, r, h: bool(r.bindings) == v,
    "clean_bindings": lambda v, c, r, h: _clean(v, r),
    "searched_first": lambda v, c, r, h: _searched(c, r, h)[:1] == (v,),
    "searched_first_is_query": lambda v, c, r, h: (_searched(c, r, h)[:1] == (r.query,)) == v,
    "searched_lacks": lambda v, c, r, h: all(s not in _searched(c, r, h) for s in v),
    "searched_has": lambda v, c, r, h: all(s in _searched(c, r, h) for s in v),
}
"""Further expectations of a resolver case (`expect`), each kept from a regression test."""


# --- component checks: the one place that names the analysis helpers ------------------


def _helper(name: str, *modules: str) -> Any:
    """The helper `name` from the first of `modules` that has it (the conversation layer
    moves helpers between modules as it is restructured; the cases do not change)."""
    import importlib

    for module in modules:
        try:
            found = getattr(importlib.import_module(module), name, None)
        except ImportError:
            continue
        if found is not None:
            return found
    raise ImportError(f"no {name} in {', '.join(modules)}")


def _referents(case: Mapping[str, Any], corpora: Mapping[str, list[str]]) -> list[str]:
    from tellmemore.conversation.referents import find_referents

    found = find_referents(case["text"])
    texts = [r.text for r in found]
    fails = []
    if "expect" in case and texts != case["expect"]:
        fails.append(f"referents {texts}, expected {case['expect']}")
    if "kinds" in case and [[r.text, r.kind.value] for r in found] != case["kinds"]:
        fails.append(
            f"referents {[(r.text, r.kind.value) for r in found]}, expected {case['kinds']}"
        )
    if case.get("nonempty") and not texts:
        fails.append("a referent expected, none found")
    if "none_starting" in case and any(t.lower().startswith(case["none_starting"]) for t in texts):
        fails.append(f"no referent should start with {case['none_starting']!r}: {texts}")
    if "none_equal" in case and any(t.lower() == case["none_equal"] for t in texts):
        fails.append(f"no referent should be {case['none_equal']!r}: {texts}")
    for end in case.get("none_ending", []):
        if any(t.lower().endswith(end) for t in texts):
            fails.append(f"no referent should end in {end!r}: {texts}")
    return fails


def _phrases(case: Mapping[str, Any], corpora: Mapping[str, list[str]]) -> list[str]:
    from tellmemore.conversation.binding import phrases

    found = phrases(case["text"])
    texts = [p.text for p in found]
    checks: list[tuple[bool, str]] = [
        (texts == case.get("expect", texts), f"expected {case.get('expect')}"),
        (all(x in texts for x in case.get("contains", [])), f"should hold {case.get('contains')}"),
        (all(x not in texts for x in case.get("lacks", [])), f"should lack {case.get('lacks')}"),
        (texts[-len(case["ends_with"]) :] == case["ends_with"] if "ends_with" in case else True,
         f"should end with {case.get('ends_with')}"),
        (texts[:1] == [case["first"]] if "first" in case else True, f"first {case.get('first')!r}"),
        (not (texts and texts[0].startswith(case.get("first_not_starting", "\0"))),
         f"first should not start {case.get('first_not_starting')!r}"),
        (all(t.split()[0].lower() != case.get("none_starting_word") for t in texts),
         f"no phrase should start with {case.get('none_starting_word')!r}"),
        (all(case.get("none_containing", "\0") not in t for t in texts),
         f"no phrase should contain {case.get('none_containing')!r}"),
        (all(w not in p.stems for p in found for w in case.get("stems_lack", [])),
         f"no phrase should hold {case.get('stems_lack')}"),
        (all(len(t.split()) <= case.get("max_words", 99) for t in texts),
         f"at most {case.get('max_words')} words each"),
    ]  # fmt: skip
    return [f"phrases {texts}: {what}" for ok, what in checks if not ok]


def _substitute(case: Mapping[str, Any], corpora: Mapping[str, list[str]]) -> list[str]:
    from tellmemore.conversation.binding import Salience

    substitute_subject = _helper(
        "substitute_subject",
        "tellmemore.conversation.realize.substitute",
        "tellmemore.conversation.compose",
    )
    out = substitute_subject(
        case["base"], case["fragment"], Salience(_stats(case.get("corpus"), corpora))
    )
    return [] if out == case["expect"] else [f"{out!r}, expected {case['expect']!r}"]


def _splice(case: Mapping[str, Any], corpora: Mapping[str, list[str]]) -> list[str]:
    splice_modifier = _helper(
        "splice_modifier",
        "tellmemore.conversation.realize.splice",
        "tellmemore.conversation.compose",
    )
    out = splice_modifier(case["base"], case["fragment"])
    return [] if out == case["expect"] else [f"{out!r}, expected {case['expect']!r}"]


def _ellipsis(case: Mapping[str, Any], corpora: Mapping[str, list[str]]) -> list[str]:
    from tellmemore.conversation.referents import find_ellipsis

    found = find_ellipsis(case["text"])
    if "fragment" in case:
        got = found.fragment if found is not None else None
        return (
            [] if got == case["fragment"] else [f"fragment {got!r}, expected {case['fragment']!r}"]
        )
    want = case.get("expect")
    ok = (found is None) if want is None else (found is not None) == bool(want)
    return [] if ok else [f"ellipsis {found!r}, expected {'none' if want is None else 'one'}"]


def _gate(case: Mapping[str, Any], corpora: Mapping[str, list[str]]) -> list[str]:
    from tellmemore.conversation.gate import gate

    result = gate(case["message"], _history(case["history"]), _stats(case.get("corpus"), corpora))
    fails = []
    if "reason" in case and result.reason != case["reason"]:
        fails.append(f"gate reason {result.reason!r}, expected {case['reason']!r}")
    if "needs_resolution" in case and bool(result.needs_resolution) != case["needs_resolution"]:
        fails.append(f"gate needs_resolution {result.needs_resolution} ({result.reason})")
    return fails


def _definite(case: Mapping[str, Any], corpora: Mapping[str, list[str]]) -> list[str]:
    from tellmemore.conversation.definites import find_definite

    found = find_definite(case["message"], _history(case["history"]))
    return [] if found is None else [f"no definite expected, found {found!r}"]


def _plural(case: Mapping[str, Any], corpora: Mapping[str, list[str]]) -> list[str]:
    from tellmemore.conversation.text import looks_plural

    return [] if looks_plural(case["text"]) == case["expect"] else ["plural: wrong"]


def _list_items(case: Mapping[str, Any], corpora: Mapping[str, list[str]]) -> list[str]:
    from tellmemore.conversation.lists import list_items
    from tellmemore.conversation.text import strip_citations

    got = [p.text for p in list_items(strip_citations(case["text"]))]
    return [] if got == case["expect"] else [f"items {got}, expected {case['expect']}"]


def _wh_fragment(case: Mapping[str, Any], corpora: Mapping[str, list[str]]) -> list[str]:
    from tellmemore.conversation.referents import is_wh_fragment

    return [] if bool(is_wh_fragment(case["text"])) == case["expect"] else ["wh fragment: wrong"]


Check = Callable[[Mapping[str, Any], Mapping[str, list[str]]], list[str]]
CHECKS: dict[str, Check] = {
    "referents": _referents,
    "phrases": _phrases,
    "substitute": _substitute,
    "splice": _splice,
    "ellipsis": _ellipsis,
    "gate": _gate,
    "definite": _definite,
    "plural": _plural,
    "list_items": _list_items,
    "wh_fragment": _wh_fragment,
}


def per_pass(results: Iterable[CaseResult]) -> dict[str, tuple[int, int]]:
    """pass name (or "check:<name>" for component cases) -> (cases holding, cases)."""
    out: dict[str, tuple[int, int]] = {}
    for r in results:
        key = r.pass_name or ("unlabelled" if r.kind == "resolve" else f"check:{r.kind}")
        ok, n = out.get(key, (0, 0))
        out[key] = (ok + r.ok, n + 1)
    return out
