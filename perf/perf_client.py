"""Sections 1 and 2: scheduling (ChatClient.run against ideal refill) and per-request overhead."""
from __future__ import annotations

import asyncio
import os
import random

from perf.perf_common import Figure, Mode, median, profile
from perf.perf_server import (Server, drive_chatclient, drive_raw, ideal_refill, measure, request_body,
                                    window_rate)

CONCURRENCY = [1, 16, 64, 256]
CONST_LATENCY = 1.0
SKEW = [(0.9, 0.1), (0.1, 10.0)]  # (share, seconds): 90% answers in 0.1 s, 10% in 10 s


def mean_latency(mix: list[tuple[float, float]]) -> float:
    return sum(p * lat for p, lat in mix)


def skewed_latencies(mix: list[tuple[float, float]], c: int, n: int, seed: int = 0) -> list[float]:
    """Latencies of n requests: the mix in shuffled blocks of 10 (exact shares), after c warm-up requests.

    A run that starts with c fresh requests is far from steady state for minutes (every worker gets
    stuck in a 10 s answer at about the same time, and the slow answers stay in phase). The first c
    requests therefore take the *remaining* time of a request in progress in a long run (the residual
    time: class chosen by share x latency, then uniform), which makes the run stationary from t = 0.
    They fall in the first latency period, which the window leaves out anyway.
    """
    rng = random.Random(seed)
    weights = [p * lat for p, lat in mix]
    warm = [rng.uniform(0, rng.choices([lat for _, lat in mix], weights)[0]) for _ in range(c)]
    block = [lat for p, lat in mix for _ in range(round(p * 10))]
    rest: list[float] = []
    while len(rest) < n - c:
        rng.shuffle(block)
        rest += block
    return warm + rest[: max(0, n - c)]


def server_capacity(srv: Server, mode: Mode) -> list[Figure]:
    """The server alone: the raw generator at latency 0, c = 64. Capacity = requests per server CPU-second."""
    runs = [measure(srv, "raw", [request_body(0.0)] * mode.overhead_requests, 64) for _ in range(mode.runs)]
    cap = [1e3 / r["server_cpu_per_req_ms"] for r in runs]
    rate = [window_rate(r["spans"], 0, 0) for r in runs]
    busy = [r["server_busy"] for r in runs]
    return [Figure("server", "server capacity (requests per server CPU-second)", cap, "req/s", 2 * 256 / CONST_LATENCY,
                   note=f"raw generator at latency 0, c=64: {median(rate):.0f} req/s with the server "
                        f"{median(busy):.0%} busy; target: 2x the fastest scheduling run (256 req/s)")]


def _side_by_side(srv: Server, runs: list[tuple[int, list[dict]]]) -> list[list[tuple[float, float]]]:
    """Several ChatClient runs (concurrency, bodies) at once in one event loop, each with its own client."""
    async def together():
        return await asyncio.gather(*(drive_chatclient(srv.base_url, bodies, c) for c, bodies in runs))
    return asyncio.run(together())


def scheduling(srv: Server, mode: Mode) -> list[Figure]:
    """ChatClient.run at c = 1, 16, 64 (side by side: 81 req/s in all, a few % of a core) and 256 (alone)."""
    figures: list[Figure] = []
    rates: dict[int, list[float]] = {c: [] for c in CONCURRENCY}
    for group, seconds in ((CONCURRENCY[:3], mode.const_seconds[0]), (CONCURRENCY[3:], mode.const_seconds[1])):
        for _ in range(mode.const_runs):
            runs = [(c, [request_body(CONST_LATENCY)] * int(c * seconds / CONST_LATENCY)) for c in group]
            for (c, _), spans in zip(runs, _side_by_side(srv, runs)):
                rates[c].append(window_rate(spans, CONST_LATENCY, CONST_LATENCY))
    for c in CONCURRENCY:  # constant latency: ideal c / L
        figures.append(Figure("scheduling", f"constant {CONST_LATENCY:g} s, c={c}: throughput / ideal (c/L)",
                              [r / (c / CONST_LATENCY) for r in rates[c]], "x", 0.98 if c == 256 else None,
                              note=f"{median(rates[c]):.2f} req/s vs ideal {c / CONST_LATENCY:.0f} req/s"))
    n = int(256 * mode.const_seconds[1] / CONST_LATENCY)  # the same load through the bare generator
    raw = window_rate(asyncio.run(drive_raw(srv.base_url, [request_body(CONST_LATENCY)] * n, 256)),
                      CONST_LATENCY, CONST_LATENCY)
    figures.append(Figure("scheduling", f"reference: raw generator, constant {CONST_LATENCY:g} s, c=256 / ideal",
                          [raw / 256 * CONST_LATENCY], "x", note="what this machine allows right now (same run)"))
    mean, slowest = mean_latency(SKEW), max(lat for _, lat in SKEW)
    groups = [[c for c in mode.skew_concurrency if c < 256], [c for c in mode.skew_concurrency if c >= 256]]
    for group in filter(None, groups):  # skewed: ideal refill c / mean latency
        lats = {c: skewed_latencies(SKEW, c, c + int(c / mean * mode.skew_seconds), seed=c) for c in group}
        all_spans = _side_by_side(srv, [(c, [request_body(x) for x in lats[c]]) for c in group])
        for c, spans in zip(group, all_spans):
            rate = window_rate(spans, slowest, slowest)
            sim = window_rate(ideal_refill(lats[c], c), slowest, slowest)
            figures.append(Figure(
                "scheduling", f"skewed 90%x0.1 s/10%x10 s, c={c}: throughput / ideal refill (c/mean)",
                [rate / (c / mean)], "x", 0.95 if c >= 16 else None,
                note=f"{rate:.2f} req/s vs ideal {c / mean:.2f} req/s; simulated refill of the same {len(lats[c])} "
                     f"requests: {sim:.2f} req/s, client/simulation = {rate / sim:.3f}"
                     + ("" if c >= 16 else "; one worker sees too few 10 s answers in a window to match c/mean, "
                        "compare with the simulation")))
    return figures


def overhead(srv: Server, mode: Mode) -> list[Figure]:
    """10 ms latency, c = 64: raw generator vs ChatClient vs openai.AsyncOpenAI, interleaved rounds."""
    c, lat = 64, 0.01
    got: dict[str, list[dict]] = {"raw": [], "chatclient": [], "openai": []}
    ratios = []
    for r in range(mode.overhead_rounds):
        order = ["raw", "chatclient"]
        order = order if r % 2 == 0 else order[::-1]  # alternating order cancels drifting load
        for d in order + (["openai"] if r < mode.runs else []):
            n = mode.openai_requests if d == "openai" else mode.overhead_requests
            m = measure(srv, d, [request_body(lat)] * n, c)
            m["rate"] = window_rate(m.pop("spans"), lat, lat)
            got[d].append(m)
        ratios.append(got["chatclient"][-1]["rate"] / got["raw"][-1]["rate"])

    def vals(d: str, key: str) -> list[float]:
        return [m[key] for m in got[d]]

    load = os.getloadavg()[0]
    figures = [
        Figure("overhead", "ChatClient CPU per request", vals("chatclient", "cpu_per_req_ms"), "ms", 0.2, "<=",
               note=f"raw generator {median(vals('raw', 'cpu_per_req_ms')):.3f} ms/request"),
        Figure("overhead", "ChatClient throughput / raw generator (same round)", ratios, "x", 0.90,
               note=f"ChatClient {median(vals('chatclient', 'rate')):.0f} req/s, raw {median(vals('raw', 'rate')):.0f} "
                    f"req/s (ideal c/L = {c / lat:.0f}); server {median(vals('raw', 'server_busy')):.0%} busy under raw; "
                    f"load average {load:.1f} on {os.cpu_count()} cores"),
        Figure("overhead", "openai.AsyncOpenAI CPU per request (comparison)", vals("openai", "cpu_per_req_ms"), "ms",
               note=f"{median(vals('openai', 'rate')):.0f} req/s; spec says about 1.6 ms on this machine"),
    ]
    return figures


def profile_chatclient(srv: Server, n: int = 3000) -> dict:
    """Where ChatClient's CPU goes: cProfile of one run at latency 0 (client side only)."""
    bodies = [request_body(0.0)] * n
    return profile(lambda: asyncio.run(drive_chatclient(srv.base_url, bodies, 64)))


def profile_raw(srv: Server, n: int = 3000) -> dict:
    bodies = [request_body(0.0)] * n
    return profile(lambda: asyncio.run(drive_raw(srv.base_url, bodies, 64)))
