"""hbmlint: lint LLM serving manifests for their GPU memory (HBM) budget."""

from __future__ import annotations

__version__ = "0.1.0"


def main() -> None:
    """The ``hbmlint`` command: hbmlint.cli's, with its modules imported while Python's cyclic
    collector is off. Importing them (click, dataclasses, hbmlint's own) makes only objects that
    live as long as the process, which the collector, on at import, walked some twenty times to
    find them alive: about a twentieth of a one-file lint. The command's start-up pause
    (cli._pause_for_start_up) then goes on from here, and freezes them before the first file.
    A caller that had the collector off or had frozen objects itself keeps exactly that."""
    import gc

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
    cli.main()
