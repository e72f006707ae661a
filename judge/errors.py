"""The error of answer checking itself, apart from judge/match.py so that judge/mathverify.py, which match.py
imports only when an answer needs it, raises it without importing match.py."""
from __future__ import annotations


class MatchError(Exception):
    """Answer checking itself failed (math-verify raised): a judge error, never a wrong answer."""
