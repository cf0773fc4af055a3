"""The notebook's web server: Starlette routes over :class:`~deduce.apps.web.table.Table`, run by uvicorn.

Safe by default: it listens on 127.0.0.1, and every request needs the random access token the
server prints in its URL (as Jupyter does; the page keeps it in a same-site cookie), so even
``--host 0.0.0.0`` for a phone on the same network lets in only whoever has the URL. Changes
are JSON posts (a form on another site cannot send one), bodies are size-limited and checked,
and a game is named by its log file's name among the ones the server itself listed or made,
never by a path from the client. A refused request gets a 4xx and a one-line message, and the
saved log is untouched (every change goes through the session, which refuses bad lines).

Pages are rendered here (Jinja2) and a small plain script (``static/app.js``) turns taps into
the lines the terminal assistant reads and swaps in the re-rendered board: no build step, no
CDN, it works offline at a table.
"""

from __future__ import annotations

import json
import re
import secrets
import socket
import sys
import threading
from collections.abc import Awaitable, Callable, Collection
from pathlib import Path
from typing import Any, TextIO

from deduce.apps.assist.session import GameAdapter, GameAssistant, assisted_games
from deduce.apps.web.table import Reply, Table
from deduce.errors import DeduceError

__all__ = ["Server", "create_app", "serve_table", "serve_folder", "MAX_BODY", "MAX_UPLOAD", "next_log_path"]

#: the largest request body for a line or a new game, in bytes.
MAX_BODY = 16 * 1024
#: the largest uploaded log, in bytes (a long Clue evening is under 50 KB).
MAX_UPLOAD = 2 * 1024 * 1024
_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,100}$")
_COOKIE = "deduce_token"
_HERE = Path(__file__).parent
_STATUS = {"ok": 200, "held": 409, "refused": 422, "failed": 500}
_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class HTTPRefusal(Exception):
    """A request refused with a status and a one-line message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Server:
    """The games one server offers: fixed ones (``deduce assist --web``), or a folder's, made
    and resumed on demand (``deduce serve``), by log file name."""

    def __init__(self, tables: dict[str, Table] | None = None, folder: Path | None = None,
                 solver: str = "auto", token: str | None = None) -> None:
        self.tables: dict[str, Table] = dict(tables or {})
        self.folder = folder
        self.solver = solver
        self.token = token or secrets.token_urlsafe(24)
        self.lock = threading.Lock()

    @property
    def single(self) -> str | None:
        """The one game served, when the server serves one (``deduce assist --web``)."""
        return next(iter(self.tables)) if self.folder is None and len(self.tables) == 1 else None

    def saved(self) -> list[dict[str, str]]:
        """The folder's saved games and the server's own, by file name."""
        out: dict[str, dict[str, str]] = {}
        if self.folder is not None:
            for path in sorted(self.folder.glob("*.json")):
                if _SLUG.match(path.stem):
                    game = _peek_game(path)
                    if game in assisted_games():
                        out[path.stem] = {"slug": path.stem, "game": game, "file": path.name}
        for slug, table in self.tables.items():
            out[slug] = {"slug": slug, "game": table.game, "file": table.path.name}
        return sorted(out.values(), key=lambda d: d["slug"])

    def table(self, slug: str) -> Table:
        """The game named ``slug``: served already, or resumed from the folder (a 404 otherwise)."""
        if not _SLUG.match(slug):
            raise HTTPRefusal(404, f"no game {slug[:60]!r} here")
        with self.lock:
            if slug in self.tables:
                return self.tables[slug]
            if self.folder is None:
                raise HTTPRefusal(404, f"no game {slug!r} here")
            names = {p.name for p in self.folder.iterdir()}  # by name from the listing, never a client path
            if f"{slug}.json" not in names:
                raise HTTPRefusal(404, f"no saved game {slug!r} in this folder")
            path = self.folder / f"{slug}.json"
            game = _peek_game(path)
            if game not in assisted_games():
                raise HTTPRefusal(422, f"{path.name} is not a log of a game with a table assistant")
            try:
                adapter, solver = make_adapter(game, self.solver)
                self.tables[slug] = Table.open(adapter, solver, path)
            except DeduceError as exc:
                raise HTTPRefusal(422, str(exc)) from None
            return self.tables[slug]

    def new(self, game: str) -> str:
        """A new game of ``game`` saved in the folder under the next free name; its slug."""
        if self.folder is None:
            raise HTTPRefusal(404, "this server serves one game; start 'deduce serve' to pick another")
        if game not in assisted_games():
            raise HTTPRefusal(422, f"no table assistant for {game[:60]!r}; games with one: {', '.join(assisted_games())}")
        with self.lock:
            path = next_log_path(self.folder, game, taken=set(self.tables))
            adapter, solver = make_adapter(game, self.solver)
            self.tables[path.stem] = Table.open(adapter, solver, path)
            return path.stem


def next_log_path(folder: Path, game: str, taken: Collection[str] = ()) -> Path:
    """``folder/GAME-N.json`` with the smallest N not saved nor being set up (no clock in names)."""
    n = 1
    while (folder / f"{game}-{n}.json").exists() or f"{game}-{n}" in taken:
        n += 1
    return folder / f"{game}-{n}.json"


def _peek_game(path: Path) -> str | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data.get("game") if isinstance(data, dict) and isinstance(data.get("game"), str) else None


def make_adapter(game: str, solver: str) -> tuple[GameAdapter, Any]:
    """The adapter and solver ``deduce assist GAME`` would use (Clue's exact scorer included)."""
    import solvers
    from deduce.apps.assist.adapters import table_adapter

    adapter = table_adapter(game, top=5)
    backends = adapter.backends if solver == "auto" else None
    return adapter, solvers.get(solver, **({"order": backends} if backends else {}))


# -- the app ----------------------------------------------------------------------------------
def create_app(server: Server) -> Any:
    """The Starlette app of ``server`` (every route behind the token)."""
    import jinja2
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import (
        HTMLResponse,
        JSONResponse,
        PlainTextResponse,
        RedirectResponse,
        Response,
    )
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(_HERE / "templates"), autoescape=True)

    def render(name: str, **context: Any) -> str:
        return env.get_template(name).render(**context)

    def board(view: dict[str, Any]) -> str:
        return render("board.html", v=view)

    def refused(exc: HTTPRefusal) -> Response:
        return JSONResponse({"outcome": "refused", "message": f"error: {exc}"}, status_code=exc.status)

    async def body(request: Request, limit: int) -> dict[str, Any]:
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise HTTPRefusal(415, "send JSON (Content-Type: application/json)")
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            raise HTTPRefusal(413, f"the request is larger than {limit} bytes")
        data = bytearray()
        async for chunk in request.stream():
            data += chunk
            if len(data) > limit:
                raise HTTPRefusal(413, f"the request is larger than {limit} bytes")
        try:
            parsed = json.loads(bytes(data).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise HTTPRefusal(400, f"the request is not JSON ({exc})") from None
        if not isinstance(parsed, dict):
            raise HTTPRefusal(400, "the request must be a JSON object")
        return parsed

    def guarded(fn: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
        async def route(request: Request) -> Response:
            try:
                return await fn(request)
            except HTTPRefusal as exc:
                return refused(exc)
        return route

    def answer(table: Table, reply: Reply) -> Response:
        view = table.view()
        return JSONResponse({"outcome": reply.outcome, "message": reply.message, "state": view, "board": board(view)},
                            status_code=_STATUS[reply.outcome])

    # -- routes ------------------------------------------------------------------------------
    async def index(request: Request) -> Response:
        if server.single is not None:
            return RedirectResponse(f"/t/{server.single}", status_code=303)
        return HTMLResponse(render("index.html", games=assisted_games(), saved=server.saved()))

    async def page(request: Request) -> Response:
        table = server.table(request.path_params["slug"])
        view = await run_in_threadpool(table.view)
        state = json.dumps(view).replace("</", "<\\/")
        return HTMLResponse(render("page.html", v=view, slug=request.path_params["slug"], state=state,
                                   board=board(view), many=server.single is None))

    async def state(request: Request) -> Response:
        table = server.table(request.path_params["slug"])
        view = await run_in_threadpool(table.view)
        return JSONResponse({"state": view, "board": board(view)})

    async def line(request: Request) -> Response:
        table = server.table(request.path_params["slug"])
        data = await body(request, MAX_BODY)
        text = data.get("line")
        if not isinstance(text, str) or set(data) != {"line"}:
            raise HTTPRefusal(400, "send {\"line\": \"...\"}, the line the terminal assistant would read")
        reply = await run_in_threadpool(table.line, text)
        return await run_in_threadpool(answer, table, reply)

    async def why(request: Request) -> Response:
        table = server.table(request.path_params["slug"])
        card = request.query_params.get("card", "")
        if not card.isdigit() or len(card) > 6:
            raise HTTPRefusal(400, "why takes a card number (?card=N)")
        try:
            text = await run_in_threadpool(table.why, int(card))
        except DeduceError as exc:
            raise HTTPRefusal(422, str(exc)) from None
        return JSONResponse({"outcome": "ok", "message": text})

    async def download(request: Request) -> Response:
        table = server.table(request.path_params["slug"])
        if table.assistant.header is None:
            raise HTTPRefusal(409, "nothing saved yet: finish the setup first")
        text = json.dumps(table.assistant.log(), indent=1, ensure_ascii=False) + "\n"
        return Response(text, media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{table.path.name}"'})

    async def upload(request: Request) -> Response:
        table = server.table(request.path_params["slug"])
        data = await body(request, MAX_UPLOAD)
        if set(data) != {"log"}:
            raise HTTPRefusal(400, "send {\"log\": {...}}, a game log as 'deduce solve' reads it")
        reply = await run_in_threadpool(table.replace, data["log"])
        return await run_in_threadpool(answer, table, reply)

    async def new(request: Request) -> Response:
        data = await body(request, MAX_BODY)
        game = data.get("game")
        if not isinstance(game, str) or set(data) != {"game"}:
            raise HTTPRefusal(400, "send {\"game\": \"clue\"}")
        slug = await run_in_threadpool(server.new, game)
        return JSONResponse({"outcome": "ok", "url": f"/t/{slug}"})

    routes = [
        Route("/", guarded(index)),
        Route("/new", guarded(new), methods=["POST"]),
        Route("/t/{slug}", guarded(page)),
        Route("/t/{slug}/state", guarded(state)),
        Route("/t/{slug}/line", guarded(line), methods=["POST"]),
        Route("/t/{slug}/why", guarded(why)),
        Route("/t/{slug}/log", guarded(download)),
        Route("/t/{slug}/upload", guarded(upload), methods=["POST"]),
        Mount("/static", StaticFiles(directory=_HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes)

    async def not_found(request: Request, exc: Exception) -> Response:
        return PlainTextResponse("error: no such page", status_code=404)

    app.add_exception_handler(404, not_found)

    async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
        """The token check and the security headers, around every request."""
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        request = Request(scope)
        given = (request.query_params.get("token") or request.headers.get("x-deduce-token")
                 or request.cookies.get(_COOKIE) or "")
        ok = secrets.compare_digest(given.encode(), server.token.encode())
        if not ok:
            what = "a wrong access token" if given else "no access token"
            response: Response = PlainTextResponse(
                f"error: {what}: open the URL the server printed (it ends in ?token=...)", status_code=403)
            await _with_headers(response)(scope, receive, send)
            return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(k.lower().encode(), v.encode()) for k, v in _HEADERS.items()]
                if request.query_params.get("token"):
                    headers.append((b"set-cookie", f"{_COOKIE}={server.token}; Path=/; HttpOnly; SameSite=Strict".encode()))
                message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, send_with_headers)

    asgi.server = server  # type: ignore[attr-defined]
    return asgi


def _with_headers(response: Any) -> Any:
    for k, v in _HEADERS.items():
        response.headers[k] = v
    return response


# -- running ----------------------------------------------------------------------------------
def serve_table(assistant: GameAssistant, path: Path, host: str = "127.0.0.1", port: int = 8765,
                browser: bool = True, out: TextIO | None = None) -> int:
    """Serve one game (``deduce assist GAME --web``) until interrupted."""
    slug = path.stem if _SLUG.match(path.stem) else "game"
    return _run(Server({slug: Table(assistant, path)}), host, port, browser, out or sys.stdout, f"/t/{slug}")


def serve_folder(folder: Path, solver: str = "auto", host: str = "127.0.0.1", port: int = 8765,
                 browser: bool = True, out: TextIO | None = None) -> int:
    """Serve every game of a folder, and new ones (``deduce serve``), until interrupted."""
    if not folder.is_dir():
        raise DeduceError(f"--dir {str(folder)!r} is not a folder")
    return _run(Server(folder=folder.resolve(), solver=solver), host, port, browser, out or sys.stdout, "/")


def _run(server: Server, host: str, port: int, browser: bool, out: TextIO, start: str) -> int:
    try:
        import uvicorn
    except ImportError:
        raise DeduceError("the browser notebook needs the 'web' extra: pip install -e '.[web]'") from None
    if not 0 <= port <= 65535:
        raise DeduceError(f"--port {port}: a port is 0 to 65535")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)  # from now on a visit to the printed URL waits for the server, never fails
    except OSError as exc:
        sock.close()
        raise DeduceError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None
    bound = sock.getsockname()[1]
    local = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    url = f"http://{local}:{bound}{start}?token={server.token}"
    print(f"the notebook is at {url}", file=out)
    if host in ("0.0.0.0", "::"):
        print(f"on a phone on the same network: http://{_lan_address()}:{bound}{start}?token={server.token}", file=out)
    print("press Ctrl-C to stop (every change is already saved)", file=out)
    out.flush()
    config = uvicorn.Config(create_app(server), log_level="warning", lifespan="off")
    uv = uvicorn.Server(config)
    if browser:
        threading.Thread(target=_open_when_started, args=(uv, url), daemon=True).start()
    uv.run(sockets=[sock])
    return 0


def _open_when_started(uv: Any, url: str) -> None:
    import time
    import webbrowser

    for _ in range(100):
        if uv.started:
            webbrowser.open(url)
            return
        time.sleep(0.1)


def _lan_address() -> str:
    """This machine's address on the local network (a UDP 'connect' sends nothing)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return str(s.getsockname()[0])
    except OSError:
        return "THIS-COMPUTER"
    finally:
        s.close()
