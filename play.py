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

import random
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.utils import to_absolute_path
from omegaconf import DictConfig, OmegaConf

from agents.registry import configure_search
from env.core.registry import ruleset_from_config
from ui.seats import DEFAULT_AI, HUMAN, default_ai, resolve_seats
from ui.session import open_session


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
    console.print(f"ShengjiZero · seed {seed} · seats: " + ", ".join(
        f"{session.seat_label(s)}" for s in range(4)), style="bold green")
    log_dir = Path(HydraConfig.get().runtime.output_dir) / "hands" if cfg.terminal.save_logs else None
    TerminalGame(session, console=console, auto=bool(cfg.terminal.auto), delay=float(cfg.terminal.delay),
                 log_dir=log_dir, legal_limit=int(cfg.terminal.legal_limit)).run()


def run_web(cfg: DictConfig, rules: dict) -> None:
    """The web server; games are created from the page (defaults from this config)."""
    import uvicorn

    from ui.web.server import WebSettings, create_app

    settings = WebSettings(seats=tuple(_seats(cfg)), watch=bool(cfg.watch),
                           seed=None if cfg.seed is None else int(cfg.seed), episode=str(cfg.episode),
                           max_hands=int(cfg.max_hands), rules=rules,
                           checkpoint_dir=to_absolute_path(cfg.checkpoint_dir), hint_bot=str(cfg.hint_bot),
                           ai_delay=float(cfg.web.ai_delay), max_games=int(cfg.web.max_games))
    resolve_seats(list(settings.seats), settings.checkpoint_dir, ruleset_from_config(rules).name)  # fail early
    print(f"ShengjiZero: open http://{cfg.web.host}:{cfg.web.port}/ in a browser (Ctrl+C stops the server)")
    uvicorn.run(create_app(settings), host=str(cfg.web.host), port=int(cfg.web.port), log_level="warning")


@hydra.main(version_base="1.3", config_path="conf", config_name="play")
def main(cfg: DictConfig) -> None:
    """Start the chosen interface."""
    configure_search(OmegaConf.to_container(cfg.search, resolve=True))
    rules = OmegaConf.to_container(cfg.rules, resolve=True) or {}
    if DEFAULT_AI in _seats(cfg):
        ai = default_ai(to_absolute_path(cfg.checkpoint_dir), ruleset_from_config(rules).name)
        print(f"the default AI ({DEFAULT_AI}) is {ai}")
    if cfg.ui == "terminal":
        run_terminal(cfg, rules)
    elif cfg.ui == "web":
        run_web(cfg, rules)
    else:
        sys.exit(f"ui must be 'terminal' or 'web', got {cfg.ui!r}")


if __name__ == "__main__":
    main()
