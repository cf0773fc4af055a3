"""A Speed Clue test bot that plays legally except for one deliberate fault.

    python badbot.py MODE IDENTIFIER PORT

Standard library only, so it starts in milliseconds. MODE is one of
``good`` (no fault), ``newline`` (every reply ends in ``\\n``), ``split`` (each reply, then
``\\n`` as a second write), ``repeat`` (suggests the same triple twice), ``accuse_own`` (accuses
a card it holds), ``no_accuse`` (suggests Pl Ro Ki first and never accuses), ``bad_show``
(shows a card it does not hold), ``garbage`` (answers ``suggest`` with nonsense), ``slow``
(sleeps 3 s before its first suggestion), ``crash`` (exits at its first suggestion),
``silent`` (never connects).
"""

import socket
import sys
import time

SUSPECTS = ["Gr", "Mu", "Pe", "Pl", "Sc", "Wh"]
WEAPONS = ["Ca", "Kn", "Pi", "Re", "Ro", "Wr"]
ROOMS = ["Ba", "Bi", "Co", "Di", "Ha", "Ki", "Li", "Lo", "St"]
ALL = SUSPECTS + WEAPONS + ROOMS


def main() -> int:
    mode, identifier, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "silent":
        return 0
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send(text: str) -> None:
        if mode == "newline":
            sock.sendall((text + "\n").encode())
        elif mode == "split":
            sock.sendall(text.encode())
            time.sleep(0.01)
            sock.sendall(b"\n")
        else:
            sock.sendall(text.encode())

    sock.sendall(f"{identifier} alive".encode())
    hand: list[str] = []
    seat = 0
    suggested: list[tuple[str, str, str]] = []
    shown: set[str] = set()
    last = None  # my last suggestion and whether anyone disproved it
    for _ in range(100_000):
        data = sock.recv(4096)
        if not data:
            return 0
        words = data.decode().split(" ")
        head = words[0]
        if head == "reset":
            seat, hand = int(words[2]), words[3:]
            suggested, shown, last = [], set(), None
            send("ok")
        elif head == "suggest":
            if mode == "crash":
                return 3
            if mode == "slow":
                time.sleep(3.0)
            if mode == "garbage":
                send("hello there")
                continue
            if mode == "no_accuse" and not suggested:
                triple = ("Pl", "Ro", "Ki")
            elif mode == "repeat" and suggested:
                triple = suggested[0]
            else:
                free = [(s, w, r) for s in SUSPECTS for w in WEAPONS for r in ROOMS if (s, w, r) not in suggested]
                triple = next((t for t in free if not set(t) & (set(hand) | shown)), free[0])
            suggested.append(triple)
            send("suggest " + " ".join(triple))
        elif head == "disprove":
            named = words[2:5]
            mine = [c for c in named if c in hand]
            if mode == "bad_show":
                send("show " + next(c for c in ALL if c not in hand))
            else:
                send("show " + mine[0])
        elif head == "suggestion":
            if int(words[1]) == seat:
                disproved = words[5] != "-"
                if len(words) == 7:
                    shown.add(words[6])
                last = (tuple(words[2:5]), disproved)
            send("ok")
        elif head == "accuse":
            if mode == "accuse_own":
                send(f"accuse {next(c for c in SUSPECTS if c in hand) if any(c in hand for c in SUSPECTS) else 'Gr'} "
                     f"{next((c for c in WEAPONS if c in hand), 'Ca')} {next((c for c in ROOMS if c in hand), 'Ba')}")
            elif mode != "no_accuse" and last is not None and not last[1] and not set(last[0]) & (set(hand) | shown):
                send("accuse " + " ".join(last[0]))
            else:
                send("-")
        elif head == "accusation":
            send("ok")
        elif head == "done":
            send("dead")
            return 0
        else:
            send("ok")
    return 1


if __name__ == "__main__":
    sys.exit(main())
