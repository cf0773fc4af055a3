"""PettingZoo AEC environments for every registered deduce game (``pip install 'deduce[pettingzoo]'``).

Each game ``name`` is an environment ``<name with - as _>_v0``::

    from deduce.apps.pettingzoo import clue_v0

    env = clue_v0.env(num_players=4)          # config fields as for deduce.make
    env.reset(seed=7)                         # the deal of game.new_initial_state(7)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

Agents are ``player_0`` .. ``player_{n-1}`` (seat order); the agent selected is the seat that
must act (a Clue refuter acts out of turn order). Rewards are the game's ``returns()``, paid when
the game ends. ``max_steps`` truncates a game after that many actions.

**Actions.** One fixed ``Discrete(N)`` space per game configuration: the game's canonical
numbering of every action the engine can offer in that configuration, from the core module
:mod:`deduce.actions` (an :class:`~deduce.actions.ActionIndex`, declared by each game in its
record, ``GameInfo.actions``, and found by :func:`deduce.actions.action_index`; every framework
adapter shares it). Sets of cards are ranked by the combinatorial number system, so a block
of several hundred thousand subsets is never materialised; indices that no state offers (a
Crime Hotel police move from a space to nowhere) are simply never legal. A game from
elsewhere plugs in with :func:`~deduce.actions.register_action_index`, or by giving its Game
class an ``action_space()`` method that returns every possible action. The numbering's names
(``ActionIndex``, ``action_index``, ...) are re-exported here.

**Factored actions** (``action_mode="factored"``; ``"auto"``, the default, picks it for a
game whose flat numbering exceeds ``FLAT_LIMIT`` actions: both Alibis). A flat ``Discrete``
over Alibi's 315 400 numbered actions, let alone its million hypothesis questions a turn (legal
without being listed: :class:`~deduce.games.base.LegalActions`), is no head a learner can use.
Instead an action is chosen one component at a time, each an env step of the same agent with
its own small mask, in one ``Discrete(width)`` space: first its kind (a block of the numbering,
or a structured block of the state's legal actions, numbered after the blocks), then each
field (a choice by its rank; a set of cards element by element, ascending, then ``end``, the
value ``len(universe)``), or a structured block's components (``ActionSet.components``). The
game action is played when its last component is chosen; rewards come with it. The
observation adds a one-hot per component chosen so far. :class:`Composer` is the mapping.

**Observations.** ``{"observation": float32 vector, "action_mask": int8 vector}``. The vector is
what the player may know, in a fixed shape: the propagated possible-location grid
``deduce.propagate(game.knowledge(obs)).possible`` (its last epoch for games whose cards move;
``cards x locations``, flattened), then a one-hot of the player's seat, a one-hot of the seat to
act (last entry: the game is over), and a multi-hot of the action kinds this player may take
now (the phase: suggesting, refuting, melding, filling a sheet...). Only the player's own
observation is used, so nothing hidden leaks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers as pz_wrappers
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "deduce.apps.pettingzoo needs PettingZoo and Gymnasium: pip install 'deduce[pettingzoo]'"
    ) from exc

from deduce.actions import (
    ActionIndex,
    Block,
    Choice,
    Combos,
    Dimension,
    Seq,
    action_index,
    register_action_index,
)
from deduce.errors import IllegalAction, NotSupported, UnknownName
from deduce.games.base import Action, ActionSet, Game, Observation, State
from deduce.games.registry import game_names, make
from deduce.knowledge import propagate

__all__ = [
    "ENV_VERSION",
    "FLAT_LIMIT",
    "Composer",
    "ActionIndex",
    "Block",
    "Choice",
    "Combos",
    "Dimension",
    "DeduceAECEnv",
    "EnvSpec",
    "Seq",
    "action_index",
    "env",
    "env_name",
    "env_names",
    "game_of",
    "raw_env",
    "register_action_index",
]

#: the suffix of every environment name (``clue_v0``); bumped when observations or actions change.
ENV_VERSION = 0
#: ``action_mode="auto"`` factors the actions of a game numbering more than this many.
FLAT_LIMIT = 1 << 16
#: structured blocks a state may offer besides the numbered ones, and components each may have.
STRUCTURED_KINDS = 4
STRUCTURED_DEPTH = 8


# -- factored actions ---------------------------------------------------------------------------
def _width(dim: Dimension) -> int:
    """The most values one component of ``dim`` takes."""
    if isinstance(dim, Combos):
        return len(dim.universe) + 1
    if isinstance(dim, Seq):
        return max((_width(d) for d in dim.dims), default=1)
    return dim.size


def _depth(dim: Dimension) -> int:
    """The most components ``dim`` is chosen in."""
    if isinstance(dim, Combos):
        return max(dim.sizes, default=0) + 1
    if isinstance(dim, Seq):
        return sum(_depth(d) for d in dim.dims)
    return 1


def _parts(dim: Dimension, value: Any) -> list[int]:
    """The components choosing ``value`` in ``dim`` (a card set: its elements, then ``end``)."""
    if isinstance(dim, Combos):
        pos = {v: i for i, v in enumerate(dim.universe)}
        return sorted(pos[v] for v in value) + [len(dim.universe)]
    if isinstance(dim, Seq):
        return [x for d, v in zip(dim.dims, value, strict=True) for x in _parts(d, v)]
    return [dim.rank(value)]


class Composer:
    """The factored action space of one game numbering (see the module docstring): the
    components of every action, and the mask of the next component after a chosen prefix."""

    def __init__(self, index: ActionIndex) -> None:
        self.index = index
        blocks = index.blocks
        self.kinds = len(blocks) + STRUCTURED_KINDS
        dims = [list(b.seq.dims) if isinstance(b, Block) else [b.choice] for b in blocks]
        self.width = max([self.kinds, *(_width(d) for ds in dims for d in ds)])
        self.depth = 1 + max([STRUCTURED_DEPTH, *(sum(_depth(d) for d in ds) for ds in dims)])

    def path(self, action: Action) -> tuple[int, ...]:
        """The components of a numbered action: its block, then its fields'."""
        for i in self.index.blocks_of(type(action)):
            block = self.index.blocks[i]
            try:
                if not isinstance(block, Block):
                    return (i, block.rank(action))
                parts = [i]
                for field, dim in zip(block.fields, block.seq.dims, strict=True):
                    parts += _parts(dim, getattr(action, field))
                return tuple(parts)
            except (KeyError, IndexError, TypeError):
                continue
        raise NotSupported(f"{action!r} is outside this game's action enumeration")

    def structured(self, legal: Sequence[Action]) -> tuple[ActionSet, ...]:
        blocks = tuple(getattr(legal, "structured", ()))
        if len(blocks) > STRUCTURED_KINDS:
            raise NotSupported(f"{len(blocks)} structured blocks of legal actions; the env takes {STRUCTURED_KINDS}")
        return blocks

    def options(self, legal: Sequence[Action], paths: dict[tuple[int, ...], Action], prefix: Sequence[int]) -> np.ndarray:
        """The ``int8`` mask of the next component after ``prefix``."""
        mask = np.zeros(self.width, dtype=np.int8)
        prefix = tuple(prefix)
        structured = self.structured(legal)
        first = len(self.index.blocks)
        if prefix and prefix[0] >= first:
            comps = structured[prefix[0] - first].components()
            mask[: comps[len(prefix) - 1][1]] = 1
            return mask
        k = len(prefix)
        nxt = {p[k] for p in paths if len(p) > k and p[:k] == prefix}
        if not prefix:
            nxt |= {first + j for j, block in enumerate(structured) if block.size}
        if nxt:
            mask[sorted(nxt)] = 1
        return mask

    def complete(self, legal: Sequence[Action], paths: dict[tuple[int, ...], Action], prefix: Sequence[int]) -> Action | None:
        """The game action ``prefix`` has chosen all of (``None``: more components to choose)."""
        prefix = tuple(prefix)
        first = len(self.index.blocks)
        if prefix and prefix[0] >= first:
            block = self.structured(legal)[prefix[0] - first]
            comps = block.components()
            if len(comps) > STRUCTURED_DEPTH or max(n for _, n in comps) > self.width:
                raise NotSupported(f"a structured block with components {comps} does not fit the env's factored space")
            return block.build(prefix[1:]) if len(prefix) - 1 == len(comps) else None
        return paths.get(prefix)


# -- names --------------------------------------------------------------------------------------
def env_name(game: str) -> str:
    """The environment name of a registered game: ``"mafia-code"`` -> ``"mafia_code_v0"``."""
    return f"{game.replace('-', '_')}_v{ENV_VERSION}"


def env_names() -> tuple[str, ...]:
    """Environment names of every registered game."""
    return tuple(env_name(g) for g in game_names())


def game_of(name: str) -> str:
    """The registered game of an environment name (``"clue_v0"``) or of a game name."""
    if name in game_names():
        return name
    for g in game_names():
        if env_name(g) == name:
            return g
    raise UnknownName(f"unknown environment {name!r}; known: {', '.join(env_names())}")


# -- the environment ----------------------------------------------------------------------------
class DeduceAECEnv(AECEnv):
    """One deduce game as a PettingZoo AEC environment (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(
        self,
        game: Game | str,
        *,
        render_mode: str | None = None,
        max_steps: int | None = None,
        action_mode: str = "auto",
        **config: Any,
    ) -> None:
        super().__init__()
        if isinstance(game, str):
            game = make(game_of(game), **config)
        elif config:
            raise TypeError("pass config fields with a game name, not with a Game")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        if max_steps is not None and max_steps < 1:
            raise ValueError("max_steps must be positive")
        self.game: Game = game
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.metadata = {**type(self).metadata, "name": env_name(game.name)}
        n = game.num_players
        self.possible_agents: list[str] = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        #: the fixed action numbering: ``actions.decode(i)`` is the game action of index ``i``.
        self.actions: ActionIndex = action_index(game)
        if action_mode not in ("auto", "flat", "factored"):
            raise ValueError(f"action_mode must be 'auto', 'flat' or 'factored', not {action_mode!r}")
        if action_mode == "auto":
            action_mode = "factored" if self.actions.size > FLAT_LIMIT else "flat"
        #: the factored action space (``None``: one flat ``Discrete(actions.size)``).
        self.composer: Composer | None = Composer(self.actions) if action_mode == "factored" else None
        self._kind_pos = {t: i for i, t in enumerate(self.actions.kinds)}
        probe = game.new_initial_state(0)
        self._grid_shape: tuple[int, ...] = self._grid(probe.observation(0)).shape
        length = math.prod(self._grid_shape) + n + (n + 1) + len(self.actions.kinds)
        width = self.actions.size
        if self.composer is not None:
            width = self.composer.width
            length += self.composer.depth * width
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, 1.0, (length,), np.float32),
                "action_mask": spaces.Box(0, 1, (width,), np.int8),
            })
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(width) for a in self.possible_agents}
        #: the components chosen so far of the acting agent's next action (factored mode).
        self.prefix: list[int] = []
        self._paths: dict[tuple[int, ...], Action] | None = None
        #: the engine's state of the game in progress (the truth; agents must not read it).
        self.game_state: State | None = None
        self._rng: np.random.Generator | None = None
        self._cache: dict[str, dict[str, np.ndarray]] = {}
        #: each agent's knowledge grid of the game state now (kept while an action is composed).
        self._grids: dict[str, np.ndarray] = {}
        self.steps = 0

    # -- spaces ---------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """The same ``Dict(observation=Box, action_mask=Box)`` object for every call."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        """The same ``Discrete`` object for every call (``len(actions)``, or the factored width)."""
        return self.action_spaces[agent]

    # -- episode --------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: ``seed`` is passed to ``game.new_initial_state``; without one, the
        seed is drawn from a generator seeded by the last seeded reset (or by the OS)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            game_seed = int(seed)
        else:
            if self._rng is None:
                self._rng = np.random.default_rng()
            game_seed = int(self._rng.integers(2**63 - 1))
        self.game_state = self.game.new_initial_state(game_seed)
        self.steps = 0
        self._cache.clear()
        self.prefix, self._paths = [], None
        self._grids.clear()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._settle()
        self.agent_selection = self._next_agent()

    def _settle(self) -> None:
        """Mark the episode over if the game is (a game may end without any action)."""
        state = self.game_state
        assert state is not None
        if state.is_terminal():
            returns = state.returns()
            for a in self.agents:
                self.rewards[a] = float(returns[self._seat[a]])
                self.terminations[a] = True
        elif self.max_steps is not None and self.steps >= self.max_steps:
            for a in self.agents:
                self.truncations[a] = True

    def _next_agent(self) -> str:
        state = self.game_state
        assert state is not None
        if any(self.terminations.values()) or any(self.truncations.values()):
            return self.agents[0]
        return self.possible_agents[state.current_player]

    def step(self, action: int | np.integer | None) -> None:
        """Play action number ``action`` for the selected agent (``None`` for a finished one).
        An index the mask does not allow raises :class:`~deduce.errors.IllegalAction`."""
        if self.game_state is None:
            raise RuntimeError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalAction(f"{agent} must act: None is only for a finished agent")
        if self.composer is None:
            move: Action | None = self.actions.decode(int(action))
        else:
            move = self._compose(agent, int(action))
        self._cumulative_rewards[agent] = 0.0
        if move is not None:
            self.game_state.apply(move)
            self.prefix, self._paths = [], None
            self._grids.clear()
        self.steps += 1
        self._cache.clear()
        self.rewards = {a: 0.0 for a in self.agents}
        self._settle()
        self.agent_selection = self._next_agent()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _listed_paths(self) -> dict[tuple[int, ...], Action]:
        """The components of every listed legal action of the state now (cached until it moves)."""
        assert self.composer is not None and self.game_state is not None
        if self._paths is None:
            legal = self.game_state.legal_actions()
            self._paths = {self.composer.path(a): a for a in legal}
        return self._paths

    def _compose(self, agent: str, value: int) -> Action | None:
        """Add one component to the acting agent's action; the action once it is complete."""
        assert self.composer is not None and self.game_state is not None
        legal = self.game_state.legal_actions()
        paths = self._listed_paths()
        mask = self.composer.options(legal, paths, self.prefix)
        if not 0 <= value < len(mask) or not mask[value]:
            kind = "kind" if not self.prefix else f"component {len(self.prefix)}"
            raise IllegalAction(f"{agent}: {value} is not an allowed {kind} now (after {self.prefix or 'nothing'})")
        self.prefix.append(value)
        return self.composer.complete(legal, paths, self.prefix)

    # -- observations ---------------------------------------------------------------------------
    def _grid(self, obs: Observation) -> np.ndarray:
        possible = propagate(self.game.knowledge(obs)).possible
        return possible[-1] if possible.ndim == 3 else possible

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32 vector, "action_mask": int8 vector}`` for ``agent``."""
        if self.game_state is None:
            raise RuntimeError("call reset() before observe()")
        cached = self._cache.get(agent)
        if cached is not None:
            return cached
        seat = self._seat[agent]
        n = self.game.num_players
        obs = self.game_state.observation(seat)
        grid = self._grids.get(agent)
        if grid is None:
            grid = self._grids[agent] = self._grid(obs)
        if grid.shape != self._grid_shape:
            raise NotSupported(
                f"{self.game.name}: the knowledge grid changed shape from {self._grid_shape} to {grid.shape}"
            )
        me = np.zeros(n, np.float32)
        me[seat] = 1.0
        turn = np.zeros(n + 1, np.float32)
        turn[n if self.game_state.is_terminal() else self.game_state.current_player] = 1.0
        phase = np.zeros(len(self.actions.kinds), np.float32)
        for a in obs.legal_actions:
            phase[self._kind_pos[type(a)]] = 1.0
        parts = [grid.astype(np.float32).ravel(), me, turn, phase]
        if self.composer is None:
            mask = self.actions.mask(obs.legal_actions)
        else:
            chosen = np.zeros((self.composer.depth, self.composer.width), np.float32)
            if obs.legal_actions:
                mask = self.composer.options(obs.legal_actions, self._listed_paths(), self.prefix)
                chosen[np.arange(len(self.prefix)), self.prefix] = 1.0
            else:
                mask = np.zeros(self.composer.width, np.int8)
            parts.append(chosen.ravel())
        vector = np.concatenate(parts)
        vector.setflags(write=False)
        mask.setflags(write=False)
        out = {"observation": vector, "action_mask": mask}
        self._cache[agent] = out
        return out

    def legal_actions(self, agent: str | None = None) -> list[Action]:
        """The game actions ``agent`` (default: the selected agent) may take now."""
        agent = self.agent_selection if agent is None else agent
        if self.game_state is None or agent not in self.agents:
            return []
        return list(self.game_state.observation(self._seat[agent]).legal_actions)

    # -- rendering ------------------------------------------------------------------------------
    def _words(self) -> Any:
        """The game's wording module (its ``text.py``), or ``None`` for a game without one."""
        from deduce.games.registry import game_info

        wording = game_info(self.game.name).wording
        return wording(self.game) if wording is not None else None

    def describe(self, action: int | Action, agent: str | None = None) -> str:
        """An action in the game's words, as ``deduce play`` shows it ("guess p1 red A"): a flat
        action index is decoded first; ``agent`` (default: the selected one) is the actor whose
        view some wordings need (whose tableau a bribe takes from)."""
        move = self.actions.decode(int(action)) if isinstance(action, int | np.integer) else action
        words = self._words()
        if words is None:
            return str(move)
        agent = getattr(self, "agent_selection", None) if agent is None else agent
        obs = None
        if self.game_state is not None and agent in self._seat:
            obs = self.game_state.observation(self._seat[agent])
        return str(words.action_text(self.game, move, obs))

    def render(self) -> str | None:
        """``"ansi"``: a short public summary (spectator's view); ``"human"``: print it."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        state = self.game_state
        if state is None:
            text = f"{self.metadata['name']}: not started"
        else:
            who = "game over" if state.is_terminal() else f"{self.possible_agents[state.current_player]} to act"
            recent = state.views(None)[-3:]
            words = self._words()
            lines = [words.event_text(self.game, e, None) if words is not None else str(e) for e in recent]
            text = "\n".join([f"{self.metadata['name']} step {self.steps}: {who}", *(f"  {line}" for line in lines)])
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release; present for the PettingZoo API."""


# -- constructors -------------------------------------------------------------------------------
def raw_env(game: Game | str, **kwargs: Any) -> DeduceAECEnv:
    """The unwrapped environment of ``game`` (a Game, a game name or an environment name)."""
    return DeduceAECEnv(game, **kwargs)


def env(game: Game | str, **kwargs: Any) -> AECEnv:
    """``raw_env`` inside PettingZoo's out-of-bounds and call-order checks."""
    out: AECEnv = pz_wrappers.AssertOutOfBoundsWrapper(raw_env(game, **kwargs))
    return pz_wrappers.OrderEnforcingWrapper(out)


@dataclass(frozen=True)
class EnvSpec:
    """One game's environment family, as ``deduce.apps.pettingzoo.clue_v0``."""

    game: str

    @property
    def name(self) -> str:
        """The versioned environment name (``clue_v0``)."""
        return env_name(self.game)

    def env(self, **kwargs: Any) -> AECEnv:
        """The wrapped environment, configured by ``deduce.make`` fields and env options."""
        return env(self.game, **kwargs)

    def raw_env(self, **kwargs: Any) -> DeduceAECEnv:
        """The unwrapped environment."""
        return raw_env(self.game, **kwargs)


_VERSIONED = re.compile(r"^[a-z][a-z0-9_]*_v\d+$")


def __getattr__(name: str) -> EnvSpec:
    """``from deduce.apps.pettingzoo import mafia_code_v0`` for every registered game."""
    if _VERSIONED.match(name):
        for g in game_names():
            if env_name(g) == name:
                return EnvSpec(g)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
