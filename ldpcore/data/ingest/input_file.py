"""One input file (CSV, TSV or Parquet; a path or an upload's bytes) opened in a private DuckDB
database with a memory limit: its format told from its first bytes, its columns and their types, and the
SQL that reads a column as text, as a number or as its missing-value status. DuckDB's errors become one
InputError naming the file."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ldpcore.data.ingest.report import EMPTY, NULL
from ldpcore.errors import InputError, check_whole, require

if TYPE_CHECKING:
    import duckdb

MEMORY_LIMIT = "1GB"  # DuckDB's working memory per call; larger aggregates spill to disk
_HEAD_BYTES = 65536  # bytes sniffed to tell Parquet, text and binary apart
_TAB_SUFFIXES = (".tsv", ".tab")
_NUMERIC_TYPES = re.compile(
    r"^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|"
    r"UHUGEINT|FLOAT|DOUBLE|DECIMAL(\(\d+,\s*\d+\))?)$"
)


def ident(name: str) -> str:
    """A name quoted as an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


class InputFile:
    """One input file opened in a private DuckDB database with a memory limit; the file is
    reached through a link in a private folder (so its name is never read as a glob pattern)
    that also holds the database and its spill files, all removed on exit."""

    def __init__(self, source, name, delimiter, memory_limit, threads):
        self.source, self.delimiter = source, delimiter
        self.memory_limit, self.threads = memory_limit, threads
        self.bound: dict = {}
        self.con: duckdb.DuckDBPyConnection | None = None
        if isinstance(source, (bytes, bytearray)):
            self.name = name or "upload"
        else:
            self.name = name or Path(source).name

    def __enter__(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="ldpcore-ingest-")
        try:
            return self._open(Path(self._tmp.name))
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *exc):
        if self.con is not None:
            self.con.close()
        self._tmp.cleanup()

    def _open(self, tmp: Path):
        suffix = Path(self.name).suffix.lower()
        self.path = tmp / f"input{suffix}"
        if isinstance(self.source, (bytes, bytearray)):
            self.path.write_bytes(self.source)
        else:
            real = Path(self.source)
            require(real.is_file(), f"no such file: {real}.")
            os.symlink(real.resolve(), self.path)
        with open(self.path, "rb") as fh:
            head = fh.read(_HEAD_BYTES)
        require(len(head) > 0, f"{self.name} is empty.")
        if head[:4] == b"PAR1":
            self.format = "parquet"
        else:
            require(suffix not in (".parquet", ".pq"), f"{self.name} is not a Parquet file (it lacks the PAR1 header).")
            self._check_text(head)
            self.format = (
                "tsv" if self.delimiter == "\t" or (self.delimiter is None and suffix in _TAB_SUFFIXES) else "csv"
            )
            self.delimiter = self.delimiter or ("\t" if self.format == "tsv" else ",")
            require(
                len(self.delimiter) == 1 and self.delimiter not in '"\r\n',
                f"the delimiter must be one character other than a quote or a line break (got {self.delimiter!r}).",
            )
        import duckdb  # imported on first use, as in _run: it costs a few tenths of a second

        self.con = duckdb.connect(str(tmp / "work.duckdb"))
        for setting, value in (
            ("memory_limit", self.memory_limit),
            ("temp_directory", str(tmp / "spill")),
            ("autoinstall_known_extensions", False),
            ("autoload_known_extensions", False),
            # type_pushdown moves a cast of a CSV column into the reader, where
            # TRY_CAST's NULL becomes an error; top_n_window_elimination turns
            # distinct:K's row_number() <= K into list aggregates that cannot
            # spill (out of memory at 1 GB on 30 M events of 3 M users)
            ("disabled_optimizers", "type_pushdown,top_n_window_elimination"),
        ):
            self.con.execute(f"SET {setting} = $v", {"v": value})
        if self.threads is not None:
            self.con.execute("SET threads = $v", {"v": check_whole(self.threads, 1, "threads")})
        described = self.query(f"DESCRIBE SELECT * FROM {self.scan()}")
        self.types = {row[0]: row[1] for row in described}
        return self

    def _check_text(self, head: bytes):
        require(b"\x00" not in head, f"{self.name} holds binary data, not CSV or TSV text or Parquet.")
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as exc:
            # a character cut in two by the end of the sniffed bytes is no error
            if not (len(head) == _HEAD_BYTES and exc.start >= len(head) - 3):
                raise InputError(f"{self.name} is not UTF-8 text (CSV or TSV) or Parquet.") from None

    def scan(self, row_order: bool = False) -> str:
        """The FROM clause reading every column (CSV as text); row_order adds _rn, the
        row's position in the file."""
        if self.format == "parquet":
            opts = ", file_row_number = true" if row_order else ""
            reader = f"read_parquet($path{opts})"
            return f"(SELECT *{', file_row_number AS _rn' if row_order else ''} FROM {reader})"
        reader = (
            "read_csv($path, all_varchar = true, header = true, delim = $delim, quote = '\"', "
            "escape = '\"', comment = '', skip = 0, store_rejects = true, ignore_errors = true)"
        )
        return f"(SELECT *{', row_number() OVER () AS _rn' if row_order else ''} FROM {reader})"

    def params(self, sql: str, extra: dict | None = None) -> dict:
        """The parameters a query uses ($name outside quotes), from the file's, the bound
        ones (bind) and extra: DuckDB refuses parameters a query does not use."""
        every = {"path": str(self.path), "delim": self.delimiter} | self.bound | (extra or {})
        used = set(re.findall(r"\$(\w+)", re.sub(r"\"(?:[^\"]|\"\")*\"|'(?:[^']|'')*'", "", sql)))
        return {k: v for k, v in every.items() if k in used}

    def bind(self, **params):
        """Parameters every later query may use (bin edges, ranges)."""
        self.bound.update(params)

    def fetch(self, sql: str, params: dict | None = None) -> dict:
        """A query's columns as numpy arrays."""
        return self._run(sql, params).fetchnumpy()

    def query(self, sql: str, params: dict | None = None) -> list:
        """A query's rows."""
        return self._run(sql, params).fetchall()

    def execute(self, sql: str, params: dict | None = None):
        self._run(sql, params)

    def _run(self, sql: str, params: dict | None):
        """Run a query on the file; DuckDB's errors become one InputError naming the file."""
        import duckdb

        if self.con is None:
            raise InputError(f"{self.name} is not open for queries.")
        try:
            return self.con.execute(sql, self.params(sql, params))
        except duckdb.OutOfMemoryException:
            raise InputError(
                f"aggregating {self.name} needs more than the memory limit {self.memory_limit}; raise memory_limit."
            ) from None
        except duckdb.Error as exc:
            first = str(exc).strip().splitlines()[0].replace(str(self.path), self.name)
            raise InputError(f"{self.name} could not be read as {self.format.upper()} ({first}).") from None

    def check_rows(self):
        """InputError for the first malformed CSV line DuckDB set aside, if any."""
        if self.format == "parquet":
            return
        bad = self.query("SELECT line, error_type, error_message FROM reject_errors ORDER BY line LIMIT 1")
        if bad:
            line, kind, message = bad[0]
            found = re.search(r"Found: (\d+)", message)
            if kind in ("MISSING COLUMNS", "TOO MANY COLUMNS") and found:
                raise InputError(
                    f"{self.name}, line {line}: {found.group(1)} fields where the header has "
                    f"{len(self.types)} (delimiter {self.delimiter!r})."
                )
            raise InputError(f"{self.name}, line {line}: {message.rstrip('.')}.")

    def column(self, column: str, what: str = "column") -> str:
        """The SQL name of a column, or an InputError naming the file's columns (and the
        delimiter it seems to use when the whole header came out as one column)."""
        require(isinstance(column, str) and column != "", f"the {what} must be a column name (got {column!r}).")
        if column in self.types:
            return ident(column)
        names = list(self.types)
        if self.format != "parquet" and len(names) == 1:
            for other in (";", "\t", "|", ","):
                if other != self.delimiter and other in names[0]:
                    raise InputError(
                        f"{self.name} has one column {names[0]!r}, which looks separated by "
                        f"{other!r} rather than {self.delimiter!r}; give the delimiter {other!r}."
                    )
        raise InputError(f"{self.name} has no {what} {column!r}; its columns are {', '.join(names)}.")

    def text(self, column: str) -> str:
        """A column as trimmed text."""
        ref = self.column(column)
        require(
            not re.search(r"[\[\]]|STRUCT|MAP|UNION", self.types[column]),
            f"{self.name}: column {column!r} holds {self.types[column]} values, not single values.",
        )
        return f"trim(CAST({ref} AS VARCHAR))"

    def number(self, column: str, what: str = "column") -> str:
        """A column as DOUBLE (NULL where the text is not a number: see report.NOT_NUMBER)."""
        ref, kind = self.column(column, what), self.types[column]
        if kind == "VARCHAR":
            return f"TRY_CAST(trim({ref}) AS DOUBLE)"
        require(
            _NUMERIC_TYPES.match(kind) is not None, f"{self.name}: column {column!r} holds {kind} values, not numbers."
        )
        return f"CAST({ref} AS DOUBLE)"

    def missing(self, column: str) -> str:
        """SQL: the status of a missing value of a column (report.NULL / report.EMPTY), else NULL."""
        ref = self.column(column)
        if self.format != "parquet":
            return f"CASE WHEN {ref} IS NULL OR trim({ref}) = '' THEN {EMPTY} END"
        if self.types[column] == "VARCHAR":
            return f"CASE WHEN {ref} IS NULL THEN {NULL} WHEN trim({ref}) = '' THEN {EMPTY} END"
        return f"CASE WHEN {ref} IS NULL THEN {NULL} END"
