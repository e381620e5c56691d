"""The data layer: every input becomes a Histogram (counts over a domain, an optional 2-D shape for
images, value labels).

loaders        images (Pillow), histogram CSVs, the bundled datasets (DATASETS, load_dataset)
ingest         raw records, numeric records, location points and value,count tables through DuckDB
numeric_table  tables of numeric and categorical attributes for the numeric mechanisms
scaling        numeric data in [lo, hi] mapped onto [-1, 1]
The bundled files ship in ldpcore/data/bundled (package data).
"""

from ldpcore.data.loaders import DATASETS, Histogram, load_csv, load_dataset, load_image, load_path, load_upload

__all__ = ["DATASETS", "Histogram", "load_csv", "load_dataset", "load_image", "load_path", "load_upload"]
