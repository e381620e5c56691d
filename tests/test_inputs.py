"""Bad input gets one clear InputError naming the problem; good input loads exactly."""

import re

import numpy as np
import pytest
from conftest import huge_png
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from ldpcore.data.datasets import DATASETS, load_dataset, synthetic_heavy_hitters
from ldpcore.data.histogram_csv import load_csv
from ldpcore.data.images import load_image
from ldpcore.data.loaders import load_path, load_upload
from ldpcore.errors import InputError
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan
from ldpcore.export import png_bytes


def test_image_counts_are_luminance_times_scale(small_png):
    h = load_image(small_png)
    assert h.shape == (4, 6) and h.d == 24 and h.n == sum(range(24)) * 10
    h2 = load_image(small_png, scale=2.5)
    assert h2.n == int(np.rint(np.arange(24) * 25.0).sum()) and h2.peak == 255 * 2.5


def test_downsampling_keeps_mean_luminance(tmp_path):
    arr = np.full((100, 200), 80, dtype=np.uint8)
    path = tmp_path / "flat.png"
    Image.fromarray(arr).save(path)
    h = load_image(path, max_side=50)
    assert h.shape == (25, 50) and np.all(h.counts == 80)
    assert "downsampled from 200x100 to 50x25" in h.notes[0]


def test_rgb_and_transparency(tmp_path):
    rgba = np.zeros((2, 2, 4), dtype=np.uint8)
    rgba[0, 0] = (255, 255, 255, 255)
    rgba[0, 1] = (255, 255, 255, 0)  # fully transparent: nobody there
    path = tmp_path / "rgba.png"
    Image.fromarray(rgba, mode="RGBA").save(path)
    h = load_image(path)
    assert list(h.counts) == [255, 0, 0, 0]


def test_bundled_datasets_load():
    for name in ("horse", "child", "map"):
        h = load_dataset(name)
        assert h.is_image and h.n > 0
    assert load_dataset("horse").shape == (274, 320)
    assert load_dataset("child").counts.min() >= 1  # dense: no black pixels
    assert load_dataset("map").d == 2_795_520
    assert set(DATASETS) == {"horse", "child", "map", "heavy-hitters"}


def test_heavy_hitters_generator_is_seeded_and_sized():
    a = synthetic_heavy_hitters(np.random.default_rng(3), d=10_000, n=1_000_000)
    b = synthetic_heavy_hitters(np.random.default_rng(3), d=10_000, n=1_000_000)
    assert np.array_equal(a.counts, b.counts) and a.n == 1_000_000 and a.d == 10_000
    head = a.counts[:100].sum() / a.n
    assert 0.38 < head < 0.42  # about 100 heavy hitters carry 40% of the reports


def test_csv_formats():
    assert list(load_csv(b"3\n0\n5\n").counts) == [3, 0, 5]
    h = load_csv(b"value,count\napple,4\npear,1\n# comment\n\nfig,0\n")
    assert list(h.counts) == [4, 1, 0] and h.labels == ("apple", "pear", "fig")
    assert h.labels[1:] == ["pear", "fig"] and h.labels[-1] == "fig" and len(h.labels) == 3
    assert list(load_csv(b"a,2\nb,3\n").counts) == [2, 3]


def test_csv_or_image_by_file_name(small_png):
    assert list(load_upload(b"3\n0\n5\n", "h.TXT").counts) == [3, 0, 5]
    assert load_upload(small_png.read_bytes(), "small.png", scale=2.0).n == 2 * load_image(small_png).n
    assert load_path(small_png).n == load_image(small_png).n


BAD_CSV = {
    b"3\n-1\n": "line 2: count -1 is negative",
    b"3\nnan\n": "line 2: count 'nan' is not a finite number",
    b"3\nthree\n": "line 2: count 'three' is not a number",
    b"value,count\na,1\nb,x\n": "line 3: count 'x' is not a number",
    b"1.5\n": "not a whole number",
    b"0\n0\n": "no respondents",
    b"a,1\na,2\n": "value 'a' already appeared on line 1",
    b"1,2,3\n": "expected 1 column (count) or 2 (value,count), found 3",
    b"": "is empty",
}


@pytest.mark.parametrize("data,message", BAD_CSV.items(), ids=[m[:20] for m in BAD_CSV.values()])
def test_bad_csv(data, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_csv(data, name="h.csv")


def test_not_an_image():
    with pytest.raises(InputError, match="is not an image"):
        load_image(b"hello, this is text", name="notes.png")


def test_truncated_png(small_png):
    data = small_png.read_bytes()
    big = png_bytes(Image.fromarray(np.random.default_rng(0).integers(0, 255, (200, 200), dtype=np.uint8)))
    with pytest.raises(InputError, match="truncated or corrupt"):
        load_image(big[: len(big) // 2], name="cut.png")
    assert load_image(data).n > 0


def test_decompression_bomb_is_refused_before_decoding():
    data = huge_png(10_000, 10_000)  # 100 megapixels, ~100 kB compressed
    assert len(data) < 1_000_000
    with pytest.raises(InputError, match="100.0 megapixels; the limit is 50 megapixels"):
        load_image(data, name="bomb.png")
    with pytest.raises(InputError, match="200,000,000 pixels = 200.0 megapixels; the limit is 50 megapixels"):
        load_image(huge_png(20_000, 10_000), name="bigger.png")


def test_all_black_image(tmp_path):
    path = tmp_path / "black.png"
    Image.new("L", (10, 10), 0).save(path)
    with pytest.raises(InputError, match="no respondents: every pixel is black"):
        load_image(path)


@pytest.mark.parametrize(
    "kw,message",
    [
        (dict(eps_c=0.0), "eps_c must be a finite number > 0"),
        (dict(eps_c=-1.0), "eps_c must be a finite number > 0"),
        (dict(eps_c=1.0, delta=0.0), "delta must lie strictly between 0 and 1"),
        (dict(eps_c=1.0, delta=1.0), "delta must lie strictly between 0 and 1"),
        (dict(eps_c=1.0, tau=0), "tau"),
        (dict(eps_c=1.0, accountant="nope"), "unknown accountant"),
    ],
)
def test_bad_parameters(kw, message):
    with pytest.raises(InputError, match=message):
        ProtocolSpec(**kw)


def test_too_few_respondents_for_the_accountant():
    with pytest.raises(InputError, match="too few respondents for amplification"):
        plan(ProtocolSpec(eps_c=1.0, delta=5e-8), n=200, d=10)
    trivial = plan(ProtocolSpec(eps_c=1e-5, delta=5e-8), n=1_914_589, d=10)  # below what Lemma II.6 certifies
    assert trivial.eps_b == 1e-5 and "trivial bound" in trivial.notes[0] and "alone cannot certify" in trivial.notes[0]


def test_paper_rule_undefined_says_what_to_do():
    with pytest.raises(InputError, match="use the equal-variance rule"):
        plan(ProtocolSpec(eps_c=0.05, delta=5e-8, tau=256), n=1_914_589, d=10)


# --- the vectorised CSV reader agrees with the csv module ------------------------------------


def _outcome(data: bytes):
    try:
        h = load_csv(data, name="h.csv")
        return list(h.counts), None if h.labels is None else list(h.labels)
    except InputError as exc:
        return "refused: " + re.sub(r"line \d+", "line N", str(exc))  # line numbers differ by the added line


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.from_regex(r"[ ]?[0-9]{1,20}[ ]?", fullmatch=True),
            st.from_regex(r"[a-z ]{0,4},[ ]?[0-9]{1,4}(\.0|e1)?", fullmatch=True),
            st.sampled_from(["", "# note", "value,count", " ", "1_0", "-3", "x", "nan", "1.5", "a,b,c", "é,4"]),
        ),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from(["\n", "\r\n"]),
)
def test_fast_csv_reader_matches_the_csv_module(lines, newline):
    """A block with a quote goes through the csv module row by row: the same file with a quote in an
    extra comment line must give the same counts and names, or a refusal of the same file."""
    text = newline.join(lines) + newline
    fast = _outcome(text.encode())
    slow = _outcome(('# "' + newline + text).encode())
    assert fast == slow, (text, fast, slow)


def test_csv_blocks_join_across_their_boundaries(monkeypatch):
    import ldpcore.data.sources as sources

    monkeypatch.setattr(sources, "BLOCK_BYTES", 7)  # lines cut across many blocks
    h = load_csv(b"value,count\n" + b"".join(b"name%d,%d\n" % (i, i * 37) for i in range(500)), name="h.csv")
    assert list(h.counts) == [i * 37 for i in range(500)] and h.labels[499] == "name499"
    with pytest.raises(InputError, match="line 294: value 'name0' already appeared on line 2"):
        load_csv(b"value,count\n" + b"".join(b"name%d,1\n" % (i % 292) for i in range(400)), name="h.csv")
