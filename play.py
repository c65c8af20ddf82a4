"""Play Shengji against the AI, or watch four AIs: `python play.py` (options: conf/play.yaml).

``ui=terminal`` draws the table with rich and reads cards typed in the project's
notation; ``ui=web`` serves the page at http://127.0.0.1:8000 (``web.host``,
``web.port``). Seats are ``human``, a bot name, a checkpoint path, ``search``
(``search:<prior>``) or ``ai`` (the strongest agent measured; printed at start).
``rules=guafeng`` plays 刮风 (RULES-guafeng.md) instead of the standard game; its
AI seats are the rule bots or a checkpoint trained with ``python train.py
rules=guafeng`` (by its path); ``ai`` is the expert bot there, as the search does
not play 刮风.
"""

from __future__ import annotations

import contextlib
import random
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.utils import to_absolute_path
from omegaconf import DictConfig, OmegaConf

from agents.registry import SEARCH, configure_search
from env.core.registry import ruleset_from_config
from ui.seats import DEFAULT_AI, HUMAN, default_ai, resolve_seats
from ui.sessions import open_session


def _seats(cfg: DictConfig) -> list[str]:
    seats = [str(s) for s in cfg.seats]
    if cfg.watch:
        seats = [DEFAULT_AI if s == HUMAN else s for s in seats]
    return seats


def run_terminal(cfg: DictConfig, rules: dict) -> None:
    """The terminal game (or watch mode) in this terminal."""
    from rich.console import Console

    from ui.terminal import TerminalGame

    checkpoint_dir = to_absolute_path(cfg.checkpoint_dir)
    seats = resolve_seats(_seats(cfg), checkpoint_dir, ruleset_from_config(rules).name)
    seed = random.randrange(10**9) if cfg.seed is None else int(cfg.seed)
    session = open_session(seats, seed=seed, rules=rules, episode=str(cfg.episode), max_hands=int(cfg.max_hands),
                            hint_bot=str(cfg.hint_bot))
    console = Console(highlight=False, no_color=not cfg.terminal.color)
    console.print(f"ShengjiZero · seed {seed} · {session.rules_text()} · seats: " + ", ".join(
        f"{session.seat_label(s)}" for s in range(4)), style="bold green")
    log_dir = Path(HydraConfig.get().runtime.output_dir) / "hands" if cfg.terminal.save_logs else None
    TerminalGame(session, console=console, auto=bool(cfg.terminal.auto), delay=float(cfg.terminal.delay),
                 log_dir=log_dir, legal_limit=int(cfg.terminal.legal_limit)).run()


LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""What stops the web server cleanly: Ctrl-C, ``kill`` / systemd / Kubernetes, a closed terminal."""


def run_web(cfg: DictConfig, rules: dict) -> None:
    """The web server; games are created from the page (defaults from this config) and kept in ``web.database``.

    Ctrl-C, SIGTERM and SIGHUP stop it cleanly (the connections close, the database is already written at
    every decision) and the process exits with 128 + the signal's number (130, 143, 129), as a shell reports
    a program ended by that signal.
    """

    from ui.web.server import WebSettings, create_app

    database = None if cfg.web.database is None else to_absolute_path(str(cfg.web.database))
    settings = WebSettings(seats=tuple(_seats(cfg)), watch=bool(cfg.watch),
                           seed=None if cfg.seed is None else int(cfg.seed), episode=str(cfg.episode),
                           max_hands=int(cfg.max_hands), rules=rules,
                           checkpoint_dir=to_absolute_path(cfg.checkpoint_dir), hint_bot=str(cfg.hint_bot),
                           ai_delay=float(cfg.web.ai_delay),
                           slow_ai_delay=float(cfg.web.slow_ai_delay), away_after=float(cfg.web.away_after),
                           max_games=int(cfg.web.max_games), database=database)
    resolve_seats(list(settings.seats), settings.checkpoint_dir, ruleset_from_config(rules).name)  # fail early
    host, port = str(cfg.web.host), int(cfg.web.port)
    app = create_app(settings)
    store = app.state.store
    if store is not None:
        if store.set_aside:
            print(f"WARNING: {store.set_aside}", file=sys.stderr)
        print(f"games are kept in {database} ({len(app.state.games)} reopened)")
        for game_id, reason in app.state.not_restored:
            print(f"WARNING: stored game {game_id} could not be reopened (left in the database): {reason}",
                  file=sys.stderr)
    if host not in LOCAL_HOSTS:
        print(f"WARNING: web.host={host}: other machines can reach this server. Anyone who reaches it can open the "
              "lobby and watch games; a seat opens only with its join link's secret token, so send each link "
              "to its player only. There is no TLS: keep to a network you trust (or put it behind an HTTPS "
              "proxy), and open the page by this machine's address so the join links point here.",
              file=sys.stderr)
    print(f"ShengjiZero: open http://{host}:{port}/ in a browser (Ctrl+C stops the server)", flush=True)
    stop_signal = _serve(app, host, port)
    if stop_signal is not None:
        print(f"ShengjiZero: stopped by {signal.Signals(stop_signal).name}; the games are saved"
              + (f" in {database}: run the same command to open them again" if database else ""), flush=True)
        sys.exit(128 + stop_signal)


def _serve(app, host: str, port: int) -> int | None:
    """Run uvicorn until a signal of :data:`STOP_SIGNALS` (returned) or the server's own end (``None``).

    uvicorn handles SIGINT and SIGTERM, then raises the signal again once shut down; here SIGHUP stops
    it the same way, and the caller chooses the exit status.
    """
    import uvicorn

    class StoppableServer(uvicorn.Server):
        stop_signal: int | None = None

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            previous = {sig: signal.signal(sig, self.handle_exit) for sig in STOP_SIGNALS}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            self.stop_signal = self.stop_signal or sig
            super().handle_exit(sig, frame)

    server = StoppableServer(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    server.run()
    return server.stop_signal


@hydra.main(version_base="1.3", config_path="conf", config_name="play")
def main(cfg: DictConfig) -> None:
    """Start the chosen interface."""
    configure_search(OmegaConf.to_container(cfg.search, resolve=True))
    rules = OmegaConf.to_container(cfg.rules, resolve=True) or {}
    try:
        ruleset = ruleset_from_config(rules)
    except (TypeError, ValueError) as error:
        sys.exit(f"play.py: rules: {error}")
    if DEFAULT_AI in _seats(cfg):
        ai = default_ai(to_absolute_path(cfg.checkpoint_dir), ruleset.name)
        budget = f" ({cfg.search.worlds} worlds a decision, at most {cfg.search.time_budget} s)" if ai == SEARCH else ""
        print(f"the default AI ({DEFAULT_AI}) is {ai}{budget}")
    if cfg.ui not in ("terminal", "web"):
        sys.exit(f"play.py: ui must be 'terminal' or 'web', got {cfg.ui!r}")
    try:
        check_setup(cfg, rules)
    except (ValueError, FileNotFoundError) as error:  # a bad seat, rule option or checkpoint: its message only
        sys.exit(f"play.py: {error}")
    if cfg.ui == "terminal":
        run_terminal(cfg, rules)
    else:
        run_web(cfg, rules)


def check_setup(cfg: DictConfig, rules: dict) -> None:
    """Open the configured table once (seats, rules, checkpoints) so a mistake is one clear line, not a traceback."""
    seats = resolve_seats(_seats(cfg), to_absolute_path(cfg.checkpoint_dir), ruleset_from_config(rules).name)
    open_session(seats, seed=0, rules=rules, episode=str(cfg.episode), max_hands=int(cfg.max_hands),
                 hint_bot=str(cfg.hint_bot))


if __name__ == "__main__":
    main()
