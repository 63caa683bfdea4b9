#!/usr/bin/env python3
"""A small client of the Chrome DevTools protocol, on the standard library alone: it starts a
headless Chromium, opens a page and evaluates JavaScript in it, so a test can drive a page the
way a person's browser would run it, with no browser-automation framework to install.

The protocol is JSON over one WebSocket (RFC 6455): the client sends {"id", "method",
"params"} and the browser answers {"id", "result"} or {"id", "error"}, with events ({"method",
"params"}) between. Only what a test needs is here: text frames, masked from the client as the
RFC requires, frames of any length, continuation frames, and the close and ping frames.

    with Browser.start(chromium) as browser:
        page = browser.new_page("about:blank")
        page.evaluate("navigator.gpu !== undefined")

Chromium is started with --enable-unsafe-webgpu (WebGPU on Linux, where it is not on by
default), a fresh profile in a temporary directory, and --remote-debugging-port=0: the port
it chose is read from the line it prints on stderr.
"""

import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.parse

# The flags of a headless run: WebGPU on, a software GPU allowed (SwiftShader where the machine
# has no GPU), no first-run dialogs, no sandbox (CI runs as root, where Chromium's sandbox
# refuses to start).
FLAGS = [
    "--headless=new",
    "--enable-unsafe-webgpu",
    "--enable-unsafe-swiftshader",
    "--use-angle=swiftshader",
    "--no-first-run",
    "--no-default-browser-check",
    "--no-sandbox",
    "--disable-gpu-sandbox",
    "--remote-debugging-port=0",
]
LISTENING = re.compile(r"DevTools listening on (ws://\S+)")
START_TIMEOUT_S = 30


class CdpError(Exception):
    """The browser could not be started or reached, or answered a command with an error."""


class Browser:
    """A headless Chromium and one WebSocket to it (the browser target)."""

    def __init__(self, process, profile, socket_):
        self.process = process
        self.profile = profile
        self.ws = WebSocket(socket_)
        self.next_id = 0
        self.events = []

    @classmethod
    def start(cls, executable, extra_flags=(), timeout=START_TIMEOUT_S):
        """Starts `executable` headless and connects to it; CdpError with its output when it
        does not say where it listens within `timeout` seconds."""
        profile = tempfile.mkdtemp(prefix="gpubench-chromium-")
        args = [executable, *FLAGS, *extra_flags, f"--user-data-dir={profile}"]
        process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE)
        url, seen = wait_for_listening(process, timeout)
        if url is None:
            process.kill()
            shutil.rmtree(profile, ignore_errors=True)
            raise CdpError(f"{executable} did not start within {timeout} s: "
                           + " | ".join(seen[-10:]))
        return cls(process, profile, connect(url))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Closes the connection, stops the browser and removes its profile."""
        try:
            self.ws.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
            shutil.rmtree(self.profile, ignore_errors=True)

    def send(self, method, params=None, session=None, timeout=60):
        """Sends a command and returns its result; the events that arrive meanwhile are kept
        in `events`. CdpError for an error answer or a timeout."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.ws.send_text(json.dumps(message))
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError(f"{method}: no answer within {timeout} s")
            answer = json.loads(self.ws.receive_text(left))
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise CdpError(f"{method}: {answer['error'].get('message', answer['error'])}")
                return answer.get("result", {})
            self.events.append(answer)

    def new_page(self, url):
        """A new tab at `url`, attached: a Page whose commands go to that tab."""
        target = self.send("Target.createTarget", {"url": url})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        return Page(self, session)


class Page:
    """One tab of the browser."""

    def __init__(self, browser, session):
        self.browser = browser
        self.session = session
        self.send("Runtime.enable")

    def send(self, method, params=None, timeout=60):
        """A command to this tab."""
        return self.browser.send(method, params, session=self.session, timeout=timeout)

    def evaluate(self, expression, timeout=60):
        """The value of `expression` (awaited when it is a promise), as JSON; CdpError with the
        page's own message when it throws."""
        result = self.send("Runtime.evaluate", {
            "expression": expression, "awaitPromise": True, "returnByValue": True,
            "timeout": int(timeout * 1000)}, timeout=timeout + 5)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = (details.get("exception") or {}).get("description") or details.get("text")
            raise CdpError(f"the page threw: {text}")
        return result.get("result", {}).get("value")

    def console(self):
        """The page's console messages so far (text only), for a failure's report."""
        out = []
        for event in self.browser.events:
            if event.get("method") == "Runtime.consoleAPICalled" \
                    and event.get("sessionId") == self.session:
                args = event["params"].get("args", [])
                out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in args))
        return out


def wait_for_listening(process, timeout):
    """(the WebSocket URL the browser printed, its stderr lines so far); the URL is None when
    it exited or stayed silent."""
    fd = process.stderr.fileno()
    os.set_blocking(fd, False)
    seen, pending = [], ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            chunk = os.read(fd, 65536).decode(errors="replace")
        except BlockingIOError:
            chunk = ""
        pending += chunk
        *lines, pending = pending.split("\n")
        for line in lines:
            seen.append(line)
            match = LISTENING.search(line)
            if match:
                return match.group(1), seen
        if not chunk:
            time.sleep(0.05)
    return None, seen + ([pending] if pending else [])


def connect(url, timeout=10):
    """A WebSocket handshake with `url` (ws://host:port/path): the connected socket."""
    parts = urllib.parse.urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
               "Upgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
    sock.sendall(request.encode())
    response = b""
    while b"\r\n\r\n" not in response:
        chunk = sock.recv(4096)
        if not chunk:
            raise CdpError(f"{url}: the connection closed during the handshake")
        response += chunk
    status = response.split(b"\r\n", 1)[0]
    if b" 101 " not in status:
        raise CdpError(f"{url}: handshake refused: {status.decode(errors='replace')}")
    return sock


class WebSocket:
    """Text frames over a connected socket (RFC 6455), client side."""

    TEXT, CONTINUATION, CLOSE, PING, PONG = 0x1, 0x0, 0x8, 0x9, 0xA

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def send_text(self, text):
        self.send_frame(self.TEXT, text.encode())

    def send_frame(self, opcode, payload):
        """One final frame, masked as a client's must be."""
        header = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def receive_text(self, timeout):
        """The next whole text message (continuations joined, pings answered)."""
        self.sock.settimeout(timeout)
        message = b""
        while True:
            fin, opcode, payload = self.read_frame()
            if opcode == self.PING:
                self.send_frame(self.PONG, payload)
                continue
            if opcode == self.CLOSE:
                raise CdpError("the browser closed the connection")
            message += payload
            if fin:
                return message.decode()

    def read_frame(self):
        first, second = self.read_exact(2)
        n = second & 0x7F
        if n == 126:
            n = struct.unpack(">H", self.read_exact(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", self.read_exact(8))[0]
        mask = self.read_exact(4) if second & 0x80 else None
        payload = self.read_exact(n)
        if mask:
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        return bool(first & 0x80), first & 0x0F, payload

    def read_exact(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buffer)))
            if not chunk:
                raise CdpError("the browser closed the connection")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def close(self):
        try:
            self.send_frame(self.CLOSE, b"")
        except OSError:
            pass
        self.sock.close()
