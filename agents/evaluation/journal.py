"""The journal of an evaluation: every finished deal on disk as it comes back, so a stopped run resumes.

A search evaluation of 500 deals takes hours of a core; stopping it at 90% must
not throw the 90% away. :func:`agents.evaluation.run.evaluate` appends each
deal's result (both swapped games, with their decision times) to a JSON-lines
file, ``deals.jsonl`` in the run directory, the moment it arrives. A later run
given the same journal (``evaluate.py resume=<run directory>``) plays only the
deals the journal lacks, so its results are exactly those of an uninterrupted
run: deal ``i`` and its agents' seeds depend only on the seed and ``i``.

The first line is the header: the format, the pairs of participants, the
settings (mode, dealer, seed, rules, search options) and a SHA-256 of every
participant's checkpoint file. A journal whose header differs from the run's is
refused with the differing fields named, and nothing is written to it. Each
further line is one deal of one pair with its deck digest, checked against the
deal set of the run. A last line cut short (the process killed mid-write) is
dropped and its deal played again. Asking for more deals than the journal holds
extends it; asking for fewer reports the first ``num_deals`` and keeps the rest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agents.evaluation.deals import Deal
from agents.evaluation.duplicate import DealResult, GameRecord, MatchRecord, Settings
from agents.registry import checkpoint_paths

FORMAT = "shengji-evaluation-journal"
VERSION = 1
NAME = "deals.jsonl"
"""The journal's file name in an evaluation's run directory."""


class JournalError(ValueError):
    """A journal that does not belong to this evaluation, with the reason."""


def result_to_json(result: DealResult, digest: str) -> dict[str, Any]:
    """One journal line: a deal's two games (hands or matches) of one pair, with the deal's deck digest."""
    games = [{"kind": "match" if isinstance(g, MatchRecord) else "hand", **asdict(g)} for g in result.games]
    return {"pair": result.pair, "deal": result.deal, "deck_digest": digest, "games": games,
            "decision_seconds": result.decision_seconds, "decisions": result.decisions}


def result_from_json(line: dict[str, Any]) -> DealResult:
    """The :class:`DealResult` of a journal line (:func:`result_to_json`)."""
    games: list[GameRecord | MatchRecord] = []
    for game in line["games"]:
        fields = {k: v for k, v in game.items() if k != "kind"}
        if game["kind"] == "match":
            games.append(MatchRecord(**fields))
        else:
            fields["throws_attempted"] = tuple(fields["throws_attempted"])
            fields["throws_failed"] = tuple(fields["throws_failed"])
            games.append(GameRecord(**fields))
    return DealResult(int(line["pair"]), int(line["deal"]), tuple(games), dict(line["decision_seconds"]),
                      dict(line["decisions"]))


def journal_header(pairs: Sequence[tuple[str, str]], settings: Settings,
                   files: dict[str, str] | None = None) -> dict[str, Any]:
    """The header of a run's journal: what must be equal for two runs' deals to be interchangeable.
    ``files``: the SHA-256 of each participant's checkpoint file (:func:`participant_files`)."""
    plain = json.loads(json.dumps(asdict(settings)))  # tuples become lists, as they read back
    return {"format": FORMAT, "version": VERSION, "pairs": [list(p) for p in pairs], "settings": plain,
            "files": dict(sorted((files or {}).items()))}


def participant_files(names: Sequence[str]) -> dict[str, str]:
    """``{path: sha256}`` of the checkpoint files behind the participants (:func:`agents.registry.checkpoint_paths`): a
    checkpoint retrained in place between two runs is another participant."""
    paths = {path for name in names for path in checkpoint_paths(name)}
    return {path: _sha256(Path(path)) for path in sorted(paths)}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Journal:
    """An evaluation's journal file: read what a stopped run finished, append what this run finishes."""

    def __init__(self, path: str | Path, header: dict[str, Any]):
        self.path = Path(path)
        self.header = header
        self.done: dict[tuple[int, int], tuple[str, DealResult]] = {}
        if self.path.exists():
            self._read()

    def _read(self) -> None:
        lines = self.path.read_text().split("\n")
        try:
            saved = json.loads(lines[0])
        except json.JSONDecodeError as error:
            raise JournalError(f"{self.path} is not an evaluation journal: {error}") from error
        if not isinstance(saved, dict) or saved.get("format") != FORMAT:
            raise JournalError(f"{self.path} is not an evaluation journal (format {FORMAT!r})")
        differ = sorted(k for k in set(saved) | set(self.header) if saved.get(k) != self.header.get(k))
        if differ:
            detail = "; ".join(f"{k}: {saved.get(k)!r} there, {self.header.get(k)!r} here" for k in differ)
            raise JournalError(f"{self.path} belongs to another evaluation ({detail}): start a new run directory")
        for number, text in enumerate(lines[1:], start=2):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
                result = result_from_json(line)
            except (json.JSONDecodeError, KeyError, TypeError) as error:
                if number == len(lines) - (lines[-1] == ""):  # the last line, cut short: play it again
                    self._truncate_to(lines[:number - 1])
                    break
                raise JournalError(f"{self.path}, line {number}: not a deal result ({error})") from error
            self.done[(result.pair, result.deal)] = (str(line["deck_digest"]), result)

    def _truncate_to(self, lines: list[str]) -> None:
        self.path.write_text("\n".join(lines) + "\n")

    def finished(self, pair: int, deal: Deal) -> DealResult | None:
        """The journal's result of ``deal`` for ``pair``, or ``None``; a result of another deal under the
        same index (another deal set) is refused."""
        entry = self.done.get((pair, deal.index))
        if entry is None:
            return None
        digest, result = entry
        if digest != deal.deck_digest:
            raise JournalError(f"{self.path}: deal {deal.index} was another deal (deck digest {digest}, "
                               f"this run's {deal.deck_digest}): another deal set; start a new run directory")
        return result

    def record(self, results: Iterator[DealResult], digests: dict[int, str]) -> Iterator[DealResult]:
        """Pass ``results`` through, appending each to the journal (flushed) as it arrives; ``digests``: the
        deck digest of each deal index."""
        new = not self.path.exists()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a") as f:
            if new:
                f.write(json.dumps(self.header) + "\n")
                f.flush()
            for result in results:
                f.write(json.dumps(result_to_json(result, digests[result.deal])) + "\n")
                f.flush()
                yield result
