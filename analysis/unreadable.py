"""An input file the tables cannot read — a corrupt line inside a raw or judged file, a manifest that is not JSON, a
data file with a bad line —: a problem of the data, not of the code. analysis.run says it as the table's error in one
line naming the file and line, with no traceback, and builds the other tables; the report and the item browser
name it where the run would be."""
from __future__ import annotations

from data.jsonl import DataError


class Unreadable(ValueError):
    """An input file that cannot be read; the message is one line, `file[:line]: problem`. A ValueError, as the
    readers raised before, so that a caller that takes an unreadable file as absent still does."""


# What a data problem is raised as: a result file or manifest (Unreadable), a data file (DataError, from data.jsonl)
DATA_PROBLEMS: tuple[type[Exception], ...] = (Unreadable, DataError)


def one_line(e: BaseException) -> str:
    """What went wrong, on one line: a data problem as its message (the first of several, counting the others),
    anything else as its type and message."""
    if isinstance(e, DataError) and e.problems:
        more = len(e.problems) - 1
        return e.problems[0] + (f" (and {more} more problem(s) in the file)" if more else "")
    text = " ".join(str(e).split())
    return text if isinstance(e, DATA_PROBLEMS) else f"{type(e).__name__}: {text}"
