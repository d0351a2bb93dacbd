"""Django admin for studies: what researchers use to run them (DESIGN.md).

Importing the modules registers their model admins.
"""

from . import documents, studies, taxonomies

__all__ = ["documents", "studies", "taxonomies"]
