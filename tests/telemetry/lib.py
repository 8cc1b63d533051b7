"""Helpers for tests/telemetry/run: the rotel collector, its debug output, and sandboxed
sophia-hook runs. Python 3.11 standard library only."""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

# The collector, pinned: the version pip reports for the rotel package (its binary calls itself
# "rotel 0.0.1-alpha10"). Its debug print format is what parse_debug() reads.
ROTEL_PIN = "0.0.1a15"

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


# ---------------------------------------------------------------------------------------------
# rotel


def find_rotel() -> str:
    """The rotel-agent executable: on PATH, in the installed rotel package, or after
    `python3 -m pip install --quiet rotel==ROTEL_PIN`."""

    def from_package() -> str | None:
        r = subprocess.run(
            [sys.executable, "-c", "import rotel,os;print(os.path.dirname(rotel.__file__))"],
            capture_output=True,
            text=True,
        )
        if r.returncode == 0:
            p = os.path.join(r.stdout.strip(), "rotel-agent")
            if os.access(p, os.X_OK):
                return p
        return None

    exe = shutil.which("rotel-agent") or from_package()
    if exe:
        return exe
    print(f"rotel-agent not found: installing rotel=={ROTEL_PIN} from PyPI", flush=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", f"rotel=={ROTEL_PIN}"], check=True
    )
    exe = shutil.which("rotel-agent") or from_package()
    if not exe:
        raise RuntimeError("rotel installed but no rotel-agent executable found")
    return exe


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


_LIVE: set = set()  # collectors and black holes to stop at exit, whatever happens


def _stop_all(*_args):
    for thing in list(_LIVE):
        try:
            thing.stop()
        except Exception:  # noqa: BLE001 - best effort at exit
            pass


atexit.register(_stop_all)


def _on_signal(signum, _frame):
    _stop_all()
    sys.exit(128 + signum)


for _sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(_sig, _on_signal)


class Collector:
    """One rotel-agent on 127.0.0.1 (OTLP/HTTP on http_port, gRPC on another free port), exporting
    to a black hole and printing every log record and metric it receives (detailed) to its own
    output file. Several instances may share one http_port one after the other (stop, start): each
    start writes a new output file, and records() reads them all."""

    _seq = 0

    def __init__(self, rotel: str, workdir: str, http_port: int | None = None):
        self.rotel = rotel
        self.workdir = workdir
        self.fixed_port = http_port is not None
        self.http_port = http_port or free_port()
        self.proc: subprocess.Popen | None = None
        self.outputs: list[str] = []

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def start(self) -> "Collector":
        for attempt in range(3):
            if attempt and not self.fixed_port:
                self.http_port = free_port()
            grpc_port = free_port()
            while grpc_port == self.http_port:
                grpc_port = free_port()
            Collector._seq += 1
            out = os.path.join(self.workdir, f"rotel-{self.http_port}-{Collector._seq}.out")
            args = [
                self.rotel, "start",
                "--otlp-http-endpoint", f"127.0.0.1:{self.http_port}",
                "--otlp-grpc-endpoint", f"127.0.0.1:{grpc_port}",
                "--exporter", "blackhole",
                "--debug-log", "logs", "--debug-log", "metrics",
                "--debug-log-verbosity", "detailed",
                "--disable-batching",
                "--pid-file", out + ".pid",
                "--log-file", out + ".log",
            ]  # fmt: skip
            with open(out, "wb") as f:
                self.proc = subprocess.Popen(
                    args, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )  # fmt: skip
            _LIVE.add(self)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.proc.poll() is None:
                if port_open(self.http_port):
                    self.outputs.append(out)
                    return self
                time.sleep(0.02)
            self.stop()
            with open(out, errors="replace") as f:
                tail = f.read()[-2000:]
            print(f"  rotel did not come up on {self.http_port}: {tail}", flush=True)
        raise RuntimeError("rotel-agent would not start")

    def stop(self) -> None:
        p, self.proc = self.proc, None
        _LIVE.discard(self)
        if p is None or p.poll() is not None:
            return
        p.terminate()
        try:
            p.wait(3)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(3)

    def text(self) -> str:
        parts = []
        for out in self.outputs:
            with open(out, "rb") as f:
                parts.append(f.read().replace(b"\x00", b"").decode("utf-8", "replace"))
        return _ANSI.sub("", "\n".join(parts))

    def received(self) -> "Received":
        return parse_debug(self.text())

    def wait_for(self, pred, timeout: float = 10.0, settle: float = 0.6) -> "Received":
        """Poll the output until pred(Received) holds (or timeout), then until it stops changing
        for `settle` seconds, so late duplicates are counted too."""
        deadline = time.monotonic() + timeout
        got = self.received()
        while not pred(got) and time.monotonic() < deadline:
            time.sleep(0.05)
            got = self.received()
        last, quiet_since = self.text(), time.monotonic()
        while time.monotonic() - quiet_since < settle:
            time.sleep(0.1)
            now = self.text()
            if now != last:
                last, quiet_since = now, time.monotonic()
        return parse_debug(last)


class _Loop:
    """A listener on a free 127.0.0.1 port served by one thread with a selector (0.1 s ticks), so
    stop() ends the thread and closes every socket it made before the port is let go: nothing of
    one scenario's listener outlives it into the next."""

    def __init__(self):
        import selectors
        import threading

        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        self.sel = selectors.DefaultSelector()
        self.socks: list[socket.socket] = []
        self._stop = False
        _LIVE.add(self)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _run(self):
        while not self._stop:
            for key, _ in self.sel.select(0.1):
                key.data()
            self.tick()

    def tick(self):
        pass

    def stop(self):
        self._stop = True
        _LIVE.discard(self)
        if self.thread.is_alive():
            self.thread.join(5)
        for c in self.socks + [self.sock]:
            try:
                c.close()
            except OSError:
                pass
        self.sel.close()


class BlackHole(_Loop):
    """A TCP listener on 127.0.0.1 that never answers: mode "backlog" listens and never
    accepts (the kernel completes the handshake, the request sits in the queue); mode "silent"
    accepts every connection, reads what comes and never writes."""

    def __init__(self, mode: str):
        import selectors

        self.mode = mode
        self.accepted = 0
        super().__init__()
        if mode == "silent":
            self.sel.register(self.sock, selectors.EVENT_READ, self._accept)

    def _accept(self):
        import selectors

        try:
            c, _ = self.sock.accept()
        except OSError:
            return
        c.setblocking(False)
        self.accepted += 1
        self.socks.append(c)
        self.sel.register(c, selectors.EVENT_READ, lambda: self._drain(c))

    def _drain(self, c: socket.socket):
        try:
            data = c.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.sel.unregister(c)


class SlowProxy(_Loop):
    """A TCP relay on 127.0.0.1 in front of a collector that holds every chunk a client sends for
    `delay` seconds before passing it on: a slow collector, so a flush holds its lock longer."""

    def __init__(self, upstream_port: int, delay: float):
        import selectors

        self.upstream_port = upstream_port
        self.delay = delay
        self.pending: list = []  # (due, dst, data)
        super().__init__()
        self.sel.register(self.sock, selectors.EVENT_READ, self._accept)

    def _accept(self):
        import selectors

        try:
            c, _ = self.sock.accept()
        except OSError:
            return
        try:
            u = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=2)
        except OSError:
            c.close()
            return
        u.setblocking(True)
        c.setblocking(True)
        self.socks += [c, u]
        self.sel.register(c, selectors.EVENT_READ, lambda: self._read(c, u, self.delay))
        self.sel.register(u, selectors.EVENT_READ, lambda: self._read(u, c, 0.0))

    def _read(self, src: socket.socket, dst: socket.socket, delay: float):
        try:
            data = src.recv(65536)
        except OSError:
            data = b""
        if not data:
            for x in (src, dst):
                try:
                    self.sel.unregister(x)
                except (KeyError, ValueError):
                    pass
                try:
                    x.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            return
        self.pending.append((time.monotonic() + delay, dst, data))
        self.tick()

    def tick(self):
        now = time.monotonic()
        due = [p for p in self.pending if p[0] <= now]
        self.pending = [p for p in self.pending if p[0] > now]
        for _, dst, data in due:
            try:
                dst.sendall(data)
            except OSError:
                pass


# ---------------------------------------------------------------------------------------------
# rotel's debug output (--debug-log logs/metrics --debug-log-verbosity detailed), as printed by
# rotel 0.0.1-alpha10:
#
#   ResourceLog #0
#   Resource attributes:
#        -> service.name: Str(sophia-hook)
#   ScopeLogs #0
#   InstrumentationScope NAME VERSION
#   LogRecord #0
#   Timestamp: 1700000000000000000
#   SeverityNumber: SEVERITY_NUMBER_INFO(9)
#   EventName: sophia_hook.run          (absent when the record has none)
#   Body: Str(hi)
#   Attributes:
#        -> sophia_hook.hotwords: Slice(Str(quick))
#        -> sophia_hook.duration_us: Int(123)
#
#   ResourceMetrics #0 / ScopeMetrics #0 / Metric #0 / Descriptor: -> Name: … -> DataType: Sum
#   -> IsMonotonic: true -> AggregationTemporality: AGGREGATION_TEMPORALITY_DELTA
#   NumberDataPoints #0 / Data point attributes: -> k: v / StartTimestamp / Timestamp / Value: 7.5
#
# A data point sent over http/json with an "asInt" that rotel does not decode prints no "Value:".


@dataclass
class LogRec:
    resource: dict
    scope: str = ""
    timestamp: int | None = None
    severity: str = ""
    event_name: str | None = None
    body: str = ""
    attrs: dict = field(default_factory=dict)  # key -> parsed value
    raw: dict = field(default_factory=dict)  # key -> the printed value, e.g. "Int(5)"

    @property
    def name(self) -> str | None:
        return self.event_name or self.attrs.get("event.name")


@dataclass
class Metric:
    resource: dict
    name: str = ""
    datatype: str = ""
    monotonic: str = ""
    temporality: str = ""
    points: list = field(default_factory=list)  # dicts: attrs, value (None when not printed)


@dataclass
class Received:
    logs: list
    metrics: list
    errors: list  # rotel's own WARN/ERROR lines (e.g. a request it could not decode)

    def named(self, name: str) -> list:
        return [r for r in self.logs if r.name == name]

    def count(self, name: str) -> int:
        return len(self.named(name))


def _split_top(s: str) -> list:
    items, depth, cur = [], 0, []
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if depth == 0 and s.startswith(", ", i):
            items.append("".join(cur))
            cur = []
            i += 2
            continue
        cur.append(ch)
        i += 1
    if cur:
        items.append("".join(cur))
    return items


def parse_value(s: str):
    s = s.strip()
    m = re.fullmatch(r"(\w+)\((.*)\)", s, re.S)
    if not m:
        return s
    kind, inner = m.groups()
    try:
        if kind == "Str":
            return inner
        if kind == "Int":
            return int(inner)
        if kind == "Double":
            return float(inner)
        if kind == "Bool":
            return inner == "true"
        if kind == "Slice":
            return [parse_value(x) for x in _split_top(inner)] if inner else []
    except ValueError:
        pass
    return s


_ATTR = re.compile(r"^\s+-> ([^:]+): ?(.*)$")


def parse_debug(text: str) -> Received:
    logs, metrics, errors = [], [], []
    res: dict = {}
    scope = ""
    rec: LogRec | None = None
    met: Metric | None = None
    point: dict | None = None
    section = None  # where the next "-> k: v" lines go
    for line in text.splitlines():
        if re.match(r"^\S+Z\s+(ERROR|WARN)\s", line):
            errors.append(line.strip())
            continue
        m = _ATTR.match(line)
        if m:
            key, val = m.group(1).strip(), m.group(2)
            if section == "resource":
                res[key] = parse_value(val)
            elif section == "record" and rec is not None:
                rec.attrs[key] = parse_value(val)
                rec.raw[key] = val.strip()
            elif section == "descriptor" and met is not None:
                setattr_map = {"Name": "name", "DataType": "datatype", "IsMonotonic": "monotonic",
                               "AggregationTemporality": "temporality"}  # fmt: skip
                if key in setattr_map:
                    setattr(met, setattr_map[key], val.strip())
            elif section == "point" and point is not None:
                point["attrs"][key] = parse_value(val)
            continue
        if line.startswith("ResourceLog #") or line.startswith("ResourceMetrics #"):
            res, rec, met, point, section = {}, None, None, None, None
        elif line.startswith("Resource attributes:"):
            section = "resource"
        elif line.startswith("InstrumentationScope"):
            scope = line[len("InstrumentationScope"):].strip()
        elif line.startswith("LogRecord #"):
            rec = LogRec(resource=res, scope=scope)
            logs.append(rec)
            section = None
        elif rec is not None and line.startswith("Timestamp: "):
            try:
                rec.timestamp = int(line.split(": ", 1)[1])
            except ValueError:
                pass
        elif rec is not None and line.startswith("SeverityNumber: "):
            rec.severity = line.split(": ", 1)[1]
        elif rec is not None and line.startswith("EventName: "):
            rec.event_name = line.split(": ", 1)[1].strip()
        elif rec is not None and line.startswith("Body: "):
            rec.body = line.split(": ", 1)[1]
        elif line.startswith("Attributes:") and rec is not None:
            section = "record"
        elif line.startswith("Metric #"):
            rec = None
            met = Metric(resource=res)
            metrics.append(met)
            section = None
        elif line.startswith("Descriptor:"):
            section = "descriptor"
        elif line.startswith("NumberDataPoints #") and met is not None:
            point = {"attrs": {}, "value": None}
            met.points.append(point)
            section = None
        elif line.startswith("Data point attributes:"):
            section = "point"
        elif line.startswith("Value: ") and point is not None:
            v = line.split(": ", 1)[1].strip()
            try:
                point["value"] = int(v)
            except ValueError:
                try:
                    point["value"] = float(v)
                except ValueError:
                    point["value"] = parse_value(v)
        elif line.strip().startswith("Trace ID") or line.startswith("Flags:"):
            section = None
    return Received(logs, metrics, errors)


# ---------------------------------------------------------------------------------------------
# sophia-hook in a sandbox


def in_git_repo(path: str) -> bool:
    if not shutil.which("git"):
        return False
    r = subprocess.run(
        ["git", "-C", path, "rev-parse", "--git-dir"], capture_output=True, text=True
    )
    return r.returncode == 0


@dataclass
class Run:
    rc: int
    out: str
    err: str
    secs: float


class Sandbox:
    """A fresh HOME / XDG_* / project / analytics log under a new /tmp directory (outside any git
    repository). Every process sophia-hook starts carries XDG_STATE_HOME=<this sandbox's state>, so
    procs() finds the detached flushes it leaves."""

    def __init__(self, binary: str, name: str, base: str):
        self.binary = binary
        self.root = tempfile.mkdtemp(prefix=f"{name}-", dir=base)
        if in_git_repo(self.root):
            raise RuntimeError(f"{self.root} is inside a git repository")
        self.home = self._dir("home")
        self.config = self._dir("config")
        self.state = self._dir("state")
        self.cache = self._dir("cache")
        self.project = self._dir("project")
        self.analytics = os.path.join(self._dir("analytics"), "sophia-hook.jsonl")
        self.prompts: list[str] = []

    def _dir(self, name: str) -> str:
        p = os.path.join(self.root, name)
        os.makedirs(p)
        return p

    def env(self, extra: dict | None = None) -> dict:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "HOME": self.home,
            "XDG_CONFIG_HOME": self.config,
            "XDG_STATE_HOME": self.state,
            "XDG_CACHE_HOME": self.cache,
            "SOPHIA_ANALYTICS_FILE": self.analytics,
        }
        env.update(extra or {})
        return env

    def write_config(self, **telemetry) -> None:
        d = os.path.join(self.config, "sophia-hook")
        os.makedirs(d, exist_ok=True)
        lines = ["telemetry:"]
        for k, v in telemetry.items():
            if isinstance(v, bool):
                v = "true" if v else "false"
            elif isinstance(v, dict):
                lines.append(f"  {k}:")
                lines += [f"    {kk}: {json.dumps(vv)}" for kk, vv in v.items()]
                continue
            lines.append(f"  {k}: {v}")
        with open(os.path.join(d, "config.yaml"), "w") as f:
            f.write("\n".join(lines) + "\n")

    def hook(self, prompt: str, session: str = "s1", raw: str | None = None) -> Run:
        """One hook run with a UserPromptSubmit payload for `prompt`, or with `raw` as stdin."""
        self.prompts.append(prompt)
        payload = raw if raw is not None else json.dumps(
            {"hook_event_name": "UserPromptSubmit", "prompt": prompt, "session_id": session,
             "cwd": self.project}  # fmt: skip
        )
        t = time.perf_counter()
        # capture_output waits for the hook to exit AND for EOF on its stdout/stderr, as a host
        # reading the hook's output does: a detached child holding them would show here.
        r = subprocess.run(
            [self.binary, "--host", "codex"], input=payload, capture_output=True, text=True,
            env=self.env(), cwd=self.project, timeout=30,
        )  # fmt: skip
        return Run(r.returncode, r.stdout, r.stderr, time.perf_counter() - t)

    def tool(self, *args: str, env_extra: dict | None = None, timeout: float = 120) -> Run:
        t = time.perf_counter()
        r = subprocess.run(
            [self.binary, *args], capture_output=True, text=True, env=self.env(env_extra),
            cwd=self.project, timeout=timeout, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        return Run(r.returncode, r.stdout, r.stderr, time.perf_counter() - t)

    def popen_tool(self, *args: str, env_extra: dict | None = None) -> subprocess.Popen:
        return subprocess.Popen(
            [self.binary, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=self.env(env_extra), cwd=self.project, stdin=subprocess.DEVNULL,
        )  # fmt: skip

    def lines(self) -> list:
        out = []
        if not os.path.exists(self.analytics):
            return out
        with open(self.analytics, "rb") as f:
            whole = True
            while True:  # line by line, skipping (not holding) any line over 1 MiB
                raw = f.readline(1 << 20)
                if not raw:
                    break
                if whole and raw.endswith(b"\n"):
                    try:
                        out.append(json.loads(raw))
                    except ValueError:
                        pass
                whole = raw.endswith(b"\n")
        return out

    def procs(self) -> list:
        """Live processes whose environment carries this sandbox's XDG_STATE_HOME."""
        tag = f"XDG_STATE_HOME={self.state}".encode()
        found = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    env = f.read().split(b"\x00")
                with open(f"/proc/{pid}/stat", "rb") as f:
                    state = f.read().rsplit(b")", 1)[1].split()[0]
            except OSError:
                continue
            if tag in env and state != b"Z":
                found.append(int(pid))
        return found

    def wait_quiet(self, timeout: float = 15.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.procs():
                return True
            time.sleep(0.05)
        return not self.procs()

    def kill_procs(self) -> list:
        pids = self.procs()
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        return pids
