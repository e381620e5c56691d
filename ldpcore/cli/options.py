"""The command line's shared options and their readers: protocol options and the spec they make, notion and
rounds, where the data come from (a bundled dataset, an image or CSV, raw records or points) and how a record is
printed or taken home (--json, --emit-script)."""

from __future__ import annotations

import argparse
import os
import shlex
from typing import TYPE_CHECKING, Any

from ldpcore.errors import MAX_TAU, InputError, check_n, check_whole, require

if TYPE_CHECKING:
    from ldpcore.privacy.rounds import Rounds


def checked(check, *args):
    """An argparse type: the text through an ldpcore check (exact whole numbers and their limits); its
    InputError becomes argparse's one-line error naming the option."""

    def convert(text: str):
        try:
            return check(text, *args)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return convert


RESPONDENTS = checked(check_n)


def protocol_args(p: argparse.ArgumentParser) -> None:
    from ldpcore.oracles import ACCOUNTANT_NAMES, DEFAULT_ENCODING, ENCODINGS
    from ldpcore.privacy.fragments import EPS_F_RULES

    eps = p.add_mutually_exclusive_group(required=True)
    eps.add_argument("--eps-c", type=float, help="central epsilon (nats) to certify")
    eps.add_argument("--eps-l", type=float, help="local epsilon eps_b (nats); prints the eps_c it certifies")
    p.add_argument(
        "--tau",
        type=checked(check_whole, 1, "tau (report fragments)", MAX_TAU),
        help=f"report fragments with a backstop (Algorithm 2), 1 to {MAX_TAU}; omit for attribute fragments only",
    )
    p.add_argument("--eps-f-rule", choices=EPS_F_RULES, default="paper", help="how eps_f follows from eps_b and tau")
    p.add_argument("--eps-f", type=float, help="fragment epsilon for --eps-f-rule manual")
    p.add_argument(
        "--encoding", default=DEFAULT_ENCODING, choices=list(ENCODINGS), help="frequency oracle (see `oracles`)"
    )
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an encoding parameter, e.g. --param k=64 --param m=4096 (see `oracles`)",
    )
    p.add_argument(
        "--accountant",
        choices=ACCOUNTANT_NAMES,
        help="amplification bound (default: the encoding's first, cheu19 = Lemma II.6 for onehot)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def params_of(pairs: list[str]) -> dict:
    for pair in pairs:
        require("=" in pair, f"--param takes NAME=VALUE (got {pair!r}).")
    return dict(pair.split("=", 1) for pair in pairs)


def spec_of(a, delta: float):
    from ldpcore.experiment.protocol.spec import ProtocolSpec

    return ProtocolSpec(
        eps_c=a.eps_c,
        eps_l=a.eps_l,
        delta=delta,
        tau=a.tau,
        eps_f_rule=a.eps_f_rule,
        eps_f=a.eps_f,
        accountant=a.accountant,
        encoding=a.encoding,
        params=params_of(a.param),
        notion=getattr(a, "notion", "native"),
        rounds=getattr(a, "rounds", 1),
    )


def notion_and_rounds(p: argparse.ArgumentParser, default_notion: str = "native") -> None:
    """--notion (of eps_c) and --rounds (collections from the same respondents; eps_c is their total)."""
    from ldpcore.privacy.notions import NOTIONS
    from ldpcore.privacy.rounds import MAX_ROUNDS

    if default_notion == "native":
        p.add_argument(
            "--notion",
            choices=NOTIONS,
            default="native",
            help="notion of eps_c: native (the encoding's or bound's own) or replacement (a zero-out guarantee per "
            "channel through the two changed channels)",
        )
    p.add_argument(
        "--rounds",
        type=checked(check_whole, 1, "rounds", MAX_ROUNDS),
        default=1,
        help=f"collections from the same respondents (1 to {MAX_ROUNDS:,}); eps_c and delta are their total",
    )


def print_record(record: dict, as_json: bool) -> None:
    if as_json:
        from ldpcore.export.records import to_json

        print(to_json(record))
        return
    for key, value in record.items():
        if isinstance(value, float):
            value = f"{value:.6g}"
        print(f"{key:>18}: {value}")


def emit_script_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--emit-script",
        metavar="PATH",
        help="also write a Python script that recomputes this command's numbers with the ldpcore library "
        "(its record equals --json's, timing aside); an input file is read relative to the script's folder",
    )


def command_line(a) -> str:
    return shlex.join(["ldpcore", *a.argv])


def source_of(a):
    """The data of a run or plan command as a reproduce source (ldpcore.export.reproduce.sources): a bundled
    dataset, n and d with a shape, or --input (an image or histogram CSV, raw records, points) by its path
    relative to the script's folder."""
    from ldpcore.export.reproduce import Dataset, Points, Records, Shape, Upload

    if getattr(a, "dataset", None) is not None:
        return Dataset(a.dataset, getattr(a, "max_side", None), getattr(a, "seed", 0) if a.command == "run" else 0)
    if a.input is None:
        from ldpcore.experiment.planning import Shape as PlanShape

        shape = PlanShape.parse(a.shape)
        return Shape(shape.kind, shape.parameter, a.n, a.d)
    file = os.path.relpath(os.path.abspath(a.input), os.path.dirname(os.path.abspath(a.emit_script)))
    users = {"user_column": a.user_column, "per_user": a.per_user} if getattr(a, "user_column", None) else {}
    if getattr(a, "column", None) is not None:
        bins = None if a.bins is None else a.bins if a.bins.isalpha() else check_whole(a.bins, 1, "--bins")
        value_range = None if a.value_range is None else number_pair(a.value_range, "--range")
        return Records(file, a.column, bins, value_range, delimiter=a.delimiter, **users)
    if any(getattr(a, k, None) is not None for k in ("lat", "lon", "grid", "bbox")):
        return Points(file, a.lat, a.lon, a.grid or 256, a.bbox, delimiter=a.delimiter, **users)
    return Upload(file, getattr(a, "scale", 1.0), getattr(a, "max_side", None))


def emit_script(a, view) -> None:
    """Write the view's script to --emit-script (InputError naming the file where it cannot be written)."""
    from ldpcore.export.reproduce import script

    try:
        with open(a.emit_script, "w", encoding="utf-8") as f:
            f.write(script(view))
    except OSError as exc:
        raise InputError(f"cannot write {a.emit_script} ({exc.strerror or exc}).") from None


def ingest_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "raw records and points (CSV, TSV or Parquet with a header; docs/your_data.md)",
        "Without these options --input is an image or a histogram CSV (one count, or value,count, per line).",
    )
    g.add_argument("--column", help="the column of categories (or, with --bins, of numbers): one value per row")
    g.add_argument("--user-column", help="the user id column of an event log (one row per event)")
    g.add_argument(
        "--per-user",
        help="with --user-column: first (default), mode or distinct:K values per user (see README for the privacy)",
    )
    g.add_argument("--bins", help="read --column as numbers in this many equal bins (or sturges, rice, sqrt)")
    g.add_argument("--range", dest="value_range", metavar="LO,HI", help="the numeric range of --bins (default: data's)")
    g.add_argument("--lat", help="latitude column of points (default: found by its name, lat or latitude)")
    g.add_argument("--lon", help="longitude column of points (default: found by its name, lon, lng or longitude)")
    g.add_argument(
        "--grid", type=checked(check_whole, 1, "grid (cells from west to east)"), help="points: grid width in cells"
    )
    g.add_argument("--bbox", metavar="W,S,E,N", help="points: the box in degrees (default: the points' extent)")
    g.add_argument("--delimiter", help="CSV delimiter (default: ',' or a tab for .tsv / .tab files)")


def number_pair(text: str, what: str) -> tuple[float, float]:
    parts = text.split(",")
    require(len(parts) == 2, f"{what} needs two numbers LO,HI (got {text!r}).")
    try:
        return float(parts[0]), float(parts[1])
    except ValueError:
        raise InputError(f"{what} needs two numbers LO,HI (got {text!r}).") from None


# the options that read raw records or points (argparse's name -> the option)
INGEST_OPTIONS = {k: f"--{k.replace('_', '-')}" for k in ("column", "user_column", "per_user", "bins")} | {
    "value_range": "--range",
    **{k: f"--{k}" for k in ("lat", "lon", "grid", "bbox", "delimiter")},
}


def no_ingest_options(a) -> None:
    given = [option for name, option in INGEST_OPTIONS.items() if getattr(a, name) is not None]
    require(not given, f"{', '.join(given)}: only for raw records or points read with --input.")


def input_kind(a) -> tuple[bool, bool]:
    """(points, records): whether the ingest options read --input as points or as raw records (checked)."""
    points = a.lat is not None or a.lon is not None or a.grid is not None or a.bbox is not None
    records = a.column is not None or a.user_column is not None or a.per_user is not None or a.bins is not None
    require(not (points and records), "give either --column (records) or --lat/--lon/--grid (points), not both.")
    require(a.per_user is None or a.user_column is not None, "--per-user needs --user-column.")
    require(a.value_range is None or a.bins is not None, "--range needs --bins (a numeric column is read in bins).")
    return points, records


def read_input(a):
    """(Histogram, IngestReport or None) of --input: raw records or points through ldpcore.data.ingest when
    --column, --lat, --lon or --grid is given, else an image or a histogram CSV (report None)."""
    from ldpcore.data import ingest  # DuckDB is imported only when raw records are read
    from ldpcore.data.loaders import load_path

    points, records = input_kind(a)
    common = {"delimiter": a.delimiter}
    if points:
        return ingest.read_points(a.input, a.lat, a.lon, width=a.grid or 256, bbox=a.bbox, **common)
    if records:
        require(a.column is not None, "--column is required to read raw records (--user-column names the user).")
        users = {"user_column": a.user_column, "per_user": a.per_user}
        if a.bins is not None:
            bins = a.bins if a.bins in ingest.BIN_RULES else check_whole(a.bins, 1, "--bins")
            value_range = None if a.value_range is None else number_pair(a.value_range, "--range")
            return ingest.read_numeric(a.input, a.column, bins=bins, value_range=value_range, **users, **common)
        return ingest.read_categorical(a.input, a.column, **users, **common)
    require(a.delimiter is None, "--delimiter is for raw records: give --column or --lat/--lon/--grid.")
    return load_path(a.input, scale=a.scale, max_side=a.max_side), None


def rounds_fields(rounds: int, eps_c: float | None, delta: float, collection: Rounds | None) -> dict[str, Any]:
    """The JSON fields of repeated collection: rounds, the total (eps_c, delta), one round's eps_c (at delta /
    rounds; eps_c itself for one round), and with several rounds what basic and advanced composition of the
    per-round guarantees would certify."""
    out: dict[str, Any] = {"rounds": rounds, "eps_c_total": eps_c, "delta_total": delta, "eps_c_per_round": eps_c}
    if collection is not None:
        out["eps_c_per_round"] = collection.eps_c_per_round
        out["eps_c_total_basic"] = None if collection.basic is None else collection.basic.eps
        out["eps_c_total_advanced"] = None if collection.advanced is None else collection.advanced.eps
    return out
