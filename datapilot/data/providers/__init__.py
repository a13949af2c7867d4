"""Where data comes from: the bundled data and live providers (Yahoo, FRED, SEC, akshare, datahub).

Live providers are plugins (`register_providers`, see `plugin.py`); a request reaches them through
its data's router (`DataAccess.router()`), whose `ensure(ids, start, end, datasets)` readers call
before reading the warehouse.
"""
