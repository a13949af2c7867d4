"""Ingest speed of knowledge libraries: a generated 200-page text PDF and a 200-page two-column
one, each added to a library end to end (read and chunked by `read_upload`, written by
`Libraries.add`, BM25-indexed by the first search), in a fresh process per document.

    python bench/ingest.py [--pages 200] [--keep DIR]

Prints seconds per stage, pages/s in all (wall clock, and per CPU second: on a loaded machine
the wall clock measures the neighbours too), and the process's peak memory (RSS) above what it held
after its imports. Target: >= 50 pages/s end to end for text PDFs (embeddings excluded).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 50.0
_WORDS = (  # noqa: SIM905 (a sentence reads better than a list of fifty strings)
    "revenue margin capital liquidity deposits loans credit impairment provisions dividend "
    "guidance segment growth outlook funding ratio assets liabilities equity cash flow "
    "operating income expenses customers pricing volume market share regulation risk "
    "exposure portfolio yield spread hedging currency inflation demand supply contract "
    "backlog investment depreciation amortisation tax earnings share buyback leverage"
).split()


def prose(rng: random.Random, sentences: int) -> str:
    """Plausible filler text: sentences of finance words with a figure in some of them."""
    out = []
    for _ in range(sentences):
        words = rng.choices(_WORDS, k=rng.randint(9, 18))
        if rng.random() < 0.4:
            words.insert(rng.randint(1, len(words) - 1), f"{rng.uniform(1, 900):.1f}%")
        out.append(" ".join(words).capitalize() + ".")
    return " ".join(out)


def make_pdfs(folder: Path, pages: int) -> dict[str, Path]:
    sys.path.insert(0, str(ROOT / "tests"))
    from support.pdf_maker import make_pdf, make_two_column_pdf

    rng = random.Random(32)
    text = [[prose(rng, 5) for _ in range(6)] for _ in range(pages)]
    columns = [
        ([prose(rng, 4) for _ in range(4)], [prose(rng, 4) for _ in range(4)]) for _ in range(pages)
    ]
    made = {
        "text": (folder / f"text-{pages}.pdf", lambda: make_pdf(text)),
        "two-column": (
            folder / f"two-column-{pages}.pdf",
            lambda: make_two_column_pdf(columns, title="Annual report 2023"),
        ),
    }
    paths = {}
    for kind, (path, make) in made.items():
        if not path.exists():
            path.write_bytes(make())
        paths[kind] = path
    return paths


def measure(path: Path) -> dict[str, object]:
    """One document added to a fresh library in this process: seconds per stage, peak RSS."""
    sys.path.insert(0, str(ROOT))
    from datapilot.knowledge import Libraries, read_upload
    from datapilot.settings import Settings
    from datapilot.store import open_store
    from datapilot.store.models import User

    with tempfile.TemporaryDirectory() as folder:
        # Today's reading can take minutes: the bench measures it instead of refusing it.
        settings = Settings(data_dir=Path(folder), offline=True, kb_read_timeout_s=3600)
        store = open_store(settings)
        with store.session(write=True) as session:
            user = User(name="bench")
            session.add(user)
            session.flush()
            owner = user.id
            Libraries(session, owner, settings).create("bench")
        # What a server loads at its start (its warm-up): the stemmer, jieba, bm25s.
        read_upload(settings, "warm.txt", b"warm up jieba and the stemmer")
        import bm25s  # noqa: F401

        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        data = path.read_bytes()
        started, cpu = time.perf_counter(), time.process_time()
        upload = read_upload(settings, path.name, data)
        read = time.perf_counter()
        with store.session(write=True) as session:
            Libraries(session, owner, settings).add("bench", upload)
        written = time.perf_counter()
        with store.session() as session:
            Libraries(session, owner, settings).search("bench", "capital ratio", 5)
        indexed, cpu = time.perf_counter(), time.process_time() - cpu
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    total = indexed - started
    return {
        "pages": upload.pages,
        "chunks": len(upload.chunks),
        "read s": round(read - started, 2),
        "write s": round(written - read, 2),
        "index s": round(indexed - written, 2),
        "total s": round(total, 2),
        "pages/s": round(upload.pages / total, 1),
        "cpu s": round(cpu, 2),
        "pages/cpu s": round(upload.pages / cpu, 1),
        "peak MB above imports": round((peak - base) / 1024, 1),
        "peak MB": round(peak / 1024, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="Keep (and reuse) the generated PDFs here.")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return
    with tempfile.TemporaryDirectory() as temporary:
        folder = args.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        paths = make_pdfs(folder, args.pages)
        print(f"PDFs ready in {time.perf_counter() - started:.1f} s")
        for kind, path in paths.items():
            run = subprocess.run(
                [sys.executable, __file__, "--measure", str(path)],
                capture_output=True,
                text=True,
                check=True,
            )
            report = json.loads(run.stdout.strip().splitlines()[-1])
            met = ""
            if kind == "text":
                met = "  target met" if report["pages/s"] >= TARGET else "  below target"
            print(f"{kind:>10}: {json.dumps(report)}{met}")


if __name__ == "__main__":
    main()
