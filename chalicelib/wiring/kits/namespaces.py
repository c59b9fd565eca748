"""What namespaces are built from."""

from chalicelib.namespaces.adapters.namespace_repository import namespace_units
from chalicelib.namespaces.services.namespaces import Namespaces
