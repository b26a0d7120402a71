"""A TCP proxy on 127.0.0.1 that a test (or the load bench) can cut and restore: a server
outage without stopping the server, which other people's processes may share.

While cut, the proxy listens on nothing (a connection is refused, as by a stopped server)
and every connection it carried is closed; restored, it listens on the same port again.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

__all__ = ["TcpProxy", "proxied"]


class TcpProxy:
    """Forwards ``127.0.0.1:<port>`` to ``target`` until :meth:`cut`; see the module."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = 0
        self._listener: socket.socket | None = None
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closing = False

    def url(self, scheme: str = "redis", path: str = "") -> str:
        return f"{scheme}://127.0.0.1:{self.port}{path}"

    def start(self) -> None:
        """Listen (again, on the same port once one was chosen)."""
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Refuse new connections and close every carried one."""
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        with self._lock:
            carried, self._open = self._open, set()
        for sock in carried:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def restore(self) -> None:
        self.start()

    def close(self) -> None:
        self._closing = True
        self.cut()

    @property
    def is_cut(self) -> bool:
        return self._listener is None

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # cut
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self._lock:
                if self._listener is not listener:  # cut meanwhile
                    client.close()
                    upstream.close()
                    return
                self._open |= {client, upstream}
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):  # the other direction's pump ends too
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
            source.close()  # each socket is the source of one pump, which closes it
            with self._lock:
                self._open -= {source, sink}


@contextlib.contextmanager
def proxied(target: tuple[str, int]) -> Iterator[TcpProxy]:
    """A started :class:`TcpProxy` to ``target``, closed when the block ends."""
    proxy = TcpProxy(target)
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.close()
