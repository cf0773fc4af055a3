"""The classic Clue board as data, movement on it, and a text rendering (RULES.md §5, issue 10).

The board is a 24-column, 25-row grid drawn below as an ASCII map and parsed at import:

* ``#`` off the board; ``.`` a corridor square; ``1``..``6`` the start squares of the six
  suspects (corridor squares), in the order of ``CLASSIC_SUSPECTS``;
* an upper-case letter is a room square, a lower-case letter a room square with a door; a door
  opens onto the one corridor square orthogonally next to it;
* ``X`` the centre (the staircase / the pool of later editions), which nobody walks through.

Rooms are single places (a token in a room is in the room, not on one of its squares). Secret
passages join the Kitchen with the Study and the Conservatory with the Lounge.

Places are small ints: rooms ``0..8`` (in ``ROOM_NAMES`` order), then the walkable squares
``9 + row * WIDTH + col``; the intrigue edition's board (:data:`INTRIGUE_BOARD`) adds the
central pool as the place after the last square and marks some corridor squares ``?``. Movement (:meth:`Board.reachable`) goes up to the rolled number of
steps, orthogonally, never through or onto an occupied square; stepping through a door into a
room ends the move, and a token may not re-enter the room it left this turn. On the intrigue
board, the pool and the ``?`` squares also end a move: a token passing a ``?`` square must stop
on it (seed rule), so paths never go through one.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from deduce.errors import InvalidConfig

__all__ = [
    "Board",
    "CLASSIC_BOARD",
    "CLASSIC_MAP",
    "INTRIGUE_BOARD",
    "QUESTION_SQUARES",
    "POOL_ENTRANCES",
    "ROOM_LETTERS",
    "ROOM_NAMES",
    "PASSAGES",
    "WIDTH",
    "HEIGHT",
    "render",
]

WIDTH = 24
HEIGHT = 25

# My own drawing of the classic layout: Kitchen, Ballroom, Conservatory along the top; Dining
# Room left, Billiard Room and Library right of the centre; Lounge, Hall, Study along the bottom.
CLASSIC_MAP = """
#########3####4#########
KKKKKK#..........#CCCCCC
KKKKKK..BBBBBBBB..CCCCCC
KKKKKK..BBBBBBBB..CCCCCC
KKKKKK..BBBBBBBB..CCCCCC
KKKKKK..bBBBBBBb..CcCCCC
KKKKkK..BBBBBBBB.......5
........BbBBBBbB........
..................RRRRRR
DDDDDdDD..........rRRRRR
DDDDDDDD..XXXXX...RRRRRR
DDDDDDDD..XXXXX...RRRRRR
DDDDDDDd..XXXXX...RRRRrR
DDDDDDDD..XXXXX.........
DDDDDDDD..XXXXX..LLLlLLL
DDDDDDDD..XXXXX..LLLLLLL
..........XXXXX..lLLLLLL
2................LLLLLLL
.........HHhhHH..LLLLLLL
OOOOOoO..HHHHHH........6
OOOOOOO..HHHHHh.........
OOOOOOO..HHHHHH..SsSSSSS
OOOOOOO..HHHHHH..SSSSSSS
OOOOOOO..HHHHHH..SSSSSSS
OOOOOOO1.HHHHHH##SSSSSSS
"""

ROOM_NAMES = (
    "Kitchen", "Ballroom", "Conservatory", "Dining Room", "Billiard Room",
    "Library", "Lounge", "Hall", "Study",
)
ROOM_LETTERS: Mapping[str, str] = {
    "K": "Kitchen", "B": "Ballroom", "C": "Conservatory", "D": "Dining Room", "R": "Billiard Room",
    "L": "Library", "O": "Lounge", "H": "Hall", "S": "Study",
}
PASSAGES = (("Kitchen", "Study"), ("Conservatory", "Lounge"))
#: the intrigue edition's "?" squares (row, column): corridor squares spread round the board
QUESTION_SQUARES = ((7, 3), (1, 12), (7, 20), (13, 21), (17, 4), (21, 16), (19, 20), (12, 9))
#: the corridor squares (row, column) with a door into the central pool
POOL_ENTRANCES = ((9, 12), (17, 12))


@dataclass(frozen=True)
class Board:
    """A parsed board: places, the step graph between them, doors, passages and start squares."""

    width: int
    height: int
    rooms: tuple[str, ...]
    #: per walkable square (place id): its (row, col)
    cells: Mapping[int, tuple[int, int]]
    #: place -> neighbouring places one step away (squares and rooms through doors)
    neighbours: Mapping[int, tuple[int, ...]]
    #: room place -> the room it reaches by secret passage
    passages: Mapping[int, int]
    #: start square (place) of each suspect token, by token index
    starts: tuple[int, ...]
    #: room place -> the grid cells drawn for it (for rendering)
    room_cells: Mapping[int, tuple[tuple[int, int], ...]]
    #: room place -> its door cells
    doors: Mapping[int, tuple[tuple[int, int], ...]]
    rows: tuple[str, ...]
    #: the central pool's place (intrigue edition), or None on the classic board
    pool: int | None = None
    #: the "?" squares (intrigue edition): a token passing one stops there and draws a card
    question_squares: frozenset[int] = frozenset()

    @classmethod
    def parse(
        cls,
        text: str,
        letters: Mapping[str, str] = ROOM_LETTERS,
        rooms: Sequence[str] = ROOM_NAMES,
        passages: Iterable[tuple[str, str]] = PASSAGES,
    ) -> Board:
        """Read an ASCII map (see the module docstring); raises
        :class:`~deduce.errors.InvalidConfig` naming a bad square."""
        rows = tuple(line for line in text.strip("\n").splitlines())
        height, width = len(rows), len(rows[0]) if rows else 0
        for y, r in enumerate(rows):
            if len(r) != width:
                raise InvalidConfig(
                    "text", r, f"every row of a board map must have the same length: row {y} has {len(r)}, not {width}"
                )
        rooms = tuple(rooms)
        room_of = {letter: rooms.index(name) for letter, name in letters.items()}
        n_rooms = len(rooms)
        cells: dict[int, tuple[int, int]] = {}
        room_cells: dict[int, list[tuple[int, int]]] = {r: [] for r in range(n_rooms)}
        door_cells: dict[int, list[tuple[int, int]]] = {r: [] for r in range(n_rooms)}
        starts: dict[int, int] = {}
        for y, row in enumerate(rows):
            for x, ch in enumerate(row):
                place = n_rooms + y * width + x
                if ch == "." or ch.isdigit():
                    cells[place] = (y, x)
                    if ch.isdigit():
                        starts[int(ch) - 1] = place
                elif ch.upper() in room_of:
                    room_cells[room_of[ch.upper()]].append((y, x))
                    if ch.islower():
                        door_cells[room_of[ch.upper()]].append((y, x))
                elif ch not in "#X":
                    raise InvalidConfig("text", ch, f"unknown board symbol {ch!r} at row {y}, column {x}")
        nb: dict[int, set[int]] = {p: set() for p in range(n_rooms)} | {p: set() for p in cells}
        for place, (y, x) in cells.items():
            for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                q = n_rooms + (y + dy) * width + (x + dx)
                if 0 <= y + dy < height and 0 <= x + dx < width and q in cells:
                    nb[place].add(q)
        for room, doors in door_cells.items():
            if not doors:
                raise InvalidConfig("text", rooms[room], f"room {rooms[room]} has no door")
            for y, x in doors:
                outside = [
                    n_rooms + (y + dy) * width + (x + dx)
                    for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1))
                    if n_rooms + (y + dy) * width + (x + dx) in cells
                    and 0 <= y + dy < height and 0 <= x + dx < width
                ]
                if len(outside) != 1:
                    raise InvalidConfig(
                        "text", rows[y][x], f"door of {rooms[room]} at row {y}, column {x} must open onto one corridor square"
                    )
                nb[room].add(outside[0])
                nb[outside[0]].add(room)
        linked: dict[int, int] = {}
        for a, b in passages:
            linked[rooms.index(a)] = rooms.index(b)
            linked[rooms.index(b)] = rooms.index(a)
        if sorted(starts) != list(range(len(starts))):
            numbers = tuple(s + 1 for s in sorted(starts))
            raise InvalidConfig("text", numbers, "start squares must be numbered 1, 2, ... without gaps")
        return cls(
            width=width,
            height=height,
            rooms=rooms,
            cells=cells,
            neighbours={p: tuple(sorted(q)) for p, q in nb.items()},
            passages=linked,
            starts=tuple(starts[i] for i in range(len(starts))),
            room_cells={r: tuple(c) for r, c in room_cells.items()},
            doors={r: tuple(c) for r, c in door_cells.items()},
            rows=rows,
        )

    def with_intrigue(
        self,
        question: Iterable[tuple[int, int]] = QUESTION_SQUARES,
        pool_entrances: Iterable[tuple[int, int]] = POOL_ENTRANCES,
    ) -> Board:
        """This board with the intrigue edition's ``?`` squares and a pool entered from the
        corridor squares ``pool_entrances`` (all given as (row, column))."""
        marks = frozenset(self.square(y, x) for y, x in question)
        pool = len(self.rooms) + self.height * self.width
        doors = tuple(self.square(y, x) for y, x in pool_entrances)
        if not doors:
            raise InvalidConfig("pool_entrances", tuple(pool_entrances), "the pool needs at least one entrance")
        nb = {p: set(q) for p, q in self.neighbours.items()}
        nb[pool] = set(doors)
        for d in doors:
            nb[d].add(pool)
        neighbours = {p: tuple(sorted(q)) for p, q in nb.items()}
        return replace(self, neighbours=neighbours, pool=pool, question_squares=marks)

    # -- places ------------------------------------------------------------------------------
    def ends_move(self, place: int) -> bool:
        """Whether stepping onto ``place`` ends a move: a room, the pool or a ``?`` square."""
        return self.is_room(place) or place == self.pool or place in self.question_squares

    def is_room(self, place: int) -> bool:
        """Whether ``place`` is a room (rather than a square)."""
        return 0 <= place < len(self.rooms)

    def room(self, name: str) -> int:
        """The place of the room called ``name``."""
        return self.rooms.index(name)

    def square(self, row: int, col: int) -> int:
        """The place of the walkable square at (``row``, ``col``); InvalidConfig (a ValueError)
        if it is not walkable."""
        place = len(self.rooms) + row * self.width + col
        if place not in self.cells or not (0 <= col < self.width):
            raise InvalidConfig("square", (row, col), f"row {row}, column {col} is not a walkable square")
        return place

    def label(self, place: int) -> str:
        """``"Kitchen"`` for a room, ``"Pool"``, ``"r7c4"`` (row, column) for a square."""
        if self.is_room(place):
            return self.rooms[place]
        if place == self.pool:
            return "Pool"
        y, x = self.cells[place]
        return f"r{y}c{x}"

    # -- movement ----------------------------------------------------------------------------
    def distances(self, origin: int, blocked: Iterable[int] = (), limit: int | None = None) -> dict[int, int]:
        """Fewest steps from ``origin`` to every place reachable without passing through a
        ``blocked`` square (rooms are never blocked, and are ends of a path, not through-ways
        except for the origin). The origin itself is at distance 0."""
        stop = set(blocked) - {origin}
        dist = {origin: 0}
        queue = deque([origin])
        while queue:
            place = queue.popleft()
            d = dist[place]
            if limit is not None and d >= limit:
                continue
            if place != origin and self.ends_move(place):
                continue  # entering a room (the pool, a "?" square) ends the move
            for q in self.neighbours[place]:
                if q not in dist and q not in stop:
                    dist[q] = d + 1
                    queue.append(q)
        return dist

    def reachable(self, origin: int, steps: int, occupied: Iterable[int] = ()) -> tuple[int, ...]:
        """Places a token at ``origin`` may end on with a roll of ``steps``: any place at most
        ``steps`` away, not through or onto an ``occupied`` square, not the origin, and not the
        room it starts in. Sorted."""
        dist = self.distances(origin, occupied, limit=steps)
        return tuple(sorted(p for p, d in dist.items() if 0 < d <= steps and p != origin))

    def room_distances(self, origin: int, occupied: Iterable[int] = ()) -> dict[int, int]:
        """Steps from ``origin`` to each room reachable around ``occupied`` squares; a secret
        passage from the origin counts as one turn without a roll (reported as distance 0)."""
        dist = self.distances(origin, occupied)
        out = {p: d for p, d in dist.items() if self.is_room(p) and p != origin}
        if origin in self.passages:
            out[self.passages[origin]] = 0
        return out


CLASSIC_BOARD = Board.parse(CLASSIC_MAP)
#: the classic board with the intrigue edition's "?" squares and the central pool
INTRIGUE_BOARD = CLASSIC_BOARD.with_intrigue()


def render(
    board: Board,
    positions: Sequence[int],
    marks: Sequence[str] | None = None,
    legend: Sequence[str] | None = None,
) -> str:
    """The board as text: ``.`` corridor, ``:`` room floor, ``=`` a door, ``?`` a ``?`` square,
    ``~`` the pool (intrigue edition), room and pool names written in their places, each token as its mark (``1``..``6`` by default) on its square or inside its
    room. ``legend[i]``, if given, is printed under the map after token ``i``'s mark and place."""
    marks = list(marks) if marks is not None else [str(i + 1) for i in range(len(positions))]
    grid = [[" "] * board.width for _ in range(board.height)]
    for y, row in enumerate(board.rows):
        for x, ch in enumerate(row):
            if ch == "." or ch.isdigit():
                grid[y][x] = "."
            elif ch.upper() in ROOM_LETTERS:
                grid[y][x] = "=" if ch.islower() else ":"
    for room, cells in board.room_cells.items():
        ys = sorted({y for y, _ in cells})
        y = ys[len(ys) // 2]
        xs = sorted(x for yy, x in cells if yy == y and (yy, x) not in board.doors[room])
        name = board.rooms[room][: len(xs)]
        start = xs[0] + max(0, (len(xs) - len(name)) // 2)
        for i, ch in enumerate(name):
            grid[y][start + i] = ch
    centre = [(y, x) for y, row in enumerate(board.rows) for x, ch in enumerate(row) if ch == "X"]
    if board.pool is not None and centre:
        doors = {board.cells[d] for d in board.neighbours[board.pool]}
        for y, x in centre:
            near = any((y + dy, x + dx) in doors for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)))
            grid[y][x] = "=" if near else "~"
        top, left = centre[0]
        for i, ch in enumerate("Pool"):
            grid[top + 1][left + i] = ch
        inside = [i for i, p in enumerate(positions) if p == board.pool]
        for k, i in enumerate(inside):
            grid[top + 2 + k // 5][left + k % 5] = marks[i]
    for place in board.question_squares:
        y, x = board.cells[place]
        grid[y][x] = "?"
    for room in range(len(board.rooms)):
        inside = [i for i, p in enumerate(positions) if p == room]
        if not inside:
            continue
        cells = board.room_cells[room]
        top = min(y for y, _ in cells) + (1 if len({y for y, _ in cells}) > 2 else 0)
        xs = sorted(x for y, x in cells if y == top)
        for k, i in enumerate(inside):
            grid[top][xs[min(k + 1, len(xs) - 1)]] = marks[i]
    for i, p in enumerate(positions):
        if p in board.cells:
            y, x = board.cells[p]
            grid[y][x] = marks[i]
    lines = ["".join(row).rstrip() for row in grid]
    if legend is not None:
        lines.append("")
        for i, text in enumerate(legend):
            lines.append(f"{marks[i]} {text}: {board.label(positions[i])}")
    return "\n".join(lines)
