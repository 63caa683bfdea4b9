"""Serves this folder (gpubench's page) on http://127.0.0.1:8000/ with the headers that make it
cross-origin isolated (Cross-Origin-Opener-Policy and Cross-Origin-Embedder-Policy): browsers
then step the page's clock by about 5 us instead of 100 us, which the short benchmarks need.
`python3 -m http.server` sends neither header. Usage: python3 serve.py [PORT]"""

import functools
import http.server
import os
import sys


class IsolatingHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files with the isolation headers, and .wasm with its MIME type (streaming
    compilation needs it)."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript"}

    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    here = os.path.dirname(os.path.abspath(__file__))
    handler = functools.partial(IsolatingHandler, directory=here)
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(f"gpubench's page: http://127.0.0.1:{port}/ (Ctrl-C stops)")
        server.serve_forever()


if __name__ == "__main__":
    main()
