"""Load on the web server: N rooms at once, each one scripted person and three AI seats, over real sockets.

    python benchmarks/bench_web_load.py --rooms 8 --ai search --hands 1

The server runs in this process (uvicorn on a free 127.0.0.1 port, the app of ``ui.web.server``); every
room's person is an asyncio WebSocket client that takes the first offered bid or the first allowed cards.
Reported: whether every hand finished, the error frames received (there should be none: the script only
sends legal moves), and the person's wait from sending a decision to their next turn (p50, p99, max), which
includes the AIs' think time of that room and of every other room sharing the cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def _person(url: str, hands: int, waits: list[float], errors: list[str]) -> int:
    """Play ``hands`` hands as the room's person; returns the hands finished."""
    from websockets.asyncio.client import connect

    finished, sent_at, decisions = 0, None, [0]
    async with connect(url, max_size=2**22) as ws:
        while finished < hands:
            message = json.loads(await ws.recv())
            if message["type"] == "error":
                errors.append(message["message"])
                continue
            if message["type"] != "state":
                continue
            if message["result"] and message["version"] > 0:
                finished += 1
                if finished < hands and not message["match"]["over"]:
                    await ws.send(json.dumps({"type": "next_hand"}))
                elif message["match"]["over"]:
                    break
                continue
            if not message["your_turn"]:
                continue
            if sent_at is not None:
                waits.append(time.monotonic() - sent_at)
            sent_at = await _decide(ws, message)
            decisions[0] += 1
    median = f"{statistics.median(waits):.2f} s" if waits else "-"
    print(f"  room {url.split('/ws/')[1][:12]}: {decisions[0]} decisions of the person, {finished} hand(s), "
          f"wait p50 {median}, max {max(waits, default=0):.2f} s", flush=True)
    return finished


async def _decide(ws, state: dict) -> float:
    """The first offered bid (or pass), or the first allowed cards; returns when the decision was sent."""
    if state["decision"] == "bid":
        await ws.send(json.dumps({"type": "bid", "index": 0} if state["bid_options"] else {"type": "pass"}))
        return time.monotonic()
    selection = state["selection"]
    while not selection["complete"] or (selection["needed"] is None and not selection["cards"]):
        await ws.send(json.dumps({"type": "select", "cards": [*selection["cards"], selection["addable"][0]]}))
        while (reply := json.loads(await ws.recv()))["type"] != "state" or reply.get("selection") is None:
            pass
        selection = reply["selection"]
    await ws.send(json.dumps({"type": selection["action"], "cards": selection["cards"]}))
    return time.monotonic()


async def _load(base: str, rooms: int, ai: str, hands: int) -> dict:
    import httpx

    async with httpx.AsyncClient() as client:
        created = [(await client.post(f"http://{base}/api/games", json={
            "seats": ["human", ai, ai, ai], "seed": 100 + room, "episode": "hand" if hands == 1 else "match"})).json()
            for room in range(rooms)]
    per_room: list[list[float]] = [[] for _ in created]
    errors: list[str] = []
    start = time.monotonic()
    finished = await asyncio.gather(*(
        _person(f"ws://{base}/ws/{room['id']}?token={room['links'][0]['token']}", hands, waits, errors)
        for room, waits in zip(created, per_room, strict=True)))
    return {"seconds": time.monotonic() - start, "finished": finished, "per_room": per_room, "errors": errors,
            "waits": [w for waits in per_room for w in waits]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=8)
    parser.add_argument("--ai", default="search", help="the three AI seats of every room (search, expert, ...)")
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--ai-delay", type=float, default=0.0, help="the server's display delay between AI moves")
    parser.add_argument("--time-budget", type=float, default=None, help="search.time_budget (conf/search)")
    args = parser.parse_args()

    import uvicorn

    from agents.registry import configure_search
    from ui.web.server import WebSettings, create_app

    if args.time_budget is not None:
        configure_search({"time_budget": args.time_budget})
    app = create_app(WebSettings(ai_delay=args.ai_delay, max_games=max(64, args.rooms)))
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        result = asyncio.run(_load(f"127.0.0.1:{port}", args.rooms, args.ai, args.hands))
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    waits = sorted(result["waits"])
    p99 = waits[min(len(waits) - 1, int(0.99 * len(waits)))] if waits else float("nan")
    print(f"{args.rooms} rooms, AI {args.ai} (time budget {args.time_budget or 'default'}), {args.hands} hand(s): "
          f"{sum(result['finished'])}/{args.rooms * args.hands} hands finished in {result['seconds']:.0f} s; "
          f"{len(result['errors'])} error frames {result['errors'][:3]}")
    if waits:
        print(f"person's wait from a decision to the next turn: p50 {statistics.median(waits):.2f} s, "
              f"p99 {p99:.2f} s, max {waits[-1]:.2f} s over {len(waits)} waits")
        medians = [statistics.median(w) for w in result["per_room"] if w]
        print(f"fairness: the rooms' median waits run from {min(medians):.2f} s to {max(medians):.2f} s "
              f"(their spread / the overall median: {(max(medians) - min(medians)) / statistics.median(waits):.2f})")


if __name__ == "__main__":
    main()
