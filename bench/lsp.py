#!/usr/bin/env python3
"""The language server's latency (issue 47): for each .idp file, `idp lsp` opens it as an
editor would, then the file is edited EDITS times (a character typed at the end of a line in
its middle, then taken away again); each time, the time from the change sent to its
diagnostics received is measured. Prints per file its size, the median, the 95th percentile
and the slowest, then the 95th percentile over all edits and the server's peak memory
(VmHWM of /proc).

Usage: bench/lsp.py IDP FILE_OR_FOLDER...   (EDITS=40 by default)
"""
import json, os, subprocess, sys, time


class Server:
    def __init__(self, idp):
        self.p = subprocess.Popen([idp, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next = 0

    def send(self, message):
        data = json.dumps(message).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.p.stdin.flush()

    def read(self):
        length = 0
        while True:
            line = self.p.stdout.readline()
            if line in (b"\r\n", b""):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.p.stdout.read(length))

    def request(self, method, params):
        self.next += 1
        self.send({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == self.next and "method" not in m:
                return m

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics(self, uri):
        while True:
            m = self.read()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                return m["params"]["diagnostics"]

    def peak_mb(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return float("nan")


def files_of(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, _, names in os.walk(path):
                for name in sorted(names):
                    if name.endswith(".idp"):
                        yield os.path.join(root, name)
        else:
            yield path


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    idp, paths = sys.argv[1], sys.argv[2:]
    edits = int(os.environ.get("EDITS", "40"))
    server = Server(idp)
    server.request("initialize", {"processId": None, "capabilities": {}})
    server.notify("initialized", {})
    everything = []
    print(f"{'file':<60} {'lines':>6} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7}")
    for version, path in enumerate(files_of(paths)):
        text = open(path, encoding="utf-8", errors="replace").read()
        uri = "file://" + os.path.abspath(path)
        server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "idp", "version": 1, "text": text}})
        server.diagnostics(uri)
        lines = text.split("\n")
        line = len(lines) // 2
        column = len(lines[line].encode("utf-16-le")) // 2
        times = []
        for k in range(edits):
            at = {"line": line, "character": column}
            if k % 2 == 0:
                change = {"range": {"start": at, "end": at}, "text": " "}
            else:
                change = {"range": {"start": at, "end": {"line": line, "character": column + 1}}, "text": ""}
            started = time.perf_counter()
            server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": k + 2}, "contentChanges": [change]})
            server.diagnostics(uri)
            times.append((time.perf_counter() - started) * 1000)
        server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        server.diagnostics(uri)
        everything += times
        name = path if len(path) <= 60 else "…" + path[-59:]
        print(f"{name:<60} {len(lines):>6} {percentile(times, 50):>7.1f} {percentile(times, 95):>7.1f} {max(times):>7.1f}")
    print(f"all {len(everything)} edits: p50 {percentile(everything, 50):.1f} ms, p95 {percentile(everything, 95):.1f} ms, "
          f"max {max(everything):.1f} ms; server peak memory {server.peak_mb():.0f} MB")
    server.request("shutdown", None)
    server.notify("exit", None)
    server.p.wait(timeout=10)


if __name__ == "__main__":
    main()
