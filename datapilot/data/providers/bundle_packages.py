"""The installed packages the bundled data is read from, and their versions: what every
process checks its warehouse against (`seeding.is_seeded`), without loading the bundled
provider's readers (pandas)."""

from __future__ import annotations

from importlib import metadata

# Packages whose shipped files are read, with their distribution names (for the version stamp).
PACKAGES = {
    "skfolio": "skfolio",
    "arch": "arch",
    "bokeh_sampledata": "bokeh-sampledata",
    "statsmodels": "statsmodels",
}
SOURCES = ("skfolio", "arch", "bokeh-sampledata", "statsmodels")


def package_versions() -> dict[str, str]:
    """Installed versions of the packages the bundle is read from ("missing" when not)."""
    versions = {}
    for distribution in PACKAGES.values():
        try:
            versions[distribution] = _version(distribution)
        except metadata.PackageNotFoundError:
            versions[distribution] = "missing"
    return versions


def _version(distribution: str) -> str:
    """`metadata.version`, read from the `Version:` line of the metadata's header: the
    standard library parses the whole file as an e-mail message (~2 ms per package)."""
    found = metadata.distribution(distribution)
    text = found.read_text("METADATA") or ""
    for line in text.splitlines():
        if not line:  # the header ends at the first empty line
            break
        if line.startswith("Version:"):
            return line.removeprefix("Version:").strip()
    return found.version
