"""play.py as a person starts it: a bad seat or rule option is one clear line, the documented rule overrides work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from env.core.registry import ruleset_from_config

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("overrides, said", [
    (["seats=[human,foo,ai,ai]"], "unknown agent 'foo'"),
    (["seats=[human,ai,ai]"], "4 seats"),
    (["seats=[human,checkpoints/missing.pt,ai,ai]"], "missing.pt"),
    (["+rules.kitty_multiplier=cubic"], "kitty_multiplier"),
])
def test_a_bad_setup_is_one_clear_line_not_a_traceback(tmp_path: Path, overrides: list[str], said: str) -> None:
    run = subprocess.run([sys.executable, "play.py", *overrides, f"hydra.run.dir={tmp_path}"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert run.returncode != 0
    assert "Traceback" not in run.stderr and said in run.stderr, run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith("play.py: "), run.stderr


def test_the_documented_rule_overrides_compose() -> None:
    """conf/play.yaml tells people to add rule options with a plus; they reach the rule set."""
    text = (ROOT / "conf" / "play.yaml").read_text()
    assert "+rules.kitty_multiplier=linear" in text
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        cfg = compose("play", overrides=["+rules.kitty_multiplier=linear", "+rules.throw_penalty=10"])
        picked = compose("play", overrides=["rules=linear_kitty"])
    options = ruleset_from_config(OmegaConf.to_container(cfg.rules)).options
    assert (options.kitty_multiplier, options.throw_penalty) == ("linear", 10)
    assert ruleset_from_config(OmegaConf.to_container(picked.rules)).options.kitty_multiplier == "linear"
