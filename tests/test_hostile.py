"""Hostile input and heavy load (issue 11): every case gives the right result or exactly one clear message.

Command line: status 2, nothing on stdout, one line on stderr naming the problem, no traceback; where
memory matters the command runs under an address-space limit (RLIMIT_AS) and reports its peak resident
memory (conftest.cli_measured). Library: exact counts and the stated limits. Dashboard (AppTest): one
st.error naming the problem, never an exception.
"""

import csv
import io
import os
import re
import resource
import shutil
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_one_error, captions, cli_measured, huge_png, open_page
from PIL import Image

from ldpcore.data.histogram_csv import MAX_CSV_ROWS, load_csv
from ldpcore.data.images import load_image
from ldpcore.data.loaders import load_path
from ldpcore.errors import MAX_N, InputError, check_n, check_whole
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan

ROOT = Path(__file__).resolve().parent.parent
GB = 2**30
TIGHT_N = ["--eps-c", "1", "--n", "1e20"]


def cli(*args, limit_bytes: int = 4 * GB):
    """Run `python -m ldpcore ARGS` with at most limit_bytes of address space: (status, stdout, stderr)."""
    out = subprocess.run(
        [sys.executable, "-m", "ldpcore", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes)),
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )
    return out.returncode, out.stdout, out.stderr


def assert_one_line(status: int, out: str, err: str, expected: str | None = None):
    """Status 2, nothing on stdout, one line on stderr (holding expected), no traceback."""
    lines = err.strip().splitlines()
    assert status == 2 and out == "", (status, out, err)
    assert len(lines) == 1 and "Traceback" not in err, err
    assert expected is None or expected in lines[0], (expected, lines[0])


def csv_file(tmp_path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


# --- the command line ------------------------------------------------------------------------

RUN = ["run", "--delta", "1e-8", "--eps-c", "1", "--input"]


def _csv_cases(tmp):
    big, top = 2**62, 2**63
    return {
        "four rows of 2^62 plus 5": (
            RUN + [csv_file(tmp, "sum.csv", f"{big}\n{big}\n{big}\n{big}\n5\n")],
            "the limit that keeps counts within int64",
        ),
        "three rows of 2^62": (
            RUN + [csv_file(tmp, "three.csv", f"{big}\n{big}\n{big}\n")],
            "the limit that keeps counts within int64",
        ),
        "2^63-1": (
            RUN + [csv_file(tmp, "max.csv", f"{top - 1}\n1\n")],
            "line 1: count 9223372036854775807 is above 2^62",
        ),
        "2^63": (RUN + [csv_file(tmp, "over.csv", f"5\n{top}\n")], "line 2: count 9223372036854775808 is above 2^62"),
        "1e30": (RUN + [csv_file(tmp, "e30.csv", "1e30\n")], "line 1: count 1e30 is above 2^62"),
        "1_000": (RUN + [csv_file(tmp, "sep.csv", "1_000\n5\n")], "line 1: count '1_000' is not a number"),
        "2^53+1 is read exactly, then beyond the protocols' n": (
            RUN + [csv_file(tmp, "exact.csv", f"{2**53 + 1}\n")],
            "n (respondents) must be at most 2^50",
        ),
        "latin-1": (
            RUN + [csv_file(tmp, "latin.csv", "caf\xe9,5\n".encode("latin-1"))],
            "latin.csv is not a UTF-8 text file",
        ),
        "empty": (RUN + [csv_file(tmp, "empty.csv", b"")], "empty.csv is empty"),
        "a line longer than 64 KB": (
            RUN + [csv_file(tmp, "long.csv", "5\n" + "9" * 70_000)],
            "long.csv, line 2 is longer than 64 KB",
        ),
        "a folder": (RUN + [tmp], "is a folder, not a file"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "four rows of 2^62 plus 5",
        "three rows of 2^62",
        "2^63-1",
        "2^63",
        "1e30",
        "1_000",
        "2^53+1 is read exactly, then beyond the protocols' n",
        "latin-1",
        "empty",
        "a line longer than 64 KB",
        "a folder",
    ],
)
@pytest.mark.slow
def test_hostile_csv_files(tmp_path, case):
    args, expected = _csv_cases(tmp_path)[case]
    assert_one_line(*cli(*args), expected)


def test_counts_are_exact_integers():
    assert load_csv(f"{2**53 + 1}\n".encode(), name="h.csv").n == 2**53 + 1  # not 2**53 (no float round trip)
    assert load_csv(f"a,{2**53 + 1}\nb,{2**53 - 1}\n".encode(), name="h.csv").n == 2**54
    assert list(load_csv(b"1e3\n12.0\n+7\n", name="h.csv").counts) == [1000, 12, 7]
    with pytest.raises(InputError, match="count '1_000' is not a number"):
        load_csv(b"1_000\n", name="h.csv")
    with pytest.raises(InputError, match="n \\(respondents\\) must be at most 2\\^50"):
        plan(ProtocolSpec(eps_c=1.0, delta=1e-9, tau=1024), 2**53, 10)  # tau x n would leave int64
    assert check_n(MAX_N) == MAX_N and check_whole(str(2**63 - 1), 0, "x") == 2**63 - 1
    with pytest.raises(InputError, match="at most 2\\^63 - 1, the int64 limit"):
        check_whole(2**63, 0, "x")


@pytest.mark.parametrize(
    "args,expected",
    [
        (["run", "--dataset", "horse", "--eps-c", "1", "--seed", "-1"], "seed must be a whole number >= 0"),
        (["privacy", "--n", "1_000", "--delta", "1e-6", "--eps-c", "1"], "--n: n (respondents) must be a whole number"),
        (["privacy", "--n", "1e9", "--delta", "1e-6", "--eps-c", "1", "--tau", "5000"], "tau (report fragments) must"),
        (
            ["privacy", "--n", "9007199254740992", "--delta", "1e-6", "--eps-c", "1", "--tau", "1024"],
            "n (respondents) must be at most 2^50",
        ),
        (
            ["amplify", "--bound", "fmt21-numeric", "--eps-c", "1", "--n", "1e300", "--delta", "1e-8"],
            "n (respondents) must be at most 2^50",
        ),
        (
            ["amplify", "--bound", "cheu19", "--eps-c", "1", "--n", "1" * 400, "--delta", "1e-8"],
            "n (respondents) must be at most 2^50",
        ),
        (["privacy", "--n", "1" * 400, "--delta", "1e-6", "--eps-c", "1"], "(400 characters)"),
        (
            ["privacy", "--n", "1e9", "--delta", "1e-6", "--eps-c", "1", "--domain", "100000000"],
            "the domain size d must be at most 50,000,000",
        ),
        (["privacy", "--n", "1e9", "--delta", "nan", "--eps-c", "1"], "delta must lie strictly between 0 and 1"),
        (["run", "--dataset", "horse", "--eps-c", "1e400"], "eps_c must be a finite number > 0"),
        (["run", "--dataset", "horse", "--eps-c", "1", "--max-side", "0"], "max_side (pixels) must be a whole number"),
        (["nope"], "invalid choice: 'nope'"),
        (["run", "--eps-c", "1"], "one of the arguments --input --dataset is required"),
        (["privacy", "--delta", "1e-6", "--eps-c", "x"], "invalid float value: 'x'"),
    ],
)
@pytest.mark.slow
def test_bad_arguments_are_one_line(args, expected):
    status, out, err = cli(*args)
    assert_one_line(status, out, err, expected)
    assert len(err) < 400  # a 400-digit n is shortened


@pytest.mark.parametrize(
    "args",
    [
        ["privacy", "--n", "100000000000000000000", "--delta", "1e-6", "--eps-c", "1", "--accountant", "tight"],
        ["amplify", "--bound", "tight-binary-rr", *TIGHT_N, "--delta", "1e-8"],
    ],
)
@pytest.mark.slow
def test_tight_accountant_at_n_1e20_is_one_line(args):
    assert_one_line(*cli(*args))


@pytest.mark.slow
def test_output_folders_that_cannot_take_the_files(tmp_path):
    existing = tmp_path / "afile"
    existing.write_text("taken")
    run = ["run", "--dataset", "horse", "--max-side", "16", "--eps-c", "1", "--out"]
    for out, expected in [
        ("/dev/null/x", "cannot make the output folder /dev/null/x"),
        ("/proc/rel", "cannot make the output folder /proc/rel"),
        (existing, f"the output folder {existing} is a file"),
    ]:
        assert_one_line(*cli(*run, out), expected)
    assert existing.read_text() == "taken"


@pytest.mark.slow
def test_images_with_hostile_sizes_and_scales(tmp_path):
    big = tmp_path / "big.png"
    big.write_bytes(huge_png(7072, 7072, 255))  # 50.01 megapixels: too many, not "corrupt"
    white = tmp_path / "white.png"
    Image.new("L", (5, 1), 255).save(white)
    dot = tmp_path / "dot.png"
    Image.new("L", (1, 1), 255).save(dot)
    cases = [
        ([big], "big.png has too many pixels: 7072x7072 = 50,013,184 pixels"),
        ([white, "--scale", "1.5e16"], "white.png at scale 1.5e+16 holds n = "),
        ([dot, "--scale", "1e17"], "dot.png at scale 1e+17 puts 25,500,000,000,000,000,000 respondents on one pixel"),
    ]
    for args, expected in cases:
        status, out, err = cli(*RUN, *args)
        assert_one_line(status, out, err, expected)
        assert "corrupt" not in err and "black" not in err


@pytest.mark.slow
def test_an_image_above_the_pixel_limit_is_refused_from_its_header(tmp_path):
    path = tmp_path / "big.png"
    path.write_bytes(huge_png(7072, 7072, 255))  # 50 MB of pixels once decoded, 8 bytes each as counts
    status, err, peak = cli_measured(*RUN, path, limit_bytes=GB)
    assert status == 2 and "too many pixels" in err and len(err.strip().splitlines()) == 1
    assert peak < 200 * 2**20, peak  # never decoded


@pytest.mark.slow
def test_a_csv_beyond_the_row_limit_stops_at_the_limit(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_bytes(b"1\n" * 101_000_000)  # 192.6 MiB, 101 million rows
    status, err, peak = cli_measured(*RUN, path, limit_bytes=2 * GB)
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert f"has more than {MAX_CSV_ROWS:,} rows, the limit (row 20,000,001 is on line 20,000,001)" in err
    assert peak < GB, peak


@pytest.mark.slow
def test_a_ten_million_line_csv_runs_within_1_gb(tmp_path):
    counts = np.random.default_rng(0).integers(0, 1000, 10**7)
    path = tmp_path / "ten-million.csv"
    path.write_text("\n".join(map(str, counts.tolist())) + "\n")
    assert load_path(path).n == int(counts.sum())
    status, err, peak = cli_measured(*RUN, path, "--json", limit_bytes=3 * GB)
    assert status == 0, err
    assert peak < GB, peak


@pytest.mark.slow
def test_output_into_a_closed_pipe_is_one_line():
    proc = subprocess.Popen(
        [sys.executable, "-m", "ldpcore", "run", "--dataset", "horse", "--eps-c", "1", "--json"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # as `| head -c 0` would: the reader is gone before the record is printed
    err = proc.stderr.read().decode()
    assert proc.wait() == 2
    assert err.strip().splitlines() == ["error: the output was closed before it was complete (broken pipe)."], err


# --- the dashboard -----------------------------------------------------------------------------


def _upload(name: str, data: bytes):
    at = open_page("app_pages/reconstruct.py")
    at.selectbox(key="dataset").set_value("upload").run()
    at.file_uploader[0].set_value((name, data, "application/octet-stream"))
    return at.run()


@pytest.mark.app
@pytest.mark.parametrize(
    "name,data,message",
    [
        ("big.png", huge_png(7072, 7072, 255), "big.png has too many pixels: 7072x7072"),
        ("latin.csv", "caf\xe9,5\n".encode("latin-1"), "latin.csv is not a UTF-8 text file"),
        ("empty.csv", b"", "empty.csv is empty"),
        ("sum.csv", f"{2**62}\n{2**62}\n{2**62}\n{2**62}\n5\n".encode(), "the limit that keeps counts within int64"),
        ("three.csv", f"{2**62}\n{2**62}\n{2**62}\n".encode(), "the limit that keeps counts within int64"),
        ("max.csv", f"{2**63 - 1}\n".encode(), "count 9223372036854775807 is above 2^62"),
        ("e30.csv", b"1e30\n", "count 1e30 is above 2^62"),
        ("sep.csv", b"1_000\n5\n", "count '1_000' is not a number"),
        ("exact.csv", f"{2**53 + 1}\n1\n".encode(), "n (respondents) must be at most 2^50"),
    ],
)
def test_hostile_uploads_show_one_error_naming_the_file(name, data, message):
    at = _upload(name, data)
    assert_one_error(at, message)


@pytest.mark.app
def test_an_upload_in_the_limits_shows_its_exact_n():
    at = _upload("exact.csv", b"a,9007199254740\nb,3\n")  # n = 9,007,199,254,743 > 2^53 / 1000, read exactly
    assert not at.exception and not at.error
    assert "exact.csv: n = 9,007,199,254,743 respondents" in captions(at)


@pytest.mark.slow
def test_running_out_of_memory_is_one_line(tmp_path):
    path = tmp_path / "white.png"
    path.write_bytes(huge_png(7000, 7000, 255))  # 49 megapixels: about 400 MB of counts alone
    status, out, err = cli(*RUN, path, limit_bytes=GB)
    assert_one_line(status, out, err, "not enough memory for this input")


# --- issue 24: exports, points read as counts, image sizes, LaTeX from any file name ------------------------


@pytest.mark.slow
def test_the_estimate_csv_quotes_labels_and_makes_formulas_inert(tmp_path):
    """A label with a comma, a quote or a line break stays one cell; one a spreadsheet would run as a formula
    (= + - @ tab CR) is written with a leading apostrophe; a label that is a plain number is left as it is."""
    labels = ["a,b,c", 'say "hi"', "two\nlines", '=HYPERLINK("http://127.0.0.1:8729/x","x")', "+cmd|' /C calc'!A0",
              "@SUM(A1:A9)", "-2+3", "-5", "+1.5e3", "plain"]  # fmt: skip
    counts = csv_file(tmp_path, "labels.csv", "".join(f'"{v.replace(chr(34), 2 * chr(34))}",100000\n' for v in labels))
    status, _, err = cli("run", "--input", counts, "--eps-c", "1", "--delta", "1e-9", "--out", tmp_path / "o")
    assert status == 0, err
    with open(tmp_path / "o" / "estimate.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["value", "true", "estimate", "clipped", "std_error", "ci95_low", "ci95_high"]
    assert all(len(row) == 7 for row in rows) and [row[1] for row in rows[1:]] == ["100000"] * len(labels)
    assert [row[0] for row in rows[1:]] == ["a,b,c", 'say "hi"', "two\nlines", "'" + labels[3], "'" + labels[4],
                                            "'@SUM(A1:A9)", "'-2+3", "-5", "+1.5e3", "plain"]  # fmt: skip


def test_the_report_table_csv_makes_formulas_inert():
    from types import SimpleNamespace

    from ldpcore.export import table_csv
    from ldpcore.export.spreadsheet import inert

    assert [inert(c) for c in ("\tx", "\rx", "-inf", "-1e3", 7)] == ["'\tx", "'\rx", "'-inf", "-1e3", 7]

    cell = SimpleNamespace(eps_c=1.0, method="=1+1", privacy=None, metrics=None, error="@SUM(A1)")
    (row,) = list(csv.DictReader(io.StringIO(table_csv([cell]))))
    assert row["method"] == "'=1+1" and row["note"] == "'@SUM(A1)" and float(row["eps_c"]) == 1.0


@pytest.mark.slow
def test_a_points_file_without_point_options_is_one_clear_line(tmp_path):
    points = csv_file(tmp_path, "trips.csv", "lat,lon\n40.7,-74.0\n40.8,-73.9\n")
    expected = "trips.csv holds latitude/longitude points (columns 'lat' and 'lon'), not value,count rows"
    for command in ("run", "audit"):
        assert_one_line(*cli(command, "--input", points, "--eps-c", "1", "--delta", "1e-7"), expected)


@pytest.mark.slow
def test_the_same_column_as_latitude_and_longitude_is_refused():
    bundled = ROOT / "ldpcore" / "data" / "bundled" / "city_points.csv"
    args = ["run", "--input", bundled, "--lat", "latitude", "--lon", "latitude", "--eps-c", "1", "--delta", "1e-7"]
    assert_one_line(*cli(*args), "the latitude and longitude columns must differ (both are 'latitude')")


def test_an_image_far_above_the_pixel_limit_is_refused_with_its_true_size():
    """Pillow refuses images above twice its own limit (179 megapixels) before ours: the message still gives
    the image's size, not Pillow's limit."""
    from conftest import _chunk

    header = _chunk(b"IHDR", struct.pack(">IIBBBBB", 30_000, 30_000, 8, 0, 0, 0, 0))
    png = b"\x89PNG\r\n\x1a\n" + header + _chunk(b"IDAT", zlib.compress(b"")) + _chunk(b"IEND", b"")
    with pytest.raises(InputError, match="has too many pixels: 900,000,000 pixels = 900.0 megapixels; the limit"):
        load_image(png, name="big.png")


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (.ci/run installs it)")
@pytest.mark.parametrize(
    "name",
    ["two\n\nparagraphs.csv", "x" * 5000 + ".csv", "word " * 1000, "données_日本_😀.csv", "tab\tnul\x00esc\x1b.csv"],
    ids=["blank line", "5000 characters", "1000 words", "outside ASCII", "control characters"],
)
def test_the_latex_zip_compiles_whatever_the_data_is_called(tmp_path, name):
    from ldpcore.data.datasets import load_dataset
    from ldpcore.experiment.protocol.run import paper_methods, sweep
    from ldpcore.export import TableInfo, table_zip

    hist = load_dataset("horse", max_side=16)
    cells = sweep(paper_methods(ProtocolSpec(eps_c=1.0, delta=5e-8), taus=()), [1.0], hist, seed=0)
    zipfile.ZipFile(io.BytesIO(table_zip(cells, hist, TableInfo(name, hist.n, 5e-8, 0, "cheu19")))).extractall(tmp_path)
    out = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "main.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout[-2000:]
    caption = (tmp_path / "report_table.tex").read_text()
    assert caption.isascii() and "\n\n" not in caption and len(caption) < 3000


# --- issue 24 item 5: a file name is text, never Markdown -------------------------------------------------------

TRACKER = "http://127.0.0.1:8729/track.png"
MARKDOWN_NAME = f"![t]({TRACKER}) <img src={TRACKER}> :red[x] $x$ **bold**.csv"
DATA_PAGES = [p for p in ("reconstruct", "tradeoffs", "report_table", "plan", "adversary")]


def _markdown_bodies(at) -> list[str]:
    """The source of every element the browser renders as Markdown (widget labels and help aside)."""
    kinds = ("caption", "markdown", "error", "warning", "info", "success", "title", "header", "subheader")
    return [e.value for kind in kinds for e in getattr(at, kind)]


def _assert_named_as_text(at):
    bodies = _markdown_bodies(at)
    assert not at.exception, [e.value for e in at.exception]
    live = [re.sub(r"\\.", "", b) for b in bodies]  # what Markdown would interpret: the unescaped characters
    pieces = (f"]({TRACKER})", f"<img src={TRACKER}>", ":red[x]", "$x$", "**bold**")  # the name's Markdown and HTML
    assert not any(piece in b for piece in pieces for b in live), bodies
    assert any("\\!\\[t\\]\\(http\\://127\\.0\\.0\\.1\\:8729/track\\.png\\)" in b for b in bodies), bodies


@pytest.mark.slow
def test_an_uploads_name_is_shown_as_text_on_every_page_that_takes_data():
    at = _upload(MARKDOWN_NAME, b"value,count\na,500000\nb,700000\nc,300000\n")
    for page in DATA_PAGES:
        at.switch_page(f"app_pages/{page}.py").run()
        _assert_named_as_text(at)


@pytest.mark.slow
def test_a_records_uploads_name_and_an_error_naming_it_are_text():
    at = open_page("app_pages/reconstruct.py")
    at.selectbox(key="dataset").set_value("records").run()
    at.file_uploader(key="records_file").set_value((MARKDOWN_NAME, b"app\nx\ny\n", "text/csv")).run()
    _assert_named_as_text(at)  # the sidebar's report names the file
    at.file_uploader(key="records_file").set_value((MARKDOWN_NAME, b"", "text/csv")).run()
    assert len(at.error) == 1 and "is empty" in at.error[0].value
    _assert_named_as_text(at)  # the error names it too


@pytest.mark.slow
def test_a_nul_byte_in_an_uploads_name_is_one_clear_message():
    at = _upload("a\x00b.csv", b"value,count\na,5\n")
    assert_one_error(at, "The file's name holds a NUL byte")
    at = _upload("notes.docx", b"value,count\na,5\n")
    assert_one_error(at, "notes.docx is not one of the types this upload takes: png, jpg")


@pytest.mark.slow
def test_a_numeric_tables_name_is_text():
    at = open_page("app_pages/numeric.py")
    at.selectbox(key="num_data").set_value("upload").run()
    table = b"age,income\n" + b"".join(f"{20 + i % 50},{1000 + 37 * i % 900}\n".encode() for i in range(2000))
    at.file_uploader[0].set_value((MARKDOWN_NAME, table, "text/csv")).run()
    _assert_named_as_text(at)


@pytest.mark.slow
def test_every_uploader_states_the_upload_limit_and_what_to_do_above_it():
    """The browser refuses a file above server.maxUploadSize itself, marked by a red icon only (its text is for
    screen readers), and the page never gets it: each uploader's caption says what the mark means."""
    import tomllib

    limit = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"]
    said = f"Up to {limit} MB per file; a file marked in red is larger and was not uploaded: "
    upload = open_page("app_pages/reconstruct.py", dataset="upload")
    records = open_page("app_pages/reconstruct.py", dataset="records")
    table = open_page("app_pages/numeric.py", num_data="upload")
    for at, advice in [(upload, "downsample the image"), (records, "aggregate it with"), (table, "upload a sample")]:
        assert any(said + advice in c for c in captions(at).splitlines()), captions(at)


# --- issue 24 items 3, 7, 8: one respondent, huge epsilons and domains, output names --------------------------


@pytest.mark.slow
def test_a_plan_for_one_respondent_is_a_table_not_a_traceback(tmp_path):
    status, out, err = cli("plan", "--n", "1", "--d", "100", "--eps-c", "1")
    assert status == 0 and "recommended:" in out and "Traceback" not in err, err
    one = csv_file(tmp_path, "one.csv", "value,count\na,1\nb,0\n")
    status, out, err = cli("plan", "--input", one, "--eps-c", "1")
    assert status == 0 and "Traceback" not in err, err
    for query in ({"plan_source": "shape", "n": "1"},):
        at = open_page("app_pages/plan.py", **query)
        assert not at.exception, [e.value for e in at.exception]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["plan --n 1000 --d 100", "privacy --n 1000 --delta 1e-6", "run --dataset horse"])
@pytest.mark.parametrize("eps", ["710", "1e6"])
def test_an_eps_c_beyond_100_nats_is_one_line(command, eps):
    assert_one_line(*cli(*command.split(), "--eps-c", eps), "eps_c must be at most 100 nats")


@pytest.mark.slow
def test_run_out_names_that_cannot_be_a_folder_are_one_line(tmp_path):
    run = ["run", "--dataset", "horse", "--max-side", "8", "--eps-c", "1", "--out"]
    assert_one_line(*cli(*run, tmp_path / ("x" * 300)), "characters) (File name too long)")
    assert_one_line(*cli(*run, ""), "the output folder is empty")
    assert_one_line(*cli("histogram", "--input", ROOT / "ldpcore/data/bundled/app_events.csv", "--column",
                         "app_category", "--out", ""), "--out is empty")  # fmt: skip
    assert not any(ROOT.glob("*.png")) and not (ROOT / "run.json").exists()


@pytest.mark.slow
def test_an_audit_over_the_bin_limit_is_refused_before_the_histogram():
    """d = 10^9 bins would be 8 GB of counts: the 50,000,000 limit is checked first, within 1 GiB, and the
    message does not suggest --max-side (there is no image)."""
    status, err, peak = cli_measured("audit", "--n", "1000", "--d", "1e9", "--eps-c", "1", "--delta", "1e-6",
                                     limit_bytes=GB)  # fmt: skip
    assert status == 2 and len(err.strip().splitlines()) == 1 and "50,000,000" in err and "max-side" not in err
    assert peak < 400 * 2**20, peak


def test_one_respondent_is_singular():
    from types import SimpleNamespace

    from ldpcore.oracles.limits import check_reference

    with pytest.raises(InputError, match="cells of memory for 1 respondent; the limit"):
        check_reference(SimpleNamespace(reference_cells=lambda n: 10**12), 1)
    with pytest.raises(InputError, match="for 2 respondents; the limit"):
        check_reference(SimpleNamespace(reference_cells=lambda n: 10**12), 2)
