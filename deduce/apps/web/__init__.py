"""The detective's notebook in a browser: ``deduce assist GAME --web`` and ``deduce serve``.

The page drives the terminal assistant's own session (:class:`~deduce.apps.assist.session.GameAssistant`)
and adapters: :mod:`.forms` reads each adapter's line grammar into pickers, :mod:`.table` holds
one game and its log file, :mod:`.server` is the Starlette app and its security (a token on
every request, JSON bodies of limited size, games named by log file name only). Needs the
``web`` extra (Starlette, uvicorn, Jinja2); nothing here is imported by the rest of deduce.
"""

from deduce.apps.web.table import Reply, Table

__all__ = ["Reply", "Table"]
