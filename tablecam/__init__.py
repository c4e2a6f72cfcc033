"""The tablecam app: the command line, log files, and (later) the live loop, audio output and reports.

Nothing imports this package; it imports ``engine``, ``vision``, ``models`` and ``calibration``.
"""

__version__ = "0.1.0"
