"""The ``hbmlint`` command, as the console script and ``python -m hbmlint`` run it: hbmlint.cli's
command, imported with the cyclic collector off and ended without Python's teardown."""

from __future__ import annotations

import gc
import os
import sys


def main() -> None:
    """The ``hbmlint`` command: hbmlint.cli's, with its modules imported while Python's cyclic
    collector is off. Importing them (click, dataclasses, hbmlint's own) makes only objects that
    live as long as the process, which the collector, on at import, walked some twenty times to
    find them alive: about a twentieth of a one-file lint. The command's start-up pause
    (cli._pause_for_start_up) then goes on from here, and freezes them before the first file.
    A caller that had the collector off or had frozen objects itself keeps exactly that.
    When the command is done the process ends at once (see _end_now)."""
    if gc.isenabled() and not gc.get_freeze_count():
        gc.disable()
        try:
            from . import cli
        except BaseException:
            gc.enable()
            raise
        cli.start_up_paused_here()
    else:
        from . import cli
    try:
        cli.main()
    except SystemExit as done:
        _end_now(done.code)
        raise


def _end_now(code: object) -> None:
    """End the process with ``code`` without tearing the interpreter down: Python would free,
    one by one, every object a run made (its modules, rules, catalogs and every file's
    results), about a hundredth of a 1,000-file lint, only to give the memory back. The
    output is flushed first; the command has closed every file it wrote and every worker
    process it started. Nothing changes (Python ends the process as usual) where the exit
    carries a message, where flushing fails (a closed pipe: Python reports it), or under a
    tracer or profiler (coverage.py saves its data as the process exits)."""
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return
    monitoring = getattr(sys, "monitoring", None)  # Python 3.12's tools (coverage's sysmon)
    if monitoring is not None and any(monitoring.get_tool(tool) is not None for tool in range(6)):
        return
    if code is None:
        status = 0
    elif isinstance(code, int) and not isinstance(code, bool):
        status = code
    else:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        return
    os._exit(status)


if __name__ == "__main__":
    main()
