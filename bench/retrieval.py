"""Retrieval evaluation of knowledge libraries: recall@5 and MRR of BM25, vectors and their
fusion on the corpus in `bench/retrieval_corpus/` (six documents of our own in Markdown, text,
HTML and CSV, English and Chinese; 56 questions, each with a phrase of its answer passage).

    python bench/retrieval.py                       # BM25 alone (offline)
    python bench/retrieval.py --embeddings URL --model NAME   # + vectors and fusion

A question counts as found at rank r when the r-th passage returned comes from the expected
document and contains the answer phrase. The library is built in a temporary data dir through
the same code the API uses (`read_upload`, `Libraries.add`, `Libraries.search`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "retrieval_corpus"
K = 5


def build(settings: object, corpus: Path = CORPUS) -> tuple[object, str]:
    """A library named `bench` holding every document of `corpus` (its questions aside)."""
    from datapilot.knowledge import Libraries, read_upload
    from datapilot.store import open_store
    from datapilot.store.models import User

    store = open_store(settings)  # type: ignore[arg-type]
    with store.session(write=True) as session:
        user = User(name="bench")
        session.add(user)
        session.flush()
        owner = user.id
        Libraries(session, owner, settings).create("bench")  # type: ignore[arg-type]
    for path in sorted(corpus.iterdir()):
        if path.name.startswith("questions") or path.name == "README.md":
            continue
        upload = read_upload(settings, path.name, path.read_bytes())  # type: ignore[arg-type]
        with store.session(write=True) as session:
            Libraries(session, owner, settings).add("bench", upload)  # type: ignore[arg-type]
    return store, owner


def evaluate(store: object, owner: str, settings: object, mode: str) -> dict[str, object]:
    from datapilot.knowledge import Libraries

    questions = json.loads((CORPUS / "questions.json").read_text())
    found_at: list[int | None] = []
    misses: list[str] = []
    started = time.perf_counter()
    with store.session() as session:  # type: ignore[attr-defined]
        libraries = Libraries(session, owner, settings)  # type: ignore[arg-type]
        for item in questions:
            result = libraries.search("bench", item["q"], K, mode=mode)
            rank = next(
                (
                    n
                    for n, p in enumerate(result.passages, 1)
                    if p.citation.source == item["source"] and item["answer"] in p.citation.text
                ),
                None,
            )
            found_at.append(rank)
            if rank is None:
                misses.append(item["q"])
    elapsed = (time.perf_counter() - started) * 1000 / len(questions)

    def scores(ranks: list[int | None]) -> tuple[float, float]:
        recall = sum(r is not None for r in ranks) / len(ranks)
        mrr = sum(1 / r for r in ranks if r is not None) / len(ranks)
        return round(recall, 3), round(mrr, 3)

    chinese = [any("\u4e00" <= c <= "\u9fff" for c in q["q"]) for q in questions]
    recall, mrr = scores(found_at)
    en = scores([r for r, zh in zip(found_at, chinese, strict=True) if not zh])
    zh = scores([r for r, zh in zip(found_at, chinese, strict=True) if zh])
    return {
        "mode": mode,
        "questions": len(questions),
        "recall@5": recall,
        "mrr": mrr,
        "recall@5 en/zh": [en[0], zh[0]],
        "ms per query": round(elapsed, 1),
        "misses": misses,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embeddings", help="An OpenAI-compatible base URL serving /embeddings.")
    parser.add_argument("--model", default="", help="The embeddings model name.")
    parser.add_argument(
        "--input-type", action="store_true", help="Send input_type query/passage (e5 models)."
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from datapilot.settings import Settings

    with tempfile.TemporaryDirectory() as folder:
        extra: dict[str, object] = {}
        if args.embeddings:
            extra = {
                "embeddings_base_url": args.embeddings,
                "embeddings_model": args.model,
                "embeddings_input_type": args.input_type,
                "outbound_allow": [],
            }
        settings = Settings(data_dir=Path(folder), offline=not args.embeddings, **extra)
        started = time.perf_counter()
        store, owner = build(settings)
        print(f"indexed the corpus in {(time.perf_counter() - started):.1f} s")
        modes = ["bm25", "dense", "auto"] if args.embeddings else ["bm25"]
        for mode in modes:
            report = evaluate(store, owner, settings, mode)
            print(json.dumps(report, ensure_ascii=False))


if __name__ == "__main__":
    main()
