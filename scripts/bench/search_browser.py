#!/usr/bin/env python3
"""Search in a real browser on a built site: bytes fetched and query time.

    .venv/bin/python scripts/bench/search_browser.py OUTPUT_DIR [--json FILE]

Serves OUTPUT_DIR (a site built by `blog build`) over loopback, opens /search/ in headless
Chromium and runs typical queries through the page's own engine (window.blogSearch). For each
query: bytes and files fetched with an empty cache, the time of that first search, and the time of
the same search again once its shards are in memory ("after the shards arrive"; median of 5).
"""
import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Tests", "integration"))

import search_support as support  # noqa: E402

QUERIES = ["Swift", "URLSession", "非同期処理", "JSONDecoder decode", "データ 保存", "パフォーマンス改善",
           "SwiftUI 通知", "tag:Swift 通知"]
# Misspellings the page corrects ("did you mean"); reported apart, outside the median.
TYPO_QUERIES = ["URLSesion", "NotificatonCenter", "Notifcation 通知", "Storybord"]

SEARCH = """
const done = arguments[arguments.length - 1];
const started = performance.now();
window.blogSearch.search(arguments[0]).then(
  r => done({ok: true, total: r.total, ms: performance.now() - started, stats: window.blogSearch.stats.last,
             correction: r.correction ? r.correction.query : null}),
  e => done({ok: false, error: String(e)}));
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("site")
    parser.add_argument("--json")
    args = parser.parse_args()
    try:
        browser = support.make_chromium()
    except Exception as error:  # noqa: BLE001
        print(f"search-browser: skipped ({error})")
        return
    rows = []
    try:
        with support.FixtureServer(args.site) as server:
            for query in QUERIES + TYPO_QUERIES:
                browser.get(server.url + "search/")
                cold = browser.execute_async_script(SEARCH, query)
                if not cold["ok"]:
                    raise SystemExit(f"search failed for {query}: {cold['error']}")
                warm = []
                for _ in range(5):
                    again = browser.execute_async_script(SEARCH, query)
                    warm.append(again["ms"])
                rows.append({"query": query, "hits": cold["total"], "bytes": cold["stats"]["bytes"],
                             "files": cold["stats"]["files"], "first_ms": round(cold["ms"], 1),
                             "warm_ms": round(statistics.median(warm), 1), "typo": query in TYPO_QUERIES,
                             "correction": cold.get("correction")})
    finally:
        browser.quit()
    print("    search in Chromium (cold: bytes fetched and time; warm: time once the shards are loaded)")
    for r in rows:
        fixed = f"   → {r['correction']}" if r["correction"] else ""
        print(f"      {r['query']:<22} {r['hits']:>6} hits {r['files']:>3} files {r['bytes'] / 1024:>8.1f} KB"
              f"   first {r['first_ms']:>7.1f} ms   warm {r['warm_ms']:>6.1f} ms{fixed}")
    typical = [r for r in rows if not r["typo"]]
    print(f"      median of the {len(typical)} typical queries: {statistics.median(r['bytes'] for r in typical) / 1024:.1f} KB,"
          f" first {statistics.median(r['first_ms'] for r in typical):.1f} ms")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, ensure_ascii=False, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
