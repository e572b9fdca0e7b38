"""The HTTP API (/v1) and the web chat, served by one FastAPI app."""

from tellmemore.service.app import app_from_env, create_app

__all__ = ["app_from_env", "create_app"]
