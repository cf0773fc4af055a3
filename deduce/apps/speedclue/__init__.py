"""Speed Clue: our Clue agents speak the public bot protocol of the 2014 contest (SPEEDCLUE.md).

``SpeedClueBot`` is one of our agents behind the protocol (``deduce speedclue`` connects it to
a server); ``SpeedClueServer`` hosts games among bot processes and built-in agents and writes
tournament results (``deduce speedclue-server``); ``Mirror`` turns the messages one seat saw
into the ``ClueObservation`` our engine would have given it.
"""

from deduce.apps.speedclue.client import SpeedClueBot, run_client
from deduce.apps.speedclue.mirror import Mirror
from deduce.apps.speedclue.protocol import (
    CODE_NAMES,
    TIME_LIMIT,
    CardCodes,
    MessageLog,
    ProtocolError,
    Violation,
    encode,
    parse_message,
    parse_reply,
    speedclue_config,
)
from deduce.apps.speedclue.server import (
    PROTOCOL_CONFIG,
    BotSpec,
    SessionResult,
    SpeedClueServer,
    parse_bot,
)

__all__ = [
    "SpeedClueBot",
    "run_client",
    "Mirror",
    "SpeedClueServer",
    "SessionResult",
    "BotSpec",
    "parse_bot",
    "PROTOCOL_CONFIG",
    "CODE_NAMES",
    "TIME_LIMIT",
    "CardCodes",
    "MessageLog",
    "ProtocolError",
    "Violation",
    "encode",
    "parse_message",
    "parse_reply",
    "speedclue_config",
]
