"""Generate the bundled raw-records samples read by ldpcore.data.ingest.

app_events.csv: app-category events of users over one week (user_id, app_category,
event_time), one row per event. Each user has a favourite category drawn from a Zipf-like
popularity and spends most events there, the rest spread by popularity; the number of events
per user is geometric. A few rows have an empty category, as real logs do, so the report of
what was left out shows something.

city_points.csv: synthetic location points (latitude, longitude) over a fictional city: a
dense centre, neighbourhood centres whose sizes follow a power law, and points strewn along
straight roads between them. The coordinates only place it on the globe; it describes no
real city.

Run ``python assets/make_samples.py``; it writes both files into the package's bundled data
(ldpcore/data/bundled/) and prints their statistics. Output is deterministic (numpy's default_rng with SEED).
"""

import csv
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

SEED = 20240516
OUT_DIR = Path(__file__).resolve().parent.parent / "ldpcore" / "data" / "bundled"

CATEGORIES = (
    "messaging",
    "social",
    "video",
    "music",
    "maps",
    "email",
    "news",
    "shopping",
    "games",
    "photos",
    "browser",
    "weather",
    "banking",
    "fitness",
    "food delivery",
    "ride hailing",
    "podcasts",
    "books",
    "calendar",
    "notes",
    "travel",
    "dating",
    "education",
    "health",
    "sports",
    "finance",
    "productivity",
    "camera",
    "translate",
    "parenting",
)
USERS = 6000
MEAN_EVENTS = 8  # events per user (geometric)
LOYALTY = 0.6  # share of a user's events in their favourite category
EMPTY_SHARE = 0.002  # rows whose category is missing
WEEK_START = datetime(2024, 3, 4)

CENTRE = (40.7500, -73.9700)  # (latitude, longitude) of the fictional city's centre
POINTS = 100_000
NEIGHBOURHOODS = 40
ROAD_SHARE = 0.15


def app_events(rng: np.random.Generator) -> list[tuple[str, str, str]]:
    popularity = 1.0 / np.arange(1, len(CATEGORIES) + 1) ** 1.1
    popularity /= popularity.sum()
    rows = []
    for user in range(USERS):
        favourite = rng.choice(len(CATEGORIES), p=popularity)
        n = rng.geometric(1 / MEAN_EVENTS)
        picks = np.where(rng.random(n) < LOYALTY, favourite, rng.choice(len(CATEGORIES), size=n, p=popularity))
        seconds = np.sort(rng.integers(0, 7 * 24 * 3600, n))
        uid = f"u{user:05d}"
        for cat, sec in zip(picks, seconds):
            value = "" if rng.random() < EMPTY_SHARE else CATEGORIES[cat]
            rows.append((uid, value, (WEEK_START + timedelta(seconds=int(sec))).isoformat()))
    rows.sort(key=lambda r: r[2])  # a log is in time order: "first" is then the first event
    return rows


def city_points(rng: np.random.Generator) -> np.ndarray:
    """(POINTS, 2) latitude, longitude; scales in degrees (about 0.01 deg = 1 km)."""
    lat0, lon0 = CENTRE
    centres = np.column_stack([lat0 + rng.normal(0, 0.05, NEIGHBOURHOODS), lon0 + rng.normal(0, 0.065, NEIGHBOURHOODS)])
    sizes = rng.pareto(1.2, NEIGHBOURHOODS) + 1
    spread = 0.003 + 0.004 * rng.random(NEIGHBOURHOODS)
    n_road = int(POINTS * ROAD_SHARE)
    n_centre = int(POINTS * 0.25)
    n_hoods = POINTS - n_road - n_centre
    hood = rng.choice(NEIGHBOURHOODS, size=n_hoods, p=sizes / sizes.sum())
    hoods = centres[hood] + rng.normal(0, 1, (n_hoods, 2)) * spread[hood, None]
    downtown = np.array(CENTRE) + rng.normal(0, 1, (n_centre, 2)) * (0.008, 0.006)
    a, b = rng.integers(0, NEIGHBOURHOODS, (2, n_road))
    t = rng.random(n_road)[:, None]
    roads = centres[a] * (1 - t) + centres[b] * t + rng.normal(0, 0.0008, (n_road, 2))
    points = np.concatenate([downtown, hoods, roads])
    return points[rng.permutation(len(points))]


def main():
    rng = np.random.default_rng(SEED)
    events = app_events(rng)
    with open(OUT_DIR / "app_events.csv", "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(("user_id", "app_category", "event_time"))
        out.writerows(events)
    points = city_points(rng)
    with open(OUT_DIR / "city_points.csv", "w", newline="", encoding="utf-8") as fh:
        fh.write("latitude,longitude\n")
        fh.writelines(f"{lat:.5f},{lon:.5f}\n" for lat, lon in points)
    users = len({u for u, _, _ in events})
    empty = sum(1 for _, c, _ in events if c == "")
    print(
        f"app_events.csv: {len(events):,} events of {users:,} users, {len(CATEGORIES)} categories, "
        f"{empty} empty, {(OUT_DIR / 'app_events.csv').stat().st_size / 2**20:.2f} MB"
    )
    print(
        f"city_points.csv: {len(points):,} points, latitude {points[:, 0].min():.4f} to {points[:, 0].max():.4f}, "
        f"longitude {points[:, 1].min():.4f} to {points[:, 1].max():.4f}, "
        f"{(OUT_DIR / 'city_points.csv').stat().st_size / 2**20:.2f} MB"
    )


if __name__ == "__main__":
    main()
