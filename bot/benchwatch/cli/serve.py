"""``benchwatch serve``: the built site over HTTP on this machine, where its links and search work as published.

A MkDocs site links its pages as folders (``benchmarks/x/``), which a browser opening files from disk shows as
directory listings; served, every link opens its page. Only the loopback address is bound unless asked.
"""

from __future__ import annotations

import argparse
import errno
import functools
from pathlib import Path

from benchwatch.errors import InputError


def built() -> tuple[str, str]:
    """Where ``run`` (``--sample``, live) and ``run --input`` build their sites by default."""
    from benchwatch.api import INPUT_SITE

    return "_site", INPUT_SITE


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument(
        "--site-out",
        default=None,
        help=f"the built site to serve (default: the newer of {' and '.join(built())}, where `run` and "
        "`run --input` build theirs)",
    )
    parser.add_argument("--port", type=int, default=8000, help="the port (default: 8000; 0 picks a free one)")
    parser.add_argument(
        "--host", default="127.0.0.1", help="the address to bind (default: 127.0.0.1, this machine only)"
    )


def server(site: str | Path, host: str = "127.0.0.1", port: int = 8000):
    """An HTTP server of the built site in ``site`` (call ``serve_forever``; ``server_address`` says where)."""
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    root = Path(site)
    if not (root / "index.html").is_file():
        raise InputError(
            str(root),
            "no built site here (index.html not found): build one with `benchwatch run --sample`, or `benchwatch "
            f"run --input FILE` (its site goes to {built()[1]})",
        )

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args) -> None:
            pass

    try:
        return ThreadingHTTPServer((host, port), functools.partial(Quiet, directory=str(root)))
    except OSError as exc:
        causes = {
            errno.EADDRINUSE: "is in use (another server?): pick another with --port, or --port 0 for a free one",
            errno.EACCES: "is not open to this user (below 1024: the system's): pick another with --port",
        }
        if exc.errno not in causes:
            raise
        raise InputError("--port", f"port {port} on {host} {causes[exc.errno]}", value=port) from None


def built_site(given: str | None) -> str:
    """The site to serve: ``given`` (--site-out), else the newer of the sites ``run`` and ``run --input`` build (the
    first where neither is built: its error says how to build one)."""
    if given is not None:
        return given
    places = built()
    found = [p for p in places if (Path(p) / "index.html").is_file()]
    return max(found, key=lambda p: (Path(p) / "index.html").stat().st_mtime) if found else places[0]


def handle(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    if not 0 <= args.port <= 65535:
        raise InputError("--port", "expected a port from 0 to 65535", value=args.port)
    site = built_site(args.site_out)
    httpd = server(site, args.host, args.port)
    host, port = httpd.server_address[:2]
    print(f"serving {site} at http://{host}:{port}/ (Ctrl-C stops)", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
    return 0
