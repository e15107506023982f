"""``benchwatch serve``: the built site over HTTP on this machine, where its links and search work as published.

A MkDocs site links its pages as folders (``benchmarks/x/``), which a browser opening files from disk shows as
directory listings; served, every link opens its page. Only the loopback address is bound unless asked.
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from benchwatch.errors import InputError


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument("--site-out", default="_site", help="the built site to serve (default: _site)")
    parser.add_argument("--port", type=int, default=8000, help="the port (default: 8000; 0 picks a free one)")
    parser.add_argument(
        "--host", default="127.0.0.1", help="the address to bind (default: 127.0.0.1, this machine only)"
    )


def server(site: str | Path, host: str = "127.0.0.1", port: int = 8000):
    """An HTTP server of the built site in ``site`` (call ``serve_forever``; ``server_address`` says where)."""
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    root = Path(site)
    if not (root / "index.html").is_file():
        raise InputError(str(root), "no built site here (index.html not found): run `benchwatch run --sample` first")

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args) -> None:
            pass

    return ThreadingHTTPServer((host, port), functools.partial(Quiet, directory=str(root)))


def handle(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    if not 0 <= args.port <= 65535:
        raise InputError("--port", "expected a port from 0 to 65535", value=args.port)
    httpd = server(args.site_out, args.host, args.port)
    host, port = httpd.server_address[:2]
    print(f"serving {args.site_out} at http://{host}:{port}/ (Ctrl-C stops)", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
    return 0
