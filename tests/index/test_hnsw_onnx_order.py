"""usearch and ONNX Runtime in one process: the HNSW graph must not make the ONNX query path
crash. With usearch loaded first, `import onnxruntime` died with SIGSEGV (a C++ locale facet
clash); `hnsw` loads ONNX Runtime first. Each case runs in a fresh interpreter, since the
crash (or a module already imported by another test) is process-wide."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest

# Looked up, not imported: importing usearch here would be the very crash under test.
if not all(importlib.util.find_spec(m) for m in ("usearch", "onnxruntime")):
    pytest.skip("needs usearch and onnxruntime", allow_module_level=True)

SCRIPT = textwrap.dedent(
    """
    import numpy as np
    from tellmemore.index.hnsw import _new_index

    index = _new_index(8)
    vectors = np.eye(8, dtype=np.float32)
    index.add(np.arange(8), vectors)
    assert int(index.search(vectors[3], 1).keys[0]) == 3

    import onnxruntime

    options = onnxruntime.SessionOptions()
    print("both loaded", options.intra_op_num_threads)
    """
)


def test_a_graph_then_the_onnx_runtime_in_one_process() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"rc={done.returncode}\n{done.stderr[-2000:]}"
    assert "both loaded" in done.stdout
