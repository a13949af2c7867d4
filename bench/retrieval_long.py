"""Retrieval at realistic length: two libraries of three PDFs each (10-12 pages, English and
Chinese), 43 questions that reuse their documents' words, each with the phrase its answer
passage holds. Recall@1, recall@5 and MRR of BM25 alone (offline), in all and per language.

    python bench/retrieval_long.py [--keep DIR] [--misses]

The documents are generated (deterministically) from `retrieval_long/corpus.json`: each fact
sentence on its page among filler paragraphs written from the same domain's words, so other
passages compete for every question (see `retrieval_long/README.md`). Each library is built
through the code the API uses (`read_upload`, `Libraries.add`, `Libraries.search`); a question
is searched in its own library.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "retrieval_long" / "corpus.json"
K = 5
PARAGRAPHS_PER_PAGE = 5

EN_SUBJECTS = {
    "banks": "net interest income|revenue|the retail segment|commercial banking|wealth management|"
    "deposit costs|loan growth|the capital position|credit quality|operating expenses|"
    "the dividend|earnings|the branch network|liquidity|fee income",
    "energy": "production|capital expenditure|operating costs|the North Sea portfolio|"
    "free cash flow|inflation|interest rates|the dollar|oil demand|emissions|reserves|"
    "the balance sheet|consumer spending|the labour market|gas prices",
}
EN_VERBS = "rose|fell|held steady|improved|weakened|recovered|slowed|accelerated".split("|")  # noqa: SIM905
EN_TAILS = [
    "compared with the prior year",
    "as rates moved higher",
    "in line with guidance",
    "reflecting lower volumes in the second half",
    "despite pressure on margins",
    "while management kept a cautious outlook",
    "supported by disciplined pricing",
    "as customers shifted towards higher-yielding products",
]
ZH_SUBJECTS = {
    "banks": "营业收入|净利润|零售业务|公司业务|资产质量|存款成本|贷款投放|资本充足水平|"
    "手续费收入|基金净值|股票仓位|重仓股|业绩比较基准|管理费|市场波动",
    "energy": "光伏装机|组件价格|硅料产能|电池技术|行业毛利率|出口需求|储能配套|"
    "产业链利润|企业盈利|海外市场|政策支持|技术迭代|融资环境|电站收益率|库存水平",
}
ZH_VERBS = "稳步提升|有所下降|保持稳定|明显改善|承压回落|持续修复|增速放缓|加快增长".split("|")  # noqa: SIM905
ZH_TAILS = [
    "，较上年同期变化不大。",
    "，主要受宏观环境影响。",
    "，符合年初制定的经营目标。",
    "，下半年压力有所缓解。",
    "，管理层对后续走势保持谨慎。",
    "，结构调整效果逐步显现。",
    "，与行业整体趋势基本一致。",
    "，后续仍需关注外部不确定性。",
]


def filler(rng: random.Random, lang: str, library: str) -> str:
    """A paragraph in the document's domain and language that answers none of the questions."""
    sentences = []
    for _ in range(rng.randint(3, 5)):
        if lang == "en":
            subject = rng.choice(EN_SUBJECTS[library].split("|"))
            figure = f" by {rng.uniform(0.5, 19):.1f}%" if rng.random() < 0.5 else ""
            sentences.append(
                f"{subject[0].upper()}{subject[1:]} {rng.choice(EN_VERBS)}{figure} "
                f"{rng.choice(EN_TAILS)}."
            )
        else:
            subject = rng.choice(ZH_SUBJECTS[library].split("|"))
            figure = f"约{rng.uniform(0.5, 19):.1f}%" if rng.random() < 0.5 else ""
            sentences.append(f"{subject}{rng.choice(ZH_VERBS)}{figure}{rng.choice(ZH_TAILS)}")
    return (" " if lang == "en" else "").join(sentences)


def make_documents(folder: Path) -> list[dict[str, object]]:
    """The corpus's PDFs written into `folder` (reused when there); each document's spec."""
    sys.path.insert(0, str(ROOT / "tests"))
    from support.pdf_maker import make_pdf

    spec = json.loads(CORPUS.read_text())
    documents = []
    for library, docs in spec["libraries"].items():
        for doc in docs:
            rng = random.Random(doc["name"])
            facts = {page: sentence for page, sentence, _, _ in doc["facts"]}
            pages = []
            for page in range(1, doc["pages"] + 1):
                paragraphs = [filler(rng, doc["lang"], library) for _ in range(PARAGRAPHS_PER_PAGE)]
                if page == 1:
                    paragraphs.insert(0, doc["title"])
                    # An overview naming what the report covers: it shares the questions'
                    # words without answering any of them.
                    topics = [sentence for _, sentence, _, _ in doc["facts"]][:4]
                    paragraphs.insert(1, _overview(doc["lang"], topics))
                if page in facts:
                    paragraphs.insert(rng.randint(1, len(paragraphs)), facts[page])
                # matplotlib reads text between two dollar signs as mathematics
                pages.append([p.replace("$", r"\$") for p in paragraphs])
            path = folder / doc["name"]
            if not path.exists():
                path.write_bytes(make_pdf(pages, chinese=doc["lang"] == "zh"))
            documents.append({**doc, "library": library, "path": path})
    return documents


def _overview(lang: str, facts: list[str]) -> str:
    """A contents paragraph: the opening words of the facts' sentences, as section names."""
    if lang == "en":
        named = "; ".join(" ".join(f.split()[:4]).rstrip(":,").lower() for f in facts)
        return f"This report covers, among other things: {named}."
    named = "、".join(f[:6].strip("，。：") for f in facts)
    return f"本报告内容包括：{named}等。"


def evaluate(documents: list[dict[str, object]], show_misses: bool) -> dict[str, object]:
    sys.path.insert(0, str(ROOT))
    from datapilot.knowledge import Libraries, read_upload
    from datapilot.settings import Settings
    from datapilot.store import open_store
    from datapilot.store.models import User

    ranks: list[tuple[str, int | None]] = []
    misses = []
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(data_dir=Path(folder), offline=True)
        store = open_store(settings)
        with store.session(write=True) as session:
            user = User(name="bench")
            session.add(user)
            session.flush()
            owner = user.id
            for library in {str(d["library"]) for d in documents}:
                Libraries(session, owner, settings).create(library)
        started = time.perf_counter()
        for doc in documents:
            path = Path(str(doc["path"]))
            upload = read_upload(settings, path.name, path.read_bytes())
            with store.session(write=True) as session:
                Libraries(session, owner, settings).add(str(doc["library"]), upload)
        built = time.perf_counter() - started
        started = time.perf_counter()
        with store.session() as session:
            libraries = Libraries(session, owner, settings)
            for doc in documents:
                for _, _, question, answer in doc["facts"]:  # type: ignore[attr-defined]
                    found = libraries.search(str(doc["library"]), question, K, mode="bm25")
                    rank = next(
                        (
                            n
                            for n, p in enumerate(found.passages, 1)
                            if p.citation.source == doc["name"] and answer in p.citation.text
                        ),
                        None,
                    )
                    ranks.append((str(doc["lang"]), rank))
                    if rank != 1:
                        top = found.passages[0].citation.text[:80] if found.passages else "-"
                        misses.append(f"{question} -> rank {rank}; first: {top}")
        per_query = (time.perf_counter() - started) * 1000 / len(ranks)

    def scores(found: list[int | None]) -> dict[str, float]:
        n = len(found) or 1
        return {
            "recall@1": round(sum(r == 1 for r in found) / n, 3),
            "recall@5": round(sum(r is not None for r in found) / n, 3),
            "mrr": round(sum(1 / r for r in found if r is not None) / n, 3),
        }

    report: dict[str, object] = {
        "questions": len(ranks),
        "all": scores([r for _, r in ranks]),
        "en": scores([r for lang, r in ranks if lang == "en"]),
        "zh": scores([r for lang, r in ranks if lang == "zh"]),
        "indexing s": round(built, 1),
        "ms per query": round(per_query, 1),
    }
    if show_misses:
        report["not first"] = misses
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="Keep (and reuse) the generated PDFs here.")
    parser.add_argument("--misses", action="store_true", help="List questions not ranked first.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = args.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        documents = make_documents(folder)
        print(json.dumps(evaluate(documents, args.misses), ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
