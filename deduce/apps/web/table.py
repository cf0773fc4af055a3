"""One game at the table, as the page sees it: a :class:`GameAssistant` and the log file it saves.

The page drives the very session the terminal does: each tap becomes the line the terminal
would read (:meth:`Table.line`), so every rule, check and saved log is the session's. This
module adds what a page needs and a terminal does not: one lock (requests come from threads),
a JSON-ready :meth:`Table.view` of everything shown (setup question, grid, advice, events,
a held-back contradiction), ``why`` by card number, and replacing the game with an uploaded log
after the same checks a resumed log gets.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deduce.apps.assist.session import GameAdapter, GameAssistant, budget_checker
from deduce.apps.assist.text import cell_text
from deduce.apps.web.forms import card_token, event_forms
from deduce.errors import DeduceError, LogError
from solvers.budget import DEFAULT_BUDGET

__all__ = ["Reply", "Table", "read_log", "check_log", "MAX_LINE"]

#: the longest line the page may send (a Clue suggestion with long names is under 200).
MAX_LINE = 1000
#: lines the page refuses: a page has nothing to quit (the game is already saved).
_QUIT_WORDS = {"quit", "exit", "q"}
#: games whose setup names faces, not the deck's rows (Alibi Adlung's rows are copies, "fat#1"):
#: their setup answers are typed, with no card buttons.
_FACES_TYPED = {"alibi-adlung"}


@dataclass(frozen=True)
class Reply:
    """The session's answer to one line and how it went: ``ok``, ``held`` (a contradiction held
    back), ``refused`` (bad input; nothing changed) or ``failed`` (a bug; nothing changed)."""

    outcome: str
    message: str


def check_log(data: Any, game: str) -> dict[str, Any]:
    """``data`` as a log of ``game`` (raises :class:`LogError` naming what is wrong)."""
    if not isinstance(data, dict):
        raise LogError("a log must be a JSON object")
    if data.get("game", game) != game:
        raise LogError(f"this is a {data.get('game')!r} log, not {game!r}")
    return data


def read_log(path: Path, game: str) -> dict[str, Any]:
    """The saved log at ``path`` (raises :class:`LogError`; the file is left untouched)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LogError(f"{path.name}: cannot resume this log ({exc}); it was left untouched") from None
    try:
        return check_log(data, game)
    except LogError as exc:
        raise LogError(f"{path.name}: {exc}; it was left untouched") from None


class Table:
    """A game served to the page: the session, its log file, and the last answer shown.

    ``assistant`` saves to ``path`` (``deduce assist --web`` passes the one the terminal path
    built; :meth:`open` builds one); an uploaded log is saved with the same callback.
    """

    def __init__(self, assistant: GameAssistant, path: Path) -> None:
        if assistant.save_fn is None:
            raise ValueError("a table's session must save its log")
        self.assistant = assistant
        self.path = Path(path)
        self.save = assistant.save_fn
        self.lock = threading.Lock()
        self.message = assistant.start()
        self.held = ""

    @classmethod
    def open(cls, adapter: GameAdapter, solver: Any, path: Path, setup: Mapping[str, Any] | None = None,
             budget: int | None = DEFAULT_BUDGET) -> Table:
        """The game saved at ``path`` resumed, or a new one saved there from its setup; every
        update and query is bounded by ``budget`` counted steps, as in ``deduce assist`` (a
        server must not hang on one hard view), with CP-SAT deciding what the counter cannot."""
        from deduce.cli.assist import save_atomically

        budget = budget or None
        checker = budget_checker(solver, budget)

        def save(data: dict[str, Any]) -> None:
            save_atomically(path, data)

        if path.exists():
            try:
                assistant = GameAssistant(adapter, solver, log=read_log(path, adapter.game), save=save,
                                          budget=budget, checker=checker)
            except LogError as exc:
                raise LogError(f"{path.name}: {exc} (the file was left untouched)") from None
        else:
            assistant = GameAssistant(adapter, solver, save=save, setup=setup, budget=budget, checker=checker)
        return cls(assistant, path)

    @property
    def game(self) -> str:
        return self.assistant.adapter.game

    # -- changes -----------------------------------------------------------------------------
    def line(self, text: str) -> Reply:
        """Hand one line to the session, as if typed at the terminal."""
        if not isinstance(text, str) or len(text) > MAX_LINE or any(ord(ch) < 32 for ch in text):
            return Reply("refused", f"error: a line is one line of at most {MAX_LINE} characters")
        if text.strip().lower() in _QUIT_WORDS:
            return Reply("refused", "error: the page has nothing to quit: the game is saved after every change")
        with self.lock:
            answer = self.assistant.handle(text)
            self.message = answer
            if self.assistant.pending is not None:
                self.held = answer
                return Reply("held", answer)
            self.held = ""
        if answer.startswith("error:"):
            return Reply("refused", answer)
        if answer.startswith("internal error"):
            return Reply("failed", answer)
        return Reply("ok", answer)

    def replace(self, data: Any) -> Reply:
        """Make an uploaded log the game (checked as a resumed log is; refused, nothing changes)."""
        try:
            log = check_log(data, self.game)
            with self.lock:
                fresh = GameAssistant(self.assistant.adapter, self.assistant.solver, log=log, save=self.save,
                                      budget=self.assistant.budget, checker=self.assistant.checker)
                self.save(fresh.log())
                self.assistant = fresh
                self.message = fresh.start()
                self.held = ""
        except DeduceError as exc:
            return Reply("refused", f"error: the uploaded log was not read: {exc}; the game is unchanged")
        return Reply("ok", self.message)

    # -- reading -----------------------------------------------------------------------------
    def why(self, card: int) -> str:
        """Why card number ``card`` must or cannot be somewhere (raises :class:`DeduceError`)."""
        with self.lock:
            s = self.assistant
            if s.game is None:
                raise DeduceError("set the game up first")
            deck = list(s.game.deck)  # type: ignore[attr-defined]
            if not 0 <= card < len(deck):
                raise DeduceError(f"there is no card {card}; cards are numbered 0 to {len(deck) - 1}")
            return s.why([card_token(deck[card].name, self.game)])

    def view(self) -> dict[str, Any]:
        """Everything the page shows, JSON-ready."""
        with self.lock:
            s = self.assistant
            out: dict[str, Any] = {
                "game": self.game,
                "file": self.path.name,
                "message": self.message,
                "held": self.held,
                "prompt": s.prompt.strip(),
                "step": s.setup_step,
                "players": s.names,
                "me": s.me,
            }
            if s.header is None:
                out.update(phase="setup", setup=self._setup_view())
                return out
            out.update(phase="play", **self._play_view())
            return out

    def _setup_view(self) -> dict[str, Any]:
        """What the setup question offers to tap: the answers so far and, for a question about
        cards, the deck (from a spectator's log of the answers so far, when one reads)."""
        s, step = self.assistant, self.assistant.setup_step
        answers = s.setup_answers
        players = list(answers.get("players") or [])
        view: dict[str, Any] = {"answers": {k: v for k, v in answers.items() if _jsonable(v)}, "cards": []}
        if players and step not in ("players", "me") and self.game not in _FACES_TYPED:
            view["cards"] = _deck_names(s.adapter, players, answers)
        seats = s.adapter.seats
        view["seats"] = list(seats)
        view["first_steps"] = list(s.adapter.first_steps)
        return view

    def _play_view(self) -> dict[str, Any]:
        s = self.assistant
        assert s.game is not None and s.kb is not None and s.obs is not None
        kb = s.kb
        deck = list(kb.deck)
        try:
            m = s.marginals()
            advice = s.advice()
        except Exception as exc:  # the advice failing must not hide the log and the undo buttons
            what = str(exc) if isinstance(exc, DeduceError) else f"{type(exc).__name__}: {exc}"
            return {"grid": None, "advice": [f"the advice failed: {what}"], **self._history()}
        mine = set(s.adapter.hand(s.obs))
        rows: list[dict[str, Any]] = []
        for card in deck:
            cells = []
            for z in range(kb.num_locations):
                count = m.cells[card.id][z] if m.total else 0
                p = float(m.p[card.id][z]) if m.total else 0.0
                cells.append({"text": cell_text(count, m.total), "p": round(p, 6),
                              "state": "yes" if m.total and count == m.total else "no" if count == 0 else "maybe"})
            rows.append({"id": card.id, "name": card.name, "token": card_token(card.name, self.game),
                         "category": card.category, "mine": card.id in mine, "cells": cells})
        categories = list(dict.fromkeys(c.category for c in deck))
        forms = event_forms(self.game, s.adapter.help, s.adapter.words, categories, [c.name for c in deck])
        words = sorted({*s.adapter.words, *(w for c in deck for w in c.name.split())}, key=str.lower)
        return {
            "locations": [str(z) for z in kb.locations],
            "grid": rows if m.total else None,
            "exact": m.exact,
            "advice": advice,
            "forms": [f.to_json() for f in forms],
            "words": words,
            "categories": categories,
            **self._history(),
        }

    def _history(self) -> dict[str, Any]:
        s = self.assistant
        pending = s.pending
        return {
            "events": s.event_texts(),
            "can_redo": bool(s.redo_stack),
            "conflict": s.conflict,
            "pending": None if pending is None else {"at": pending.at, "conflicts": list(pending.conflicts)},
        }


def _deck_names(adapter: GameAdapter, players: list[str], answers: Mapping[str, Any]) -> list[dict[str, str]]:
    """The deck's cards for a setup question, from a spectator's log of the answers so far
    (``[]`` when that log does not read yet: the question is typed instead)."""
    logs = []
    try:
        logs.append(adapter.new_log(players, None, {**answers, "me": None}))
    except Exception:  # the answers so far do not make a log yet
        pass
    logs.append({**adapter.header(players, None), "events": []})
    for log in logs:
        try:
            game, _ = adapter.parse(log)
        except Exception:
            continue
        return [{"name": c.name, "token": card_token(c.name, adapter.game), "category": c.category} for c in game.deck]
    return []


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True

