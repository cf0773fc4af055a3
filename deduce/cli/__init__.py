"""The ``deduce`` command. Each subcommand lives in its own module with ``register(subparsers)``
that adds its parser and sets ``func``; errors of the library become one line and exit status 2."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from deduce.errors import DeduceError

__all__ = ["main", "build_parser"]

#: the subcommand modules, in the order ``deduce --help`` lists them
_SUBCOMMANDS = ("solve", "tournament", "report", "games", "play", "assist", "audit", "speedclue", "serve", "bench")


def build_parser() -> argparse.ArgumentParser:
    """The ``deduce`` argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="deduce", description="AI opponents for hidden-information deduction board games."
    )
    parser.add_argument("--version", action="store_true", help="print the library version")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _SUBCOMMANDS:
        importlib.import_module(f"deduce.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``deduce`` command; returns its exit status (2 for bad input, with one line)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from deduce import __version__

        print(__version__)
        return 0
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except DeduceError as exc:
        print(f"deduce {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"deduce {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
