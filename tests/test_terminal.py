"""The terminal game driven by a script through a whole hand (pexpect on `python play.py ui=terminal`)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[1]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PROMPTS = ["bid> ", "bury> ", "play> ", "next> ", pexpect.EOF]


def _spawn(tmp_path: Path, *overrides: str) -> pexpect.spawn:
    args = ["play.py", "ui=terminal", "episode=hand", "terminal.color=false", f"hydra.run.dir={tmp_path}",
            *overrides]
    return pexpect.spawn(sys.executable, args, cwd=str(ROOT), encoding="utf-8", timeout=30,
                         dimensions=(60, 140), env={"PYTHONUNBUFFERED": "1", "TERM": "dumb", "COLUMNS": "140"})


def _first_listed(child: pexpect.spawn, prompt: str) -> str:
    """Ask `?` and return the first legal play the UI lists."""
    child.sendline("?")
    child.expect(prompt)
    listed = re.search(r"^\s+1\. (.+?)\s*$", ANSI.sub("", child.before), re.MULTILINE)
    assert listed, child.before
    return listed.group(1)


def _refuses_an_illegal_play(child: pexpect.spawn) -> None:
    """At the play prompt, a play that is never legal is refused and asked again."""
    child.sendline("SA SA SA")  # never legal: there are only two SA
    child.expect("play> ")
    assert "Illegal:" in ANSI.sub("", child.before)


def test_terminal_plays_a_whole_hand(tmp_path: Path) -> None:
    """Take the first bid, bury and play the first choice listed by `?`, until the hand is scored."""
    child = _spawn(tmp_path, "seed=5", "seats=[human,greedy,greedy,greedy]")
    transcript = []
    plays = 0
    illegal_tried = False
    while True:
        index = child.expect(PROMPTS)
        transcript.append(ANSI.sub("", child.before or ""))
        if index == 4:
            break
        prompt = PROMPTS[index]
        if prompt == "bid> ":
            child.sendline(_first_listed(child, prompt))  # the cards of the first bid, e.g. "S2"
        elif prompt in ("bury> ", "play> "):
            if prompt == "play> " and not illegal_tried:
                illegal_tried = True
                _refuses_an_illegal_play(child)
            if prompt == "play> " and plays == 6:  # the hand's record so far
                child.sendline("tricks")
                child.expect(prompt)
                record = ANSI.sub("", child.before)
                assert re.search(r"Trick 1: You led .+→\s+won\s+by ", record, re.DOTALL), record
            if prompt == "play> " and plays == 3:
                child.sendline("1")  # the first play `?` lists, by its number
            else:
                child.sendline(_first_listed(child, prompt))
            plays += prompt == "play> "
        else:
            child.sendline("")
    text = "".join(transcript)
    child.close()
    assert child.exitstatus == 0, text[-2000:]
    assert plays == 25
    assert "You bid" in text and "You buried" in text  # seed 5: the first bid makes us the dealer
    assert "Defenders took" in text
    assert "The hand is over. Thanks for playing!" in text
    logs = list((tmp_path / "hands").glob("hand_*.json"))
    assert len(logs) == 1


def test_terminal_explains_illegal_plays_and_quits(tmp_path: Path) -> None:
    """A malformed token and a card not held are refused with the reason, then `q` leaves cleanly."""
    child = _spawn(tmp_path, "seed=11", "seats=[human,random,random,random]")
    index = child.expect(PROMPTS[:4])
    while PROMPTS[index] == "bid> ":
        child.sendline("p")
        index = child.expect(PROMPTS[:4])
    prompt = PROMPTS[index]
    child.sendline("XX")
    child.expect(prompt)
    assert "malformed card token 'XX'" in ANSI.sub("", child.before)
    child.sendline("help")
    child.expect(prompt)
    assert "list legal plays" in child.before and "fix>" not in child.before  # the standard game has no 扣主
    child.sendline("kitty")
    child.expect(prompt)
    assert "only the one who buried it" in ANSI.sub("", child.before)  # seed 11: we did not bury
    if prompt == "play> ":
        child.sendline("999")
        child.expect(prompt)
        assert "not one of the numbered plays" in ANSI.sub("", child.before)
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_watch_mode_auto_plays_a_match(tmp_path: Path) -> None:
    """Four AIs play hand after hand by themselves (a match cut at two hands)."""
    child = _spawn(tmp_path, "seed=2", "watch=true", "terminal.auto=true", "terminal.delay=0", "episode=match",
                   "max_hands=2", "seats=[random,random,random,random]")
    child.expect("Hand 2: levels", timeout=60)
    child.expect("The match is over after 2 hand", timeout=60)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


GUAFENG_PROMPTS = ["fix> ", "giveback> ", "bury> ", "play> ", "next> ", pexpect.EOF]


def test_terminal_plays_a_guafeng_hand(tmp_path: Path) -> None:
    """刮风: fix once (the first fix offered), then pass; give back, bury and play the first choice `?` lists."""
    # Seed 27: our fix eats East's, so we give cards back (回牌) before the tricks.
    child = _spawn(tmp_path, "rules=guafeng", "seed=27", "seats=[human,random,random,random]")
    transcript = []
    decisions = {prompt: 0 for prompt in GUAFENG_PROMPTS[:5]}
    illegal_tried = False
    while True:
        index = child.expect(GUAFENG_PROMPTS)
        transcript.append(ANSI.sub("", child.before or ""))
        if GUAFENG_PROMPTS[index] is pexpect.EOF:
            break
        prompt = GUAFENG_PROMPTS[index]
        decisions[prompt] += 1
        if prompt == "fix> ":
            child.sendline("1" if decisions[prompt] == 1 else "p")
        elif prompt == "next> ":
            child.sendline("")
        else:
            if prompt == "play> " and not illegal_tried:
                illegal_tried = True
                _refuses_an_illegal_play(child)
            child.sendline(_first_listed(child, prompt))
    text = "".join(transcript)
    child.close()
    assert child.exitstatus == 0, text[-2000:]
    assert decisions["fix> "] >= 1 and decisions["giveback> "] >= 1 and decisions["play> "] >= 10, decisions
    assert "You fix (扣主)" in text and "You give back" in text and "The trump is revealed" in text
    assert "捡底" in text and "Defenders' points" in text
    assert "The hand is over. Thanks for playing!" in text
    assert len(list((tmp_path / "hands").glob("hand_*.json"))) == 1


def test_terminal_plays_a_three_deck_hand(tmp_path: Path) -> None:
    """`rules=three_decks` (RULES.md 11): the banner and the table's header say 3 decks; the hand (39 cards,
    bids of up to three cards) is played to its score with the first choice `?` lists."""
    child = _spawn(tmp_path, "rules=three_decks", "seed=4", "seats=[human,random,random,random]")
    transcript = []
    while (index := child.expect(PROMPTS, timeout=60)) != 4:
        transcript.append(ANSI.sub("", child.before or ""))
        prompt = PROMPTS[index]
        child.sendline(_first_listed(child, prompt) if prompt != "next> " else "")
    transcript.append(ANSI.sub("", child.before or ""))
    text = "".join(transcript)
    child.close()
    assert child.exitstatus == 0, text[-2000:]
    assert "3 decks · 39 cards a hand · kitty of 6" in text  # the banner
    assert re.search(r"Hand 1 · 3 decks · level 2", text), text[-2000:]
    assert "Defenders took" in text and "The hand is over. Thanks for playing!" in text


def test_scores_history_and_the_kitty_marked_before_the_burial() -> None:
    """In process: the dealer is told which cards came from the kitty; `scores` prints the match's history
    (hand, dealer, trump, points, levels) once a hand is over, and says so before."""
    import io

    from rich.console import Console

    from ui.sessions import open_session
    from ui.terminal import TerminalGame

    session = open_session(["human", "greedy", "greedy", "greedy"], seed=5, max_hands=2)
    out = io.StringIO()
    asked: list[str] = []

    def answer(prompt: str) -> str:
        asked.append(prompt)
        if len(asked) == 1:
            return "scores"
        if prompt == "bid> ":
            return "1" if session.bid_options(0) else "p"
        if prompt == "next> ":
            return "scores" if asked.count("next> ") == 1 else ""
        return "1"  # bury or play: the first of the numbered list

    TerminalGame(session, Console(file=out, width=400, color_system=None), input_fn=answer).run()
    text = out.getvalue()
    assert "No hand of this match has finished yet." in text
    assert "From the kitty: " in text  # seed 5: our first bid makes us the dealer
    assert re.search(r"Hand 1: dealer You, trump \w+, level 2; defenders \d+ points; .*levels 2/2 → ", text), \
        text[-3000:]
