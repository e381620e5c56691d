"""The data layer: every input becomes a Histogram (counts over a domain, an optional 2-D shape for
images, value labels).

histogram      the Histogram and its compact Labels
sources        the bytes of a path, bytes or upload, read in blocks within the file size limit
images         images (Pillow) -> a Histogram of luminance per pixel
histogram_csv  histogram CSVs (one count, or value,count, per line)
datasets       the bundled datasets (DATASETS, load_dataset) and the seeded heavy-hitter data
loaders        which loader reads a file (load_upload, load_path)
ingest         raw records, numeric records, location points and value,count tables through DuckDB
numeric_table  tables of numeric and categorical attributes for the numeric mechanisms
scaling        numeric data in [lo, hi] mapped onto [-1, 1]
The bundled files ship in ldpcore/data/bundled (package data).
"""

from ldpcore.data.datasets import DATASETS, load_dataset
from ldpcore.data.histogram import Histogram
from ldpcore.data.histogram_csv import load_csv
from ldpcore.data.images import load_image
from ldpcore.data.loaders import load_path, load_upload

__all__ = ["DATASETS", "Histogram", "load_csv", "load_dataset", "load_image", "load_path", "load_upload"]
