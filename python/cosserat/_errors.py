"""Exceptions and status codes."""

import enum


class Status(enum.IntEnum):
    """``cr_status`` (base.h): 0 ok, > 0 recoverable, < 0 fatal."""

    OK = 0
    NOT_CONVERGED = 1
    SINGULAR = 2
    NONFINITE = 3
    INTERRUPTED = 4
    BAD_INPUT = -1
    NO_MEMORY = -2
    IO = -3
    UNSUPPORTED = -4

    @property
    def description(self):
        """The library's short text for the code (``cr_status_string``), as in summary.json."""
        return _DESCRIPTIONS[self]

    def __str__(self):
        return self.description

    @property
    def recoverable(self):
        """True for codes > 0: the solve stopped, but a last converged state exists."""
        return self > 0

    @classmethod
    def of(cls, code):
        """The member for ``code``, or the plain int for a code this package does not know."""
        try:
            return cls(code)
        except ValueError:
            return code


_DESCRIPTIONS = {
    Status.OK: "ok",
    Status.NOT_CONVERGED: "not converged",
    Status.SINGULAR: "singular linear system",
    Status.NONFINITE: "non-finite value",
    Status.INTERRUPTED: "interrupted",
    Status.BAD_INPUT: "bad input",
    Status.NO_MEMORY: "out of memory",
    Status.IO: "input/output error",
    Status.UNSUPPORTED: "unsupported",
}


class CosseratError(Exception):
    """An error reported by the cosserat library (or by this package on its behalf).

    ``str(e)`` and ``e.message`` are the library's message, which for bad input starts with
    the JSON path of the offending value (``"rod.material.E: must be > 0, got -1"``).

    Attributes:
        message: the message text.
        status:  a :class:`Status` (``Status.BAD_INPUT``, ``Status.NOT_CONVERGED``, ...), or
                 ``None`` when the error did not come from a library status.
        result:  the :class:`~cosserat.Result` of a run that failed in the solver (only set by
                 ``run(..., check=True)``), else ``None``.
    """

    def __init__(self, message, status=None, result=None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.result = result
