"""The command line's commands: each builds its options (_args) and runs (cmd_), importing what it runs when it
runs, so that parsing one command imports no other command's modules (ldpcore.cli)."""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from typing import TYPE_CHECKING, Any

from ldpcore.errors import InputError, check_seed, check_whole, require

if TYPE_CHECKING:
    pass

from ldpcore.cli.options import (
    RESPONDENTS,
    checked,
    command_line,
    emit_script,
    emit_script_option,
    ingest_args,
    input_kind,
    no_ingest_options,
    notion_and_rounds,
    number_pair,
    print_record,
    protocol_args,
    read_input,
    rounds_fields,
    source_of,
    spec_of,
)


def cmd_privacy(a) -> None:
    from ldpcore.experiment.protocol.spec import plan

    require(a.n is not None, "--n is required.")
    p = plan(spec_of(a, a.delta), a.n, a.domain)
    print_record(p.as_dict(), a.json)


def cmd_run(a) -> None:
    from ldpcore.data.datasets import DATASETS, load_dataset
    from ldpcore.experiment.protocol.run import run, run_central
    from ldpcore.export import output_folder, uncertainty, write_run

    require((a.input is None) != (a.dataset is None), "give exactly one of --input and --dataset.")
    if a.dataset is not None:
        no_ingest_options(a)
        hist, report = load_dataset(a.dataset, max_side=a.max_side, seed=a.seed), None
        delta = a.delta if a.delta is not None else DATASETS[a.dataset].delta
    else:
        require(a.delta is not None, "--delta is required with --input.")
        hist, report = read_input(a)
        delta = a.delta
    if a.out is not None:
        output_folder(a.out)  # a folder that cannot take the files is refused before the run
    start = time.perf_counter()
    result = run(spec_of(a, delta), hist, seed=a.seed, postprocess=a.postprocess)
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

        emit_script(a, RunCommand(source_of(a), result.plan.spec, a.seed, command_line(a), a.postprocess))
    print_record(record, a.json)


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
    from ldpcore.export.records import output_folder

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
    print_record(record, a.json)


def _histogram_sql(a) -> None:
    """--sql DIALECT: print the query that computes this histogram and its drop report where the data lives
    (ldpcore.data.sql, docs/warehouses.md), for a table named --table with --input's columns and types."""
    from ldpcore.data import ingest, sql

    require(a.out is None and not a.json, "--sql prints the query: it takes no --out and no --json.")
    points, _ = input_kind(a)
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
        value_range = number_pair(a.value_range, "--range")
        query = sql.numeric_query(table, a.column, bins=bins, value_range=value_range, dialect=a.sql, **users)
    else:
        query = sql.categorical_query(table, a.column, **users)
    print(sql.to_sql(query, a.sql))


def cmd_audit(a) -> None:
    """Per observer: eps_lower (confidence, trials), eps_upper (certified value and accountant), the attack's
    best (fpr, fnr); then the guessing risk in words. --json prints the whole AuditReport record."""
    from ldpcore.data.datasets import DATASETS
    from ldpcore.experiment.audit import run_audit, uniform
    from ldpcore.export.records import to_json

    sources = (a.n is not None or a.d is not None) + (a.dataset is not None) + (a.input is not None)
    require(sources == 1, "give exactly one of --n with --d, --dataset and --input.")
    if a.input is None:
        no_ingest_options(a)
    if a.dataset is not None:
        data, delta = a.dataset, a.delta if a.delta is not None else DATASETS[a.dataset].delta
    else:
        require(a.delta is not None, "--delta is required (except with --dataset, which has the paper's).")
        if a.input is None:
            require(a.n is not None and a.d is not None, "give --n with --d (or --dataset or --input).")
        data, delta = (read_input(a)[0] if a.input is not None else uniform(a.n, a.d)), a.delta
    tuning = {k: v for k, v in (("trials", a.trials), ("confidence", a.confidence)) if v is not None}
    report = run_audit(spec_of(a, delta), data, observer=a.observer, seed=a.seed, **tuning)
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
    from ldpcore.export.records import to_json
    from ldpcore.privacy.bounds import BOUNDS, get_bound
    from ldpcore.privacy.notions import channels
    from ldpcore.privacy.rounds import collection_bound, rounds_at

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
    record.update(notion=a.notion, **rounds_fields(a.rounds, amp.eps_c, a.delta, collection))
    record["domain"] = a.domain
    print_record(record, a.json)


def cmd_oracles(a) -> None:
    """The encodings: name, title, neighbouring notion, accountants (first = default), whether eps_c is
    certified, report fragments, and the parameters (default, range or choices, meaning)."""
    from ldpcore.export.records import to_json
    from ldpcore.oracles import ENCODINGS

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
    from ldpcore.data.datasets import DATASETS, load_dataset
    from ldpcore.data.loaders import load_path
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
        postprocess=a.postprocess,
        delta_with_n=a.delta_with_n,
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
    from ldpcore.export.records import to_json

    query = _plan_query(a)
    table = planning.answer(query)
    record = table.as_dict()
    if a.emit_script:
        from ldpcore.export.reproduce import PlanView

        constraints = query.constraints
        view = PlanView(
            source_of(a),
            query.delta,
            query.eps_c,
            str(query.solve),
            None if query.target is None else (query.target.kind, query.target.value),
            query.notion,
            query.encodings,
            constraints.max_messages,
            constraints.max_bits,
            query.delta_from,
            command_line(a),
            query.rounds,
            rule=query.rule,
            delta_with_n=query.delta_with_n,
            postprocess=query.postprocess,
        )
        emit_script(a, view)
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


def plan_args(q: argparse.ArgumentParser) -> None:
    from ldpcore.data.datasets import DATASETS
    from ldpcore.experiment.planning.choice import DEFAULT_RULE, RULES
    from ldpcore.experiment.protocol.postprocess import METHODS
    from ldpcore.privacy.notions import NOTIONS

    src = q.add_mutually_exclusive_group()
    src.add_argument("--dataset", choices=sorted(DATASETS), help="bundled dataset")
    src.add_argument("--input", help="image or histogram CSV")
    q.add_argument("--n", type=RESPONDENTS, help="respondents (without data: with --d and --shape)")
    q.add_argument("--d", type=checked(check_whole, 2, "the domain size d"), help="domain size (without data)")
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
    notion_and_rounds(q, default_notion="replacement")
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
    q.add_argument("--json", action="store_true", help="print one JSON object")
    q.add_argument(
        "--postprocess",
        choices=list(METHODS),
        help="rank on each row's RMSE after this post-processing, simulated (the table at --eps-c only)",
    )
    emit_script_option(q)
    q.set_defaults(func=cmd_plan)


def run_args(r: argparse.ArgumentParser) -> None:
    from ldpcore.data.datasets import DATASETS
    from ldpcore.experiment.protocol.postprocess import METHODS

    src = r.add_mutually_exclusive_group(required=True)
    src.add_argument("--input", help="image (PNG, JPEG, ...) or histogram CSV")
    src.add_argument("--dataset", choices=sorted(DATASETS), help="bundled dataset")
    r.add_argument("--scale", type=float, default=1.0, help="respondents per unit of luminance (Map: 2.5)")
    r.add_argument(
        "--max-side",
        type=checked(check_whole, 1, "max_side (pixels)"),
        help="downsample images to at most this many pixels per side",
    )
    r.add_argument("--delta", type=float, help="central delta (default: the dataset's, as in the paper)")
    r.add_argument("--seed", type=checked(check_seed), default=0, help="seed of the simulation, 0 to 2^63 - 1")
    r.add_argument("--out", help="folder for original.png, reconstruction.png, estimate.csv, run.json")
    r.add_argument(
        "--postprocess",
        choices=list(METHODS),
        help="post-process the estimate (clip: Base-Pos; norm-sub, norm-cut; simplex: projection with the known n; "
        "ibu, mle: likelihood, where the encoding states its law); the picture, estimate.csv and the record's "
        "'postprocess' entry then hold it, and the raw estimate's metrics stay in the record",
    )
    protocol_args(r)
    ingest_args(r)
    emit_script_option(r)
    r.set_defaults(func=cmd_run)


def audit_args(u: argparse.ArgumentParser) -> None:
    from ldpcore.data.datasets import DATASETS

    src = u.add_mutually_exclusive_group()
    src.add_argument("--dataset", choices=sorted(DATASETS), help="bundled dataset")
    src.add_argument("--input", help="image, histogram CSV, or raw records / points with --column or --lat/--lon")
    u.add_argument("--n", type=RESPONDENTS, help="respondents (with --d: a uniform histogram)")
    u.add_argument("--d", type=checked(check_whole, 2, "d (domain size)"), help="domain size (with --n)")
    u.add_argument("--delta", type=float, help="central delta (default with --dataset: the paper's)")
    # the audit module (scipy.signal) is imported only by `audit`: these are checked there, with its limits
    u.add_argument("--observer", default="all", help="server, shuffler, analyst or all (default)")
    u.add_argument(
        "--trials", type=checked(check_whole, 0, "trials"), help="trials per hypothesis (default 1e6; 100 to 1e7)"
    )
    u.add_argument("--confidence", type=float, help="of the lower bound (default 0.95)")
    u.add_argument("--seed", type=checked(check_seed), default=0, help="seed of the attack, 0 to 2^63 - 1")
    protocol_args(u)
    ingest_args(u)
    u.set_defaults(func=cmd_audit, scale=1.0, max_side=None)


def amplify_args(m: argparse.ArgumentParser) -> None:
    m.add_argument("--list", action="store_true", help="print the bound names and exit")
    m.add_argument("--bound", help="bound name or alias (see --list)")
    direction = m.add_mutually_exclusive_group()
    direction.add_argument("--eps0", type=float, help="local epsilon (nats); prints the eps_c it certifies")
    direction.add_argument("--eps-c", type=float, help="central epsilon (nats); prints the largest eps0")
    m.add_argument("--n", type=RESPONDENTS, help="number of respondents (whole, 1e9 is fine; at most 2^50)")
    m.add_argument("--delta", type=float)
    m.add_argument(
        "--domain",
        type=checked(check_whole, 2, "the domain size k"),
        help="domain size k for k-RR bounds; for solh a fixed hash range",
    )
    notion_and_rounds(m)
    m.add_argument("--json", action="store_true", help="print one JSON object")
    m.set_defaults(func=cmd_amplify)


def privacy_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=RESPONDENTS, help="number of respondents (whole, 1e9 is fine; at most 2^50)")
    p.add_argument("--delta", type=float, required=True)
    p.add_argument(
        "--domain", type=checked(check_whole, 2, "the domain size d"), help="domain size d (for expected messages)"
    )
    protocol_args(p)
    notion_and_rounds(p)
    p.set_defaults(func=cmd_privacy)


def histogram_args(h: argparse.ArgumentParser) -> None:
    h.add_argument("--input", required=True, help="CSV, TSV or Parquet with a header")
    h.add_argument("--out", help="the value,count CSV to write")
    h.add_argument("--json", action="store_true", help="print one JSON object (what was read and kept)")
    ingest_args(h)
    w = h.add_argument_group(
        "the query instead (docs/warehouses.md; needs the sql extra)",
        "Print the SQL that computes the histogram and what it leaves out where the data lives, for a table "
        "with --input's columns; --bins needs --range, points need --bbox.",
    )
    w.add_argument("--sql", metavar="DIALECT", help="bigquery, snowflake, pyspark, databricks, postgres, duckdb, ...")
    w.add_argument("--table", help="the table's name in the query (default: --input's name without its suffix)")
    w.add_argument("--order-by", help="with --user-column: the column that orders each user's rows (e.g. a time)")
    h.set_defaults(func=cmd_histogram, scale=1.0, max_side=None)


def oracles_args(o: argparse.ArgumentParser) -> None:
    o.add_argument("--json", action="store_true", help="print one JSON object")
    o.set_defaults(func=cmd_oracles)
