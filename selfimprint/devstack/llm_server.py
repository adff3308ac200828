"""Runs llama.cpp's OpenAI-compatible server (xllamacpp) as its own process for the dev stack.

`python -m selfimprint.devstack.llm_server --gguf PATH --port N`; stops on SIGTERM/SIGINT.
"""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path

from selfimprint.devstack.extra import INSTALL_HINT

try:
    import xllamacpp
except ImportError as exc:  # production installs leave the devstack extra out
    raise SystemExit(f"the local llama.cpp server needs xllamacpp: {INSTALL_HINT}") from exc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gguf", type=Path, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ctx", type=int, default=2048)
    args = parser.parse_args()
    if not args.gguf.is_file():
        parser.error(f"GGUF model {args.gguf} does not exist (SELFIMPRINT_LLM_GGUF_PATH)")

    params = xllamacpp.CommonParams()
    params.model.path = str(args.gguf)
    params.n_ctx = args.ctx
    params.port = args.port
    params.hostnames = [args.host]
    server = xllamacpp.Server(params)

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
    del server  # the destructor stops llama.cpp's loop and frees the model


if __name__ == "__main__":
    main()
