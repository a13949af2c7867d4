"""Watches: sentences read into `WatchSpec`s (reports and alerts), conditions evaluated over a
series, backtests over history; the scheduler and the delivery channels build on them.

The vocabulary is `datapilot.core.watches`; the rows are `datapilot.store.watches`.
"""
