"""Helpers shared by the tests: servers on loopback, scripted models, case builders and paths.

Imported as `support.<module>` (tests/ is on `sys.path` through tests/conftest.py)."""
