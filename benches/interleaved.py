#!/usr/bin/env python3
"""Wall time of several binaries on one payload, interleaved: each round runs every binary once,
in turn (in reverse order every other round), so that a shared machine's drift falls on all of
them alike. Prints each binary's median and its ratio to the first binary's (the floor).

    benches/interleaved.py PAYLOAD FLOOR BINARY...      # N=600 rounds after 30 warm-up rounds

Used to compare builds (docs/performance.md, "Relocations"): e.g. the floor, `main`'s release
binary and a branch's, on a payload of benches/hook-latency.sh. Stdin is the payload, stdout and
stderr go to /dev/null; the environment is passed through (set HOME and SOPHIA_ANALYTICS=off as
the benches do)."""
import os
import statistics
import sys
import time

payload, bins = sys.argv[1], sys.argv[2:]
rounds, warmup = int(os.environ.get("N", "600")), 30
data = open(payload, "rb").read()
if len(data) > 65536:
    sys.exit("payloads over 64 KiB would block in the pipe before the binary starts")
null = os.open(os.devnull, os.O_WRONLY)
times = {b: [] for b in bins}
for i in range(warmup + rounds):
    for b in bins if i % 2 == 0 else bins[::-1]:
        r, w = os.pipe()
        os.write(w, data)  # fits in the pipe's buffer (checked above)
        os.close(w)
        start = time.perf_counter()
        pid = os.posix_spawn(b, [b], os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, r, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
        os.waitpid(pid, 0)
        elapsed = time.perf_counter() - start
        os.close(r)
        if i >= warmup:
            times[b].append(elapsed)
floor = statistics.median(times[bins[0]])
for b in bins:
    m = statistics.median(times[b])
    print(f"{b}\tmedian {m * 1000:.3f} ms\t{m / floor:.2f}x")
