"""Read bprint trace files: trace_printk() for user space, in Python.

A trace file (a program's own BPRINT_FILE, live or not, or what
`bprint record` wrote) opens with bprint.open().  Its records come one at a
time, as Event objects, or all at once as columns: numpy arrays filled in
C, or a pandas DataFrame.  Every value is read from the record's binary
arguments, typed by its call site's format (the names and types that
`bprint formats` lists), never parsed back from text.

    import bprint

    with bprint.open("trace.dat") as t:
        print(t.info.command, t.info.complete, t.info.why)
        for ev in t.events(site="func:handle_*", where="status>=500"):
            print(ev.ts, ev.tid, ev.fields["dur_us"], ev.message)
        cols = t.to_numpy(fields=["dur_us"])       # dict of numpy arrays
        df = t.to_pandas(where="dur_us>1000", dates=True)

Filters mean what the bprint command's mean: site= takes what `bprint
report -s` takes (an id, file:GLOB, line:FILE:N, func:GLOB, fmt:GLOB or a
function glob; a list for several), where= what --where takes (FIELD OP
VALUE terms joined by ',', OP one of == != < <= > >= ~; a list for
several, every one must hold, as --where given more than once).

Strings come as str; bytes that are not UTF-8 decode with surrogateescape
(s.encode("utf-8", "surrogateescape") gives the bytes back).

Errors: bprint.Error (an OSError) with the words the command prints: a
missing, foreign or damaged file.  A file that is incomplete (a program
still running or killed, a stream bprint record did not finish) opens and
reads; Trace.info says what it lacks.
"""

from bprint import _bprint
from bprint._bprint import Event, Events, Field, Info, Site, Thread

__all__ = ["open", "Trace", "Error", "Event", "Events", "Info", "Site", "Field", "Thread"]


class Error(OSError):
    """A trace file that could not be read, or was damaged.

    str(e) is what the bprint command prints after "bprint: " (the file,
    then why); e.filename is the file, e.strerror why.  e.exit_status is the
    command's exit status for it (2: missing, foreign or damaged; 3: a read
    error or out of memory).  When reading met damage after reading what it
    could, e.partial is what it read (the columns, the threads), else None.
    """

    exit_status = 2
    partial = None

    def __str__(self):
        if self.filename is not None:
            return "%s: %s" % (self.filename, self.strerror)
        return str(self.strerror)


_bprint._set_error(Error)


class Trace(_bprint.Trace):
    """A trace file opened by bprint.open() (a context manager).

    info      the file's own account: bprint.Info (pid, command, clock,
              mode, start date, complete, why, lacking, written, lost, ...)
    sites     the call sites: bprint.Site (id, file, line, func, format,
              fields: bprint.Field name and type, as bprint formats lists)
    threads   the threads' counters, as bprint stats lists them
    for ev in trace, trace.events(site=, where=)
              the records, oldest first: bprint.Event (ts, tid, cpu, site,
              comm, lost_before, fields, message)
    to_numpy(), to_pandas()
              the records as columns
    """

    def to_numpy(self, *, site=None, where=None, fields=None, message=False,
                 by_site=False, dates=False):
        """The records as columns: a dict of numpy arrays, one row a record.

        ts (int64, ns of the trace clock), tid (int32), cpu (int32), site
        (uint32), then one array per field: int64 for signed integers,
        uint64 for unsigned ones and pointers, float64 for floats, object
        (str) for strings and chars.  Filled in C, straight from the
        records' binary arguments.

        site, where   filters, as bprint report's -s and --where, on top of
                      bprint.open()'s (both hold)
        fields        names (or argN aliases) of the fields wanted, each a
                      field of at least one chosen site; default: every
                      field of the chosen sites
        message       add 'message', the formatted text (object)
        dates         add 'date' (datetime64[ns], UTC) from the recorded wall
                      clock, as bprint report --date computes it
        by_site       a dict by site id of such dicts, each with its own
                      site's fields only

        A field that some rows lack (their site has no such field) comes as
        a numpy.ma.MaskedArray, masked there.  A field named like a record
        column (ts, tid, cpu, site, message, date) gets '_' appended.  A
        damaged file raises bprint.Error after reading what it could, with
        the columns as its partial attribute.
        """
        cols = _bprint.Trace.to_numpy(self, site=site, where=where, fields=fields,
                                      message=message, by_site=by_site)
        if dates:
            offset = self._date_offset()
            for table in (cols.values() if by_site else (cols,)):
                table["date"] = (table["ts"] + offset).view("datetime64[ns]")
        return cols

    def to_pandas(self, *, site=None, where=None, fields=None, message=False,
                  by_site=False, dates=False):
        """The records as a pandas DataFrame (pandas is imported here only).

        The columns of to_numpy(), with the same arguments.  A field that some
        rows lack is NaN there for floats, None for strings, and <NA> for
        integers (pandas' nullable Int64 and UInt64, so that no integer loses
        a bit to a float).  dates=True adds 'date', datetime64[ns, UTC].
        by_site=True gives a dict by site id of frames, each with its own
        site's fields.
        """
        import pandas

        cols = self.to_numpy(site=site, where=where, fields=fields, message=message,
                             by_site=by_site)
        offset = self._date_offset() if dates else None
        if by_site:
            return {sid: _frame(pandas, table, offset) for sid, table in cols.items()}
        return _frame(pandas, cols, offset)

    def _date_offset(self):
        offset = self._wallclock_offset()
        if offset is None:
            raise Error(None, "the %s clock gives no dates" % self.info.clock,
                        self.info.path)
        return offset


def _frame(pandas, cols, offset):
    import numpy

    data = {}
    for name, col in cols.items():
        if numpy.ma.isMaskedArray(col):
            col = _unmasked(pandas, numpy, col)
        data[name] = col
        if name == "ts" and offset is not None:
            data["date"] = pandas.to_datetime(col + offset, unit="ns", utc=True)
    return pandas.DataFrame(data, copy=False)


def _unmasked(pandas, numpy, col):
    mask = numpy.ma.getmaskarray(col)
    values = col.data
    if values.dtype == numpy.int64:
        return pandas.arrays.IntegerArray(values, mask)
    if values.dtype == numpy.uint64:
        return pandas.arrays.IntegerArray(values, mask)
    return values  # float64 holds NaN, object None, where masked


def open(path, where=None, site=None):
    """Open a trace file: a Trace (a context manager).

    path    a trace file: what a program left with BPRINT_FILE (live, or not
            closed if it was killed) or what `bprint record` wrote; for a
            wrapper's record, FILE (its Info.siblings are the FILE.PID of
            the other programs)
    where   keep only the records that satisfy it, as bprint report --where:
            FIELD OP VALUE terms joined by ',' (all must hold); or a list
            of them (every one must hold, as --where given more than once)
    site    keep only the records of these sites, as bprint report -s: an
            id, file:GLOB, line:FILE:N, func:GLOB, fmt:GLOB, or a function
            glob; or a list of them

    Raises bprint.Error for a missing, unreadable or foreign file (the
    command's words: "trace.dat: not a bprint trace file"), ValueError for
    a filter the file's sites cannot satisfy (a site pattern that matches
    none, a field no chosen site has) unless the file is damaged (then
    bprint.Error, exit_status 2: the sites may be in the damaged part).
    """
    return Trace(path, where=where, site=site)

