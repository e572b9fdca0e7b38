"""Probe: MiniLM's TOKEN embeddings (late interaction, ColBERT-style MaxSim) for sentence
choice and answerability, against the pooled cosine every signal reads today.

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/token_interaction.py \
        --cache /work/cache/bench_md --hits bench/.cache/gold_removal_hits.json \
        --out bench/results/token_interaction.json

No transformer is trained. Each text goes once through the bundled MiniLM; the per-token
vectors (before mean pooling) are L2-normalised. For a query and a sentence, every query
content token (not [CLS]/[SEP], not a stop word or punctuation wordpiece) takes its best
cosine over the sentence's tokens; a content word's score is the mean of its wordpieces'.
Per pair:

- `tok_mean`, `tok_min`: mean and min over the query's content wordpieces;
- `word_mean`, `word_min`: the same over its content words (does the sentence cover EVERY
  asked thing: "gym membership" vs "insurance reimbursement");
- `share_t`: the share of content words whose score reaches t;
- `sent_cov`: sentence side, the mean over the sentence's content tokens of their best
  cosine to the query's tokens;
- `cosine`: the pooled (mean-pooled, normalised) vector cosine from the same forward pass.

(a) Sentence choice. MTRAG turns (the human rewrite, reference = the next assistant turn),
candidates = the units the answer reads (`extractive.candidates_of`) of (i) the gold
passages (at most 3) and (ii) the top 3 of the top 5 retrieved (cached eval index, default
hybrid retriever); a candidate is positive when the F1 oracle quotes it
(`bench/sentence_labels.labels`). Per-turn AUC of positives vs the rest, averaged over the
turns that have both, per domain; then held out (leave one MTRAG domain out) the shipped
scorer's features refitted with and without the token features (`scoring.fit`, L2 1).

(b) Answerability. Turn score = the best over the sentences of the top 5 hits
(`units.sentences`, content sentences, at most 96). MTRAG (fit-able): gold removal
(`bench/gold_removal.py` hits: answerable with a gold passage in the top 5 vs the same
lists with every gold passage removed). MTRAG-UN (TEST ONLY, nothing fitted or chosen on
it): the labelled last turns of bench/results/behaviour_features.json (the product's
resolved query and top-5 hits), UNANSWERABLE vs ANSWERABLE + PARTIAL. AUC = probability
that an answerable turn scores above an unanswerable one.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import extractive_fit_retrieved as efr  # noqa: E402
from extractive_answers import DATA, DOMAINS, Case, mtrag_cases  # noqa: E402
from sentence_labels import labels, rarity  # noqa: E402

from tellmemore.answer import extractive, scoring  # noqa: E402
from tellmemore.answer.answer_types import asked_type  # noqa: E402
from tellmemore.answer.units import sentences  # noqa: E402
from tellmemore.answer.words import STOP, WORD  # noqa: E402
from tellmemore.conversation.text import content_words  # noqa: E402
from tellmemore.injection import quotable  # noqa: E402

OUT = ROOT / "bench" / "results" / "token_interaction.json"
THRESHOLDS = (0.5, 0.6, 0.7, 0.8)
PAIR_NAMES = (
    "cosine",
    "tok_mean",
    "tok_min",
    "word_mean",
    "word_min",
    *(f"share_{t}" for t in THRESHOLDS),
    "sent_cov",
)
TOKEN_FEATURES = ("tok_mean", "word_mean", "word_min", "share_0.7", "sent_cov")
"""What the held-out refit adds to the scorer's features."""
MAX_SENTENCES = 96
HITS = 5


@dataclass
class Encoded:
    tokens: np.ndarray
    """Unit token vectors, [CLS]/[SEP] dropped (n x 384, float32)."""
    content: np.ndarray
    """Per token: its content word's index, -1 for stop words and punctuation."""
    pooled: np.ndarray


class TokenEmbed:
    """The bundled MiniLM's token and pooled vectors of each text, remembered."""

    def __init__(self, batch_size: int = 32) -> None:
        from sentence_transformers import SentenceTransformer

        from tellmemore.index.embedders import DEFAULT_MODEL
        from tellmemore.index.model_files import ModelFiles

        files = ModelFiles.open(DEFAULT_MODEL)
        self.model = SentenceTransformer(str(files.path), device="cpu", local_files_only=True)
        self.batch_size = batch_size
        self.cache: dict[str, Encoded] = {}
        self.seconds = 0.0
        self.encoded = 0

    def warm(self, texts: Sequence[str]) -> None:
        todo = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if not todo:
            return
        t0 = time.perf_counter()
        out = self.model.encode(
            todo, batch_size=self.batch_size, output_value=None, show_progress_bar=False
        )
        tok = self.model.tokenizer(
            todo,
            return_offsets_mapping=True,
            truncation=True,
            max_length=self.model.max_seq_length,
        )
        for i, (text, o) in enumerate(zip(todo, out, strict=True)):
            n = int(o["attention_mask"].sum())
            vecs = o["token_embeddings"][:n].float().numpy()
            offsets = tok["offset_mapping"][i]
            assert len(offsets) == n, (len(offsets), n)
            keep = [j for j, (s, e) in enumerate(offsets) if e > s]
            vecs = vecs[keep]
            vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-9)
            self.cache[text] = Encoded(
                tokens=vecs.astype(np.float32),
                content=_content_ids(text, [offsets[j] for j in keep]),
                pooled=o["sentence_embedding"].float().numpy(),
            )
        self.seconds += time.perf_counter() - t0
        self.encoded += len(todo)

    def __getitem__(self, text: str) -> Encoded:
        self.warm([text])
        return self.cache[text]

    def pooled(self, texts: Sequence[str]) -> np.ndarray:
        self.warm(texts)
        return np.stack([self.cache[t].pooled for t in texts])


def _content_ids(text: str, offsets: Sequence[tuple[int, int]]) -> np.ndarray:
    """Each token's content-word index (the n-th content word of `text`), -1 otherwise."""
    owner = np.full(len(text) + 1, -1)
    k = 0
    for m in WORD.finditer(text):
        w = m.group().lower()
        if w not in STOP and len(w) > 1:
            owner[m.start() : m.end()] = k
            k += 1
    return np.array([owner[s] for s, _ in offsets], dtype=np.int64)


def pair_features(q: Encoded, s: Encoded) -> dict[str, float]:
    """The late-interaction features of query `q` and sentence `s` (see the docstring)."""
    out = {"cosine": float(q.pooled @ s.pooled)}
    qmask = q.content >= 0
    if not qmask.any():
        qmask = np.ones(len(q.tokens), dtype=bool)
    if len(s.tokens) == 0 or len(q.tokens) == 0:
        return {**out, **{n: 0.0 for n in PAIR_NAMES if n != "cosine"}}
    sim = q.tokens[qmask] @ s.tokens.T
    best = sim.max(axis=1)
    ids = q.content[qmask]
    words = np.array([best[ids == w].mean() for w in np.unique(ids)])
    out["tok_mean"] = float(best.mean())
    out["tok_min"] = float(best.min())
    out["word_mean"] = float(words.mean())
    out["word_min"] = float(words.min())
    for t in THRESHOLDS:
        out[f"share_{t}"] = float((words >= t).mean())
    smask = s.content >= 0
    back = (q.tokens @ s.tokens[smask].T).max(axis=0) if smask.any() else np.zeros(1)
    out["sent_cov"] = float(back.mean())
    return out


def auc(pos: Sequence[float], neg: Sequence[float]) -> float | None:
    """P(pos > neg), ties half (None when a side is empty)."""
    if not len(pos) or not len(neg):
        return None
    p = np.asarray(pos)[:, None]
    n = np.asarray(neg)[None, :]
    return float(((p > n).sum() + 0.5 * (p == n).sum()) / (p.size * n.size))


# -- (a) sentence choice --------------------------------------------------------------


@dataclass
class Turn:
    domain: str
    x: np.ndarray
    """The scorer's features (scoring.FEATURES)."""
    t: np.ndarray
    """The pair features (PAIR_NAMES)."""
    member: np.ndarray


def sentence_turns(cases: Sequence[Case], te: TokenEmbed) -> list[Turn]:
    out = []
    for c in cases:
        _, candidates, headers = efr.answer_reads(c)
        if not candidates:
            continue
        texts = [k.text for k in candidates]
        te.warm([c.query, *texts])
        x = scoring.features(c.query, candidates, headers, asked_type(c.query), te.pooled)
        q = te[c.query]
        t = np.array([[pair_features(q, te[s])[n] for n in PAIR_NAMES] for s in texts])
        _, member = labels(texts, c.reference, c.query, "f1", rarity([]))
        out.append(Turn(c.domain, x, t, member))
    return out


def turn_auc(turns: Sequence[Turn], score: Any) -> float:
    """Mean per-turn AUC of the oracle's sentences by `score(turn) -> array`."""
    vals = []
    for tr in turns:
        s = score(tr)
        a = auc(s[tr.member == 1], s[tr.member == 0])
        if a is not None:
            vals.append(a)
    return round(float(np.mean(vals)), 4) if vals else 0.0


def top1(turns: Sequence[Turn], score: Any) -> float:
    """Share of turns whose best-scored candidate the oracle quotes."""
    hit = [tr.member[int(np.argmax(score(tr)))] for tr in turns if tr.member.any()]
    return round(float(np.mean(hit)), 4) if hit else 0.0


def held_out(train: Sequence[Turn], test: Sequence[Turn], design: Any) -> dict[str, float]:
    """The sentence scorer fitted on `train`'s `design(turn)` columns, scored on `test`:
    per-turn AUC of the oracle's sentences and top-1."""
    x = np.vstack([design(tr) for tr in train])
    y = np.concatenate([tr.member for tr in train])
    sc = scoring.fit(x, y, l2=1.0)

    def score(tr: Turn) -> np.ndarray:
        return sc.probabilities(design(tr))

    return {"auc": turn_auc(test, score), "top1": top1(test, score)}


def sentence_probe(turns: list[Turn]) -> dict[str, Any]:
    col = {n: i for i, n in enumerate(PAIR_NAMES)}
    res: dict[str, Any] = {"single": {}, "loo": {}}
    for d in DOMAINS:
        ts = [tr for tr in turns if tr.domain == d]
        res["single"][d] = {
            "turns": len(ts),
            **{n: turn_auc(ts, lambda tr, n=n: tr.t[:, col[n]]) for n in PAIR_NAMES},
        }
    extra = [col[n] for n in TOKEN_FEATURES]
    for d in DOMAINS:
        train = [tr for tr in turns if tr.domain != d]
        test = [tr for tr in turns if tr.domain == d]
        row: dict[str, Any] = {}
        for name, cols in (("base", None), ("base+token", extra)):

            def design(tr: Turn, cols: list[int] | None = cols) -> np.ndarray:
                return tr.x if cols is None else np.hstack([tr.x, tr.t[:, cols]])

            row[name] = held_out(train, test, design)
        res["loo"][d] = row
    return res


# -- (b) answerability ----------------------------------------------------------------


def turn_scores(query: str, chunks: Sequence[Any], te: TokenEmbed) -> dict[str, float] | None:
    """The best of each pair feature over the content sentences of `chunks`."""
    texts: list[str] = []
    for ch in chunks[:HITS]:
        texts += [t for t in sentences(ch.text, ch.header) if content_words(t)]
    texts = texts[:MAX_SENTENCES]
    if not texts or not query.strip():
        return None
    te.warm([query, *texts])
    q = te[query]
    rows = [pair_features(q, te[s]) for s in texts]
    return {n: max(r[n] for r in rows) for n in PAIR_NAMES}


def answerability_aucs(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    pos = [r for r in rows if r["label"] != "UNANSWERABLE"]
    neg = [r for r in rows if r["label"] == "UNANSWERABLE"]
    out: dict[str, Any] = {"answerable": len(pos), "unanswerable": len(neg)}
    for n in PAIR_NAMES:
        out[n] = round(auc([r["s"][n] for r in pos], [r["s"][n] for r in neg]) or 0.0, 4)
    return out


def un_rows(path: Path, cache: Path, te: TokenEmbed) -> list[dict[str, Any]]:
    from tellmemore.index.sqlite import SQLiteIndex

    rows = [
        r
        for r in json.loads(path.read_text(encoding="utf-8"))["rows"]
        if r["label"] in ("ANSWERABLE", "PARTIAL", "UNANSWERABLE") and r.get("retrieved")
    ]
    out = []
    for domain in sorted({r["domain"] for r in rows}):
        folder = next((cache / "index").glob(f"{domain}-*"))
        index = SQLiteIndex(folder / "index.db", dimension=384, background_build=False)
        try:
            for r in rows:
                if r["domain"] != domain:
                    continue
                ids = [h[0] for h in r["retrieved"]["hits"][:HITS]]
                s = turn_scores(r["query"], index.get(ids), te)
                if s is not None:
                    out.append({"domain": domain, "label": r["label"], "s": s})
        finally:
            index.close()
    return out


def gold_removal_rows(hits_path: Path, cache: Path, te: TokenEmbed) -> list[dict[str, Any]]:
    """MTRAG's answerable (gold in the top 5) and gold-removed examples, rebuilt as
    bench/gold_removal.py builds them."""
    from gold_removal import _hits, fused, removed_ids

    from tellmemore.config import Settings
    from tellmemore.eval.datasets import iter_corpus
    from tellmemore.index.sqlite import SQLiteIndex

    settings = Settings()
    payload = json.loads(hits_path.read_text(encoding="utf-8"))
    out = []
    for domain in DOMAINS:
        texts = {p.id: p.text for p in iter_corpus(DATA / "mtrag" / domain / "corpus.jsonl")}
        folder = next((cache / "index").glob(f"{domain}-*"))
        index = SQLiteIndex(folder / "index.db", dimension=384, background_build=False)
        try:
            for row in payload["rows"]:
                if row["domain"] != domain or row["path"] != "searched":
                    continue
                ids = {c[0] for hs in row["per_query"].values() for c in hs}
                chunks = {c.id: c for c in index.get(sorted(ids))}
                drop = removed_ids(row["gold"], texts)
                query = row["asked"][0] if row["asked"] else row["queries"][0]
                for label, removed in (("ANSWERABLE", set()), ("UNANSWERABLE", drop)):
                    per_query = {
                        q: _hits(hs, chunks, removed) for q, hs in row["per_query"].items()
                    }
                    hits, _ = fused(per_query, row["queries"], row["weights"], settings)
                    if label == "ANSWERABLE" and not any(h.chunk.doc_id in drop for h in hits):
                        continue  # as gold_removal: answerable only with gold in the top 5
                    s = turn_scores(query, [h.chunk for h in hits], te)
                    if s is not None:
                        out.append({"domain": domain, "label": label, "s": s})
        finally:
            index.close()
    return out


def gap_to_best(tr: Turn, col: int) -> np.ndarray:
    """A pair feature's distance below the turn's best candidate (as `cosine_gap`)."""
    v = tr.t[:, col]
    return np.asarray(v - v.max())


def sentence_variants(turns: list[Turn]) -> dict[str, Any]:
    """Held-out (leave one MTRAG domain out) per-turn AUC and top-1 of the scorer's
    features refitted with each set of token features added, or with the cosine's place
    taken by `word_mean` (every cosine-derived feature then reads it)."""
    col = {n: i for i, n in enumerate(PAIR_NAMES)}
    fcol = {n: i for i, n in enumerate(scoring.FEATURES)}
    wm = col["word_mean"]

    def added(names: Sequence[str], gap: bool = False) -> Any:
        def design(tr: Turn) -> np.ndarray:
            parts = [tr.x, tr.t[:, [col[n] for n in names]]]
            if gap:
                parts.append(gap_to_best(tr, wm)[:, None])
            return np.hstack(parts)

        return design

    def swapped(tr: Turn) -> np.ndarray:
        x = tr.x.copy()
        x[:, fcol["cosine"]] = tr.t[:, wm]
        x[:, fcol["cosine_gap"]] = gap_to_best(tr, wm)
        return x

    designs: dict[str, Any] = {
        "base": lambda tr: tr.x,
        "+word_mean": added(["word_mean"]),
        "+word_mean,gap": added(["word_mean"], gap=True),
        "+word_min": added(["word_min"]),
        "+5 token": added(TOKEN_FEATURES),
        "cosine->word_mean": swapped,
    }
    out: dict[str, Any] = {}
    for name, design in designs.items():
        row: dict[str, Any] = {}
        for d in DOMAINS:
            train = [tr for tr in turns if tr.domain != d]
            test = [tr for tr in turns if tr.domain == d]
            row[d] = held_out(train, test, design)
        row["mean_auc"] = round(float(np.mean([row[d]["auc"] for d in DOMAINS])), 4)
        row["mean_top1"] = round(float(np.mean([row[d]["top1"] for d in DOMAINS])), 4)
        out[name] = row
    return out


COMBOS: dict[str, tuple[str, ...]] = {
    "cosine": ("cosine",),
    "cosine+word_mean": ("cosine", "word_mean"),
    "cosine+word_min": ("cosine", "word_min"),
    "cosine+all token": ("cosine", *[n for n in PAIR_NAMES if n != "cosine"]),
}
FALSE_RATE = 0.05
"""The operating point: abstain on at most this share of the fitting answerable turns."""


def _fit_rows(rows: Sequence[dict[str, Any]], names: Sequence[str]) -> scoring.Scorer:
    x = np.array([[r["s"][n] for n in names] for r in rows])
    y = np.array([float(r["label"] != "UNANSWERABLE") for r in rows])
    return scoring.fit(x, y, l2=1.0)


def _probs(sc: scoring.Scorer, rows: Sequence[dict[str, Any]], names: Sequence[str]) -> np.ndarray:
    return sc.probabilities(np.array([[r["s"][n] for n in names] for r in rows]))


def _auc_rows(p: np.ndarray, rows: Sequence[dict[str, Any]]) -> float:
    una = np.array([r["label"] == "UNANSWERABLE" for r in rows])
    return round(auc(p[~una], p[una]) or 0.0, 4)


def answerability_combos(
    removal: Sequence[dict[str, Any]], un: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """Logistic combinations of the turn scores fitted on MTRAG gold removal: held out by
    MTRAG domain, and fitted on all three then applied to MTRAG-UN (test only) with the
    threshold that abstains on FALSE_RATE of MTRAG's answerable examples."""
    out: dict[str, Any] = {}
    for name, names in COMBOS.items():
        row: dict[str, Any] = {}
        for d in DOMAINS:
            sc = _fit_rows([r for r in removal if r["domain"] != d], names)
            test = [r for r in removal if r["domain"] == d]
            row[f"removal/{d}"] = _auc_rows(_probs(sc, test, names), test)
        sc = _fit_rows(removal, names)
        fit_p = _probs(sc, removal, names)
        ans = np.array([r["label"] != "UNANSWERABLE" for r in removal])
        threshold = float(np.quantile(fit_p[ans], FALSE_RATE))
        for d in ("clapnq", "cloud"):
            test = [r for r in un if r["domain"] == d]
            p = _probs(sc, test, names)
            una = np.array([r["label"] == "UNANSWERABLE" for r in test])
            row[f"un/{d}"] = {
                "auc": _auc_rows(p, test),
                "abstain_unanswerable": f"{int((p[una] < threshold).sum())}/{int(una.sum())}",
                "abstain_answerable": f"{int((p[~una] < threshold).sum())}/{int((~una).sum())}",
            }
        out[name] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=Path("/work/cache/bench_md"))
    parser.add_argument(
        "--hits", type=Path, default=ROOT / "bench" / ".cache" / "gold_removal_hits.json"
    )
    parser.add_argument(
        "--behaviour", type=Path, default=ROOT / "bench" / "results" / "behaviour_features.json"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--dump",
        type=Path,
        default=ROOT / "bench" / ".cache" / "token_interaction.pkl",
        help="the computed rows (bench scratch, not committed); reused when present unless --fresh",
    )
    parser.add_argument("--fresh", action="store_true", help="recompute the rows")
    parser.add_argument(
        "--cost", type=int, metavar="N", help="only time N turns (CPU ms per turn) and print it"
    )
    parser.add_argument("--every", type=int, default=1, help="every n-th MTRAG turn (a check)")
    args = parser.parse_args()
    if args.cost:
        print(json.dumps(cost(args.data, args.cost), indent=1))
        return
    t0 = time.perf_counter()
    if args.dump.exists() and not args.fresh:
        data = pickle.loads(args.dump.read_bytes())
    else:
        data = compute(args)
        args.dump.parent.mkdir(parents=True, exist_ok=True)
        args.dump.write_bytes(pickle.dumps(data))
    results: dict[str, Any] = {"command": " ".join(sys.argv[1:]), "encode": data["encode"]}
    for part in ("gold", "retrieved"):
        turns = data[part]
        results[f"sentences_{part}"] = sentence_probe(turns)
        results[f"sentences_{part}"]["variants"] = sentence_variants(turns)
    results["removal"] = {
        d: answerability_aucs([r for r in data["removal"] if r["domain"] == d]) for d in DOMAINS
    }
    results["mtrag_un"] = {
        d: answerability_aucs([r for r in data["un"] if r["domain"] == d])
        for d in ("clapnq", "cloud")
    }
    results["combos"] = answerability_combos(data["removal"], data["un"])
    results["seconds"] = round(time.perf_counter() - t0, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=1))


def cost(data: Path, n: int) -> dict[str, Any]:
    """CPU time per turn (process time, both cores counted) of the sentence vectors as the
    product embeds them (`embed_documents`) against the token path (one fp32 forward pass
    with token outputs, then the pair features), on the first `n` MTRAG clapnq turns'
    answer candidates (gold passages, at most 3)."""
    from tellmemore.index.embedders import SentenceTransformerEmbedder

    turns = []
    for c in list(mtrag_cases(data, "clapnq"))[:n]:
        units = [quotable(extractive.units(h.chunk.text, h.chunk.header)) for h in c.hits]
        turns.append([c.query, *(k.text for k in extractive.candidates_of(units))])
    pooled = SentenceTransformerEmbedder()
    pooled.embed_documents(["warm up"])
    te = TokenEmbed()
    te.warm(["warm up"])
    t = time.process_time()
    for texts in turns:
        pooled.embed_documents(texts)
    pooled_s = time.process_time() - t
    t = time.process_time()
    for texts in turns:
        te.warm(texts)
        q = te[texts[0]]
        for s in texts[1:]:
            pair_features(q, te[s])
    token_s = time.process_time() - t
    return {
        "turns": len(turns),
        "texts_per_turn": round(sum(len(x) for x in turns) / len(turns), 1),
        "pooled_ms_per_turn": round(1000 * pooled_s / len(turns), 1),
        "pooled_runtime": pooled.describe().get("bulk", {}),
        "token_ms_per_turn": round(1000 * token_s / len(turns), 1),
    }


def compute(args: argparse.Namespace) -> dict[str, Any]:
    """Every probe's rows: the sentence turns (gold, retrieved) and the turn scores (gold
    removal, MTRAG-UN)."""
    from extractive_retrieved import retrieve

    te = TokenEmbed()
    cases = {d: list(mtrag_cases(args.data, d))[:: args.every] for d in DOMAINS}
    got = {d: retrieve(cases[d], d, args.data, args.cache, 1) for d in DOMAINS}
    return {
        "gold": [tr for d in DOMAINS for tr in sentence_turns(cases[d], te)],
        "retrieved": [tr for d in DOMAINS for tr in sentence_turns(got[d], te)],
        "removal": gold_removal_rows(args.hits, args.cache, te),
        "un": un_rows(args.behaviour, args.cache, te),
        "encode": {
            "texts": te.encoded,
            "seconds": round(te.seconds, 1),
            "ms_per_text": round(1000 * te.seconds / max(te.encoded, 1), 2),
        },
    }


if __name__ == "__main__":
    main()
