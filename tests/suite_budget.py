"""The falsifier budget of every test that checks the whole catalogue.

The report test, the engine's coverage test and the paper checkers at a hundredth of report's budget
use this one budget and seed 0, and the session's verify cache (``conftest.session_verify_cache``):
whichever runs first checks each step, the others read its verdicts (the cache is keyed on the
step's content, its checker's code and these options).
"""

SUITE_TRIALS = 1000
