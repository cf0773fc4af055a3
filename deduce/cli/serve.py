"""``deduce serve``: the detective's notebook in a browser, picking the game in the page.

Every game with a table assistant can be started or resumed from the page; each game is saved
as a player-view log in ``--dir`` (the same log ``deduce solve`` reads). ``deduce assist GAME
--web`` serves one game instead. Needs the ``web`` extra (``pip install -e '.[web]'``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["register", "run", "add_server_options"]


def add_server_options(p: argparse.ArgumentParser) -> None:
    """``--host``, ``--port`` and ``--no-browser``, shared with ``deduce assist --web``."""
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only; "
                   "0.0.0.0 lets a phone on the same network in, with the access token in the URL)")
    p.add_argument("--port", type=int, default=8765, help="port to listen on (default 8765; 0: any free port)")
    p.add_argument("--no-browser", action="store_true", help="do not open the page (its URL is printed either way)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="the table assistant in a browser: pick a game in the page (needs the 'web' extra)")
    p.add_argument("--dir", default=".", help="folder the games are saved in and resumed from (default: here)")
    p.add_argument("--solver", default="auto", help="solver backend (default auto)")
    add_server_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from deduce.apps.web.server import serve_folder  # lazy: the 'web' extra is optional

    return serve_folder(Path(args.dir), args.solver, host=args.host, port=args.port, browser=not args.no_browser)
