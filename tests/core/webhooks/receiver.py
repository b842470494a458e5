"""A real webhook receiver on the loopback interface, for tests: http.server in a thread.

It records every request (headers and raw body), answers with the statuses it is given
(then 200), and acknowledges each event id once, as a receiver deduping on
`webhook-id` would. `hold` makes the first request wait until the event is set, and
then drop the connection unanswered: the sender died, no one is there to hear it.
"""

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    url: str
    statuses: list[int] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    acknowledged: list[str] = field(default_factory=list)
    hold: threading.Event | None = None
    arrived: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, request: Received) -> int | None:
        """Record the request; return the status to answer, or None to drop it."""
        with self.lock:
            first = not self.received
            self.received.append(request)
        self.arrived.set()
        if first and self.hold is not None:
            self.hold.wait(timeout=120)
            return None
        with self.lock:
            status = self.statuses.pop(0) if self.statuses else 200
            event_id = request.headers.get("webhook-id", "")
            if 200 <= status < 300 and event_id not in self.acknowledged:
                self.acknowledged.append(event_id)
        return status


def _handler(receiver: Receiver) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            headers = {key.lower(): value for key, value in self.headers.items()}
            status = receiver.answer(Received(path=self.path, headers=headers, body=body))
            if status is None:
                self.close_connection = True
                return
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("Location", f"{receiver.url}elsewhere")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet tests

    return Handler


@contextmanager
def receiving(
    statuses: list[int] | None = None, hold: threading.Event | None = None
) -> Iterator[Receiver]:
    """Run a receiver on 127.0.0.1 (a free port) for the duration of the block."""
    receiver = Receiver(url="", statuses=list(statuses or []), hold=hold)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(receiver))
    server.daemon_threads = True
    host, port = server.server_address[:2]
    receiver.url = f"http://{host}:{port}/hooks/"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        if hold is not None:
            hold.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
