"""A model server a config starts: once per run by default, once for a whole sweep inside server.kept()."""
import socket
import sys
import urllib.request
from urllib.parse import urlparse

from infer import server
from infer.config import ModelConfig, ServerSpec


def config(name: str = "m") -> ModelConfig:
    # A real process answering HTTP on {port}: the standard library's file server (GET / is 200).
    spec = ServerSpec([sys.executable, "-m", "http.server", "{port}", "--bind", "127.0.0.1"], health="/",
                      startup_timeout=30)
    return ModelConfig(name=name, model=name, server=spec)


def listening(url: str) -> bool:
    port = urlparse(url).port
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def lists(url: str, name: str) -> bool:
    """Whether a file server answers at `url`'s port with a listing naming `name` (the port may be free, or
    taken again by another server: a free port is handed out again)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{urlparse(url).port}/", timeout=5) as r:
            return name in r.read().decode()
    except OSError:
        return False


def test_without_kept_each_run_starts_and_stops_its_own_server(tmp_path):
    with server.serve(config(), tmp_path) as first:
        assert listening(first[0])
    assert not listening(first[0])
    with server.serve(config(), tmp_path) as second:
        assert second != first


def test_kept_starts_a_server_once_for_every_run_of_the_same_command_and_stops_it_at_the_end(tmp_path):
    seen = []
    with server.kept():
        for name in ("a", "b", "a"):  # two configs sharing one command share its server
            with server.serve(config(name), tmp_path) as urls:
                seen.append(urls[0])
            assert listening(urls[0]), "a kept server must outlive the run that started it"
        with server.kept():  # a nested block changes nothing
            with server.serve(config(), tmp_path) as urls:
                seen.append(urls[0])
    assert len(set(seen)) == 1
    assert not listening(seen[0]), "kept servers are stopped when the block ends"


def test_kept_stops_its_servers_when_the_block_fails(tmp_path):
    url = None
    try:
        with server.kept():
            with server.serve(config(), tmp_path) as urls:
                url = urls[0]
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert url and not listening(url)
    with server.serve(config(), tmp_path) as urls:  # and serve() is back to one server per run
        pass
    assert not listening(urls[0])


def test_kept_holds_one_set_of_servers_a_different_command_stops_the_previous_first(tmp_path):
    (tmp_path / "served-by-other").write_text("")  # the other server lists its folder; the first lists another
    other = ModelConfig(name="o", model="o", server=ServerSpec(config().server.command + ["--directory", str(tmp_path)],
                                                                health="/", startup_timeout=30))
    with server.kept():
        with server.serve(config(), tmp_path) as first:
            pass
        with server.serve(other, tmp_path) as second:
            assert listening(second[0])
            assert not listening(first[0]), "on a GPU node two models' servers would not fit side by side"
        with server.serve(config(), tmp_path) as third:
            assert third != first and not lists(second[0], "served-by-other")
    assert not listening(third[0])
