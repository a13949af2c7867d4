"""The data of one data dir, opened once per process and handed to requests in their context."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datapilot.data.catalog import Catalog
    from datapilot.data.providers.live import Dataset, FetchReport
    from datapilot.data.providers.router import Router
    from datapilot.data.warehouse import Warehouse
    from datapilot.settings import Settings

# One DataAccess per warehouse file: two requests on the same data dir share the open file and
# the catalog (each is thread-safe), and a reseed can close them all (`reset`).
_opened: dict[Path, DataAccess] = {}
_opened_lock = threading.Lock()
_MODEL_FIELDS = ("llm_base_url", "llm_api_key", "llm_model")


class DataAccess:
    """A data dir's warehouse and catalog, opened on first use, and its provider router.

    Importing this module is cheap: DuckDB, pandas and the providers load on first use.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        warehouse: Warehouse | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        """`warehouse` and `catalog` default to those of `settings.data_dir`, opened on first
        use; pass them to work on others (an imported file, tests)."""
        self.settings = settings
        self._lock = threading.Lock()
        self._warehouse = warehouse
        self._catalog = catalog
        # Only the data dir's own file is watched: a given warehouse or catalog stays as given.
        self._watched = warehouse is None and catalog is None
        self._identity: tuple[int, int] | None = None  # the file the warehouse was opened on
        # Per user with imports: (everyone's catalog it extends, the user's catalog).
        self._owned: dict[str, tuple[Catalog, Catalog]] = {}
        self._views: dict[str, OwnedData] = {}

    def for_owner(self, owner: str | None) -> DataAccess:
        """This data as the user `owner` reads it: everyone's data and that user's own imports
        (`data.owners`); None: everyone's only (this object). One object per user, so what is
        cached per data object serves all their requests."""
        if owner is None:
            return self
        with self._lock:
            view = self._views.get(owner)
            if view is None:
                view = self._views[owner] = OwnedData(self, owner)
            return view

    def catalog_of(self, owner: str) -> Catalog:
        """The catalog `owner` reads: everyone's one, extended by their own imports (built once
        per change of the data; the same object when they imported nothing)."""
        catalog = self.catalog
        view = self.warehouse.viewed_by(owner)
        if not view.owns_data():
            return catalog
        with self._lock:
            held = self._owned.get(owner)
        if held is not None and held[0] is catalog:
            return held[1]
        built = catalog.with_owned(view.owned_entities(), view.coverage(), f"{view.path} ({owner})")
        with self._lock:
            self._owned[owner] = (catalog, built)
        return built

    @property
    def warehouse(self) -> Warehouse:
        """The warehouse in `settings.data_dir`, seeded from the bundled data on first use.

        A file replaced since (`data seed --force` in another process, a copy) or deleted is
        noticed here: the new one is opened (seeded if need be) and the catalog read again."""
        from datapilot.data.seeding import is_seeded, seed
        from datapilot.data.warehouse import Warehouse
        from datapilot.data.warehouse_file import file_identity

        with self._lock:
            path = self.settings.warehouse_path
            if self._warehouse is None or (self._watched and file_identity(path) != self._identity):
                if not is_seeded(path):
                    seed(path, show_progress=False)
                self._identity = file_identity(path)
                self._warehouse = Warehouse(path)
                if self._watched:
                    self._catalog = None
            return self._warehouse

    @property
    def catalog(self) -> Catalog:
        """Shipped and user vocabulary, with availability from the warehouse."""
        from datapilot.data.catalog_cache import load_catalog

        warehouse = self.warehouse
        with self._lock:
            if self._catalog is None:
                # Built once per version of the warehouse and entity files, kept in the data dir.
                self._catalog = load_catalog(warehouse, self.settings.data_dir)
            return self._catalog

    def catch_up(self) -> None:
        """Apply what other replicas added to the shared data, when this warehouse is shared
        (`data.shared`); otherwise nothing."""
        from datapilot.data.shared import shared_for

        shared = shared_for(self.settings.warehouse_path)
        if shared is not None:
            shared.catch_up(self)

    def forget_catalog(self) -> None:
        """Read the catalog again on next use: entities were added to the warehouse in place
        (an import), which the file's identity does not show."""
        with self._lock:
            if self._watched:
                self._catalog = None
                self._owned.clear()

    def live_fetching(self, offline: bool = False) -> bool:
        """Whether a live provider is configured and neither the settings nor the caller
        (`offline`, e.g. a request's own flag) forbid the network. Reads settings only: nothing
        is imported or opened, so readers can ask before every read."""
        if offline or self.settings.offline:
            return False
        return any(name.strip().lower() not in ("", "bundled") for name in self.settings.providers)

    def ensure(
        self,
        ids: Sequence[str],
        start: date | None = None,
        end: date | None = None,
        datasets: Sequence[Dataset] | None = None,
        *,
        offline: bool = False,
    ) -> FetchReport:
        """Let the configured live providers fetch what the warehouse lacks or holds stale for
        `ids`. Returns at once, opening nothing, when no live provider is configured or the
        network is forbidden (`offline`: the request's own flag); never raises for one entity."""
        from datapilot.data.providers.live import FetchReport

        if not self.live_fetching(offline):
            return FetchReport()
        return self.router().ensure(ids, start, end, datasets)

    def router(self, providers: Sequence[str] | None = None, offline: bool | None = None) -> Router:
        """The provider router over this warehouse and catalog (`providers` default to the
        configured ones; `offline` to the settings')."""
        from datapilot.data.cache import CachePolicy
        from datapilot.data.providers.router import Router, live_providers
        from datapilot.data.shared import shared_for

        router = Router(
            live_providers(self.settings, providers),
            self.warehouse,
            self.catalog,
            policy=CachePolicy.from_hours(self.settings.cache_ttl_hours),
            offline=self.settings.offline if offline is None else offline,
        )
        shared = shared_for(self.settings.warehouse_path)
        if shared is not None:  # what this replica fetches, the others get too
            router.on_stored = lambda download, provider: shared.record_download(
                self, download, provider
            )
        return router


class OwnedData(DataAccess):
    """A data dir's data as one user reads it (`DataAccess.for_owner`): the same warehouse
    file and providers, viewed with that user's imports; nothing of its own is opened."""

    def __init__(self, base: DataAccess, owner: str) -> None:
        super().__init__(base.settings)
        self.base = base
        self.owner = owner

    @property
    def warehouse(self) -> Warehouse:
        return self.base.warehouse.viewed_by(self.owner)

    @property
    def catalog(self) -> Catalog:
        return self.base.catalog_of(self.owner)

    def forget_catalog(self) -> None:
        self.base.forget_catalog()

    def for_owner(self, owner: str | None) -> DataAccess:
        return self.base.for_owner(owner)

    def catalog_of(self, owner: str) -> Catalog:
        return self.base.catalog_of(owner)


def open_data(settings: Settings) -> DataAccess:
    """The data of `settings.data_dir`, shared by every caller with the same warehouse file.

    The shared object never holds a model endpoint or key (the data needs none), so settings that
    carry a request's own key can be passed safely."""
    settings = settings.model_copy(update=dict.fromkeys(_MODEL_FIELDS))
    path = settings.warehouse_path.resolve()
    with _opened_lock:
        access = _opened.get(path)
        if access is None or access.settings != settings:
            # Same file, other settings (providers, TTLs): share the opened warehouse and catalog.
            fresh = DataAccess(settings)
            if access is not None:
                fresh._warehouse, fresh._catalog = access._warehouse, access._catalog
                fresh._identity = access._identity
            access = _opened[path] = fresh
        return access


def get_warehouse() -> Warehouse:
    """The warehouse of the environment's settings (for scripts and tests)."""
    from datapilot.settings import get_settings

    return open_data(get_settings()).warehouse


def get_catalog() -> Catalog:
    """The catalog of the environment's settings (for scripts and tests)."""
    from datapilot.settings import get_settings

    return open_data(get_settings()).catalog


def reset() -> None:
    """Forget every opened data dir and close open warehouse files (reseeding, tests)."""
    from datapilot.data.warehouse_file import close_all

    with _opened_lock:
        _opened.clear()
        close_all()
