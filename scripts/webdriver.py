"""A headless Chromium driven over the W3C WebDriver protocol (httpx only), shared by the scripts
that look at a web page the way a person would (scripts/screenshot_codec_ui.py,
scripts/screenshot_api_docs.py).

Installs nothing. Needs, once per machine (Debian 12; the versions this was run with):

    apt-get install chromium=156.0.8078.114-1~deb12u1 chromium-driver=156.0.8078.114-1~deb12u1
"""

from __future__ import annotations

import base64
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from selfimprint.logging import get_logger

log = get_logger(__name__)

CHROMIUM = "/usr/lib/chromium/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# Headless as root needs --no-sandbox (Chromium's sandbox refuses uid 0); /dev/shm is small in
# containers, hence --disable-dev-shm-usage.
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--disable-gpu",
    "--window-size=1600,1100",
]


class BrowserError(RuntimeError):
    """The browser or its driver failed, or a page did not show what it must."""


class WebDriver:
    """The few W3C WebDriver calls this needs, against a chromedriver it starts and stops."""

    def __init__(self, chromedriver: str, chromium: str, extra_args: tuple[str, ...] = ()) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        self._driver = subprocess.Popen(  # noqa: S603
            [chromedriver, f"--port={port}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60.0)
        self._session = ""
        try:
            self._await_driver()
            options = {"binary": chromium, "args": [*CHROMIUM_ARGS, *extra_args]}
            capabilities = {"browserName": "chrome", "goog:chromeOptions": options}
            answer = self._call("POST", "/session", {"capabilities": {"alwaysMatch": capabilities}})
            self._session = str(answer["sessionId"])
            log.info("browser.started", version=answer["capabilities"].get("browserVersion"))
        except BaseException:
            self.close()
            raise

    def _await_driver(self) -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if self._http.get("/status").json()["value"]["ready"]:
                    return
            except httpx.TransportError:
                pass
            if self._driver.poll() is not None:
                break
            time.sleep(0.2)
        raise BrowserError("chromedriver did not start (is chromium-driver installed?)")

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        answer = self._http.request(method, path, json=body)
        value = answer.json()["value"]
        if answer.status_code != 200:
            raise BrowserError(f"WebDriver {path}: {value.get('error')}: {value.get('message')}")
        return value

    def open(self, url: str) -> None:
        self._call("POST", f"/session/{self._session}/url", {"url": url})

    def script(self, source: str, *args: Any) -> Any:
        return self._call(
            "POST", f"/session/{self._session}/execute/sync", {"script": source, "args": list(args)}
        )

    def screenshot(self, path: Path) -> None:
        path.write_bytes(
            base64.b64decode(self._call("GET", f"/session/{self._session}/screenshot"))
        )

    def close(self) -> None:
        if self._session:
            self._http.request("DELETE", f"/session/{self._session}")
            self._session = ""
        self._http.close()
        self._driver.terminate()
        self._driver.wait(10)

    def __enter__(self) -> WebDriver:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def wait_for(driver: WebDriver, source: str, done: Any, timeout_s: float) -> str:
    deadline = time.monotonic() + timeout_s
    text = ""
    while time.monotonic() < deadline:
        text = str(driver.script(source))
        if done(text):
            break
        time.sleep(0.5)
    return text
