"""Generate the synthetic stand-in images used by ldpcore.

The paper "Encode, Shuffle, Analyze Privacy Revisited" (Erlingsson et al.
2020) evaluates on three images (Horse, Child, Map) that are not available.
This script draws original look-alikes with the same dimensions and roughly
the same total luminance, i.e. the same number of respondents, since each
pixel's luminance is the count of respondents holding that pixel value.

Run ``python assets/make_assets.py``; it writes horse.png, child.png and
map.png into the package's bundled data (ldpcore/data/bundled/) and prints their
statistics. Output is deterministic.
"""

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

SEED = 20200
OUT_DIR = Path(__file__).resolve().parent.parent / "ldpcore" / "data" / "bundled"

HORSE_SUM = 1_914_589
CHILD_SUM = 50_409_435
MAP_RESPONDENTS = 236_559_063
MAP_FACTOR = 2.5  # the paper counts luminance x 2.5 respondents per map pixel


def blur(a, sigma):
    """Gaussian-blur a float array (edges reflected) via the FFT."""
    pad = int(3 * sigma) + 1
    p = np.pad(a.astype(np.float64), pad, mode="reflect")
    fy = np.fft.fftfreq(p.shape[0])[:, None]
    fx = np.fft.rfftfreq(p.shape[1])[None, :]
    kernel = np.exp(-2 * (np.pi * sigma) ** 2 * (fx**2 + fy**2))
    out = np.fft.irfft2(np.fft.rfft2(p) * kernel, s=p.shape)
    return out[pad:-pad, pad:-pad]


def mask(size, draw_fn, scale=2):
    """Render shapes with ``draw_fn(draw, s)`` into a 0..1 float mask.

    Drawing happens at ``scale`` times the size and is box-downsampled,
    which antialiases the edges; ``s`` converts image to canvas coordinates.
    """
    w, h = size
    canvas = Image.new("L", (w * scale, h * scale), 0)
    draw_fn(ImageDraw.Draw(canvas), scale)
    canvas = canvas.resize(size, Image.Resampling.BOX)
    return np.asarray(canvas, dtype=np.float64) / 255.0


def bisect(f, target, lo, hi, steps=60):
    """Find x in [lo, hi] where the increasing function f(x) meets target."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        if f(mid) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def to_uint8(a):
    """Round and clip a float array to 8-bit luminance."""
    return np.clip(np.rint(a), 0, 255).astype(np.uint8)


def scale_to_sum(a, target):
    """Multiply a non-negative image so its clipped 8-bit sum hits target."""
    gain = bisect(lambda g: int(to_uint8(a * g).sum(dtype=np.int64)), target, 0.0, 1e4)
    return to_uint8(a * gain)


def spline(points, n=12):
    """Smooth a polyline with a Catmull-Rom spline through its points."""
    p = np.asarray(points, dtype=np.float64)
    p = np.vstack([p[0], p, p[-1]])
    t = np.linspace(0, 1, n, endpoint=False)[:, None]
    out = []
    for i in range(1, len(p) - 2):
        p0, p1, p2, p3 = p[i - 1], p[i], p[i + 1], p[i + 2]
        out.append(
            0.5 * (2 * p1 + (p2 - p0) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t**2 + (3 * p1 - p0 - 3 * p2 + p3) * t**3)
        )
    out.append(p[-2][None, :])
    return np.vstack(out)


# --------------------------------------------------------------------- horse

# Strokes of a horse standing side-on, facing right, in 320x274 coordinates.
HORSE_STROKES = {
    # Outer silhouette: back, neck, head, throat, chest, near fore leg,
    # belly, near hind leg, buttock.
    "outline": [
        (86, 104),
        (104, 93),
        (132, 99),
        (166, 100),
        (194, 88),
        (214, 70),
        (230, 52),
        (242, 38),
        (252, 40),
        (264, 48),
        (279, 66),
        (290, 86),
        (293, 96),
        (287, 102),
        (276, 101),
        (262, 90),
        (248, 80),
        (236, 96),
        (226, 124),
        (217, 148),
        (218, 176),
        (221, 200),
        (220, 236),
        (223, 254),
        (229, 259),
        (211, 259),
        (211, 238),
        (209, 206),
        (203, 180),
        (197, 164),
        (176, 174),
        (148, 176),
        (125, 167),
        (121, 190),
        (116, 212),
        (117, 238),
        (119, 254),
        (125, 259),
        (106, 259),
        (105, 240),
        (103, 218),
        (96, 206),
        (91, 182),
        (84, 150),
        (82, 122),
        (86, 104),
    ],
    "far_fore_leg": [
        (203, 168),
        (196, 192),
        (192, 212),
        (190, 236),
        (189, 252),
        (194, 258),
        (178, 258),
        (179, 238),
        (181, 212),
        (186, 190),
    ],
    "far_hind_leg": [
        (130, 168),
        (136, 192),
        (140, 212),
        (144, 236),
        (147, 252),
        (152, 258),
        (136, 258),
        (134, 238),
        (130, 216),
        (124, 200),
    ],
    "ear_near": [(243, 40), (244, 22), (249, 15), (253, 30), (252, 40)],
    "ear_far": [(238, 42), (235, 26), (239, 20), (244, 32)],
    "jaw": [(262, 90), (255, 76), (258, 64), (268, 62)],
    "nostril": [(284, 86), (288, 84), (290, 90)],
    "mouth": [(284, 99), (289, 96)],
    "shoulder": [(200, 98), (208, 120), (212, 146)],
    "elbow": [(196, 150), (205, 160)],
    "hip": [(104, 100), (120, 112), (124, 138), (122, 160)],
    "near_knee": [(212, 200), (219, 204)],
    "near_hock": [(101, 210), (110, 216)],
    "fetlock_fore": [(211, 240), (221, 242)],
    "fetlock_hind": [(105, 242), (118, 244)],
    "tail_1": [(86, 104), (72, 116), (62, 142), (58, 172), (62, 200)],
    "tail_2": [(84, 108), (74, 128), (70, 158), (72, 188), (78, 206)],
    "tail_3": [(85, 106), (66, 124), (52, 150), (48, 178), (52, 196)],
    "mane_1": [(243, 36), (228, 48), (214, 62), (200, 76), (190, 88)],
    "mane_2": [(240, 42), (224, 58), (210, 72), (198, 86)],
    "mane_3": [(246, 34), (232, 44), (220, 52), (206, 66), (196, 78)],
    "forelock": [(248, 38), (256, 44), (258, 52)],
    "ground": [(84, 262), (120, 261), (160, 263), (200, 261), (240, 262)],
}
# Strokes drawn thinner, and those drawn dimmer because they lie behind.
HORSE_THIN = {"ground", "nostril", "mouth", "far_fore_leg", "far_hind_leg"}
HORSE_FAR = {"far_fore_leg", "far_hind_leg"}


def make_horse(rng):
    """Sparse white pencil-style sketch of a horse on a black background."""
    size = (320, 274)
    s = 4  # drawn at 4x, then downsampled with LANCZOS for smooth strokes
    canvas = Image.new("L", (size[0] * s, size[1] * s), 0)
    draw = ImageDraw.Draw(canvas)
    for name, pts in HORSE_STROKES.items():
        width = (2 if name in HORSE_THIN else 3.5) * s
        fill = 150 if name in HORSE_FAR else 255
        # Each stroke is drawn twice with a little jitter, like a sketch.
        for _ in range(2):
            jitter = rng.normal(0, 0.6, size=(len(pts), 2))
            curve = spline(np.asarray(pts) + jitter) * s
            draw.line([tuple(p) for p in curve], fill=fill, width=int(width), joint="curve")
    cx, cy = 262 * s, 57 * s  # eye
    draw.ellipse([cx - 4 * s, cy - 3 * s, cx + 4 * s, cy + 3 * s], fill=255)
    sketch = np.asarray(canvas.resize(size, Image.Resampling.LANCZOS), dtype=np.float64)
    return scale_to_sum(sketch, HORSE_SUM)


# --------------------------------------------------------------------- child


def make_child(rng):
    """Dense, softly shaded head-and-shoulders portrait of a child."""
    w, h = 497, 721
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)

    def shape(draw_fn, sigma):
        """A soft mask of shapes drawn at 2x, blurred by sigma pixels."""
        return blur(mask((w, h), draw_fn), sigma)

    def ell(cx, cy, rx, ry, sigma):
        """Soft filled ellipse."""
        return shape(
            lambda d, s: d.ellipse([(cx - rx) * s, (cy - ry) * s, (cx + rx) * s, (cy + ry) * s], fill=255), sigma
        )

    def poly(points, sigma):
        """Soft filled shape whose outline is a spline through points."""
        return shape(lambda d, s: d.polygon([tuple(p) for p in spline(points, 8) * s], fill=255), sigma)

    def stroke(points, width, sigma):
        """Soft spline stroke of the given width."""
        return shape(
            lambda d, s: d.line(
                [tuple(p) for p in spline(points, 8) * s], fill=255, width=int(width * s), joint="curve"
            ),
            sigma,
        )

    def paint(img, m, value):
        """Lay value over img with opacity m."""
        return img * (1 - m) + value * m

    cx, cy, rx, ry = 248, 330, 134, 165  # face oval

    # Studio backdrop: lit from the upper left, the head casting a soft shadow.
    img = 150 - 0.05 * yy - 0.06 * xx
    mottle = blur(rng.normal(0, 1, (h, w)), 30)
    img += 5 * mottle / mottle.std()
    img -= 28 * ell(cx + 45, cy + 40, 160, 210, 35)

    # T-shirt over the shoulders, with a crew-neck band and a few folds.
    # Neck, in the chin's shadow.
    neck = poly([(192, 420), (196, 515), (186, 560), (248, 590), (310, 560), (300, 515), (304, 420)], 2)
    img = paint(img, neck, 178 - 0.35 * (xx - 190))
    img -= 60 * ell(cx, 492, 85, 34, 14) * neck

    # T-shirt over the shoulders, with a crew-neck band and a few folds.
    neckline = [(186, 540), (204, 564), (248, 576), (292, 564), (310, 540)]
    shirt = poly(
        [(-5, 730), (-5, 640), (40, 598), (130, 565), (186, 540)]
        + neckline[1:]
        + [(366, 565), (457, 598), (502, 640), (502, 730)],
        1.5,
    )
    img = paint(img, shirt, 200 - 0.08 * xx + 12 * np.exp(-(((xx - 120) / 90) ** 2)))
    for fold in (
        [(110, 600), (130, 660), (125, 721)],
        [(380, 610), (365, 670), (372, 721)],
        [(210, 640), (230, 690), (222, 721)],
    ):
        img -= 22 * stroke(fold, 6, 6) * shirt
    img = paint(img, stroke(neckline, 9, 1.2), 165)
    img -= 20 * stroke([(p[0], p[1] + 8) for p in neckline], 5, 3) * shirt

    # Ears, with a darker inner bowl.
    for ex in (cx - rx + 2, cx + rx - 2):
        img = paint(img, ell(ex, 350, 22, 38, 1.5), 172 if ex < cx else 150)
        img -= 35 * ell(ex, 352, 9, 22, 4)

    # Face: round, shaded like a sphere lit from the upper left.
    t = np.linspace(0, 2 * np.pi, 120, endpoint=False)
    taper = 1 - 0.16 * np.clip(np.sin(t), 0, 1) ** 2  # narrower toward the chin
    face = shape(
        lambda d, s: d.polygon(
            [((cx + rx * np.cos(a) * k) * s, (cy + ry * np.sin(a)) * s) for a, k in zip(t, taper)], fill=255
        ),
        1.5,
    )
    r2 = ((xx - cx + 35) / rx) ** 2 + ((yy - cy + 45) / ry) ** 2
    modelled = 200 - 75 * r2**1.3 - 25 * np.clip((xx - cx) / rx, 0, 1)
    img = paint(img, face, np.clip(modelled, 105, 225))
    for side in (-1, 1):
        img -= 9 * ell(cx + side * 70, 395, 34, 24, 12) * face  # cheeks

    # Eyes: socket, almond-shaped white, iris and pupil under the lid,
    # catch-light, lid line, crease and brow.
    for ex in (cx - 52, cx + 52):
        img -= 22 * ell(ex, 314, 42, 25, 10)
        almond = [
            (ex - 26, 323),
            (ex - 12, 312),
            (ex + 8, 311),
            (ex + 25, 320),
            (ex + 10, 331),
            (ex - 10, 331),
            (ex - 26, 323),
        ]
        white = poly(almond, 0.8)
        img = paint(img, white, 212)
        img = paint(img, ell(ex, 320, 12.5, 12.5, 0.8) * white, 70)
        img += 22 * ell(ex + 2, 325, 7, 5, 3) * white  # lighter lower iris
        img = paint(img, ell(ex, 320, 5.5, 5.5, 0.7) * white, 18)
        img = paint(img, ell(ex - 4, 316, 2.6, 2.6, 0.6), 248)
        img = paint(img, stroke(almond[:4], 3.5, 0.9), 35)
        img -= 20 * stroke([(ex - 22, 312), (ex - 5, 302), (ex + 20, 306)], 3, 2.5)
        img -= 12 * stroke(almond[4:], 2, 1.5)
        img = paint(img, stroke([(ex - 32, 290), (ex - 10, 280), (ex + 14, 280), (ex + 30, 288)], 8, 2.5), 105)

    # Nose: shaded right flank, nostrils, under-nose shadow, lit tip.
    img -= 26 * stroke([(cx + 14, 330), (cx + 18, 370), (cx + 20, 398)], 10, 6)
    img -= 18 * stroke([(cx - 22, 402), (cx - 16, 412)], 4, 3)
    img -= 22 * stroke([(cx + 22, 402), (cx + 16, 412)], 4, 3)
    for nx in (cx - 11, cx + 11):
        img = paint(img, ell(nx, 409, 6.5, 3.5, 1.4), 95)
    img -= 14 * stroke([(cx - 20, 404), (cx - 8, 416), (cx + 8, 416), (cx + 20, 404)], 3, 2)
    img -= 16 * ell(cx + 4, 420, 24, 6, 4)
    img += 16 * ell(cx - 3, 397, 10, 9, 5)

    # Mouth: upper lip, fuller lower lip with a highlight, a smiling line.
    img = paint(
        img, poly([(214, 448), (232, 441), (248, 445), (264, 441), (282, 448), (248, 452), (214, 448)], 1.2), 120
    )
    img = paint(img, ell(cx, 458, 27, 9, 2), 138)
    img += 15 * ell(cx - 4, 456, 10, 3, 2)
    img = paint(img, stroke([(211, 445), (230, 451), (248, 452), (266, 451), (285, 445)], 2.6, 0.9), 70)
    img -= 18 * ell(cx, 474, 20, 6, 4)

    # Hair: a dark cap with bangs, combed strands fanning out from above the
    # crown, and a sheen where the light catches it.
    hair = poly(
        [
            (116, 360),
            (110, 280),
            (126, 205),
            (178, 150),
            (248, 130),
            (318, 150),
            (370, 205),
            (386, 280),
            (380, 360),
            (368, 300),
            (352, 264),
            (322, 258),
            (292, 246),
            (264, 258),
            (236, 246),
            (206, 256),
            (176, 250),
            (150, 262),
            (130, 300),
        ],
        2.5,
    )
    angle = np.arctan2(yy - 40, xx - 240)
    radius = np.hypot(yy - 40, xx - 240)
    wisps = blur(rng.normal(0, 1, (1, 900)), 0.8)[0]
    wisps /= wisps.std()
    strand_idx = ((angle + np.pi) / (2 * np.pi) * 899 + radius / 12).astype(int) % 900
    strands = blur(wisps[strand_idx], 0.7)
    sheen = np.exp(-(((radius - 150) / 22) ** 2)) * np.clip(1 - (xx - 180) / 160, 0, 1)
    hair_tone = 45 + 14 * strands + 55 * sheen - 20 * np.clip((xx - 300) / 80, 0, 1)
    img -= (
        25 * poly([(140, 270), (200, 250), (248, 245), (300, 250), (360, 270), (248, 262)], 10) * face
    )  # shadow below the bangs
    img = paint(img, hair, np.clip(hair_tone, 18, 140))

    # Photographic grain, then a gamma curve meeting the target luminance.
    lo = 12.0
    img = np.clip(img + rng.normal(0, 3.0, (h, w)), lo, 250)

    def tone(brightness):
        return to_uint8(lo + (255 - lo) * ((img - lo) / (255 - lo)) ** (1 / brightness))

    b = bisect(lambda b: int(tone(b).sum(dtype=np.int64)), CHILD_SUM, 0.2, 5.0)
    return tone(b)


# ----------------------------------------------------------------------- map


def make_map(rng):
    """Night-time city lights: power-law city clusters, roads, black sea."""
    w, h = 2048, 1365
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)

    def fractal(scales, weights):
        """Sum of blurred white-noise octaves, each normalised to unit spread."""
        total = np.zeros((h, w))
        for s, wt in zip(scales, weights):
            octave = blur(rng.normal(0, 1, (h, w)), s)
            total += wt * octave / octave.std()
        return total

    # Land and sea: fractal relief tilted so the sea lies to the south-east.
    relief = fractal((220, 90, 35, 12, 4), (1, 0.5, 0.25, 0.12, 0.05))
    relief += 3.0 * (1 - 0.9 * xx / w - 1.1 * yy / h)
    land = relief > np.quantile(relief, 0.38)
    landf = land.astype(np.float64)

    # Where people live: a lumpy field, denser near the coast.
    near_coast = land * (1 - blur(landf, 30))
    habitable = landf * np.exp(0.9 * fractal((120, 40), (1, 0.5))) * (0.4 + 3 * near_coast)
    prob = (habitable / habitable.sum()).ravel()

    def sample(n):
        flat = rng.choice(w * h, size=n, p=prob)
        return np.column_stack([flat % w, flat // w]) + rng.uniform(0, 1, (n, 2))

    # Cities with Pareto (power-law) populations; big ones get satellites.
    centres = sample(3000)
    pop = np.minimum(1000 * (rng.pareto(1.0, len(centres)) + 1), 3e6)
    big = pop > 40_000
    n_sat = (pop[big] / 15_000).astype(int)
    sat_parent = np.repeat(np.flatnonzero(big), n_sat)
    sat_centres = centres[sat_parent] + rng.normal(0, 1, (len(sat_parent), 2)) * (0.1 * pop[sat_parent, None] ** 0.43)
    sat_pop = pop[sat_parent] / 25 * rng.uniform(0.3, 1.5, len(sat_parent))
    centres = np.vstack([centres, sat_centres])
    pop = np.concatenate([pop, sat_pop])

    # Each city is a cloud of individual lights, sized by population.
    counts = np.maximum((pop / 40).astype(int), 4)
    spread = 0.08 * pop**0.43
    idx = np.repeat(np.arange(len(centres)), counts)
    radius = spread[idx, None] * rng.gamma(4.0, 0.25, (len(idx), 1))
    city_pts = centres[idx] + rng.standard_normal((len(idx), 2)) * radius

    # Roads: the larger cities link to their nearest neighbours; dim lights
    # are strung along each road.
    order = np.argsort(pop[:3000])[::-1][:300]
    hubs = centres[order]
    dist = np.hypot(*(hubs[:, None, :] - hubs[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(dist, np.inf)
    roads = sorted(
        {(min(i, j), max(i, j)) for i in range(len(hubs)) for j in np.argsort(dist[i])[:3] if dist[i, j] < 350}
    )
    road_pts = []
    for i, j in roads:
        t = rng.uniform(0, 1, int(dist[i, j] / 1.5))[:, None]
        bend = np.sin(np.pi * t) * rng.normal(0, 0.08) * (hubs[j] - hubs[i])[::-1] * (1, -1)
        road_pts.append(hubs[i] + t * (hubs[j] - hubs[i]) + bend + rng.normal(0, 0.7, (len(t), 2)))
    road_pts = np.vstack(road_pts)

    # Isolated village lights scattered over the countryside.
    rural_pts = sample(25_000)

    pts = np.vstack([city_pts, road_pts, rural_pts])
    weights = np.concatenate([np.ones(len(city_pts)), np.full(len(road_pts), 0.6), np.full(len(rural_pts), 0.5)])
    x = np.clip(pts[:, 0].astype(int), 0, w - 1)
    y = np.clip(pts[:, 1].astype(int), 0, h - 1)
    count = np.bincount(y * w + x, weights, minlength=w * h).reshape(h, w)
    density = np.clip((blur(count, 0.9) + 0.05 * blur(count, 6)) * blur(landf, 1), 0, None)

    def tone(k):
        return to_uint8(255 * (1 - np.exp(-k * density**0.7)))

    target = MAP_RESPONDENTS / MAP_FACTOR
    k = bisect(lambda k: int(tone(k).sum(dtype=np.int64)), target, 0.0, 100.0)
    return tone(k)


# ---------------------------------------------------------------------- main


def report(name, arr, factor=1.0):
    """Print the statistics of one generated image."""
    total = int(arr.sum(dtype=np.int64))
    line = (
        f"{name}: {arr.shape[1]}x{arr.shape[0]} (w x h), pixels={arr.size:,}, "
        f"sum={total:,}, min={arr.min()}, max={arr.max()}, "
        f"zero_fraction={np.mean(arr == 0):.4f}"
    )
    if factor != 1.0:
        line += f", respondents(sum x {factor})={round(total * factor):,}"
    print(line)


def main():
    """Generate, save and describe the three images."""
    for name, make, factor in (
        ("horse.png", make_horse, 1.0),
        ("child.png", make_child, 1.0),
        ("map.png", make_map, MAP_FACTOR),
    ):
        arr = make(np.random.default_rng(SEED))
        Image.fromarray(arr).save(OUT_DIR / name, optimize=True)
        report(name, arr, factor)


if __name__ == "__main__":
    main()
