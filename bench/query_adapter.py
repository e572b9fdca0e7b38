"""A learned query-side linear adapter over MiniLM, dense only, leave-one-domain-out on MTRAG.

Why: the dense half of retrieval is the bundled all-MiniLM-L6-v2, never trained on questions
about a user's documents. An adapter on the query side only (q' = normalise(q + W q)) would
be a small learned part that needs no re-embedding of an index: fitted on MTRAG's questions
and their gold passages, shipped as one matrix. This measures whether it transfers to a domain
it was not fitted on before anything is wired in.

Each MTRAG domain is scored with W fitted on the other two: training pairs are every turn's
human rewrite and message as typed, with the gold passage nearest the query as positive and
the 30 nearest non-gold passages plus in-batch positives as negatives (softmax, temperature
0.05, Adam), L2 on W. Scored: dense-only nDCG@5 over the whole pool (a passage scores its best
chunk), for the rewrite, the message as typed and, on the same corpus, MTRAG-UN's messages
(test only). The vectors are the eval cache's (`tellmemore eval ... --cache DIR` builds it).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/query_adapter.py --cache /work/cache/bench_md \
        --out bench/results/query_adapter.md        # ~4 min
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import torch

from tellmemore.eval.measures import score_turns
from tellmemore.index.embedders import SentenceTransformerEmbedder

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "bench"
DOMAINS = ("clapnq", "cloud", "govt")
NEGATIVES = 30
TEMPERATURE = 0.05


def index_vectors(cache: Path, domain: str) -> tuple[np.ndarray, np.ndarray]:
    """(passage id of each chunk, chunk vectors) from the eval cache's index of `domain`."""
    folder = next(p for p in sorted((cache / "index").glob(f"{domain}-*")) if p.is_dir())
    with sqlite3.connect(folder / "index.db") as db:
        rows = db.execute("select doc_id, vector from chunks").fetchall()
    docs = np.array([r[0] for r in rows])
    return docs, np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])


def turns_with_gold(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [t for t in (json.loads(line) for line in lines if line) if t.get("gold")]


def ranked_passages(query: np.ndarray, vectors: np.ndarray, docs: np.ndarray) -> list[str]:
    """The first five passages by their best chunk's cosine."""
    out: list[str] = []
    for i in np.argsort(-(vectors @ query)):
        if docs[i] not in out:
            out.append(str(docs[i]))
            if len(out) == 5:
                break
    return out


def adapted(queries: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    if w is None:
        return queries
    out = queries + queries @ w.T
    return np.asarray(out / np.linalg.norm(out, axis=1, keepdims=True))


def mean_ndcg(queries: np.ndarray, turns: list[dict[str, Any]], corpus: dict[str, Any]) -> float:
    """Mean nDCG@5 over `turns`, measured as `tellmemore eval` measures it."""
    gold = {str(i): t["gold"] for i, t in enumerate(turns)}
    ranked = {
        str(i): ranked_passages(q, corpus["vectors"], corpus["docs"]) for i, q in enumerate(queries)
    }
    per_turn = score_turns(gold, ranked, ["nDCG@5"])
    return float(np.mean([v["nDCG@5"] for v in per_turn.values()]))


def training_triples(corpus: dict[str, Any], queries: np.ndarray) -> list[tuple[Any, Any, Any]]:
    """(query, its nearest gold chunk, the nearest non-gold chunks) per turn."""
    docs, vectors = corpus["docs"], corpus["vectors"]
    out = []
    for q, t in zip(queries, corpus["turns"], strict=True):
        sims = vectors @ q
        gold = np.isin(docs, t["gold"])
        if not gold.any():
            continue
        positive = int(np.flatnonzero(gold)[np.argmax(sims[gold])])
        negatives = [i for i in np.argsort(-sims)[:200] if not gold[i]][:NEGATIVES]
        out.append((q, vectors[positive], vectors[negatives]))
    return out


def fit_adapter(triples: list[tuple[Any, Any, Any]], l2: float, epochs: int = 60) -> np.ndarray:
    torch.manual_seed(0)
    q_all = torch.tensor(np.stack([t[0] for t in triples]))
    p_all = torch.tensor(np.stack([t[1] for t in triples]))
    n_all = torch.tensor(np.stack([t[2] for t in triples]))
    w = torch.zeros(q_all.shape[1], q_all.shape[1], requires_grad=True)
    opt = torch.optim.Adam([w], lr=1e-3)
    for _ in range(epochs):
        order = torch.randperm(len(q_all))
        for start in range(0, len(q_all), 64):
            idx = order[start : start + 64]
            q = q_all[idx] + q_all[idx] @ w.T
            q = q / q.norm(dim=1, keepdim=True)
            positive = (q * p_all[idx]).sum(1, keepdim=True)
            hard = torch.einsum("bd,bnd->bn", q, n_all[idx])
            in_batch = (q @ p_all[idx].T).masked_fill(torch.eye(len(idx), dtype=torch.bool), -1e9)
            logits = torch.cat([positive, hard, in_batch], 1) / TEMPERATURE
            target = torch.zeros(len(idx), dtype=torch.long)
            loss = torch.nn.functional.cross_entropy(logits, target) + l2 * (w**2).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
    return np.asarray(w.detach().numpy())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--l2", default="0.001,0.01,0.1,0.5")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    embedder = SentenceTransformerEmbedder()
    data: dict[str, dict[str, Any]] = {}
    for d in DOMAINS:
        docs, vectors = index_vectors(args.cache, d)
        turns = turns_with_gold(SHARED / "mtrag" / d / "conversations.jsonl")
        data[d] = {"docs": docs, "vectors": vectors, "turns": turns}
        data[d]["rewrite"] = embedder.embed_queries([t["rewrite"] for t in turns])
        data[d]["typed"] = embedder.embed_queries([t["message"] for t in turns])
        un_path = SHARED / "mtrag-un" / d / "conversations.jsonl"
        if un_path.exists():
            un_turns = turns_with_gold(un_path)
            data[d]["un"] = (un_turns, embedder.embed_queries([t["message"] for t in un_turns]))
    lines = [
        "| L2 | left out | rewrite: base -> adapted | typed: base -> adapted "
        "| MTRAG-UN typed: base -> adapted | norm of W |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for l2 in (float(x) for x in args.l2.split(",")):
        for test in DOMAINS:
            triples = []
            for d in DOMAINS:
                if d != test:
                    triples += training_triples(data[d], data[d]["rewrite"])
                    triples += training_triples(data[d], data[d]["typed"])
            w = fit_adapter(triples, l2)
            corpus = data[test]
            cells = []
            for key in ("rewrite", "typed"):
                before = mean_ndcg(corpus[key], corpus["turns"], corpus)
                after = mean_ndcg(adapted(corpus[key], w), corpus["turns"], corpus)
                cells.append(f"{before:.4f} -> {after:.4f} ({after - before:+.4f})")
            if "un" in corpus:
                un_turns, un_q = corpus["un"]
                before = mean_ndcg(un_q, un_turns, corpus)
                after = mean_ndcg(adapted(un_q, w), un_turns, corpus)
                cells.append(f"{before:.4f} -> {after:.4f} ({after - before:+.4f})")
            else:
                cells.append("–")
            norm = f"{np.linalg.norm(w):.2f}"
            lines.append(f"| {l2} | {test} | " + " | ".join(cells) + f" | {norm} |")
            print(lines[-1], flush=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
