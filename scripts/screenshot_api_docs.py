"""Prove in a real browser, with no network, that the API's /docs and /redoc render.

Serves the API application (no lifespan: the pages need no store) on a free local port, opens
/docs (Swagger UI) and /redoc (ReDoc) in headless Chromium whose resolver refuses every host
but 127.0.0.1 (a page that still loaded a script from a CDN would stay blank), waits until each
shows every operation of /openapi.json, and writes one PNG per page: OUT with `-docs` and
`-redoc` before the suffix. Never into the repository. Issue 36.

    .venv/bin/python scripts/screenshot_api_docs.py [OUT.png]

Needs chromium and chromium-driver (scripts/webdriver.py says which versions).
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import uvicorn
from webdriver import CHROMEDRIVER, CHROMIUM, BrowserError, WebDriver, wait_for

from api.app import create_app
from selfimprint.logging import configure_logging, get_logger

log = get_logger(__name__)

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = Path("/tmp/selfimprint-api-docs.png")
# Every host name fails to resolve except the API's own address: nothing can come from outside.
OFFLINE = ("--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",)
# How many operations each page shows once rendered.
SWAGGER_OPERATIONS = "return document.querySelectorAll('.swagger-ui .opblock').length"
REDOC_OPERATIONS = (
    "return document.querySelectorAll("
    '\'[data-section-id^="tag/"][data-section-id*="/operation/"]\').length'
)


@contextmanager
def serving() -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(), host="127.0.0.1", port=port, lifespan="off", log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise BrowserError("the API application did not start")
        time.sleep(0.1)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(10)


def named(out: Path, page: str) -> Path:
    return out.with_name(f"{out.stem}-{page}{out.suffix or '.png'}")


def run(args: argparse.Namespace) -> None:
    with serving() as url:
        schema = httpx.get(f"{url}/openapi.json", timeout=10).json()
        operations = sum(len(ops) for ops in schema["paths"].values())
        with WebDriver(args.chromedriver, args.chromium, OFFLINE) as driver:
            for page, count in (("docs", SWAGGER_OPERATIONS), ("redoc", REDOC_OPERATIONS)):
                driver.open(f"{url}/{page}")
                shown = wait_for(driver, count, lambda n: int(n) >= operations, args.timeout)
                path = named(args.out, page)
                driver.screenshot(path)
                log.info(
                    "docs.page", page=page, operations=int(shown), of=operations, png=str(path)
                )
                if int(shown) < operations:
                    raise BrowserError(
                        f"/{page} shows {shown} of {operations} operations offline (see {path})"
                    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT, help="PNG name base")
    parser.add_argument("--chromium", default=CHROMIUM)
    parser.add_argument("--chromedriver", default=CHROMEDRIVER)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per page")
    args = parser.parse_args()
    args.out = args.out.resolve()
    if args.out.is_relative_to(REPO_ROOT):
        parser.error(f"{args.out} is inside the repository: screenshots are not committed")
    configure_logging("INFO", "console")
    try:
        run(args)
    except BrowserError as exc:
        log.error("docs.check_failed", reason=str(exc))
        sys.exit(1)


if __name__ == "__main__":
    main()
