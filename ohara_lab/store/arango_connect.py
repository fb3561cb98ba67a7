"""Where an ArangoDB atlas lives: URL parsing, credentials and opening (or creating) its database.

Accepted locations (spec §0: `ARANGO_URL` may embed credentials and the database name):

    arangodb://user:pass@host:8529/dbname      plain HTTP, port 8529 when omitted
    http(s)://user:pass@host:8529/dbname       as given
    http://user:pass@h1:8529,h2:8529/dbname    several coordinators of a cluster
    .../_db/dbname                             ArangoDB's own REST prefix works too

Credentials missing from the URL come from `ARANGO_USER` / `ARANGO_PASSWORD`
(then `root` and an empty password); the database defaults to `ohara`.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote

from arango import ArangoClient
from arango.database import StandardDatabase
from arango.exceptions import ArangoError, ArangoServerError

from ..errors import StoreError
from ..settings import environ

DEFAULT_DATABASE = "ohara"
DEFAULT_PORT = 8529
_SCHEMES = {"arangodb": "http", "arango": "http", "http": "http", "https": "https"}
_DATABASE_NOT_FOUND = 1228
_DUPLICATE_NAME = 1207


@dataclass(frozen=True)
class ArangoTarget:
    """One ArangoDB database and how to log in to it."""

    hosts: tuple[str, ...]  # base URLs, e.g. ("http://db1:8529",)
    database: str
    username: str
    password: str
    scheme: str = "arangodb"  # as the user wrote it, for `location`

    @property
    def location(self) -> str:
        """The URL to show users: never the password."""
        netloc = ",".join(h.split("://", 1)[1] for h in self.hosts)
        return f"{self.scheme}://{self.username}@{netloc}/{self.database}"


def parse_url(url: str, env: Mapping[str, str] | None = None) -> ArangoTarget:
    """Parse an atlas URL into an `ArangoTarget` (see the module docstring for the forms)."""
    env = environ() if env is None else env
    scheme, sep, rest = url.strip().partition("://")
    if not sep or scheme.lower() not in _SCHEMES:
        raise StoreError(f"not an ArangoDB URL: {url!r} (use arangodb://, http:// or https://)")
    if "?" in rest or "#" in rest:
        raise StoreError(f"ArangoDB URL takes no query string or fragment: {url!r}")
    netloc, _, path = rest.partition("/")
    userinfo, at, hostpart = netloc.rpartition("@")
    if not at:
        userinfo, hostpart = "", netloc
    user, colon, password = userinfo.partition(":")
    username = unquote(user) if user else env.get("ARANGO_USER", "root")
    password = unquote(password) if colon else env.get("ARANGO_PASSWORD", "")
    http = _SCHEMES[scheme.lower()]
    hosts = []
    for host in hostpart.split(","):
        host = host.strip()
        if not host:
            raise StoreError(f"ArangoDB URL names no host: {url!r}")
        if scheme.lower() in ("arangodb", "arango") and ":" not in host.rsplit("]", 1)[-1]:
            host = f"{host}:{DEFAULT_PORT}"
        hosts.append(f"{http}://{host}")
    path = path.strip("/")
    if path.startswith("_db/"):
        path = path[4:]
    database = unquote(path) or DEFAULT_DATABASE
    if "/" in database:
        raise StoreError(f"ArangoDB URL path must be a database name: {url!r}")
    return ArangoTarget(tuple(hosts), database, username, password, scheme.lower())


def open_database(client: ArangoClient, target: ArangoTarget) -> StandardDatabase:
    """The target database, created first (through `_system`) when it does not exist yet."""
    db = client.db(target.database, username=target.username, password=target.password)
    try:
        db.properties()
        return db
    except ArangoServerError as e:
        if e.error_code != _DATABASE_NOT_FOUND:
            raise StoreError(f"ArangoDB at {target.location} refused access: {e}") from e
    except (ArangoError, OSError) as e:
        raise StoreError(f"cannot reach ArangoDB at {target.location}: {e}") from e
    system = client.db("_system", username=target.username, password=target.password)
    try:
        system.create_database(target.database)
    except ArangoServerError as e:
        # Another process created it between our check and our create: fine.
        if e.error_code != _DUPLICATE_NAME:
            raise StoreError(f"cannot create ArangoDB database {target.database!r}: {e}") from e
    except (ArangoError, OSError) as e:
        raise StoreError(f"cannot reach ArangoDB at {target.location}: {e}") from e
    return db
