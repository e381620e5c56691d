"""Command line: ``python -m ldpcore privacy|run|amplify|oracles|histogram|audit ...`` (stable; see README).

Invalid input exits with status 2 and one line on stderr naming the problem: argparse errors,
every InputError, output that cannot be written (a closed pipe included) and running out of memory.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shlex
import sys
import time
from typing import Any

from ldpcore.data.datasets import DATASETS, load_dataset
from ldpcore.data.loaders import load_path
from ldpcore.errors import MAX_TAU, InputError, check_n, check_seed, check_whole, require
from ldpcore.experiment.planning.choice import DEFAULT_RULE, RULES
from ldpcore.experiment.protocol.postprocess import METHODS
from ldpcore.experiment.protocol.run import run, run_central
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan
from ldpcore.export import output_folder, to_json, uncertainty, write_run
from ldpcore.oracles import ACCOUNTANT_NAMES, DEFAULT_ENCODING, ENCODINGS
from ldpcore.privacy.bounds import BOUNDS, get_bound
from ldpcore.privacy.fragments import EPS_F_RULES
from ldpcore.privacy.notions import NOTIONS, channels
from ldpcore.privacy.rounds import MAX_ROUNDS, Rounds, collection_bound, rounds_at


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, status 2
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}\n")


def _checked(check, *args):
    """An argparse type: the text through an ldpcore check (exact whole numbers and their limits); its
    InputError becomes argparse's one-line error naming the option."""

    def convert(text: str):
        try:
            return check(text, *args)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return convert


RESPONDENTS = _checked(check_n)


def _protocol_args(p: argparse.ArgumentParser) -> None:
    eps = p.add_mutually_exclusive_group(required=True)
    eps.add_argument("--eps-c", type=float, help="central epsilon (nats) to certify")
    eps.add_argument("--eps-l", type=float, help="local epsilon eps_b (nats); prints the eps_c it certifies")
    p.add_argument(
        "--tau",
        type=_checked(check_whole, 1, "tau (report fragments)", MAX_TAU),
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


def _params(pairs: list[str]) -> dict:
    for pair in pairs:
        require("=" in pair, f"--param takes NAME=VALUE (got {pair!r}).")
    return dict(pair.split("=", 1) for pair in pairs)


def _spec(a, delta: float) -> ProtocolSpec:
    return ProtocolSpec(
        eps_c=a.eps_c,
        eps_l=a.eps_l,
        delta=delta,
        tau=a.tau,
        eps_f_rule=a.eps_f_rule,
        eps_f=a.eps_f,
        accountant=a.accountant,
        encoding=a.encoding,
        params=_params(a.param),
        notion=getattr(a, "notion", "native"),
        rounds=getattr(a, "rounds", 1),
    )


def _notion_and_rounds(p: argparse.ArgumentParser, default_notion: str = "native") -> None:
    """--notion (of eps_c) and --rounds (collections from the same respondents; eps_c is their total)."""
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
        type=_checked(check_whole, 1, "rounds", MAX_ROUNDS),
        default=1,
        help=f"collections from the same respondents (1 to {MAX_ROUNDS:,}); eps_c and delta are their total",
    )


def _print(record: dict, as_json: bool) -> None:
    if as_json:
        print(to_json(record))
        return
    for key, value in record.items():
        if isinstance(value, float):
            value = f"{value:.6g}"
        print(f"{key:>18}: {value}")


def cmd_privacy(a) -> None:
    require(a.n is not None, "--n is required.")
    p = plan(_spec(a, a.delta), a.n, a.domain)
    _print(p.as_dict(), a.json)


def cmd_run(a) -> None:
    require((a.input is None) != (a.dataset is None), "give exactly one of --input and --dataset.")
    if a.dataset is not None:
        _no_ingest_options(a)
        hist, report = load_dataset(a.dataset, max_side=a.max_side, seed=a.seed), None
        delta = a.delta if a.delta is not None else DATASETS[a.dataset].delta
    else:
        require(a.delta is not None, "--delta is required with --input.")
        hist, report = read_input(a)
        delta = a.delta
    if a.out is not None:
        output_folder(a.out)  # a folder that cannot take the files is refused before the run
    start = time.perf_counter()
    result = run(_spec(a, delta), hist, seed=a.seed, postprocess=a.postprocess)
    record = result.as_dict()
    central = run_central(result.plan.eps_c, delta, hist, seed=a.seed)
    seconds = time.perf_counter() - start
    from ldpcore.export.view_records import run_command_record, run_std_errors

    std_error = run_std_errors(result)  # None for a post-processed estimate: the CSV leaves its intervals empty
    record["uncertainty"] = uncertainty(std_error)
    files = write_run(result, record, a.out, std_error) if a.out is not None else None  # run.json: its own record
    record = run_command_record(result, central, report, seconds)
    if files:
        record["files"] = [str(f) for f in files]
    if a.emit_script:
        from ldpcore.export.reproduce import RunCommand

        _emit(a, RunCommand(_source(a), result.plan.spec, a.seed, _command_line(a), a.postprocess))
    _print(record, a.json)


# --- reproduce as code (issue 30): --emit-script writes the command's computation as a Python script ---


def _emit_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--emit-script",
        metavar="PATH",
        help="also write a Python script that recomputes this command's numbers with the ldpcore library "
        "(its record equals --json's, timing aside); an input file is read relative to the script's folder",
    )


def _command_line(a) -> str:
    return shlex.join(["ldpcore", *a.argv])


def _source(a):
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
        value_range = None if a.value_range is None else _pair(a.value_range, "--range")
        return Records(file, a.column, bins, value_range, delimiter=a.delimiter, **users)
    if any(getattr(a, k, None) is not None for k in ("lat", "lon", "grid", "bbox")):
        return Points(file, a.lat, a.lon, a.grid or 256, a.bbox, delimiter=a.delimiter, **users)
    return Upload(file, getattr(a, "scale", 1.0), getattr(a, "max_side", None))


def _emit(a, view) -> None:
    """Write the view's script to --emit-script (InputError naming the file where it cannot be written)."""
    from ldpcore.export.reproduce import script

    try:
        with open(a.emit_script, "w", encoding="utf-8") as f:
            f.write(script(view))
    except OSError as exc:
        raise InputError(f"cannot write {a.emit_script} ({exc.strerror or exc}).") from None


# --- raw records and points (issue 16): --column / --lat / --lon / --grid read through ldpcore.data.ingest ---


def _ingest_args(p: argparse.ArgumentParser) -> None:
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
        "--grid", type=_checked(check_whole, 1, "grid (cells from west to east)"), help="points: grid width in cells"
    )
    g.add_argument("--bbox", metavar="W,S,E,N", help="points: the box in degrees (default: the points' extent)")
    g.add_argument("--delimiter", help="CSV delimiter (default: ',' or a tab for .tsv / .tab files)")


def _pair(text: str, what: str) -> tuple[float, float]:
    parts = text.split(",")
    require(len(parts) == 2, f"{what} needs two numbers LO,HI (got {text!r}).")
    try:
        return float(parts[0]), float(parts[1])
    except ValueError:
        raise InputError(f"{what} needs two numbers LO,HI (got {text!r}).") from None


# the options that read raw records or points (argparse's name -> the option)
_INGEST_OPTIONS = {k: f"--{k.replace('_', '-')}" for k in ("column", "user_column", "per_user", "bins")} | {
    "value_range": "--range",
    **{k: f"--{k}" for k in ("lat", "lon", "grid", "bbox", "delimiter")},
}


def _no_ingest_options(a) -> None:
    given = [option for name, option in _INGEST_OPTIONS.items() if getattr(a, name) is not None]
    require(not given, f"{', '.join(given)}: only for raw records or points read with --input.")


def _input_kind(a) -> tuple[bool, bool]:
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

    points, records = _input_kind(a)
    common = {"delimiter": a.delimiter}
    if points:
        return ingest.read_points(a.input, a.lat, a.lon, width=a.grid or 256, bbox=a.bbox, **common)
    if records:
        require(a.column is not None, "--column is required to read raw records (--user-column names the user).")
        users = {"user_column": a.user_column, "per_user": a.per_user}
        if a.bins is not None:
            bins = a.bins if a.bins in ingest.BIN_RULES else check_whole(a.bins, 1, "--bins")
            value_range = None if a.value_range is None else _pair(a.value_range, "--range")
            return ingest.read_numeric(a.input, a.column, bins=bins, value_range=value_range, **users, **common)
        return ingest.read_categorical(a.input, a.column, **users, **common)
    require(a.delimiter is None, "--delimiter is for raw records: give --column or --lat/--lon/--grid.")
    return load_path(a.input, scale=a.scale, max_side=a.max_side), None


def cmd_histogram(a) -> None:
    """Raw records or points -> the value,count file that run --input reads (made once, explored many times)."""
    require(
        any(v is not None for v in (a.column, a.lat, a.lon, a.grid, a.bbox)),
        "give --column (records) or --lat/--lon/--grid (points).",
    )
    if a.sql is not None:
        return _histogram_sql(a)
    require(a.out is not None, "give --out, the value,count CSV to write (or --sql DIALECT to print the query).")
    require(a.order_by is None and a.table is None, "--order-by and --table are for --sql (a file has its row order).")
    require(a.out.strip() != "", "--out is empty; give the CSV file to write.")
    require(not os.path.isdir(a.out), f"--out {a.out} is a folder; give the CSV file to write.")
    out = output_folder(os.path.dirname(os.path.abspath(a.out))) / os.path.basename(a.out)
    hist, report = read_input(a)
    from ldpcore.data.ingest import write_counts

    try:
        write_counts(hist, out)
    except OSError as exc:
        raise InputError(f"cannot write {a.out}: {exc.strerror or exc}.") from None
    record = {
        **dataclasses.asdict(report),
        "d": hist.d,
        "n": hist.n,
        "shape": list(hist.shape) if hist.shape else None,
        "notes": list(hist.notes),
        "out": str(out),
    }
    _print(record, a.json)


def _histogram_sql(a) -> None:
    """--sql DIALECT: print the query that computes this histogram and its drop report where the data lives
    (ldpcore.data.sql, docs/warehouses.md), for a table named --table with --input's columns and types."""
    from ldpcore.data import ingest, sql

    require(a.out is None and not a.json, "--sql prints the query: it takes no --out and no --json.")
    points, _ = _input_kind(a)
    table = sql.file_table(a.input, name=a.table, delimiter=a.delimiter)
    users = {"user_column": a.user_column, "per_user": a.per_user, "order_by": a.order_by}
    require(a.order_by is None or a.user_column is not None, "--order-by orders each user's rows: give --user-column.")
    if points:
        require(a.bbox is not None, "--sql needs --bbox W,S,E,N: a query does not take the box from the data.")
        found = ingest.point_columns(table.columns)
        lat, lon = a.lat or found[0], a.lon or found[1]
        if lat is None or lon is None:
            raise InputError("name the latitude and longitude columns with --lat and --lon.")
        query = sql.points_query(table, lat, lon, bbox=a.bbox, width=a.grid or 256, dialect=a.sql, **users)
    elif a.bins is not None:
        require(a.value_range is not None, "--sql needs --range LO,HI: a query does not take the range from the data.")
        bins = check_whole(a.bins, 1, "--bins (with --sql: a number of bins)")
        value_range = _pair(a.value_range, "--range")
        query = sql.numeric_query(table, a.column, bins=bins, value_range=value_range, dialect=a.sql, **users)
    else:
        query = sql.categorical_query(table, a.column, **users)
    print(sql.to_sql(query, a.sql))


# --- empirical audits (issue 17): what each observer can show it learns, beside the certified bound ---


def cmd_audit(a) -> None:
    """Per observer: eps_lower (confidence, trials), eps_upper (certified value and accountant), the attack's
    best (fpr, fnr); then the guessing risk in words. --json prints the whole AuditReport record."""
    from ldpcore.experiment.audit import run_audit, uniform

    sources = (a.n is not None or a.d is not None) + (a.dataset is not None) + (a.input is not None)
    require(sources == 1, "give exactly one of --n with --d, --dataset and --input.")
    if a.input is None:
        _no_ingest_options(a)
    if a.dataset is not None:
        data, delta = a.dataset, a.delta if a.delta is not None else DATASETS[a.dataset].delta
    else:
        require(a.delta is not None, "--delta is required (except with --dataset, which has the paper's).")
        if a.input is None:
            require(a.n is not None and a.d is not None, "give --n with --d (or --dataset or --input).")
        data, delta = (read_input(a)[0] if a.input is not None else uniform(a.n, a.d)), a.delta
    tuning = {k: v for k, v in (("trials", a.trials), ("confidence", a.confidence)) if v is not None}
    report = run_audit(_spec(a, delta), data, observer=a.observer, seed=a.seed, **tuning)
    if a.json:
        print(to_json(report.as_dict()))
        return
    p = report.plan
    name = "uniform counts" if a.n is not None else report.data
    print(
        f"{name}: n = {p.n:,}, d = {p.d:,}, {p.spec.encoding}, eps_c = {p.eps_c:.4g}, delta = {p.spec.delta:g}, "
        f"eps_l_inf = {p.eps_l_inf:.4g}, eps_l_1 = {p.eps_l_1:.4g}, seed {report.seed}"
    )
    for o in report.observers:
        upper = "not valid here" if o.eps_upper.eps is None else f"{o.eps_upper.eps:.4g} ({o.eps_upper.name})"
        fpr, fnr = o.best
        print(
            f"{o.observer:>9}: eps_lower {o.eps_lower:.4g} at confidence {o.confidence:g} ({o.trials:,} trials per "
            f"hypothesis); certified eps_upper {upper}; best test fpr {fpr:.3g}, fnr {fnr:.3g}"
        )
    for skipped in report.skipped:
        print(f"  skipped {skipped}")
    for risk in report.risk.risks:
        print(f"  {risk.sentence}")


def cmd_amplify(a) -> None:
    """One bound, either direction; a bound not valid here prints valid=false and its reason (status 0).
    --notion replacement reads a zero-out bound (one channel) over the two channels a replacement changes;
    --rounds T composes T collections (eps_c and delta are their total; eps0 is each round's)."""
    if a.list:
        print(to_json([str(name) for name in BOUNDS]) if a.json else "\n".join(BOUNDS))
        return
    require(a.bound is not None, "--bound is required (see --list).")
    require((a.eps0 is None) != (a.eps_c is None), "give exactly one of --eps0 and --eps-c.")
    require(a.n is not None, "--n is required.")
    require(a.delta is not None, "--delta is required.")
    base = get_bound(a.bound)
    width = channels(base.neighbouring, a.notion)
    bound = collection_bound(base, a.rounds, width)
    if a.eps0 is not None:
        amp = bound.forward(a.eps0, a.n, a.delta, a.domain)
    else:
        amp = bound.inverse(a.eps_c, a.n, a.delta, a.domain)
    collection = None
    if a.rounds > 1 and amp.eps0 is not None and amp.valid:
        collection = rounds_at(base, a.rounds, width, amp.eps0, a.n, a.delta, a.domain, amp.guarantee)
    record = amp.as_dict()
    record.update(record.pop("extra"))
    record.update(notion=a.notion, **_rounds_fields(a.rounds, amp.eps_c, a.delta, collection))
    record["domain"] = a.domain
    _print(record, a.json)


def _rounds_fields(rounds: int, eps_c: float | None, delta: float, collection: Rounds | None) -> dict[str, Any]:
    """The JSON fields of repeated collection: rounds, the total (eps_c, delta), one round's eps_c (at delta /
    rounds; eps_c itself for one round), and with several rounds what basic and advanced composition of the
    per-round guarantees would certify."""
    out: dict[str, Any] = {"rounds": rounds, "eps_c_total": eps_c, "delta_total": delta, "eps_c_per_round": eps_c}
    if collection is not None:
        out["eps_c_per_round"] = collection.eps_c_per_round
        out["eps_c_total_basic"] = None if collection.basic is None else collection.basic.eps
        out["eps_c_total_advanced"] = None if collection.advanced is None else collection.advanced.eps
    return out


def cmd_oracles(a) -> None:
    """The encodings: name, title, neighbouring notion, accountants (first = default), whether eps_c is
    certified, report fragments, and the parameters (default, range or choices, meaning)."""
    rows: list[dict[str, Any]] = [
        {
            "name": e.name,
            "title": e.title,
            "neighbouring": e.neighbouring,
            "accountants": list(e.accountants),
            "default_accountant": e.accountants[0],
            "certified": e.certified,
            "report_fragments": e.fragments,
            "privacy_note": e.privacy_note,
            "params": [
                {
                    "name": p.name,
                    "label": p.label,
                    "default": p.default,
                    "help": p.help,
                    **({"choices": list(p.choices)} if p.choices else {"min": p.low, "max": p.high}),
                }
                for p in e.params
            ],
        }
        for e in ENCODINGS.values()
    ]
    if a.json:
        print(to_json({"encodings": rows}))
    else:
        for r in rows:
            params = ", ".join(f"{p['name']}={p['default']}" for p in r["params"])
            print(
                f"{r['name']:>16}  {r['title']}  (accountants: {', '.join(r['accountants'])}"
                f"{'; eps_c NOT certified' if not r['certified'] else ''}{'; params: ' + params if params else ''})"
            )


def _plan_query(a):
    """The PlanQuery of the plan command's options: the data (a dataset, an input, or n and d with a shape),
    delta (given, the dataset's, or about 1/(10 n)), at most one target error and the rest as given."""
    from ldpcore.experiment import planning
    from ldpcore.experiment.protocol.spec import default_delta

    sources = [a.dataset is not None, a.input is not None, a.n is not None or a.d is not None]
    require(sum(sources) == 1, "give exactly one of --dataset, --input and --n with --d.")
    targets = [
        planning.Target(k, v)
        for k, v in (("rmse", a.target_rmse), ("relative_rmse", a.target_relative_rmse), ("linf", a.target_linf))
        if v is not None
    ]
    require(len(targets) <= 1, "give at most one of --target-rmse, --target-relative-rmse and --target-linf.")
    kw: dict[str, Any] = dict(
        eps_c=a.eps_c,
        target=targets[0] if targets else None,
        solve=a.solve,
        notion=a.notion,
        rounds=a.rounds,
        encodings=tuple(e.strip() for e in a.encodings.split(",") if e.strip()) if a.encodings else (),
        constraints=planning.Constraints(a.max_messages, a.max_bits),
        rule=a.rule,
        delta_with_n=a.delta_with_n,
        postprocess=a.postprocess,
    )
    if a.n is not None or a.d is not None:
        require(a.n is not None and a.d is not None, "--n and --d go together.")
        delta, how = (a.delta, "given") if a.delta is not None else (default_delta(a.n), "about 1/(10 n)")
        return planning.PlanQuery.from_shape(a.n, a.d, a.shape, delta, delta_from=how, **kw)
    hist = load_dataset(a.dataset) if a.dataset is not None else load_path(a.input)
    own, how = (
        (DATASETS[a.dataset].delta, "the dataset's")
        if a.dataset is not None
        else (default_delta(hist.n), "about 1/(10 n)")
    )
    delta, how = (a.delta, "given") if a.delta is not None else (own, how)
    return planning.PlanQuery(hist.counts, hist.name, delta, delta_from=how, **kw)


def cmd_plan(a) -> None:
    """Every encoding x accountant side by side (ldpcore.experiment.planning), forward at eps_c or solving for
    the smallest eps_c or n that meets a target error: one PlanQuery, answered."""
    from ldpcore.experiment import planning

    query = _plan_query(a)
    table = planning.answer(query)
    record = table.as_dict()
    if a.emit_script:
        from ldpcore.export.reproduce import PlanView

        constraints = query.constraints
        view = PlanView(
            _source(a),
            query.delta,
            query.eps_c,
            str(query.solve),
            None if query.target is None else (query.target.kind, query.target.value),
            query.notion,
            query.encodings,
            constraints.max_messages,
            constraints.max_bits,
            query.delta_from,
            _command_line(a),
            query.rounds,
            rule=query.rule,
            delta_with_n=query.delta_with_n,
            postprocess=query.postprocess,
        )
        _emit(a, view)
    if a.json:
        print(to_json(record))
        return
    over = f", the total over {table.rounds:,} collections" if table.rounds > 1 else ""
    print(
        f"{table.name}: n = {table.n:,}, d = {table.d:,}, delta = {table.delta:g}, eps_c in the {table.notion} "
        f"notion{over}" + (f"; solving for n holds {query.held_fixed}" if query.held_fixed else "")
    )
    post = table.postprocess
    if post is not None:
        print(
            f"ranked on {post}: each row's RMSE after it simulated over {planning.RUNS} runs (seeds "
            f"{planning.FIRST_SEED}-{planning.FIRST_SEED + planning.RUNS - 1}), with its standard error"
        )
    head = "encoding accountant eps_c eps_l eps_l_repl messages bits/resp rmse topk_recall n note".split()
    if post is not None:
        head[8:8] = [post, "std_error"]
    print("  ".join(f"{h:>12}" for h in head))
    for r in table.rows:
        sim = (
            []
            if post is None
            else [None, None]
            if r.postprocessed is None
            else [r.postprocessed.rmse, r.postprocessed.std_error]
        )
        cells = (
            r.encoding,
            r.accountant,
            r.eps_c,
            r.eps_l,
            r.eps_l_replacement,
            r.messages,
            r.bits_per_respondent,
            r.rmse,
            *sim,
            r.topk_recall,
            r.n,
            "" if r.ranked else ("NOT ranked: " + r.reason)[:80],
        )
        print("  ".join(f"{c:>12.4g}" if isinstance(c, float) else f"{'' if c is None else c!s:>12}" for c in cells))
    for r in table.rows:
        if r.hash_tail is not None:
            print(f"{r.encoding} with {r.accountant}: {r.hash_tail.sentence()}")
    if table.central_rmse is not None:
        print(f"central Gaussian RMSE: {table.central_rmse:.4g} ({table.central_note})")
    print(f"recommended: {table.recommended.encoding if table.recommended else 'none'}: {table.reason}")
    k = next((r.topk for r in table.rows if r.topk is not None), None)
    print(f"topk_recall (k = {k}): the {planning.TOPK_NOTE}" if k else planning.NO_TOPK)


def _plan_parser(sub) -> None:
    q = sub.add_parser("plan", help="every encoding and accountant side by side, forward or solving for eps_c or n")
    src = q.add_mutually_exclusive_group()
    src.add_argument("--dataset", choices=sorted(DATASETS), help="bundled dataset")
    src.add_argument("--input", help="image or histogram CSV")
    q.add_argument("--n", type=RESPONDENTS, help="respondents (without data: with --d and --shape)")
    q.add_argument("--d", type=_checked(check_whole, 2, "the domain size d"), help="domain size (without data)")
    q.add_argument("--shape", default="uniform", help="uniform, zipf:S or geometric:R (without data)")
    q.add_argument("--eps-c", type=float, help="central epsilon (nats), in the --notion notion")
    q.add_argument("--target-rmse", type=float, help="target raw RMSE per bin")
    q.add_argument("--target-relative-rmse", type=float, help="target RMSE / mean count")
    q.add_argument("--target-linf", type=float, help="target expected l_inf error")
    q.add_argument("--solve", choices=("eps_c", "n"), help="what to solve for (default: eps_c with a target)")
    q.add_argument("--delta", type=float, help="central delta (default: the dataset's, else about 1/(10 n))")
    q.add_argument(
        "--delta-with-n",
        action="store_true",
        help="with --solve n: delta = about 1/(10 n) at each n tried (default: delta held fixed at every n)",
    )
    q.add_argument("--notion", choices=NOTIONS, default="replacement", help="notion of eps_c")
    _notion_and_rounds(q, default_notion="replacement")
    q.add_argument("--encodings", help="comma-separated encodings (default: all)")
    q.add_argument("--max-messages", type=float, help="at most this many messages per respondent")
    q.add_argument("--max-bits", type=float, help="at most this many bits per respondent")
    q.add_argument(
        "--rule",
        choices=list(RULES),
        default=DEFAULT_RULE,
        help="how the recommendation is picked on the Pareto set of the ranked rows: "
        + "; ".join(
            f"{r.name}: {r.words.format(objective='error (or eps_c, or n, when solving)')}" for r in RULES.values()
        ).replace("%", "%%"),  # argparse formats help with %
    )
    q.add_argument(
        "--postprocess",
        choices=list(METHODS),
        help="rank on each row's RMSE after this post-processing, simulated (the table at --eps-c only)",
    )
    q.add_argument("--json", action="store_true", help="print one JSON object")
    _emit_arg(q)
    q.set_defaults(func=cmd_plan)


def _run_parser(sub) -> None:
    r = sub.add_parser("run", help="simulate the protocol on an image, CSV or bundled dataset")
    src = r.add_mutually_exclusive_group(required=True)
    src.add_argument("--input", help="image (PNG, JPEG, ...) or histogram CSV")
    src.add_argument("--dataset", choices=sorted(DATASETS), help="bundled dataset")
    r.add_argument("--scale", type=float, default=1.0, help="respondents per unit of luminance (Map: 2.5)")
    r.add_argument(
        "--max-side",
        type=_checked(check_whole, 1, "max_side (pixels)"),
        help="downsample images to at most this many pixels per side",
    )
    r.add_argument("--delta", type=float, help="central delta (default: the dataset's, as in the paper)")
    r.add_argument("--seed", type=_checked(check_seed), default=0, help="seed of the simulation, 0 to 2^63 - 1")
    r.add_argument("--out", help="folder for original.png, reconstruction.png, estimate.csv, run.json")
    r.add_argument(
        "--postprocess",
        choices=list(METHODS),
        help="post-process the estimate (clip: Base-Pos; norm-sub, norm-cut; simplex: projection with the known n; "
        "ibu, mle: likelihood, where the encoding states its law); the picture, estimate.csv and the record's "
        "'postprocess' entry then hold it, and the raw estimate's metrics stay in the record",
    )
    _protocol_args(r)
    _ingest_args(r)
    _emit_arg(r)
    r.set_defaults(func=cmd_run)


def _audit_parser(sub) -> None:
    u = sub.add_parser("audit", help="empirical lower bounds on eps by each observer, beside the certified ones")
    src = u.add_mutually_exclusive_group()
    src.add_argument("--dataset", choices=sorted(DATASETS), help="bundled dataset")
    src.add_argument("--input", help="image, histogram CSV, or raw records / points with --column or --lat/--lon")
    u.add_argument("--n", type=RESPONDENTS, help="respondents (with --d: a uniform histogram)")
    u.add_argument("--d", type=_checked(check_whole, 2, "d (domain size)"), help="domain size (with --n)")
    u.add_argument("--delta", type=float, help="central delta (default with --dataset: the paper's)")
    # the audit module (scipy.signal) is imported only by `audit`: these are checked there, with its limits
    u.add_argument("--observer", default="all", help="server, shuffler, analyst or all (default)")
    u.add_argument(
        "--trials", type=_checked(check_whole, 0, "trials"), help="trials per hypothesis (default 1e6; 100 to 1e7)"
    )
    u.add_argument("--confidence", type=float, help="of the lower bound (default 0.95)")
    u.add_argument("--seed", type=_checked(check_seed), default=0, help="seed of the attack, 0 to 2^63 - 1")
    _protocol_args(u)
    _ingest_args(u)
    u.set_defaults(func=cmd_audit, scale=1.0, max_side=None)


def _amplify_parser(sub) -> None:
    m = sub.add_parser("amplify", help="one amplification bound: eps0 -> eps_c or eps_c -> eps0")
    m.add_argument("--list", action="store_true", help="print the bound names and exit")
    m.add_argument("--bound", help="bound name or alias (see --list)")
    direction = m.add_mutually_exclusive_group()
    direction.add_argument("--eps0", type=float, help="local epsilon (nats); prints the eps_c it certifies")
    direction.add_argument("--eps-c", type=float, help="central epsilon (nats); prints the largest eps0")
    m.add_argument("--n", type=RESPONDENTS, help="number of respondents (whole, 1e9 is fine; at most 2^50)")
    m.add_argument("--delta", type=float)
    m.add_argument(
        "--domain",
        type=_checked(check_whole, 2, "the domain size k"),
        help="domain size k for k-RR bounds; for solh a fixed hash range",
    )
    _notion_and_rounds(m)
    m.add_argument("--json", action="store_true", help="print one JSON object")
    m.set_defaults(func=cmd_amplify)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m ldpcore", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("privacy", help="privacy numbers of a protocol (no data needed)")
    p.add_argument("--n", type=RESPONDENTS, help="number of respondents (whole, 1e9 is fine; at most 2^50)")
    p.add_argument("--delta", type=float, required=True)
    p.add_argument(
        "--domain", type=_checked(check_whole, 2, "the domain size d"), help="domain size d (for expected messages)"
    )
    _protocol_args(p)
    _notion_and_rounds(p)
    p.set_defaults(func=cmd_privacy)
    _run_parser(sub)
    h = sub.add_parser("histogram", help="raw records or points -> a value,count CSV (for run --input)")
    h.add_argument("--input", required=True, help="CSV, TSV or Parquet with a header")
    h.add_argument("--out", help="the value,count CSV to write")
    h.add_argument("--json", action="store_true", help="print one JSON object (what was read and kept)")
    _ingest_args(h)
    w = h.add_argument_group(
        "the query instead (docs/warehouses.md; needs the sql extra)",
        "Print the SQL that computes the histogram and what it leaves out where the data lives, for a table "
        "with --input's columns; --bins needs --range, points need --bbox.",
    )
    w.add_argument("--sql", metavar="DIALECT", help="bigquery, snowflake, pyspark, databricks, postgres, duckdb, ...")
    w.add_argument("--table", help="the table's name in the query (default: --input's name without its suffix)")
    w.add_argument("--order-by", help="with --user-column: the column that orders each user's rows (e.g. a time)")
    h.set_defaults(func=cmd_histogram, scale=1.0, max_side=None)
    _audit_parser(sub)
    _amplify_parser(sub)
    o = sub.add_parser("oracles", help="the encodings and the accountants that hold for each")
    o.add_argument("--json", action="store_true", help="print one JSON object")
    o.set_defaults(func=cmd_oracles)
    _plan_parser(sub)
    return parser


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
        args.argv = list(sys.argv[1:] if argv is None else argv)  # the command line, for --emit-script's docstring
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
