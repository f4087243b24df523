"""BENCHMARKS.md's parts, for ../report.py (make bench): measure (the
programs run: times, callgrind's instructions), fake (the fake provider's
tables and targets), chart (BENCHMARKS.svg), softroce, python and bindings
(the Soft-RoCE guest's sections), page (BENCHMARKS.md's text), stats (the
median and the per-round ratios the sections share)."""
