"""`squadron-cad serve`: the customizer page on 127.0.0.1, from the standard library.

Safety (a page on any other site must not drive it): bound to 127.0.0.1 only; a Host
header that is not a loopback name is refused (DNS rebinding); a POST from another
origin, or not JSON, is refused; bodies over 64 KB are refused; only files a build's
records list are served; one build at a time; a build the page stops listening to, or
the server's own stop, is cancelled.
"""

from __future__ import annotations

import base64
import hashlib
import json
import mimetypes
import re
import select
import shutil
import socket
import sys
import tempfile
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, unquote, urlsplit

from squadron_cad.errors import InputError
from squadron_cad.web import BadRequest, downloads
from squadron_cad.web.builds import WHAT, Builds, Busy, Job

# The page's questions need the resolver and the kits (pydantic, numpy, shapely: a quarter
# of a second of CPU and more). They are imported where they are used, after the server
# listens: the warm-up loads them while the browser loads the page.

if TYPE_CHECKING:
    from squadron_cad.web.api import PageState

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 64 * 1024
WARM_UP_WAIT_S = 10.0  # a fit asked during the warm-up waits for it, up to this
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
RESERVED = ("kit", "tin")  # the address's keys that are not parameters
_HOST = re.compile(r"^(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$", re.IGNORECASE)
TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".html": "text/html; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
    ".md": "text/markdown; charset=utf-8",
    ".csv": "text/csv; charset=utf-8",
    ".stl": "model/stl",
    ".3mf": "model/3mf",
    ".yaml": "application/yaml",
    ".scad": "text/plain; charset=utf-8",
    ".pdf": "application/pdf",
}


def content_security_policy(page: str) -> str:
    """Everything from this server; the one inline script (the import map) by its hash."""
    hashes = [
        "'sha256-" + base64.b64encode(hashlib.sha256(m.encode()).digest()).decode() + "'"
        for m in re.findall(r'<script type="importmap">(.*?)</script>', page, re.S)
    ]
    return (
        "default-src 'self'; script-src 'self' " + " ".join(hashes) + "; "
        "img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    )


class Customizer(ThreadingHTTPServer):
    """The server and what it owns: the builds, their folder and its scratch folder."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int, out: Path, kit: str | None) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.out = out
        self.first_kit = kit
        self.builds = Builds()
        self.scratch = Path(tempfile.mkdtemp(prefix="squadron-cad-serve-"))
        self.page = (STATIC / "index.html").read_text()
        self.policy = content_security_policy(self.page)
        self._warm: tuple[str, dict[str, Any]] | None = None  # the warm-up's fit, once
        self._warm_lock = threading.Lock()
        self._warmed = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A page that went away while it was answered (a tab closed, a request the page
        dropped) is not the server's error: no traceback in the maker's terminal for it."""
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)

    def kit_folder(self, name: str) -> Path:
        from squadron_cad.kit import load_kit

        return self.out / load_kit(name).name

    def warm_up(self) -> None:
        """While the browser opens the page: load the page's library, the first kit's form
        and its fit, so the page's first answers come at the speed of the later ones. The
        fit is kept for the page's first ask of that same state, once."""
        try:
            from squadron_cad.web import api

            name = api.form(self.first_kit)["kit"]
            asked = {"kit": name, "changes": {}}
            answer = api.fit(api.PageState.from_json(asked))
            with self._warm_lock:
                self._warm = (_state_key(asked), answer)
        except Exception:
            return  # the page's own questions say what is wrong
        finally:
            self._warmed.set()

    def fit(self, body: Any) -> dict[str, Any]:
        """The fit of the page's state (the warm-up's, the first time it is asked)."""
        from squadron_cad.web import api

        self._warmed.wait(WARM_UP_WAIT_S)  # not the same work twice at once
        with self._warm_lock:
            warm, self._warm = self._warm, None
        if warm is not None and warm[0] == _state_key(body):
            return warm[1]
        return api.fit(api.PageState.from_json(body))

    def close(self) -> None:
        self.builds.shutdown()
        self.server_close()
        shutil.rmtree(self.scratch, ignore_errors=True)


class Handler(BaseHTTPRequestHandler):
    server: Customizer
    server_version = "squadron-cad"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the maker's terminal shows the URL, not every request."""

    # ---- the gate every request passes -----------------------------------------------

    def _allowed(self) -> bool:
        host = self.headers.get("Host", "")
        if not _HOST.match(host):
            self._error(HTTPStatus.MISDIRECTED_REQUEST, "not a loopback host name")
            return False
        return True

    def _same_origin(self) -> bool:
        origin = self.headers.get("Origin")
        if origin is None:  # a browser sends one with every POST; scripts on the machine
            return True  # do not, and may ask what the page asks
        parts = urlsplit(origin)
        port = self.server.server_address[1]
        ours = parts.scheme == "http" and _HOST.match(parts.netloc or "") is not None
        return ours and (parts.port or 80) == port

    def _body(self) -> tuple[bool, Any]:
        """(True, the JSON body) or (False, None) with the refusal sent."""
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            self._error(HTTPStatus.LENGTH_REQUIRED, "a body needs its Content-Length")
            return False, None
        if int(length) > MAX_BODY:
            self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "request bodies are at most 64 KB")
            return False, None
        if self.headers.get_content_type() != "application/json":
            self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send JSON")
            return False, None
        try:
            return True, json.loads(self.rfile.read(int(length)) or b"null")
        except ValueError:
            self._error(HTTPStatus.BAD_REQUEST, "the body is not JSON")
            return False, None

    # ---- answers ------------------------------------------------------------------------

    def _send(
        self, status: int, body: bytes, kind: str, extra: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, data: Any, status: int = HTTPStatus.OK) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _error(self, status: int, message: str) -> None:
        self._json({"ok": False, "error": message}, status)

    # ---- GET ----------------------------------------------------------------------------

    def do_GET(self) -> None:
        if not self._allowed():
            return
        parts = urlsplit(self.path)
        path, query = parts.path, dict(parse_qsl(parts.query, keep_blank_values=True))
        try:
            self._route_get(path, query, parts.query)
        except BadRequest as error:
            self._error(HTTPStatus.BAD_REQUEST, str(error))
        except InputError as error:
            self._error(HTTPStatus.BAD_REQUEST, str(error))

    def do_HEAD(self) -> None:
        self.do_GET()

    def _route_get(self, path: str, query: dict[str, str], raw_query: str) -> None:
        if path == "/":
            self._page()
        elif path.startswith("/static/"):
            self._static(path.removeprefix("/static/"))
        elif path.startswith("/files/"):
            self._file(path.removeprefix("/files/"))
        else:
            self._route_library(path, query, raw_query)

    def _page(self) -> None:
        page = self.server.page.encode()
        headers = {"Content-Security-Policy": self.server.policy, "X-Frame-Options": "DENY"}
        self._send(HTTPStatus.OK, page, TYPES[".html"], headers)

    def _route_library(self, path: str, query: dict[str, str], raw_query: str) -> None:
        """The answers that need the resolver and the kits."""
        from squadron_cad.kit import load_kit
        from squadron_cad.web import api

        if path == "/api/kits":
            self._json({"kits": api.kits_list(), "first": api.first_kit(self.server.first_kit)})
        elif path == "/api/form":
            self._json(api.form(query.get("kit") or self.server.first_kit))
        elif path == "/api/built":
            folder = self.server.kit_folder(query.get("kit", ""))
            running = self.server.builds.running
            pid = running.process.pid if running and running.process.poll() is None else None
            self._json({**downloads.built(folder), "busy": self._busy(), "build_pid": pid})
        elif path == "/params.yaml":
            state = self._state_from_query(raw_query)
            body = api.params_yaml(state).encode()
            self._send(HTTPStatus.OK, body, TYPES[".yaml"], _attachment(api.PARAMS_NAME))
        elif path.startswith("/zip/") and path.endswith(".zip"):
            name = load_kit(path.removeprefix("/zip/").removesuffix(".zip")).name
            data = downloads.kit_zip(self.server.kit_folder(name), name)
            self._send(HTTPStatus.OK, data, "application/zip", _attachment(f"{name}.zip"))
        else:
            self._error(HTTPStatus.NOT_FOUND, "not found")

    def _busy(self) -> str:
        running = self.server.builds.running
        if running is None or running.process.poll() is not None:
            return ""
        return f"{running.job.what} of {running.job.kit}"

    def _state_from_query(self, raw: str) -> PageState:
        from squadron_cad.web import api

        pairs = parse_qsl(raw, keep_blank_values=True)
        given = dict(pairs)
        changes = {k: v for k, v in pairs if k not in RESERVED}
        return api.PageState.from_json(
            {"kit": given.get("kit", ""), "tin": given.get("tin") or None, "changes": changes}
        )

    def _static(self, rel: str) -> None:
        rel = unquote(rel)
        target = (STATIC / rel).resolve()
        if STATIC not in target.parents or not target.is_file():
            self._error(HTTPStatus.NOT_FOUND, "not found")
            return
        kind = TYPES.get(target.suffix, mimetypes.guess_type(target.name)[0] or "text/plain")
        self._send(HTTPStatus.OK, target.read_bytes(), kind)

    def _file(self, rest: str) -> None:
        """/files/<kit>/<path listed by its records>: anything else is 404."""
        name, _, rel = rest.partition("/")
        try:
            folder = self.server.kit_folder(unquote(name))
        except InputError:
            self._error(HTTPStatus.NOT_FOUND, "not found")
            return
        found = downloads.listed_path(folder, unquote(rel))
        if found is None:
            self._error(HTTPStatus.NOT_FOUND, "not found")
            return
        kind = TYPES.get(found.suffix, "application/octet-stream")
        self._send(HTTPStatus.OK, found.read_bytes(), kind, _attachment(found.name))

    # ---- POST ---------------------------------------------------------------------------

    def do_POST(self) -> None:
        if not self._allowed():
            return
        if not self._same_origin():
            self._error(HTTPStatus.FORBIDDEN, "cross-origin requests are refused")
            return
        read, body = self._body()
        if not read:
            self.close_connection = True  # the unread body must not be taken as a request
            return
        path = urlsplit(self.path).path
        try:
            if path == "/api/fit":
                self._json(self.server.fit(body))
            elif path == "/api/build":
                self._build(body)
            elif path == "/api/params":
                from squadron_cad.web.opened import open_params

                self._json(open_params(body))
            elif path == "/api/cancel":
                self._json({"ok": True, "cancelled": self.server.builds.cancel()})
            else:
                self._error(HTTPStatus.NOT_FOUND, "not found")
        except BadRequest as error:
            self._error(HTTPStatus.BAD_REQUEST, str(error))

    def _build(self, body: Any) -> None:
        from squadron_cad.web import api

        state = api.PageState.from_json(body)
        what = body.get("what", "kit") if isinstance(body, dict) else None
        if what not in WHAT:
            raise BadRequest(f"what: one of {', '.join(WHAT)}")
        keep_failed = body.get("keep_failed", False)
        if not isinstance(keep_failed, bool):
            raise BadRequest("keep_failed: true or false")
        folder = self.server.kit_folder(state.kit.name)
        scratch = self.server.scratch / f"{threading.get_ident()}"
        scratch.mkdir(exist_ok=True)
        params = scratch / api.PARAMS_NAME
        params.write_text(api.params_yaml(state))
        job = Job(what, state.kit.name, state.tin, params, folder, keep_failed=keep_failed)
        try:
            running = self.server.builds.start(job)
        except Busy as error:
            self._error(HTTPStatus.CONFLICT, str(error))
            return
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        try:
            for event in self.server.builds.stream(running):
                if _closed_by_peer(self.connection):  # a write would succeed once more
                    raise ConnectionResetError("the page closed the stream")
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.server.builds.cancel("the page closed")  # nobody is watching it any more
        self.close_connection = True
        self.server.builds.prepare()  # the next build's runner, its imports done


def _closed_by_peer(connection: socket.socket) -> bool:
    """Has the page closed its end (an end of file waiting to be read)? A closed tab is
    noticed by the next event or heartbeat, not two writes later."""
    try:
        readable, _, _ = select.select([connection], [], [], 0)
        return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


def _attachment(name: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{name}"'}


def _state_key(body: Any) -> str:
    return json.dumps(body, sort_keys=True)


def serve(port: int, out: Path, kit: str | None, announce: Any = print) -> None:
    """Serve until interrupted; a running build is cancelled on the way out."""
    if kit is not None:
        from squadron_cad.kit import load_kit

        kit = load_kit(kit).name  # an unknown kit is refused before anything listens
    server = Customizer(port, out, kit)
    announce(f"squadron-cad: the customizer is at {server.url} (Ctrl-C stops it)")
    sys.stdout.flush()
    server.builds.prepare()  # the first build's runner loads its imports meanwhile
    threading.Thread(target=server.warm_up, daemon=True).start()
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.close()
