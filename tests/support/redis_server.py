"""A real redis-server on a free port, for the publish and mirror tests (nothing mocked)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

from tests.support.web_app import free_port

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


class RedisProcess:
    """redis-server in `folder` on `port`, persisting every write (appendfsync always), so
    a kill -9 and a restart keep what it acknowledged, as a real deployment would."""

    def __init__(self, folder: Path, *, persist: bool = True, password: str | None = None) -> None:
        self.folder = folder
        self.port = free_port()
        self.persist = persist
        self.password = password  # requirepass: clients must give it
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        args = [
            REDIS_SERVER,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.folder),
        ]
        args += ["--save", "", "--daemonize", "no", "--loglevel", "warning"]
        if self.persist:
            args += ["--appendonly", "yes", "--appendfsync", "always"]
        else:
            args += ["--appendonly", "no"]
        if self.password is not None:
            args += ["--requirepass", self.password]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith((b"+PONG", b"-NOAUTH")):
                        return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self._close_pipe()

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self._close_pipe()

    def _close_pipe(self) -> None:
        # The stderr pipe is the process's, closed with it (an open one is a ResourceWarning).
        assert self.proc is not None
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        self.proc = None
