"""A rule set registered from the tests alone plays everywhere the built-in ones do.

:mod:`rulesets.no_bidding` (registered by ``conftest.py``) is the standard game on
another layout with no bidding. Nothing in env/, agents/ or ui/ names it; here it
plays complete hands through the PettingZoo environment (the conformance suite
checks it like the others), self-play tables of the learner, ``evaluate.py`` run
as a program with the rule bots, and the terminal session.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
from conftest import ROOT
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from rulesets.no_bidding import NAME

from agents.dmc.tables import make_tables
from agents.selfplay.checkpoint import new_model
from agents.selfplay.config import run_config
from env.core.registry import make_ruleset
from env.shengji_env import raw_env
from ui.sessions import open_session

LAUNCH = ("import sys, runpy; sys.path.insert(0, 'tests'); "
          "from rulesets.no_bidding import register; register(); "
          "sys.argv = ['evaluate.py', *sys.argv[1:]]; runpy.run_path('evaluate.py', run_name='__main__')")


def test_hands_deal_the_layout_and_skip_the_bidding():
    ruleset = make_ruleset(NAME)
    environment = raw_env(rules=NAME)
    environment.reset(seed=4)
    hand = environment.hand
    assert hand.phase.value == "kitty" and not hand.decisions  # no bid turn: the burial comes first
    assert sorted(hand.hand_sizes) == [24, 24, 24, 36] and hand.hand_sizes[hand.dealer] == 36
    assert environment.observation_space("player_0")["history"].shape[0] == ruleset.layout.num_tricks == 24
    rng = np.random.default_rng(0)
    while not any(environment.terminations.values()):
        environment.step(int(rng.choice(np.flatnonzero(environment.action_mask()))))
    assert environment.hand.finished


def test_the_learner_plays_it_in_self_play():
    with initialize_config_dir(version_base=None, config_dir=str(ROOT / "conf")):
        cfg = compose("train", overrides=["train=smoke", "+rules.ruleset=" + NAME])
    run = run_config(OmegaConf.to_container(cfg, resolve=True))
    assert run.rules.name == NAME and run.action_mode == "play"
    tables = make_tables(run, seed=3)
    model = new_model(run)
    batch = None
    for _ in range(400):
        tables.step(model, epsilon=0.1, teacher_share=0.5)
        batch = batch or tables.collect(1)
    assert batch is not None and len(batch) > 0
    assert batch.obs.shape[1] == make_ruleset(NAME).observation_size("canonical")


def test_evaluate_py_runs_it_with_the_rule_bots(tmp_path):
    out = tmp_path / "eval"
    deals = tmp_path / "deals.json"
    result = subprocess.run([sys.executable, "-c", LAUNCH, "participants=[greedy,random]", "num_deals=3",
                             "+rules.ruleset=" + NAME, f"deals_file={deals}", "workers=1", "progress=false",
                             f"hydra.run.dir={out}"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    saved = json.loads(deals.read_text())
    assert saved["ruleset"] == NAME and len(saved["deals"]) == 3
    results = json.loads((out / "results.json").read_text())
    assert results["num_deals"] == 3 and results["settings"]["rules"]["ruleset"] == NAME
    assert len(results["pairs"][0]["per_deal_level_change"]) == 3


def test_the_terminal_session_plays_it():
    session = open_session(["random", "greedy", "expert", "random"], rules={"ruleset": NAME}, seed=2, episode="hand")
    while not session.hand_over:
        session.step_ai()
    assert session.match_over and session.hand.ruleset.name == NAME
    assert session.hand_log()["ruleset"] == NAME and session.messages
