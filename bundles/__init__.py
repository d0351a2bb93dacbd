"""Study bundles: the directory format researchers keep in git (DESIGN.md).

Import checks everything first and writes nothing unless all is well; export
writes the same format back, deterministically.
"""

from .problems import BundleInvalid, Problem

__all__ = ["BundleInvalid", "Problem"]
