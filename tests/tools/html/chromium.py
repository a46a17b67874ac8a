"""Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe): JSON
messages ending in a NUL byte on file descriptors 3 (to the browser) and 4 (from it), so no
websocket library is needed. Python 3 standard library only. Also: a PNG decoder for screenshots."""

import base64
import fcntl
import json
import os
import queue
import shutil
import struct
import subprocess
import tempfile
import threading
import time
import zlib

CANDIDATES = (
    "chromium-headless-shell",
    "chromium",
    "chromium-browser",
    "google-chrome-stable",
    "google-chrome",
)


def find_chromium():
    """The browser to use: $BRICKPROF_CHROMIUM, else the first of CANDIDATES on PATH, else None."""
    env = os.environ.get("BRICKPROF_CHROMIUM")
    if env:
        return env
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class CdpError(Exception):
    pass


class Browser:
    """One headless browser with the network cut off: no proxy reachable, no name resolves."""

    def __init__(self, binary, log_path=os.devnull):
        self.profile = tempfile.mkdtemp(prefix="brickprof-chromium-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def child_fds():
            # Out of the way first, then onto 3 and 4, whichever numbers the pipes got.
            a = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [
            binary,
            "--headless",
            "--remote-debugging-pipe",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-sync",
            "--disable-component-update",
            "--disable-default-apps",
            "--mute-audio",
            "--hide-scrollbars",
            "--proxy-server=127.0.0.1:9",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            f"--user-data-dir={self.profile}",
            "about:blank",
        ]
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(
            args,
            preexec_fn=child_fds,
            close_fds=False,
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=self.log,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.messages = queue.Queue()
        self.events = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buf = b""
        while True:
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                self.messages.put(None)
                return
            buf += chunk
            while b"\0" in buf:
                msg, buf = buf.split(b"\0", 1)
                self.messages.put(json.loads(msg))

    def call(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_browser, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError(f"{method}: no answer in {timeout}s")
            try:
                m = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if m is None:
                raise CdpError(f"{method}: the browser closed the pipe")
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise CdpError(f"{method}: {m['error'].get('message')}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=60, since=0):
        """The first `method` event at or after index `since` of self.events."""
        deadline = time.monotonic() + timeout
        seen = since
        while True:
            for m in self.events[seen:]:
                if m.get("method") == method:
                    return m
            seen = len(self.events)
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError(f"no {method} in {timeout}s")
            try:
                m = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if m is None:
                raise CdpError("the browser closed the pipe")
            self.events.append(m)

    def drain(self):
        while True:
            try:
                m = self.messages.get_nowait()
            except queue.Empty:
                return
            if m is not None:
                self.events.append(m)

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except CdpError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_browser)
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    """The browser's first tab, offline, at a fixed viewport."""

    def __init__(self, browser, width=1400, height=1000):
        self.b = browser
        self.width = width
        self.height = height
        target = next(t for t in browser.call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self.s = browser.call("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call(
            "Network.emulateNetworkConditions",
            {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
        )
        self.viewport(width, height)
        self.first_event = 0

    def call(self, method, params=None, timeout=60):
        return self.b.call(method, params, self.s, timeout)

    def viewport(self, width, height):
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    def scheme(self, value):
        self.call(
            "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": value}]}
        )

    def open(self, url, ready_expr, timeout=60):
        """Navigates and waits until `ready_expr` is true; returns the seconds that took."""
        start = time.monotonic()
        self.b.drain()
        self.first_event = len(self.b.events)
        self.call("Page.navigate", {"url": url})
        self.b.wait_event("Page.loadEventFired", timeout, self.first_event)
        while not self.eval(ready_expr):
            if time.monotonic() - start > timeout:
                raise CdpError(f"{url}: not ready in {timeout}s")
            time.sleep(0.05)
        return time.monotonic() - start

    def eval(self, expression):
        r = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
        )
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise CdpError(f"{expression[:80]}: {d.get('exception', {}).get('description') or d.get('text')}")
        return r["result"].get("value")

    def mouse(self, kind, x, y, **extra):
        params = {"type": kind, "x": x, "y": y, "button": "none"}
        params.update(extra)
        self.call("Input.dispatchMouseEvent", params)

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, button="left", clickCount=1)
        self.mouse("mouseReleased", x, y, button="left", clickCount=1)

    def drag(self, x0, y0, x1, y1, steps=5):
        self.mouse("mouseMoved", x0, y0)
        self.mouse("mousePressed", x0, y0, button="left", clickCount=1)
        for k in range(1, steps + 1):
            self.mouse(
                "mouseMoved", x0 + (x1 - x0) * k / steps, y0 + (y1 - y0) * k / steps, button="left", buttons=1
            )
        self.mouse("mouseReleased", x1, y1, button="left", clickCount=1)

    def wheel(self, x, y, dy):
        self.mouse("mouseWheel", x, y, deltaX=0, deltaY=dy)

    def key(self, key):
        codes = {
            "Escape": ("Escape", 27),
            "Enter": ("Enter", 13),
            "ArrowDown": ("ArrowDown", 40),
            "ArrowUp": ("ArrowUp", 38),
            "Tab": ("Tab", 9),
        }
        code, vk = codes.get(
            key, ("Key" + key.upper() if key.isalpha() else "Digit" + key, ord(key.upper()[0]))
        )
        down = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk}
        if len(key) == 1:
            down["text"] = key
        self.call("Input.dispatchKeyEvent", down)
        self.call(
            "Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk}
        )

    def screenshot(self, path, clip=None):
        """A PNG of the whole page (or of `clip`: x, y, width, height in page pixels); returns its bytes."""
        if clip is None:
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            clip = {"x": 0, "y": 0, "width": self.width, "height": size["height"]}
        shot = self.call(
            "Page.captureScreenshot",
            {"format": "png", "captureBeyondViewport": True, "clip": dict(clip, scale=1)},
        )
        data = base64.b64decode(shot["data"])
        with open(path, "wb") as f:
            f.write(data)
        return data

    def problems(self, page_url):
        """Console errors and warnings, uncaught exceptions, and any request other than the page."""
        self.b.drain()
        out = []
        for m in self.b.events[self.first_event :]:
            method, p = m.get("method"), m.get("params", {})
            if method == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                out.append("exception: " + (d.get("exception", {}).get("description") or d.get("text", "")))
            elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                out.append(
                    f"console.{p['type']}: "
                    + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
                )
            elif method == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
                out.append(f"log {p['entry']['level']}: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            elif method == "Network.requestWillBeSent":
                url = p["request"]["url"]
                if url != page_url and not url.startswith("data:") and url != "about:blank":
                    out.append("request: " + url)
        return out


def png_pixels(data):
    """(width, height, rows of RGBA or RGB bytes) of an 8-bit non-interlaced PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {color}, interlace {interlace})")
    bpp = 4 if color == 6 else 3
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif f == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def distinct_colors(data):
    width, height, bpp, rows = png_pixels(data)
    seen = set()
    for row in rows:
        for x in range(0, width * bpp, bpp):
            seen.add(row[x : x + 3])
    return len(seen)
