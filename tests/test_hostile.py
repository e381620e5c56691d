"""Hostile input and heavy load (issue 11): every case gives the right result or exactly one clear message.

Command line: status 2, nothing on stdout, one line on stderr naming the problem, no traceback; where
memory matters the command runs under an address-space limit (RLIMIT_AS) and reports its peak resident
memory (conftest.cli_measured). Library: exact counts and the stated limits. Dashboard (AppTest): one
st.error naming the problem, never an exception.
"""

import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_one_error, captions, cli_measured, huge_png, open_page
from PIL import Image

from ldpcore.data.histogram_csv import MAX_CSV_ROWS, load_csv
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
def test_tight_accountant_at_n_1e20_is_one_line(args):
    assert_one_line(*cli(*args))


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


def test_an_image_above_the_pixel_limit_is_refused_from_its_header(tmp_path):
    path = tmp_path / "big.png"
    path.write_bytes(huge_png(7072, 7072, 255))  # 50 MB of pixels once decoded, 8 bytes each as counts
    status, err, peak = cli_measured(*RUN, path, limit_bytes=GB)
    assert status == 2 and "too many pixels" in err and len(err.strip().splitlines()) == 1
    assert peak < 200 * 2**20, peak  # never decoded


def test_a_csv_beyond_the_row_limit_stops_at_the_limit(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_bytes(b"1\n" * 101_000_000)  # 192.6 MiB, 101 million rows
    status, err, peak = cli_measured(*RUN, path, limit_bytes=2 * GB)
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert f"has more than {MAX_CSV_ROWS:,} rows, the limit (row 20,000,001 is on line 20,000,001)" in err
    assert peak < GB, peak


def test_a_ten_million_line_csv_runs_within_1_gb(tmp_path):
    counts = np.random.default_rng(0).integers(0, 1000, 10**7)
    path = tmp_path / "ten-million.csv"
    path.write_text("\n".join(map(str, counts.tolist())) + "\n")
    assert load_path(path).n == int(counts.sum())
    status, err, peak = cli_measured(*RUN, path, "--json", limit_bytes=3 * GB)
    assert status == 0, err
    assert peak < GB, peak


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


def test_running_out_of_memory_is_one_line(tmp_path):
    path = tmp_path / "white.png"
    path.write_bytes(huge_png(7000, 7000, 255))  # 49 megapixels: about 400 MB of counts alone
    status, out, err = cli(*RUN, path, limit_bytes=GB)
    assert_one_line(status, out, err, "not enough memory for this input")
