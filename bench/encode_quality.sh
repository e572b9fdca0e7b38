#!/usr/bin/env bash
# Issue 23: follow-up nDCG@5 of each encoder path on clapnq, cloud and govt, every path in a
# cache of its own (a full re-embedding of the three corpora per path), then the table
# bench/results/encode_quality.{md,json} (bench/encode_quality.py).
#   bash bench/encode_quality.sh /tmp/encode-quality      # ~2 h on 2 busy cores
set -euo pipefail
out=${1:?usage: encode_quality.sh OUT_DIR}
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
run() {  # label precision backend
  for d in govt clapnq cloud; do
    TELLMEMORE_EMBEDDER__PRECISION=$2 TELLMEMORE_EMBEDDER__BACKEND=$3 \
      .venv/bin/python -m tellmemore eval "/work/shared/bench/mtrag/$d" \
      --strategies raw,concat,embedded,oracle --retrievers dense,hybrid \
      --cache "$out/cache-$1" --out "$out/$1/$d"
  done
}
run fp32 fp32 torch   # the reference: torch fp32 for documents and queries
run auto auto auto    # the default paths: bulk chosen by measurement, queries on ONNX fp32
run int8 int8 auto    # ONNX int8 for documents and queries
.venv/bin/python bench/encode_quality.py "$out"
