"""End to end with the token features' sentence scorer (bench only, nothing shipped):
bench/turn_answers.py run with `scoring.shipped` and `scoring.features_and_vectors`
wrapped as bench/token_interaction_handbook.py wraps them.

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python bench/token_interaction_turns.py +token \
        --cache /work/cache/bench_md --out bench/results/turn_answers_runs/token.json

The first argument names the scorer of bench/.cache/tok_scorers.pkl (written by
bench/token_interaction_handbook.py: `base`, the shipped features refitted, or `+token`);
the rest are turn_answers.py's. Compare with `bench/paired_f1.py A.json B.json --gap answer`.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import token_interaction_f1 as tif  # noqa: E402
import turn_answers  # noqa: E402
from token_interaction import TokenEmbed  # noqa: E402

from tellmemore.answer import scoring  # noqa: E402

SCORERS = ROOT / "bench" / ".cache" / "tok_scorers.pkl"


def main() -> None:
    name = sys.argv.pop(1)
    scorer = pickle.loads(SCORERS.read_bytes())[name]
    tif.wrap(TokenEmbed(), tif.VARIANTS[name])
    scoring.shipped = lambda: scorer  # type: ignore[assignment,misc]
    turn_answers.main()


if __name__ == "__main__":
    main()
