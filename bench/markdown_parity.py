"""Old hand parser vs markdown-it blocks: how many documents parse differently, and how."""
import json, sys, itertools
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tellmemore.ingest import chunking as old
from tellmemore.ingest import blocks as new
from tellmemore.ingest.loaders.markdown import split_front_matter

def norm(secs):
    return [(s.path, tuple((b.kind, b.text) for b in s.blocks)) for s in secs]

def compare(name, texts, show=3):
    diff = 0; shown = 0; n = 0
    for key, text, title in texts:
        n += 1
        a, b = norm(old.parse_sections(text, title)), norm(new.parse_sections(text, title))
        if a != b:
            diff += 1
            if shown < show:
                shown += 1
                print(f"--- {name} {key}")
                fa = [(p, k, t[:80]) for p, bl in a for k, t in bl]
                fb = [(p, k, t[:80]) for p, bl in b for k, t in bl]
                for x, y in itertools.zip_longest(fa, fb):
                    if x != y:
                        print("  old:", x); print("  new:", y); break
    print(f"{name}: {diff} of {n} differ")

md = []
for root in [str(Path(__file__).resolve().parents[1]) + "/bench/data/clef_handbook", str(Path(__file__).resolve().parents[1]) + "/bench/data/tts_handbook", str(Path(__file__).resolve().parents[1]) + "/tellmemore/data/sample"]:
    for p in sorted(Path(root).rglob("*.md")):
        meta, body = split_front_matter(p.read_text())
        md.append((str(p.relative_to(root)), body, meta.get("title", "")))
    compare(Path(root).name, md, show=int(sys.argv[1]) if len(sys.argv) > 1 else 3); md = []
# posthog: counts only (held out)
ph = []
for p in sorted(Path(str(Path(__file__).resolve().parents[1]) + "/bench/data/posthog_handbook").rglob("*.md")):
    meta, body = split_front_matter(p.read_text()); ph.append((p.name, body, meta.get("title", "")))
compare("posthog (counts only)", ph, show=0)
for d in ["clapnq", "cloud", "govt"]:
    texts = []
    with open(f"/work/shared/bench/mtrag/{d}/corpus.jsonl") as f:
        for line in itertools.islice(f, 20000):
            r = json.loads(line); texts.append((r.get("_id") or r.get("id"), r.get("text", ""), r.get("title", "")))
    compare(d, texts, show=2)
