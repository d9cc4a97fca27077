"""The OpenAPI 3.0 document of the JSON API (served at /api/v1/openapi.json): `document()`
(`web.openapi.spec`), built of `web.openapi.parts` and the component schemas
(`web.openapi.schemas`). Pure.
"""

from web.openapi.schemas import SCHEMAS
from web.openapi.spec import document

__all__ = ["SCHEMAS", "document"]
