"""Command line: ``python -m ldpcore privacy|run|amplify|oracles|histogram|audit|plan ...`` (stable; see README).

Invalid input exits with status 2 and one line on stderr naming the problem: argparse errors,
every InputError, output that cannot be written (a closed pipe included) and running out of memory.

The command line parses before it imports: this module imports only argparse and ldpcore.errors, the
parser builds the options of the one command asked for (whose choices come from the registries it
imports), and each command imports what it runs. `--help` imports no numpy."""

from __future__ import annotations

import argparse
import os
import sys

from ldpcore.cli.commands import (
    amplify_args,
    audit_args,
    histogram_args,
    oracles_args,
    plan_args,
    privacy_args,
    run_args,
)
from ldpcore.errors import InputError


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, status 2
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}\n")


# command: (its help line, the function adding its options)
COMMANDS = {
    "privacy": ("privacy numbers of a protocol (no data needed)", privacy_args),
    "run": ("simulate the protocol on an image, CSV or bundled dataset", run_args),
    "histogram": ("raw records or points -> a value,count CSV (for run --input)", histogram_args),
    "audit": ("empirical lower bounds on eps by each observer, beside the certified ones", audit_args),
    "amplify": ("one amplification bound: eps0 -> eps_c or eps_c -> eps0", amplify_args),
    "oracles": ("the encodings and the accountants that hold for each", oracles_args),
    "plan": ("every encoding and accountant side by side, forward or solving for eps_c or n", plan_args),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser: every command by name, with the options of `command` only (all of them if None: the
    options' choices import the registries, which the other commands need not)."""
    parser = _Parser(prog="python -m ldpcore", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, (help_line, add_args) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help_line)
        if command is None or command == name:
            add_args(command_parser)
    return parser


def _command(argv: list[str]) -> str | None:
    """The command argv names: its first word that is not an option (the program has no option with a value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser(_command(argv) or "").parse_args(argv)  # no command: its names only
        args.argv = argv  # the command line, for --emit-script's docstring
        args.func(args)
        sys.stdout.flush()  # a closed pipe fails here, inside the try, not at exit
    except InputError as exc:
        return _fail(str(exc))
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to write at exit
        return _fail("the output was closed before it was complete (broken pipe).")
    except MemoryError:
        return _fail("not enough memory for this input; use a smaller input (e.g. --max-side for images).")
    return 0


def _fail(message: str) -> int:
    """Print one error line on stderr; status 2."""
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
    return 2
